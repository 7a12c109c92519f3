"""The reply parsers on degenerate replies: a bounded amount read, linear patterns, no exception but
ParseError.

No timings: the cap is checked by what the parser looks at, the single pass by counting the
searches the tag finder makes (a counting wrapper around its patterns).
"""

from __future__ import annotations

import ast
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recursive_cleaner.errors import ParseError
from recursive_cleaner.model import response
from recursive_cleaner.model.response import (
    MAX_REPLY_CHARS,
    check_module_shape,
    parse_issues,
    parse_response,
    tag_text,
)
from recursive_cleaner.model.spec_draft import parse_spec_draft
from recursive_cleaner.optimizer.reply import parse_consolidation
from tests.fakes import make_reply

DEGENERATE = [
    "<code>",
    "<issue>",
    "<code ",
    "``` ",
    '<issue a="',
    "<cleaning_analysis>",
    "</code>",
    "<name>",
]


class _CountingPattern:
    """Wraps a compiled pattern: records (length of the text, start position) of every search."""

    def __init__(self, pattern: re.Pattern, calls: list) -> None:
        self.pattern, self.calls = pattern, calls

    def search(self, text: str, pos: int = 0):
        self.calls.append((self.pattern.pattern, len(text), pos))
        return self.pattern.search(text, pos)


@pytest.fixture
def searches(monkeypatch):
    """Every search the tag finder makes, as (pattern, length of the text searched, start)."""
    calls: list = []
    real = response._tag_patterns

    def counting(name: str):
        opening, closing = real(name)
        return _CountingPattern(opening, calls), _CountingPattern(closing, calls)

    monkeypatch.setattr(response, "_tag_patterns", counting)
    return calls


@pytest.mark.parametrize("unit", DEGENERATE)
def test_a_ten_megabyte_degenerate_reply_is_read_only_up_to_the_cap(unit, searches):
    reply = unit * (10_000_000 // len(unit))
    try:
        parse_response(reply)
    except ParseError as exc:
        assert len(exc.reply) <= MAX_REPLY_CHARS  # the error carries only what was read
    assert searches, "the tag finder was used"
    assert max(length for _, length, _ in searches) <= MAX_REPLY_CHARS


def test_finding_a_tag_is_one_search_for_the_opening_and_one_after_it_for_the_closing(searches):
    # quadratic for a lazy "<code>(.*?)</code>" pattern: every opening scans to the end
    text = "<code>" * 20_000
    assert tag_text(text, "code") == text[len("<code>") :]  # unclosed: runs to the end
    assert len(searches) == 2
    (opening, _, first), (closing, _, second) = searches
    assert first == 0 and second == len("<code>") and "/" in closing and "/" not in opening


def test_issues_are_found_in_one_pass_whatever_their_number(searches):
    text = "".join(f'<issue id="{i}">problem {i}</issue>' for i in range(2000)) + "<issue>" * 2000
    issues = parse_issues(text)
    assert len(issues) == 2000 and issues[-1].description == "problem 1999"
    starts = [pos for _, _, pos in searches]
    # every search starts where the previous one ended: no position read twice
    assert starts == sorted(starts)
    # one opening + one closing per issue, then the unclosed one and its closing
    assert len(searches) == 2 * 2000 + 2


def test_the_tag_finder_keeps_the_old_readings():
    assert tag_text("a <Code lang='py'>x</code > b", "code") == "x"
    # a longer tag name is another tag; unclosed runs on
    assert tag_text("<codex>y</codex><code>z", "code") == "z"
    assert tag_text("<code-x>q</code>", "code") == "q"  # the old \b reading: '-' ends the name
    assert tag_text("nothing here", "code") is None
    # the first closing after the first opening
    assert tag_text("<issue>a<issue>b</issue>", "issue") == "a<issue>b"
    assert [
        i.description for i in parse_issues('<issue id="7" solved="yes">one\n two</issue><issue>x')
    ] == ["one two"]


def test_a_long_issue_description_and_id_are_clipped_and_cleaned():
    [issue] = parse_issues(f'<issue id="{"i" * 5000}">\x1b]0;title\x07{"d" * 50_000}</issue>')
    assert (
        len(issue.id) <= 40 and len(issue.description) <= 1000 and "\x1b" not in issue.description
    )


@pytest.mark.parametrize(
    "code",
    [
        "def f(record):\n    return " + "-" * 100_000 + "1",  # MemoryError in the parser
        "def f(record):\n    return " + "a+" * 50_000 + "1",  # RecursionError building the tree
        "x = " + "-" * 5000 + "1\ndef f(record):\n    return record",
        "def f(record):\n    return record\x00",
    ],
    ids=["unary-chain", "sum-chain", "module-level-chain", "null-byte"],
)
def test_code_too_deep_or_broken_for_the_parser_is_a_parse_error(code):
    with pytest.raises(ParseError):
        parse_response(make_reply("f", code))


def test_code_nested_past_the_limit_is_refused_before_later_stages_recurse_over_it():
    deep = "def f(record):\n    return " + "record+" * 300 + "record"  # parses; 300 levels of BinOp
    with pytest.raises(ParseError, match="levels deep"):
        parse_response(make_reply("f", deep))


def test_a_module_statement_too_deep_to_unparse_is_still_described():
    # ast.unparse recurses too deep
    tree = ast.parse("x = " + "a+" * 600 + "1\ndef f(record):\n    return record")
    [problem] = check_module_shape(tree, "f")
    assert problem.startswith("Module-level statement")


def test_an_invalid_name_is_quoted_clipped():
    with pytest.raises(ParseError) as caught:
        parse_response(make_reply("x" * 10_000 + "-", "def f(record):\n    return record"))
    assert len(str(caught.value)) < 300


@pytest.mark.parametrize(
    "reply",
    [
        "<consolidation_result><self_assessment><complete>true</complete></"
        "self_assessment><merged_functions>" + "<function a" * 200_000,
        "<consolidation_result>" + "<function " * 200_000,
    ],
    ids=["openings-without-end", "bare-openings"],
)
def test_the_consolidation_parser_reads_degenerate_replies(reply):
    try:
        merges, _ = parse_consolidation(reply)
    except ParseError:
        return
    assert merges == []


def test_the_spec_draft_parser_cuts_long_lines_before_its_pattern():
    assert parse_spec_draft("a" + " " * 1_000_000 + "b", ["a"]) == {}
    assert parse_spec_draft("status: enum: A | B\n" + " " * 500_000, ["status"]) == {
        "status": ("enum", ("A", "B"))
    }


@settings(max_examples=60)
@given(
    st.lists(
        st.sampled_from(
            DEGENERATE
            + [
                "x",
                " ",
                "\n",
                "```python\n",
                "def f(r):\n    return r\n",
                "</cleaning_analysis>",
                "<chunk_status>clean</chunk_status>",
            ]
        ),
        max_size=200,
    )
)
def test_any_mix_of_tag_fragments_gives_a_result_or_a_parse_error(parts):
    try:
        parsed = parse_response("".join(parts))
    except ParseError:
        return
    assert parsed.status in ("clean", "needs_more_work")
