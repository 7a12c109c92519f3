"""Issue 43's hostile inputs for the readers, against two library checkouts side by side.

    python bench/hostile_readers.py                                  # this checkout only
    python bench/hostile_readers.py --before /tmp/old-wt --after .   # old beside new, with ratios
    python bench/hostile_readers.py --cases xlsx-a-xfd gz-long-line --timeout 120

Each case builds its file once (in ``--work``, a temp folder by default), then reads it in a fresh
subprocess with the checkout first on ``sys.path`` and reports what happened (records read, or the
error's first words), the seconds and the peak memory of that process (``ru_maxrss``, which
includes the interpreter and pyarrow / openpyxl: about 60-100 MB before any file is read):

* ``xlsx-a-xfd``: 2,000 rows with a cell in column A and one in XFD (29 KB), read in chunks of
  2,000 as apply's batches are (issue: 16,384 keys a record, 851 MB a batch);
* ``xlsx-shared``: 20,000 rows of 10 cells naming one 32,000-character shared string (62 KB):
  the records read and the JSON they come to, as apply's batches and the prompts hold them
  (red team 4: 6.4 GB; apply took 42 s and 1.9 GB before the sandbox's memory limit);
* ``parquet-dict`` / ``parquet-plain`` / ``parquet-delta``: 2,000 rows of one 120 KB string, zstd,
  in a dictionary (433 bytes), plain (22 KB) and prefix-encoded (452 bytes): 240 MB of values;
* ``gz-long-line``: a ``.jsonl.gz`` of 189 KB whose first line is a 200 MB string;
* ``text-words`` / ``text-lines`` / ``text-abbrev``: 400 KB of words, 100 KB of ``a\\n``, 200 KB of
  ``Mr. `` (no sentence end), cut by ``chunk_text`` (issue: 400 KB, 11.9 s);
* ``binary-png``: a PNG named ``.jsonl``: the message (issue: "looks like UTF-16");
* ``fingerprint-edit``: a 1 MB JSONL file edited after its first 64 KiB, same size: whether the
  fingerprint sees it (``changes``);
* ``fingerprint-cost``: the fingerprint of a 256 MB JSONL file beside counting its chunks (the run
  does both at its start): what hashing the whole file costs.

Per case: outcome, seconds and peak MB for each checkout, then the ratios (before / after). The
last line is machine-readable: ``hostile_readers case=seconds_ratio/memory_ratio ...``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ---------------------------------------------------------------------------- the files
def _xlsx(path: str) -> None:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    for r in range(1, 2001):
        sheet.cell(r, 1, f"a{r}")
        sheet.cell(r, 16384, f"z{r}")
    book.save(path)


def _xlsx_shared(path: str, rows: int = 20_000, cols: int = 10) -> None:
    """Every data cell names one 32,000-character shared string (Excel's own way to store it)."""
    import zipfile

    ns = 'xmlns="http://schemas.openxmlformats.org/'
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    main = f'{ns}spreadsheetml/2006/main"'
    ml = "application/vnd.openxmlformats-officedocument.spreadsheetml."
    parts = {
        "[Content_Types].xml": f'<Types {ns}package/2006/content-types"><Default Extension="rels" '
        'ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default '
        f'Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" '
        f'ContentType="{ml}sheet.main+xml"/><Override PartName="/xl/sharedStrings.xml" '
        f'ContentType="{ml}sharedStrings+xml"/></Types>',
        "_rels/.rels": f'<Relationships {ns}package/2006/relationships"><Relationship Id="r1" '
        f'Type="{rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": f'<workbook {main} xmlns:r="{rel}"><sheets><sheet name="S" '
        'sheetId="1" r:id="r1"/></sheets></workbook>',
        "xl/_rels/workbook.xml.rels": f'<Relationships {ns}package/2006/relationships">'
        f'<Relationship Id="r1" Type="{rel}/worksheet" Target="worksheets/sheet1.xml"/>'
        f'<Relationship Id="r2" Type="{rel}/sharedStrings" Target="sharedStrings.xml"/>'
        "</Relationships>",
        "xl/sharedStrings.xml": f"<sst {main}>"
        + "".join(f"<si><t>h{j}</t></si>" for j in range(cols))
        + f"<si><t>{'x' * 32_000}</t></si></sst>",
        "xl/worksheets/sheet1.xml": f"<worksheet {main}><sheetData>"
        + '<row r="1">'
        + "".join(f'<c r="{chr(65 + j)}1" t="s"><v>{j}</v></c>' for j in range(cols))
        + "</row>"
        + "".join(
            f'<row r="{i}">' + f'<c t="s"><v>{cols}</v></c>' * cols + "</row>"
            for i in range(2, rows + 2)
        )
        + "</sheetData></worksheet>",
    }
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as book:
        for name, content in parts.items():
            book.writestr(name, content)


def _parquet(path: str, **options) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"v": ["a" * 120_000] * 2000}), path, compression="zstd", **options)


