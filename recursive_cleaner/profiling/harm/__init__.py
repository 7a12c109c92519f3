"""The judge of harm that does not trust the reading: what a change does to a value's content, and
whether the field's evidence asks exactly that.

The kind's judge (``improvement``) asks "does the value conform now?" under the kind the goals were
read as; when the reading is wrong, the right values are the "wrong" ones and rewriting them looks
like a fix. This judge needs no kind. It compares the old and new text of each changed value and
names what the change did to its content (``changes``; ``CHANGES`` lists them):

- ``sign``: a minus sign no sign of the old value stands for (``'ORD-5000'`` -> -5000, ``'(12)'``
  -> -12);
- ``zeros``: a code's leading zeros dropped (``'01067'`` -> 1067; three digits or more);
- ``labels`` / ``words``: letter words dropped. A *label* is a word the field's own data writes
  around many other values (a unit, a currency, ``ORD``, ``ISBN``); any other word is content
  (``'1252 AD'`` -> 1252 drops ``AD``);
- ``spelling``: a word replaced by a near spelling (``typo`` when the new word is one many values
  hold and the old one is not: a typo mended, always allowed); ``added``: letters the old value
  does not hold; ``repair``: a value outside the field's usual shape put into it by replacing a few
  characters in place (``'1?0%'`` -> ``'100%'``), allowed with the changes it makes;
- ``trimmed``: digits dropped or added, the one value's digits inside the other's in order
  (``'52k'`` -> 52000, a timestamp cut to its date); ``digits``: digits changed or reordered;
  ``converted``: digits changed where the old value carries a unit or words (a conversion may do
  it). A change to the same number is none of these;
- ``filled``: a blank given a value; ``erased``: a value blanked (``unknown``: a value with no digit
  that is no placeholder, blanked);
- ``spacing``: only the whitespace around or between the same words changed. Free text (half the
  values or more write three words or more: the ``Portrait``) keeps its whitespace as part of the
  value unless an example respaces, or a clause binds a kind that trims; elsewhere padding is none;
- ``merge``: two values the data holds often each (a small vocabulary's) made one;
- ``reshape``: a value of the field's usual shape (at least half its values: the ``Portrait``) or
  of a shape the goals write as a target, given another shape (``'2025-01-06'`` ->
  ``'2025-01-06T00:00:00'``, ``'Aisha'`` -> ``'aisha'``, ``'OUT'`` -> ``'out'``).

A change is harm unless the field's ``Licence`` — made from the spec's evidence, never from a guess
— allows each of its changes: the kind a clause binds it to (each kind declares what its writing
does, ``Kind.changes``), an example pair making the same changes, an allowed-values list the new
value is on and the old one is not, a conversion or a stated key whose clause names the field, or a
near spelling of a value many rows hold. A usual shape is rewritten only where an example's input
has it, the goals write a target shape other than it, their list says the value is wrong, or a
conversion or a key writes the field; a coded field's zeros only where an example drops them. A
wrong reading may cost recall, never a right value.
"""

from .changes import CHANGES, changes
from .licence import HarmCheck, Licence, harm, harm_check, written_shapes
from .portrait import Portrait, portrait

__all__ = [
    "CHANGES",
    "Portrait",
    "Licence",
    "HarmCheck",
    "portrait",
    "changes",
    "harm",
    "written_shapes",
    "harm_check",
]
