"""Cross-row steps do no harm: no protected field written, kept shapes kept, unstated keys mend only
variants."""

from __future__ import annotations

import pytest

from recursive_cleaner.crossrow.plan import choose_steps, discover_steps, validate_steps
from recursive_cleaner.crossrow.near import two_values
from recursive_cleaner.crossrow.steps import CrossRowStep, apply_steps, fit, is_variant
from recursive_cleaner.crossrow.values import moves_a_field_in

POSTCODES = ("01907", "02134", "00501", "10115", "20095", "80331")
COUNTRY = {"01907": "DE", "02134": "FR", "00501": "IT", "10115": "DE", "20095": "NL", "80331": "AT"}
CURRENCY = {
    "01907": "EUR",
    "02134": "EUR",
    "00501": "EUR",
    "10115": "CHF",
    "20095": "EUR",
    "80331": "EUR",
}


def shop_rows(n: int = 72) -> list[dict]:
    """Orders: each postcode has a usual country and currency; customers (and their e-mails) differ
    within one."""
    rows = []
    for i in range(n):
        code = POSTCODES[i % len(POSTCODES)]
        rows.append(
            {
                "order_id": f"O{i:03d}",
                "postcode": code,
                "country": COUNTRY[code],
                "currency": CURRENCY[code],
                "status": "paid" if i % 4 else "open",
                "email": f"c{i % 12}@shop.example",
            }
        )
    return rows


def test_no_step_writes_a_protected_field_even_on_a_stated_key():
    rows = shop_rows()
    rows[0]["currency"], rows[6]["currency"] = "USD", "eur"  # 01907: a stray value and a variant
    step = CrossRowStep("majority", key=("postcode",), fields=("country", "currency"))
    kept, refused = validate_steps(
        [step], rows, stated=["postcode"], protected={"currency"}, frozen={"currency"}
    )
    # nothing left to fix in country
    assert [s.fields for s in kept] == [("country",)] or kept == []
    assert any("currency" in why and "leave" in why for _, why in refused)
    after = apply_steps(kept, rows)
    assert [r["currency"] for r in after] == [r["currency"] for r in rows]


def test_a_step_the_model_proposes_is_held_to_the_same_rules():
    rows = shop_rows()
    rows[0]["country"], rows[12]["country"], rows[18]["country"] = "de", "FR", " DE"
    rows[0]["currency"] = "USD"
    reply = (
        '<cross_row_plan><cross_row_step kind="majority" key="postcode" fields="country, '
        'currency"/>'
        '<cross_row_step kind="vocabulary" fields="currency"/></cross_row_plan>'
    )
    chosen, problems = choose_steps(reply, list(rows[0]))
    assert not problems and len(chosen) == 2
    kept, refused = validate_steps(chosen, rows, protected={"currency"}, frozen={"currency"})
    assert [(s.key, s.fields, s.variants_only) for s in kept] == [
        (("postcode",), ("country",), True)
    ]
    assert len(refused) == 2 and all("currency" in why for _, why in refused)
    after = apply_steps(kept, rows)
    assert after[0]["country"] == "DE" and after[18]["country"] == "DE"  # variants of DE mended
    assert after[12]["country"] == "FR"  # another valid country is never put in place of this one
    assert after[0]["currency"] == "USD"  # left alone, as the goals say


def test_a_majority_on_an_unstated_key_does_not_give_one_customer_another_customers_email():
    rows = [
        {
            "postcode": code,
            "status": status,
            "email": f"{code}-{status}@shop.example" if n < 6 else f"o{n}@mail.example",
        }
        # 6 orders of one customer, 2 others
        for code in POSTCODES
        for status in ("paid", "open")
        for n in range(8)
    ]
    step = CrossRowStep("majority", key=("postcode", "status"), fields=("email",))
    before = [r["email"] for r in rows]
    kept, refused = validate_steps([step], rows)
    assert kept == [] and "changes nothing" in refused[0][1]
    unguarded = apply_steps([step], rows)  # what the step did before: other customers' addresses
    assert sum(a != r["email"] for a, r in zip(before, unguarded)) > 0


