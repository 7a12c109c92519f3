"""Table tests for the response parser on real-looking messy replies, plus a property test."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recursive_cleaner.errors import ParseError
from recursive_cleaner.model.response import parse_response
from tests.fakes import make_reply

PHONE = """import re

def normalize_phones(record):
    record = dict(record)
    digits = re.sub(r"\\D", "", str(record.get("phone", "")))
    if len(digits) == 10:
        record["phone"] = "+1" + digits
    return record"""


def test_well_formed_reply():
    r = parse_response(
        make_reply(
            "normalize_phones",
            PHONE,
            docstring="Phones to E.164.",
            issues=[("phones", False), ("emails", True)],
        )
    )
    assert r.name == "normalize_phones"
    assert r.code.startswith("import re")
    assert r.docstring == "Phones to E.164."
    assert [(i.description, i.solved) for i in r.issues] == [("phones", False), ("emails", True)]
    assert r.status == "needs_more_work"
    assert r["name"] == "normalize_phones"  # dict-style access as in the design


def test_clean_reply_has_no_function():
    r = parse_response(make_reply(status="clean", issues=[("all good", True)]))
    assert r.status == "clean" and not r.has_function


GOOD_VARIANTS = {
    "prose around the xml": "Sure! Here is my analysis:\n\n"
    + make_reply("normalize_phones", PHONE)
    + "\n\nHope it helps.",
    "no code fence": make_reply("normalize_phones", PHONE, fence=False),
    "missing closing root tag": make_reply("normalize_phones", PHONE).replace(
        "</cleaning_analysis>", ""
    ),
    "cut after code (stop sequence)": make_reply("normalize_phones", PHONE).split("</code>")[0],
    "py fence tag": make_reply("normalize_phones", PHONE).replace("```python", "```py"),
    "fence without language": make_reply("normalize_phones", PHONE).replace("```python", "```"),
    "indented code": make_reply(
        "normalize_phones", "\n".join("        " + l for l in PHONE.splitlines())
    ),
    "CRLF line endings": make_reply("normalize_phones", PHONE).replace("\n", "\r\n"),
    "CDATA": make_reply("normalize_phones", PHONE, fence=False)
    .replace("<code>\n", "<code><![CDATA[\n")
    .replace("\n    </code>", "]]></code>"),
    "uppercase tags": make_reply("normalize_phones", PHONE)
    .replace("<name>", "<NAME>")
    .replace("</name>", "</NAME>"),
}


@pytest.mark.parametrize("reply", GOOD_VARIANTS.values(), ids=GOOD_VARIANTS.keys())
def test_tolerated_noise(reply):
    r = parse_response(reply)
    assert r.name == "normalize_phones"
    assert "def normalize_phones(record):" in r.code
    compile(r.code, "<test>", "exec")


def test_ampersand_and_less_than_in_code():
    code = (
        'def fix_amp(record):\n    if len(record) < 3 and "&" in str(record):\n        return {k: '
        "v for k, v in record.items()}\n    return record"
    )
    r = parse_response(make_reply("fix_amp", code))
    assert "< 3" in r.code and '"&"' in r.code


def test_xml_escaped_code_is_unescaped():
    code = (
        "def fix_lt(record):\n    if len(record) &lt; 3:\n        return record\n    return record"
    )
    r = parse_response(make_reply("fix_lt", code))
    assert "len(record) < 3" in r.code


@pytest.mark.parametrize(
    "status,expected",
    [
        ("clean", "clean"),
        ("CLEAN", "clean"),
        (" clean. ", "clean"),
        ("clean|needs_more_work", "needs_more_work"),
        ("needs_more_work", "needs_more_work"),
        ("done", "needs_more_work"),
        ("", "needs_more_work"),
    ],
)
def test_status_normalisation(status, expected):
    reply = make_reply(status=status)
    if expected == "clean":
        assert parse_response(reply).status == "clean"
    else:  # not clean and no function: the model is told to do one or the other
        with pytest.raises(ParseError, match="no function"):
            parse_response(reply)


def test_function_given_with_clean_status_counts_as_needing_work():
    r = parse_response(make_reply("normalize_phones", PHONE, status="clean"))
    assert r.has_function and r.status == "needs_more_work"


def test_missing_name_tag_uses_single_function():
    reply = make_reply("normalize_phones", PHONE).replace("<name>normalize_phones</name>", "")
    assert parse_response(reply).name == "normalize_phones"


def test_docstring_falls_back_to_code_docstring():
    code = 'def f(record):\n    """Strip names."""\n    return record'
    reply = make_reply("f", code).replace("<docstring>Fixes an issue.</docstring>", "")
    assert parse_response(reply).docstring == "Strip names."


BAD = {
    "empty": ("", "empty"),
    "only prose": ("I think the data looks fine overall.", "No <cleaning_analysis>"),
    "syntax error": (make_reply("f", "def f(record)\n    return record"), "not valid Python"),
    "name mismatch": (
        make_reply("normalize_phones", "def other(record):\n    return record"),
        "named `normalize_phones`",
    ),
    "main block": (
        make_reply(
            "f", 'def f(record):\n    return record\n\nif __name__ == "__main__":\n    f({})'
        ),
        "__main__",
    ),
    "top-level call": (
        make_reply("f", "def f(record):\n    return record\n\nprint(f({}))"),
        "Module-level statement",
    ),
    "top-level loop": (
        make_reply("f", "def f(record):\n    return record\n\nfor i in range(3):\n    pass"),
        "Module-level",
    ),
    "bad identifier": (
        make_reply("normalize phones!", "def x(record):\n    return record"),
        "identifier",
    ),
    "placeholder only": (make_reply("f", "pass"), "no function"),
    "needs work without function": (make_reply(status="needs_more_work"), "no function"),
}


@pytest.mark.parametrize("reply,message", BAD.values(), ids=BAD.keys())
def test_unusable_replies_raise_parse_error_with_feedback(reply, message):
    with pytest.raises(ParseError, match=message) as info:
        parse_response(reply)
    assert info.value.reply == reply


def test_constants_and_helpers_allowed_at_module_level():
    code = (
        'import re\nVALID = ("active", "pending")\n\ndef _helper(x):\n    return x\n\ndef '
        "f(record):\n    return record"
    )
    assert parse_response(make_reply("f", code)).name == "f"


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_text_gives_result_or_parse_error(text):
    try:
        parse_response(text)
    except ParseError:
        pass


_pieces = st.sampled_from(
    [
        "<cleaning_analysis>",
        "</cleaning_analysis>",
        "<issues_detected>",
        "</issues_detected>",
        '<issue id="1" solved="false">',
        "</issue>",
        "<function_to_generate>",
        "</function_to_generate>",
        "<name>",
        "</name>",
        "f",
        "<code>",
        "</code>",
        "```python\n",
        "```",
        "def f(record):\n    return record\n",
        "<chunk_status>",
        "</chunk_status>",
        "clean",
        "needs_more_work",
        "&",
        "<",
        "\n",
        "<![CDATA[",
        "]]>",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_pieces, max_size=30).map("".join))
def test_any_tag_soup_gives_result_or_parse_error(text):
    try:
        r = parse_response(text)
    except ParseError:
        return
    assert r.status in ("clean", "needs_more_work")
    if r.has_function:
        compile(r.code, "<soup>", "exec")
