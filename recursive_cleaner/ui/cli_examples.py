"""What every command's ``--help`` ends with: copy-paste examples on the bundled sample (a clone's
``test_cases/``), run from the clone's folder (the formats a help lists: ``cli_common``).

tests/ui/test_help_examples.py parses the examples out of each ``--help`` and runs every one.
"""

from __future__ import annotations

from typing import Any

from .cli_common import PROG

__all__ = ["EXAMPLES", "examples_epilog", "add_examples"]

SAMPLE = "test_cases/crm_customers.jsonl"
GOALS = "@test_cases/crm_instructions.txt"
PRODUCTS = "test_cases/ecommerce_products.csv"
_GEN = f"{PROG} generate {SAMPLE} -i {GOALS}"

EXAMPLES: dict[str, tuple[str, ...]] = {
    "": (
        f"{PROG} plan {SAMPLE} -i {GOALS}",
        _GEN,
        f"{PROG} apply cleaning_functions.py {SAMPLE} -o cleaned.jsonl",
    ),
    "generate": (
        _GEN,
        f"{_GEN} --state crm.state.json",
        f'{PROG} generate {PRODUCTS} -i "price: a number; category in title case" '
        "-o products_functions.py -b ollama:qwen2.5-coder:7b",
    ),
    "analyze": (
        f"{PROG} analyze {SAMPLE} -i {GOALS}",
        f"{PROG} analyze {PRODUCTS} --report product_issues.md",
    ),
    "plan": (
        f"{PROG} plan {SAMPLE} -i {GOALS}",
        f'{PROG} plan {PRODUCTS} -i "price: a number; leave the sku alone" -o products.py',
    ),
    "resume": (f"{PROG} resume crm.state.json",),
    "apply": (
        f"{PROG} apply cleaning_functions.py {SAMPLE} -o cleaned.jsonl",
        f"{PROG} apply cleaning_functions.py {SAMPLE} -o cleaned.csv --reject-file rejects.jsonl "
        "--audit changes.jsonl --report apply_report.html",
    ),
    "validate": (
        f"{PROG} validate cleaned.jsonl",
        f"{PROG} validate {SAMPLE} --spec cleaning_functions.spec.json",
    ),
    "report": (f"{PROG} report", f"{PROG} report crm.state.json"),
}
"""Command name ("" for the group) -> its examples, in an order that runs from a clone's folder:
generate writes what apply, validate, report and resume read."""


def examples_epilog(name: str) -> str:
    """The help's last section: the command's examples, kept one per line (click's ``\\b``)."""
    lines = EXAMPLES.get(name, ())
    if not lines:
        return ""
    where = "Examples (from a clone's folder; the bundled sample is test_cases/):"
    return where + "\n\n\b\n" + "\n".join(f"  {line}" for line in lines)


def add_examples(group: Any) -> None:
    """Every command of ``group`` (and the group) ends its help with its examples."""
    for name, command in [("", group), *group.commands.items()]:
        epilog = examples_epilog(name)
        if epilog:
            command.epilog = epilog
