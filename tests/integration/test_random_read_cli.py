"""The random-read workload from the command line: ``bench-gui run plan.toml`` with
``kind = "random_read"`` runs real fio through the real agent and stores a session whose steps
are the dataset sizes; ``bench-gui sessions show`` prints them in the workload's own words.

The plan names no file: it goes on the storage recorded for this machine (as the Storage page
records what it prepared), and the session says where that was.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench_gui.remote.storage import record_layout
from tests._fixtures.cli import bench
from tests.workloads.random_read.agent.helpers import memory_cgroups_usable, need_fio, need_root

pytestmark = pytest.mark.integration

PLAN = """
name = "random reads on the prepared storage"
[workload]
kind = "random_read"
dataset_sizes = [0.25, "48MiB"]
memory_limit = "128MiB"
warmup_s = 1
measure_s = 2
raw_iops_s = 1
"""
TPROC_C_WORDS = ("NOPM", "TPM", " VU", "virtual users", "warehouse", "New-Order")


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    need_fio()
    need_root()
    memory_cgroups_usable()
    folder = tmp_path_factory.mktemp("random-read-cli")
    mount = folder / "prepared"
    mount.mkdir()
    storage = Path(os.environ["BENCH_GUI_DATA_DIR"]) / "storage"
    record_layout(storage, {"target": "local", "mount": {"point": str(mount)}})
    plan = folder / "plan.toml"
    plan.write_text(PLAN)
    db = folder / "sessions.sqlite3"
    proc = bench("run", str(plan), "--json", db=db)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    return {"result": result, "stderr": proc.stderr, "db": db, "mount": mount}


def test_run_stores_one_step_per_dataset_size(ran: dict[str, Any]) -> None:
    result = ran["result"]
    assert result["status"] == "ok"
    assert isinstance(result["session"], int)
    steps = result["steps"]
    assert [s["dataset_label"] for s in steps] == ["0.25x RAM (32 MiB)", "48 MiB"]
    assert [s["dataset_bytes"] for s in steps] == [32 << 20, 48 << 20]
    for step in steps:
        assert step["complete"]
        assert step["ops_s"] > 0
        assert step["raw_iops"] > 0
        assert step["multiplier"] == pytest.approx(step["ops_s"] / step["raw_iops"], rel=0.001)
        assert step["memory_bytes"] == 128 << 20
        assert step["latency_ms"]["read"]["p99"] > 0
    # The file went onto the storage recorded for this machine.
    assert (ran["mount"] / "bench-gui-random-read.dat").stat().st_size == 48 << 20


def test_progress_lines_speak_of_dataset_sizes(ran: dict[str, Any]) -> None:
    stderr = ran["stderr"]
    assert "RAM for the study cgroup limit: 128 MiB" in stderr
    assert "writing the data file:" in stderr
    assert "raw-IOPS pass done: raw device IOPS:" in stderr
    assert (
        "point 1: dataset 0.25x RAM (32 MiB), warm-up until steady (at most 1 s), measuring 2.0 s"
        in stderr
    )
    assert "point 2 done: 48 MiB  ops/s" in stderr
    assert "  measure " in stderr
    assert "ops/s" in stderr
    for word in TPROC_C_WORDS:
        assert word not in stderr


def test_sessions_show_prints_the_study(ran: dict[str, Any]) -> None:
    session = str(ran["result"]["session"])
    proc = bench("sessions", "show", session, db=ran["db"])
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "workload: random reads" in text
    assert "fio: fio-" in text
    assert f"data file: {ran['mount']}/bench-gui-random-read.dat (48 MiB)" in text
    assert "RAM for the study: cgroup limit: 128 MiB" in text
    assert "page cache between points: dropped" in text
    assert "raw device IOPS:" in text
    assert "direct I/O" in text
    header = next(line for line in text.splitlines() if "dataset" in line and "ops/s" in line)
    assert "x raw IOPS" in header
    assert "p99.9 ms" in header
    assert "0.25x RAM (32 MiB)" in text
    assert "48 MiB" in text
    for word in TPROC_C_WORDS:
        assert word not in text
    listed = bench("sessions", "list", db=ran["db"]).stdout
    assert "random reads on the prepared storage" in listed


def test_the_stored_session_keeps_what_the_run_said(ran: dict[str, Any]) -> None:
    session = str(ran["result"]["session"])
    proc = bench("sessions", "show", session, "--json", db=ran["db"])
    data = json.loads(proc.stdout)
    run = data["run"]
    assert run["status"] == "complete"
    assert run["engine"] == "fio"
    assert run["target"]["kind"] == "random_read"
    assert run["target_summary"].startswith("fio on this machine: ")
    record = run["agent"]["random_read"]
    assert run["agent"]["fio_version"].startswith("fio-")
    assert record["memory"]["label"] == "cgroup limit: 128 MiB"
    assert record["raw_iops"]["iops"] > 0  # the raw-IOPS pass, kept with the session
    assert run["inventory"]["data_file"]["directory"] == str(ran["mount"])
    steps = data["steps"]
    assert [s["step"] for s in steps] == [0, 1]
    assert steps[0]["vus"] == 8
    assert steps[0]["nopm"] is None
    assert steps[1]["summary"]["multiplier"] > 0
    samples = data["samples"]
    assert {s["phase"] for s in samples} == {"warmup", "measure"}
    assert all(s["extra"]["ops_s"] > 0 for s in samples)
    assert "plan" in run
    assert run["plan"]["workload"]["kind"] == "random_read"


def test_a_plan_without_file_or_storage_says_what_to_set(tmp_path: Path) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    empty = tmp_path / "empty-data"  # a data folder with no storage recorded
    proc = subprocess.run(
        [sys.executable, "-m", "bench_gui", "--db", str(tmp_path / "s.db"), "run", str(plan)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "BENCH_GUI_DATA_DIR": str(empty)},
        check=False,
    )
    assert proc.returncode != 0
    assert "workload.file: no data file named and no storage prepared on this machine" in (
        proc.stderr
    )


def test_a_bad_field_is_named(tmp_path: Path) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN.replace('memory_limit = "128MiB"', 'memory_limit = "8MiB"\njobs = 0'))
    proc = bench("run", str(plan), db=tmp_path / "s.db", timeout=60)
    assert proc.returncode != 0
    assert "workload.memory_limit" in proc.stderr
    assert "workload.jobs" in proc.stderr
