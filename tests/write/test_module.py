"""cleaning_functions.py: imports merged, duplicates skipped, invalid pieces left out."""

from __future__ import annotations

import ast
import importlib.util

from recursive_cleaner.write.module import render_module, write_output

PHONES = {
    "name": "normalize_phones",
    "docstring": "phones",
    "code": "import re\n\ndef normalize_phones(record):\n    record = dict(record)\n"
    '    d = re.sub(r"\\D", "", record.get("phone", ""))\n    record["phone"] = "+1" + '
    "d[-10:]\n    return record",
}
STATUS = {
    "name": "fix_status",
    "docstring": "status",
    "code": 'import re\nfrom difflib import get_close_matches\nVALID = ("active", "pending", '
    '"churned")\n\n'
    "def fix_status(record):\n    record = dict(record)\n    m = "
    'get_close_matches(record.get("status", "").strip().lower(), VALID, 1)\n'
    '    if m:\n        record["status"] = m[0]\n    return record',
}
EMAIL = {
    "name": "lower_email",
    "docstring": "email",
    "code": "from difflib import SequenceMatcher\n\ndef lower_email(record):\n    # keep comments\n"
    '    record = dict(record)\n    record["email"] = record.get("email", "").strip().lower()\n    '
    "return record",
}


def _load(path):
    spec = importlib.util.spec_from_file_location("cf_test", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_written_file_imports_and_cleans(tmp_path):
    out = tmp_path / "cleaning_functions.py"
    res = write_output([PHONES, STATUS, EMAIL], str(out))
    assert res.written == ["normalize_phones", "fix_status", "lower_email"] and res.rejected == []
    mod = _load(out)
    rec = mod.clean_data({"phone": "(555) 123-4567", "status": "Actve ", "email": " A@B.COM"})
    assert rec == {"phone": "+15551234567", "status": "active", "email": "a@b.com"}


def test_imports_merged_at_top_and_deduplicated():
    src = render_module([PHONES, STATUS, EMAIL])
    assert src.count("import re\n") == 1
    assert "from difflib import SequenceMatcher, get_close_matches" in src
    tree = ast.parse(src)
    first_def = next(i for i, n in enumerate(tree.body) if isinstance(n, ast.FunctionDef))
    assert all(not isinstance(n, (ast.Import, ast.ImportFrom)) for n in tree.body[first_def:])
    assert "# keep comments" in src


def test_clean_data_calls_functions_in_order():
    src = render_module([EMAIL, PHONES])
    body = src[src.index("def clean_data") :]
    assert body.index("lower_email(record)") < body.index("normalize_phones(record)")


def test_duplicate_names_skipped_first_kept(tmp_path):
    dup = dict(PHONES, code=PHONES["code"].replace('"+1"', '"+44"'))
    res = write_output([PHONES, dup], str(tmp_path / "o.py"))
    assert res.written == ["normalize_phones"]
    assert res.rejected[0][0] == "normalize_phones" and "duplicate" in res.rejected[0][1]
    assert '"+1"' in res.source and '"+44"' not in res.source


def test_helper_name_clash_is_rejected(tmp_path):
    a = {
        "name": "a",
        "docstring": "",
        "code": "def _h(x):\n    return x\n\ndef a(record):\n    return _h(record)",
    }
    b = {
        "name": "b",
        "docstring": "",
        "code": "def _h(x):\n    return None\n\ndef b(record):\n    return _h(record)",
    }
    res = write_output([a, b], str(tmp_path / "o.py"))
    assert res.written == ["a"] and "_h" in res.rejected[0][1]


def test_invalid_function_left_out_valid_ones_written(tmp_path):
    broken = {"name": "broken", "docstring": "", "code": "def broken(record)\n    return record"}
    res = write_output([PHONES, broken, EMAIL], str(tmp_path / "o.py"))
    assert res.written == ["normalize_phones", "lower_email"]
    assert res.rejected[0][0] == "broken"
    _load(tmp_path / "o.py")


def test_check_failure_keeps_only_functions_that_pass(tmp_path):
    def check(source):  # stands in for the sandbox import: pretend fix_status cannot load
        return "ImportError: difflib" if "def fix_status" in source else None

    res = write_output([PHONES, STATUS, EMAIL], str(tmp_path / "o.py"), check=check)
    assert res.written == ["normalize_phones", "lower_email"]
    assert res.rejected == [("fix_status", "ImportError: difflib")]
    assert "def fix_status" not in (tmp_path / "o.py").read_text()


def test_empty_function_list_gives_identity_clean_data(tmp_path):
    write_output([], str(tmp_path / "o.py"))
    assert _load(tmp_path / "o.py").clean_data({"a": 1}) == {"a": 1}


def test_text_mode_output(tmp_path):
    f = {
        "name": "squash",
        "docstring": "",
        "code": "def squash(text):\n    return ' '.join(text.split())",
    }
    write_output([f], str(tmp_path / "o.py"), mode="text")
    assert _load(tmp_path / "o.py").clean_data("a   b\n c") == "a b c"