def test_a_stated_key_keeps_todays_behaviour():
    rows = shop_rows()
    rows[12]["country"] = "FR"  # 01907 is DE in every other row
    kept, _ = validate_steps(
        [CrossRowStep("majority", key=("postcode",), fields=("country",))],
        rows,
        stated=["postcode"],
    )
    assert kept and not kept[0].variants_only
    assert apply_steps(kept, rows)[12]["country"] == "DE"


def test_a_protected_key_is_read_never_repaired():
    rows = shop_rows()
    # a rare key one edit from 80331: a majority step would mend the key
    rows[5]["postcode"] = "8O331"
    rows[5]["country"] = "AT"
    step = CrossRowStep("majority", key=("postcode",), fields=("country",), min_count=2)
    assert apply_steps([step], rows)[5]["postcode"] == "80331"  # unguarded: the key is rewritten
    kept, _ = validate_steps(
        [step], rows, stated=["postcode"], protected={"postcode"}, frozen={"postcode"}
    )
    guarded = (
        kept[0]
        if kept
        else CrossRowStep(
            "majority", key=("postcode",), fields=("country",), protected=("postcode",)
        )
    )
    assert guarded.protected == ("postcode",)
    assert apply_steps([guarded], rows)[5]["postcode"] == "8O331"


def test_discovery_may_key_on_a_protected_field_but_never_writes_it():
    rows = shop_rows()
    rows[1]["postcode"] = "0213A"
    steps = discover_steps(rows, stated=["postcode"], protected={"postcode", "currency"})
    assert steps and all("postcode" not in s.fields and "currency" not in s.fields for s in steps)
    assert any(s.key == ("postcode",) for s in steps)  # reading a field is not writing it
    assert not any(s.kind == "vocabulary" and "postcode" in s.fields for s in steps)
    unprotected = discover_steps(rows, stated=["postcode"])
    assert any(s.kind == "vocabulary" and "postcode" in s.fields for s in unprotected)


def test_a_protected_field_does_not_change_which_key_discovery_chooses():
    rows = [
        {
            "brewery_id": str(i % 8),
            "brewery_name": f"Brewery {i % 8}",
            "city": f"City{i % 8}",
            "state": "CA" if i % 8 < 4 else "OR",
        }
        for i in range(96)
    ]
    rows[3]["city"], rows[11]["state"] = "City3 CA", ""
    plain = [(s.key, s.fields) for s in discover_steps(rows) if s.kind == "majority"]
    guarded = [
        (s.key, s.fields)
        for s in discover_steps(rows, protected={"brewery_name"})
        if s.kind == "majority"
    ]
    assert [k for k, _ in guarded] == [k for k, _ in plain]
    assert all("brewery_name" not in f for _, f in guarded) and any(
        "brewery_name" in f for _, f in plain
    )
    kept, _ = validate_steps(
        discover_steps(rows, protected={"brewery_name"}), rows, protected={"brewery_name"}
    )
    fixed = apply_steps(kept, rows)
    # a stray suffix and a blank: mended
    assert fixed[3]["city"] == "City3" and fixed[11]["state"] == "CA"


def test_a_dedup_step_on_a_protected_key_is_fine():
    rows = [{"code": f"{i:05d}", "name": f"n{i}"} for i in range(40)] + [
        {"code": "00003", "name": "n3"}
    ]
    kept, _ = validate_steps(
        [CrossRowStep("dedup", key=("code",))], rows, protected={"code"}, frozen={"code"}
    )
    assert len(kept) == 1 and len(apply_steps(kept, rows)) == 40


