"""``recursive-cleaner apply --dask [SCHEDULER_ADDRESS]``: the same files as apply without it."""

from __future__ import annotations

import json
import logging

import pytest

from recursive_cleaner.ui import cli_dask
from recursive_cleaner.write.module import render_module
from tests.optional_deps import optional
from tests.cli_helpers import invoke

optional("dask.bag")
distributed = optional("distributed")

FUNCS = [
    {
        "name": "lower_email",
        "code": "def lower_email(record):\n"
        "    if record['id'] == 4:\n"
        "        raise ValueError('no four')\n"
        "    record['email'] = record['email'].lower()\n"
        "    return record\n",
    }
]
STEPS = [{"kind": "majority", "key": ["status"], "fields": ["plan"]}]


@pytest.fixture(scope="module")
def scheduler():
    with distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=2,
        processes=False,
        protocol="tcp",
        host="127.0.0.1",
        dashboard_address=None,
    ) as cluster:
        yield cluster.scheduler_address


def _files(work) -> None:
    rows = [
        {
            "id": i,
            "email": f"User{i}@Example.COM",
            "status": "active",
            "plan": "gold" if i != 2 else "g0ld",
        }
        for i in range(9)
    ]
    (work / "crm.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (work / "cf.py").write_text(render_module(FUNCS, cross_row=STEPS))


def _same_as_apply_file(work, *dask_args: str) -> str:
    args = ("--workers", "1", "--batch-size", "2", "--reject-file")
    plain = invoke(
        "apply",
        "cf.py",
        "crm.jsonl",
        "-o",
        "ref.jsonl",
        "--audit",
        "ref.audit.jsonl",
        *args,
        "ref.rej",
    )
    assert plain.exit_code == 1, plain.stderr  # one record fails: written to the reject file
    result = invoke(
        "apply",
        "cf.py",
        "crm.jsonl",
        "-o",
        "out.jsonl",
        "--audit",
        "out.audit.jsonl",
        *args,
        "out.rej",
        "--partition-size",
        "4",
        *dask_args,
    )
    assert result.exit_code == 1, result.stderr
    for name in ("{}.jsonl", "{}.audit.jsonl", "{}.rej"):
        assert (work / name.format("out")).read_bytes() == (
            work / name.format("ref")
        ).read_bytes(), name
    assert "cross-row steps: 1, 0 duplicates dropped, 1 cells changed" in result.stdout
    return result.stdout


def test_apply_dask_with_a_scheduler_address(work, scheduler):
    _files(work)
    out = _same_as_apply_file(work, "--dask", scheduler)
    assert (
        "wrote out.jsonl: 8 of 9 records, 1 failed (in out.rej)" in out
        and f"on Dask {scheduler}" in out
    )


def test_apply_dask_without_an_address_starts_a_local_cluster(work, monkeypatch):
    _files(work)
    made, real = [], distributed.LocalCluster

    levels = []

    def small_cluster(**options):
        made.append(options)
        levels.append(logging.getLogger("distributed").getEffectiveLevel())
        # in this process: quick to start
        return real(**{**options, "processes": False, "host": None})

    monkeypatch.setattr(distributed, "LocalCluster", small_cluster)
    before = logging.getLogger("distributed").level
    out = _same_as_apply_file(work, "--dask")
    # the cluster's INFO lines are quiet while it runs; the level is restored after
    assert levels == [logging.WARNING] and logging.getLogger("distributed").level == before
    assert made == [
        dict(
            n_workers=1,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        )
    ]
    assert f"on Dask {cli_dask.LOCAL_CLUSTER}" in out


def test_the_dask_flag_is_documented():
    help_text = invoke("apply", "--help").output
    assert "--dask [SCHEDULER_ADDRESS]" in help_text and "--partition-size" in help_text


def test_quiet_logs_raises_the_levels_below_warning_and_restores_them():
    quiet, loud = logging.getLogger("edge_pkg"), logging.getLogger("edge_pkg.mod")
    quiet.setLevel(logging.INFO)
    loud.setLevel(logging.DEBUG)
    other = logging.getLogger("edge_pkg.plain")  # no own level: inherits the package's
    with cli_dask.quiet_logs("edge_pkg"):
        assert quiet.level == loud.level == logging.WARNING and other.level == logging.NOTSET
        assert other.getEffectiveLevel() == logging.WARNING
    assert (quiet.level, loud.level, other.level) == (logging.INFO, logging.DEBUG, logging.NOTSET)
