"""run/configure.py: the options as the run reads its input (the encoding saved with them), and
the context run() builds."""

from __future__ import annotations

import json

import pytest

from recursive_cleaner import DataCleaner
from recursive_cleaner.errors import InputEncodingError
from recursive_cleaner.run.fingerprint import generating_options
from tests.encoded_files import write
from tests.fakes import CLEAN_REPLY, FakeBackend


def test_the_encoding_is_saved_and_a_resumed_run_reads_the_file_the_same_way(tmp_path):
    source = str(write(tmp_path, "csv", "cp1252"))
    backend = FakeBackend(default=CLEAN_REPLY)
    state = str(tmp_path / "run.json")
    options = dict(chunk_size=3, report_path=None, output_path=str(tmp_path / "cf.py"))
    first = DataCleaner(backend, source, state_file=state, encoding="cp1252", **options)
    assert first.run().chunks_processed == 3
    saved = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    assert saved["options"]["encoding"] == "cp1252"
    saved["last_completed_chunk"] = 1  # as if stopped after the first chunk
    (tmp_path / "run.json").write_text(json.dumps(saved), encoding="utf-8")
    again = FakeBackend(default=CLEAN_REPLY)
    out = str(tmp_path / "cf.py")
    with pytest.raises(InputEncodingError, match=r"line 2: byte 0xe9 .*--encoding latin-1"):
        DataCleaner.resume(state, again, output_path=out, encoding="utf-8").run()
    resumed = DataCleaner.resume(state, again, output_path=out)
    assert resumed.settings.encoding == "cp1252"
    result = resumed.run()
    assert (result.resumed_from_chunk, result.chunks_processed, result.chunks_total) == (1, 1, 3)


def test_the_default_encoding_leaves_the_fingerprint_as_it_was():
    assert "encoding" not in generating_options({"encoding": "utf-8", "seed": 1})
    assert generating_options({"encoding": "latin-1"}) == {"encoding": "latin-1"}
