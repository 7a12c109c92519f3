"""Isolation between records, part two: what the code's module-level names hold is noted once the
code is loaded and put back before every record (``make_state_reset``).

Standard library only (see ``_child.py``); nothing runs on import.
"""

from __future__ import annotations

import gc

__all__ = ["make_state_reset"]


def make_state_reset(namespace: dict, protected: set, permits: list, template):
    """reset() puts back, before each record, what the code's module-level names held at load.

    The names themselves, and in place every list, dict, set and bytearray they reach (through
    tuples, containers, the defaults of the code's functions, their ``__dict__`` and closure
    cells), and, when the code reaches the decimal module, the decimal context (as ``template``,
    taken before the code ran). Returns (reset, None), or (None, why) when a module-level
    name holds an object whose state cannot be put back (an iterator, an instance): the code is
    then refused. Runs after the code is loaded, reading functions' defaults under a permit.
    """
    import decimal
    import types
    import re

    atoms = frozenset(
        {type(None), bool, int, float, complex, str, bytes, type(...), re.Pattern, range}
    )
    module_type, function_type, cell_type = types.ModuleType, types.FunctionType, types.CellType
    tname = type.__dict__["__name__"].__get__
    snapshot = dict(namespace)
    lists, dicts, sets, arrays, cells, seen = [], [], [], [], [], set()
    decimal_ids, reaches_decimal = {id(v) for v in vars(decimal).values()}, False
    todo = [(name, value) for name, value in snapshot.items() if name != "__builtins__"]
    was_enabled = gc.isenabled()
    gc.disable()  # no untrusted __del__ runs while the permit is open
    permits[2] = 1
    try:
        while todo:
            where, obj = todo.pop()
            kind = type(obj)
            if kind in atoms or id(obj) in seen:
                continue
            seen.add(id(obj))
            if kind is tuple or kind is frozenset:
                todo.extend((where, item) for item in obj)
            elif kind is list:
                lists.append((obj, list(obj)))
                todo.extend((where, item) for item in obj)
            elif kind is dict:
                dicts.append((obj, dict(obj)))
                todo.extend((where, item) for pair in obj.items() for item in pair)
            elif kind is set:
                sets.append((obj, frozenset(obj)))
                todo.extend((where, item) for item in obj)
            elif kind is bytearray:
                arrays.append((obj, bytes(obj)))
            elif issubclass(kind, module_type) or id(obj) in protected:
                reaches_decimal = reaches_decimal or obj is decimal or id(obj) in decimal_ids
                continue
            elif kind is function_type and obj.__globals__ is namespace:
                todo.extend((where, item) for item in obj.__defaults__ or ())
                kwdefaults = obj.__kwdefaults__
                if kwdefaults is not None:
                    todo.append((where, kwdefaults))
                todo.append((where, obj.__dict__))
                for cell in obj.__closure__ or ():
                    try:
                        value = cell.cell_contents
                    except ValueError:  # empty cell
                        continue
                    cells.append((cell, value))
                    todo.append((where, value))
            else:
                return None, (
                    "ValueError: the module-level name "
                    + repr(where)[:80]
                    + " holds a "
                    + tname(kind)[:60]
                    + " object, whose state would carry from one record to the next; create it "
                    "inside the function"
                )
    finally:
        permits[2] = 0
        if was_enabled:
            gc.enable()
    whole = slice(None)
    ns_clear, ns_update = namespace.clear, namespace.update
    list_set, list_clear, dict_clear, dict_update, set_clear, set_update = (
        list.__setitem__,
        list.clear,
        dict.clear,
        dict.update,
        set.clear,
        set.update,
    )
    array_set, cell_set = bytearray.__setitem__, cell_type.cell_contents.__set__

    def refill_list(obj, items) -> None:
        list_set(obj, whole, items)

    def refill_dict(obj, items) -> None:
        dict_clear(obj)
        dict_update(obj, items)

    def refill_set(obj, items) -> None:
        set_clear(obj)
        set_update(obj, items)

    def refill_array(obj, data) -> None:
        array_set(obj, whole, data)

    # (refill, container, its contents at load), and the containers that were empty (cleared)
    refills, empties = [], []
    for refill, clear, pairs in (
        (refill_list, list_clear, lists),
        (refill_dict, dict_clear, dicts),
        (refill_set, set_clear, sets),
        (refill_array, None, arrays),
    ):
        for obj, items in pairs:
            if items or clear is None:
                refills.append((refill, obj, items))
            else:
                empties.append((clear, obj))
    refills += [(cell_set, cell, value) for cell, value in cells]
    setcontext, context_copy = decimal.setcontext, decimal.Context.copy
    names, count, list_, len_ = list(snapshot), len(snapshot), list, len

    def reset() -> None:
        ns_update(snapshot)  # values put back in place: the globals' lookup caches stay valid
        if len_(namespace) != count or list_(namespace) != names:
            ns_clear()
            ns_update(snapshot)
        for refill, obj, items in refills:
            refill(obj, items)
        for clear, obj in empties:
            if obj:
                clear(obj)
        if reaches_decimal:  # only the decimal module changes the decimal context
            setcontext(context_copy(template))

    return reset, None
