"""The spec is the one reading of the goals (issue 29, point 5): the cross-row plan and what is
written follow ``cleaning_spec.json`` — its stated keys, the fields stated with them, its protected
fields — never the raw goals.

End to end with the shared fake backend: a product list whose goals ask to mend misspelled product
names with the spelling most lines of the same SKU have, and to leave the names as they are
otherwise.
"""

from __future__ import annotations

import json
import textwrap

from recursive_cleaner import DataCleaner
from recursive_cleaner.apply.local import apply_file
from tests.csv_files import read_csv, write_csv
from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply

GOALS = (
    "Prices are plain numbers. Mend misspelled product names with the spelling most lines of the "
    "same SKU have. "
    "Leave the product names as they are otherwise. Don't touch the warehouse."
)
NAMES = {
    "S1": "Blue Mug",
    "S2": "Red Kettle",
    "S3": "Green Lamp",
    "S4": "Oak Chair",
    "S5": "Steel Pan",
    "S6": "Wool Rug",
}
HOUSES = {"S1": "north", "S2": "south", "S3": "east", "S4": "north", "S5": "south", "S6": "east"}
PLAN = (
    '<cross_row_plan><cross_row_step kind="majority" key="sku" fields="product_name, warehouse"/>'
    "</cross_row_plan>"
)
UPPER_NAMES = textwrap.dedent('''\
    def shout_names(record):
        """Product names in capitals."""
        record = dict(record)
        record["product_name"] = str(record.get("product_name", "")).upper()
        return record''')


def product_rows(n: int = 48) -> list[dict]:
    rows = []
    for i in range(n):
        sku = f"S{1 + i % 6}"
        rows.append(
            {
                "sku": sku,
                "product_name": NAMES[sku],
                "warehouse": HOUSES[sku],
                "price": ("14.90", "7", "2.50", "9.99")[i % 4],
            }
        )
    # misspellings of their SKU's name
    rows[6]["product_name"], rows[13]["product_name"] = "Blue Mgu", "Red Ketle"
    rows[18]["warehouse"] = "nrth"  # a warehouse typo the goals say not to touch
    rows[9]["price"] = "7.5 EUR"
    return rows


def _run(folder, data, **options):
    folder.mkdir()
    opened = []

    def handler(prompt: str) -> str:
        if "RULES ACROSS ROWS" in prompt:
            return PLAN
        # the open pass: a function that writes the names
        if "fixes the field" not in prompt and not opened:
            opened.append(prompt)
            return make_reply("shout_names", UPPER_NAMES)
        return CLEAN_REPLY

    output = folder / "cleaning_functions.py"
    result = DataCleaner(
        FakeBackend(handler),
        str(data),
        instructions=GOALS,
        chunk_size=24,
        holdout_ratio=0.0,
        output_path=str(output),
        state_file=str(folder / "state.json"),
        sleep=lambda s: None,
        # the functions leave nothing unexplained: ask the open pass anyway (issue 45)
        call_every_chunk=True,
        **options,
    ).run()
    out = folder / "out.csv"
    apply_file(str(output), str(data), str(out), workers=1)
    return result, read_csv(out)


def _changed(cleaned, rows, field):
    return [i for i, (c, r) in enumerate(zip(cleaned, rows)) if c[field] != r[field]]


def test_a_stated_repair_of_a_protected_field_is_made_and_an_edited_spec_changes_the_plan(tmp_path):
    rows = product_rows()
    data = tmp_path / "products.csv"
    write_csv(data, rows)

    result, cleaned = _run(tmp_path / "goals", data)
    written = json.loads(open(result.spec_path, encoding="utf-8").read())
    assert result.spec_path.endswith(".spec.json")
    assert written["keys"] == [
        {"key": "sku", "fields": ["product_name"], "words": GOALS.split(". ")[1] + "."}
    ]
    assert written["fields"]["product_name"]["kind"] == "as_is"  # protected from functions ...
    assert (
        any(name == "shout_names" for name, _ in result.rejected)
        and "shout_names" not in result.code
    )
    majority = [s for s in result.cross_row if s["kind"] == "majority"]
    # ... but the stated repair
    assert [(s["key"], s["fields"]) for s in majority] == [(["sku"], ["product_name"])]
    assert _changed(cleaned, rows, "product_name") == [6, 13]
    assert cleaned[6]["product_name"] == "Blue Mug" and cleaned[13]["product_name"] == "Red Kettle"
    assert _changed(cleaned, rows, "warehouse") == []  # the model's plan asked for it: refused
    assert any(
        "warehouse" in why for name, why in result.rejected if name.startswith("<cross_row_step")
    )

    # The user edits cleaning_spec.json: the SKU's stated field is now the warehouse, and the price
    # is left alone.
    written["keys"] = [{"key": "sku", "fields": ["warehouse"]}]
    written["fields"]["price"]["kind"] = "as_is"
    edited = tmp_path / "edited_spec.json"
    edited.write_text(json.dumps(written))
    result, cleaned = _run(tmp_path / "edited", data, spec=str(edited))
    majority = [s for s in result.cross_row if s["kind"] == "majority"]
    assert [(s["key"], s["fields"]) for s in majority] == [(["sku"], ["warehouse"])]
    assert _changed(cleaned, rows, "warehouse") == [18] and cleaned[18]["warehouse"] == "north"
    # no longer stated with the key: protected everywhere
    assert _changed(cleaned, rows, "product_name") == []
    assert _changed(cleaned, rows, "price") == []


def test_without_a_stated_key_a_majority_never_writes_a_protected_field(tmp_path):
    rows = product_rows()
    data = tmp_path / "products.csv"
    write_csv(data, rows)
    spec = {
        "fields": {
            "sku": {"kind": None},
            "product_name": {"kind": "as_is"},
            "warehouse": {"kind": "as_is"},
            "price": {"kind": "number"},
        },
        "keys": [],
    }
    result, cleaned = _run(tmp_path / "run", data, spec=spec)
    assert not [s for s in result.cross_row if s["kind"] == "majority"]
    for field in ("product_name", "warehouse"):
        assert _changed(cleaned, rows, field) == [], field
