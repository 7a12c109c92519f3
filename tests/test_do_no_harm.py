"""End to end with the fake backend: a shop export whose goals protect the postcode and the
currency.

The scripted model strips the zeros from the postcodes (refused) and plans majority steps keyed on
the postcode for the country and the currency (the currency part refused); the toolkit's number
conversion of the prices is accepted. Applied to the whole file, no protected cell changes.
"""

from __future__ import annotations

import textwrap

from recursive_cleaner import DataCleaner
from recursive_cleaner.apply.local import apply_file
from tests.csv_files import read_csv, write_csv
from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply

GOALS = (
    "Prices are plain numbers with a decimal point. Fix the typos in the country names.\n"
    "Keep the postcode as it is, it is a code and not a number: a postcode like 01907 stays "
    "01907.\n"
    "Don't touch the currency."
)
POSTCODES = ("01907", "02134", "00501", "10115", "20095", "80331")
COUNTRY = {
    "01907": "Germany",
    "02134": "France",
    "00501": "Italy",
    "10115": "Germany",
    "20095": "Netherlands",
    "80331": "Austria",
}
STRIP_ZEROS = textwrap.dedent('''\
    def fix_postcode(record):
        """Postcodes as numbers."""
        record = dict(record)
        try:
            record["postcode"] = str(int(record["postcode"]))
        except (KeyError, TypeError, ValueError):
            pass
        return record''')
PLAN = (
    '<cross_row_plan><cross_row_step kind="majority" key="postcode" fields="country, currency"/>'
    "</cross_row_plan>"
)


def shop_rows(n: int = 48) -> list[dict]:
    rows = []
    for i in range(n):
        code = POSTCODES[i % len(POSTCODES)]
        price = ("14.90", "7", "7.0", "2.50")[i % 4]
        rows.append(
            {
                "order_id": f"O{i:03d}",
                "postcode": code,
                "country": COUNTRY[code],
                "currency": "EUR" if i % 5 else "CHF",
                "price": price,
            }
        )
    rows[3]["price"], rows[17]["price"], rows[30]["price"] = "12.5 EUR", "€ 3.20", "9.99 eur"
    # variants of the postcode's usual country
    rows[6]["country"], rows[18]["country"] = "Germnay", "germany "
    rows[12]["country"] = "France"  # another valid country: not a typo of Germany
    return rows


def test_protected_fields_keep_every_cell_and_the_prices_are_converted(tmp_path):
    rows = shop_rows()
    data = tmp_path / "orders.csv"
    write_csv(data, rows)
    asked = []

    def handler(prompt: str) -> str:
        if "RULES ACROSS ROWS" in prompt:
            return PLAN
        asked.append(prompt)
        return make_reply("fix_postcode", STRIP_ZEROS) if len(asked) <= 2 else CLEAN_REPLY

    output = tmp_path / "cleaning_functions.py"
    result = DataCleaner(
        FakeBackend(handler),
        str(data),
        instructions=GOALS,
        chunk_size=24,
        holdout_ratio=0.0,
        output_path=str(output),
        sleep=lambda s: None,
        call_every_chunk=True,  # the open pass, though nothing is left unexplained (issue 45)
    ).run()
    spec = result.spec["fields"]
    assert spec["postcode"]["kind"] == "as_is" and spec["currency"]["kind"] == "as_is"
    assert spec["postcode"]["examples"] == [["01907", "01907"]]
    assert "fix_postcode" not in result.functions and "fix_postcode" not in result.code
    assert any(name == "fix_postcode" for name, _ in result.rejected)
    assert [s["fields"] for s in result.cross_row if s["kind"] == "majority"] == [["country"]]
    assert all(s.get("variants_only") for s in result.cross_row if s["kind"] == "majority")
    assert any(
        "currency" in why for name, why in result.rejected if name.startswith("<cross_row_step")
    )

    out = tmp_path / "out.csv"
    apply_file(str(output), str(data), str(out), workers=1)
    cleaned = read_csv(out)
    assert len(cleaned) == len(rows)
    for field in ("postcode", "currency"):
        assert sum(c[field] != r[field] for c, r in zip(cleaned, rows)) == 0, field
    # the toolkit's number conversion
    assert {c["price"] for c in cleaned} >= {"14.9", "12.5", "3.2", "9.99"}
    assert (
        cleaned[6]["country"] == cleaned[18]["country"] == "Germany"
        and cleaned[12]["country"] == "France"
    )