def test_values_of_a_kept_shape_are_never_replaced():
    rows = [
        {"k": "a", "zip": "01907"},
        {"k": "a", "zip": "01907"},
        {"k": "a", "zip": "1907"},
        {"k": "b", "zip": "02134"},
        {"k": "b", "zip": "02134"},
        {"k": "b", "zip": "2134"},
    ]
    rows += [dict(r) for r in rows]
    step = CrossRowStep("majority", key=("k",), fields=("zip",), keep=(("zip", "9"),))
    assert [r["zip"] for r in apply_steps([step], rows)] == [r["zip"] for r in rows]
    kept, _ = validate_steps(
        [CrossRowStep("majority", key=("k",), fields=("zip",))],
        rows,
        stated=["k"],
        kept={"zip": {"9"}},
    )
    assert kept == [] or [r["zip"] for r in apply_steps(kept, rows)] == [r["zip"] for r in rows]


@pytest.mark.parametrize(
    "old, new, variant",
    [
        ("de", "DE", True),
        (" Germany ", "germany", True),
        ("Germnay", "Germany", True),
        ("DK", "DE", False),
        ("FR", "DE", False),
        ("anna.k@shop.example", "bernd@mail.example", False),
        ("ana@shop.example", "anna@shop.example", True),
        ("birminghxm", "birmingham", True),
        (12, "12", True),
        ("Spain", "Italy", False),
        ("Mooresville NC", "Mooresville", True),
        ("Bend OR", "Bend", True),
        ("East Germany", "Germany", False),
        ("New York", "York", False),
        ("San Francisco", "San Francisco Bay Area", False),
        ("5.2", "5.3", False),
        ("AB-1234", "AB-1235", False),
        ("2023-01-05", "2023-01-06", False),
        ("5,2 mmol/L", "5,3 mmol/L", False),
        ("3563x", "35630", True),
    ],
)
def test_is_variant_is_case_spacing_or_a_few_edits_for_the_length(old, new, variant):
    assert is_variant(old, new) is variant


def test_guards_are_saved_with_the_step_and_old_steps_write_the_same_dict():
    plain = CrossRowStep("majority", key=("k",), fields=("v",))
    assert set(plain.to_dict()) == {
        "kind",
        "key",
        "fields",
        "normalize",
        "min_share",
        "min_count",
        "max_distance",
        "ratio",
    }
    guarded = CrossRowStep(
        "majority",
        key=("k",),
        fields=("v",),
        variants_only=True,
        protected=("k",),
        keep=(("v", "9"),),
    )
    d = guarded.to_dict()
    assert d["variants_only"] is True and d["protected"] == ["k"] and d["keep"] == [["v", "9"]]
    assert CrossRowStep.from_dict(d) == guarded
    assert "variant" in guarded.describe()
    with pytest.raises(ValueError):
        CrossRowStep("vocabulary", fields=("v",), variants_only=True)


def test_a_fitted_step_counts_only_the_values_it_wrote():
    rows = shop_rows()
    rows[0]["country"], rows[12]["country"] = "de", "FR"
    step = CrossRowStep("majority", key=("postcode",), fields=("country",), variants_only=True)
    fitted = fit([step], rows)
    out = [fitted.transform(r) for r in rows]
    assert fitted.changed[(0, "country")] == 1 and out[12]["country"] == "FR"


def test_a_vocabulary_step_never_replaces_one_measurement_or_code_by_another():
    """A digit is data, not a spelling: rare readings and codes stay; a letter where a digit belongs
    is mended."""
    rows = (
        [{"value": "5.3", "code": "AB-1234", "zip": "35630"}] * 30
        + [{"value": "5.2", "code": "AB-1235", "zip": "3563x"}]
        + [{"value": "15.3", "code": "AB-1334", "zip": "35630"}]
    )
    fitted = fit([CrossRowStep("vocabulary", fields=("value", "code", "zip"))], rows)
    out = [fitted.transform(r) for r in rows]
    assert [r["value"] for r in out[-2:]] == ["5.2", "15.3"]
    assert [r["code"] for r in out[-2:]] == ["AB-1235", "AB-1334"]
    assert out[-2]["zip"] == "35630"