def _gz(path: str) -> None:
    with gzip.open(path, "wb", compresslevel=9) as f:
        f.write(b'{"a": "')
        for _ in range(200):
            f.write(b"x" * 1_000_000)
        f.write(b'"}\n')


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data).to_bytes(4, "big")
        return len(data).to_bytes(4, "big") + kind + data + crc

    header = (64).to_bytes(4, "big") * 2 + bytes([8, 2, 0, 0, 0])
    pixels = zlib.compress(b"".join(b"\x00" + bytes(range(192)) for _ in range(64)))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels)


def _jsonl(path: str, size: int) -> None:
    line = json.dumps({"id": 0, "email": "User@Example.COM", "note": "n" * 200}) + "\n"
    with open(path, "w") as f:
        for i in range(size // len(line) + 1):
            f.write(line.replace('"id": 0', f'"id": {i % 10}'))


def build(work: str, cases: list[str]) -> None:
    """Write each case's file into ``work`` (kept: a second run reuses them)."""
    makers = {
        "xlsx-a-xfd": ("wide.xlsx", _xlsx),
        "xlsx-shared": ("shared.xlsx", _xlsx_shared),
        "parquet-dict": ("dict.parquet", _parquet),
        "parquet-plain": ("plain.parquet", lambda p: _parquet(p, use_dictionary=False)),
        "parquet-delta": (
            "delta.parquet",
            lambda p: _parquet(p, use_dictionary=False, column_encoding={"v": "DELTA_BYTE_ARRAY"}),
        ),
        "gz-long-line": ("long.jsonl.gz", _gz),
        "binary-png": ("photo.jsonl", lambda p: open(p, "wb").write(_png())),
        "fingerprint-edit": ("edit.jsonl", lambda p: _jsonl(p, 1 << 20)),
        "fingerprint-cost": ("big.jsonl", lambda p: _jsonl(p, 256 << 20)),
    }
    for case in cases:
        if case in makers:
            name, make = makers[case]
            path = os.path.join(work, name)
            if not os.path.exists(path):
                make(path)


# ---------------------------------------------------------------------------- the child
CHILD = r"""
import json, os, resource, sys, time
sys.path.insert(0, sys.argv[1])
case, work = sys.argv[2], sys.argv[3]
from recursive_cleaner.read.parsers import iter_chunks, count_chunks
from recursive_cleaner.read.text_chunker import chunk_text

def records(name):
    return sum(len(c) for c in iter_chunks(os.path.join(work, name), 2000))

def as_json(name):
    chunks = iter_chunks(os.path.join(work, name), 2000)
    n = size = 0
    for chunk in chunks:
        n += len(chunk)
        size += sum(len(json.dumps(r)) for r in chunk)
    return f"{n} records, {size >> 20} MB as JSON"

def text(unit, size):
    return f"{len(chunk_text((unit * (size // len(unit) + 1))[:size]))} chunks"

def edit():
    from recursive_cleaner.run.fingerprint import changes, data_identity
    path = os.path.join(work, "edit.jsonl")
    data = bytearray(open(path, "rb").read())
    saved = {"fingerprint": {"goals": "g", "spec": None, "options": "o",
                             "data": data_identity(path)}}
    at = len(data) // 2
    data[at] ^= 1
    open(path, "wb").write(data)
    try:
        found = changes(saved, {"goals": "g", "spec": None, "options": "o",
                                "data": data_identity(path)}, None, compare_options=False)
    finally:
        data[at] ^= 1
        open(path, "wb").write(data)
    return "; ".join(found) or "no change seen: resumes as the same data"

def cost():
    from recursive_cleaner.run.fingerprint import data_identity
    path = os.path.join(work, "big.jsonl")
    t = time.perf_counter()
    data_identity(path)
    hashed = time.perf_counter() - t
    t = time.perf_counter()
    chunks = count_chunks(path, 50)
    return f"fingerprint {hashed:.2f} s, counting {chunks} chunks {time.perf_counter() - t:.2f} s"

RUN = {
    "xlsx-a-xfd": lambda: f"{records('wide.xlsx')} records",
    "xlsx-shared": lambda: as_json("shared.xlsx"),
    "parquet-dict": lambda: f"{records('dict.parquet')} records",
    "parquet-plain": lambda: f"{records('plain.parquet')} records",
    "parquet-delta": lambda: f"{records('delta.parquet')} records",
    "gz-long-line": lambda: f"{records('long.jsonl.gz')} records",
    "text-words": lambda: text("word ", 400_000),
    "text-lines": lambda: text("a\n", 100_000),
    "text-abbrev": lambda: text("Mr. ", 200_000),
    "binary-png": lambda: f"{records('photo.jsonl')} records",
    "fingerprint-edit": edit,
    "fingerprint-cost": cost,
}
start = time.perf_counter()
try:
    outcome = RUN[case]()
except Exception as exc:
    outcome = f"{type(exc).__name__}: {exc}"
seconds = time.perf_counter() - start
try:  # this process's own high-water mark (ru_maxrss would count the parent's, forked from it)
    with open("/proc/self/status") as status:
        peak = next(int(l.split()[1]) for l in status if l.startswith("VmHWM:")) / 1024
except (OSError, StopIteration):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"outcome": outcome, "seconds": seconds, "peak_mb": peak}))
"""

CASES = [
    "xlsx-a-xfd",
    "xlsx-shared",
    "parquet-dict",
    "parquet-plain",
    "parquet-delta",
    "gz-long-line",
    "text-words",
    "text-lines",
    "text-abbrev",
    "binary-png",
    "fingerprint-edit",
    "fingerprint-cost",
]


def run_case(checkout: str, case: str, work: str, timeout: float) -> dict:
    """One case in a fresh interpreter with ``checkout`` first on sys.path."""
    env = {**os.environ, "PYTHONPATH": checkout}
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, checkout, case, work],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return {"outcome": f"timeout after {timeout:.0f} s", "seconds": timeout, "peak_mb": 0.0}
    lines = done.stdout.strip().splitlines()
    if done.returncode or not lines:
        tail = (done.stderr.strip().splitlines() or ["?"])[-1]
        return {"outcome": f"crashed ({done.returncode}): {tail}", "seconds": 0.0, "peak_mb": 0.0}
    return json.loads(lines[-1])


