"""One small dataset in every text format and any encoding (the --encoding tests share it)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

__all__ = ["ROWS", "FORMATS", "RECORD_FORMATS", "CODE", "text_of", "write", "bad_byte_file"]

ROWS = [
    {"id": str(i), "name": f"Renée {i}", "city": "Zürich" if i % 2 else "Bogotá"} for i in range(7)
]
FORMATS = ("jsonl", "csv", "tsv", "json", "txt", "jsonl.gz", "csv.gz")
RECORD_FORMATS = tuple(f for f in FORMATS if f != "txt")  # what apply and validate read
CODE = """
def clean_data(record):
    record = dict(record)
    record["city"] = str(record["city"]).upper()
    return record
"""


def text_of(fmt: str) -> str:
    """The dataset's text as a file of format ``fmt`` holds it (``txt``: one sentence a row)."""
    plain = fmt.removesuffix(".gz")
    if plain == "jsonl":
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS)
    if plain in ("csv", "tsv"):
        sep = "\t" if plain == "tsv" else ","
        return "".join(sep.join(r.values()) + "\n" for r in [dict(zip(ROWS[0], ROWS[0]))] + ROWS)
    if plain == "json":
        return json.dumps(ROWS, ensure_ascii=False, indent=1) + "\n"
    return "".join(f"{r['name']} lives in {r['city']}. She moved in 2019.\n" for r in ROWS)


def write(folder: Path, fmt: str, encoding: str = "utf-8", data: bytes | None = None) -> Path:
    """``folder/data-ENCODING.FMT``: the dataset encoded (or ``data``), gzip-compressed for .gz."""
    path = folder / f"data-{encoding}.{fmt}"
    raw = text_of(fmt).encode(encoding) if data is None else data
    path.write_bytes(gzip.compress(raw, mtime=0) if fmt.endswith(".gz") else raw)
    return path


def bad_byte_file(folder: Path, fmt: str, encoding: str, bad: bytes) -> tuple[Path, int, int]:
    """The dataset in ``encoding`` with ``bad`` for the "é" of "Renée 3": (path, its line, its byte
    offset in the (decompressed) file)."""
    raw = text_of(fmt).encode(encoding)
    good = "Renée 3".encode(encoding)
    at = raw.index(good) + len("Ren".encode(encoding))
    raw = raw.replace(good, good.replace("é".encode(encoding), bad), 1)
    path = write(folder, fmt, f"bad-{encoding}", raw)
    return path, raw[:at].count(b"\n") + 1, at