@pytest.mark.parametrize(
    "a, b, two",
    [
        ("12", "120", True),
        ("-1.5", "1.5", True),
        ("12,5", "12,6", True),
        ("1e3", "1e4", True),
        ("Room 101", "Room 102", True),
        ("10:15", "10:16", True),
        ("1000x", "10001", False),
        ("Boston", "Bostn", False),
        ("ab", "ab", False),
    ],
)
def test_two_values_are_numbers_or_texts_that_differ_only_in_digits(a, b, two):
    assert two_values(a, b) is two


def test_a_winner_that_holds_another_columns_value_is_not_spread():
    # two rows where the city swallowed the state, one row split right: the majority "Mooresville
    # NC" is a merged value, not a fuller one; a missing legal suffix ("A/S") is still filled in
    rows = [
        {"id": "504", "city": "Mooresville NC", "state": "", "maker": "Hansen & Søn A/S"},
        {"id": "504", "city": "Mooresville NC", "state": "", "maker": "Hansen & Søn A/S"},
        {"id": "504", "city": "Mooresville", "state": "NC", "maker": "Hansen & Søn"},
    ]
    step = CrossRowStep(
        "majority", key=("id",), fields=("city", "maker"), min_share=0.5, variants_only=True
    )
    out = apply_steps([step], [dict(r) for r in rows])
    assert out[2]["city"] == "Mooresville" and out[2]["maker"] == "Hansen & Søn A/S"
    assert moves_a_field_in("Mooresville", "Mooresville NC", rows[2], "city")
    assert not moves_a_field_in("Mooresville NC", "Mooresville", rows[0], "city")
    assert not moves_a_field_in("Hansen & Søn", "Hansen & Søn A/S", rows[2], "maker")


def test_the_fields_a_plan_may_offer_to_write_follow_validate_steps_rules():
    from recursive_cleaner.crossrow.validate import writable_fields

    fields = ["provider", "city", "name", "notes"]
    # name protected, notes not asked about: with no stated key neither may be written
    assert writable_fields(fields, {}, ["name"], ["notes"]) == ["provider", "city"]
    # a stated key unlocks fields not asked about, and a protected field it names
    assert writable_fields(fields, {"provider": ["name"]}, ["name"], ["notes"]) == fields
    assert writable_fields(fields, {"provider": ["city"]}, ["name"], ["notes"]) == [
        "provider",
        "city",
        "notes",
    ]


def test_a_key_the_goals_do_not_state_is_never_repaired():
    # a rare key two edits from a full group's (another container, right as it is): a step on a
    # key the goals do not state (variants_only) leaves the key, and the row, as they are
    rows = shop_rows()
    rows[5]["postcode"] = "8O331"
    rows[5]["country"] = "AT"
    stated = CrossRowStep("majority", key=("postcode",), fields=("country",), min_count=2)
    assert apply_steps([stated], rows)[5]["postcode"] == "80331"  # a stated key is repaired
    unstated = CrossRowStep(
        "majority", key=("postcode",), fields=("country",), min_count=2, variants_only=True
    )
    assert apply_steps([unstated], rows)[5]["postcode"] == "8O331"


def test_a_step_refused_for_one_fields_harm_is_kept_for_its_other_fields():
    from recursive_cleaner.profiling.harm import HarmCheck, portrait

    rows = [
        {"k": str(i % 4), "country": "Germany", "firm": f"Firm {i % 4}"} for i in range(40)
    ]
    rows[1]["country"] = "Germnay"  # a typo of a value many rows hold: the vote mends it
    rows[2]["firm"] = "Other Works"  # another firm's words: no vote may write them over
    step = CrossRowStep("majority", key=("k",), fields=("country", "firm"), min_count=2)
    content = HarmCheck({f: portrait([r[f] for r in rows]) for f in ("country", "firm")}, {})
    kept, refused = validate_steps([step], rows, stated=["k"], content=content)
    assert [s.fields for s in kept] == [("country",)]
    assert any("kept without firm" in why for _, why in refused)