def _short(text: str, width: int = 110) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="the old checkout (e.g. a worktree of e9a9118)")
    parser.add_argument("--after", default=ROOT, help="the new checkout (default: this one)")
    parser.add_argument("--cases", nargs="*", default=CASES, choices=CASES)
    parser.add_argument("--work", help="where the files are built (kept between runs)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per case and side")
    args = parser.parse_args()
    work = args.work or os.path.join(tempfile.gettempdir(), "hostile_readers")
    os.makedirs(work, exist_ok=True)
    build(work, args.cases)
    sides = [("before", args.before), ("after", args.after)] if args.before else []
    sides = sides or [("this", args.after)]
    ratios = []
    for case in args.cases:
        print(f"{case}")
        got = {}
        for side, checkout in sides:
            got[side] = result = run_case(os.path.abspath(checkout), case, work, args.timeout)
            print(
                f"  {side:>6}: {result['seconds']:8.2f} s {result['peak_mb']:7.0f} MB  "
                f"{_short(result['outcome'])}"
            )
        if len(got) == 2:
            old, new = got["before"], got["after"]
            time_ratio = old["seconds"] / max(new["seconds"], 1e-3)
            memory_ratio = old["peak_mb"] / max(new["peak_mb"], 1e-3)
            print(f"  ratio : {time_ratio:8.1f} x time {memory_ratio:5.1f} x memory")
            ratios.append(f"{case}={time_ratio:.1f}/{memory_ratio:.1f}")
    if ratios:
        print("hostile_readers " + " ".join(ratios))


if __name__ == "__main__":
    main()
