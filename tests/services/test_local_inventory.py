"""A run on this machine records the system it ran on as a run over SSH does: CPU, memory,
kernel, distribution, block devices (model, size, rotational, scheduler, read-ahead), and the
database (version, data directory and the mount, filesystem, device and disks under it); its
settings in real units, and response times per transaction type."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from bench_gui.cli.main import main
from bench_gui.remote.inventory import data_directory_storage
from bench_gui.remote.local_shell import LocalShell
from bench_gui.store import SessionStore
from tests._fixtures.pg import Clone

pytestmark = pytest.mark.integration


def test_a_local_cli_run_stores_the_inventory(
    pg_server: Any, tpcc_db: Clone, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = tpcc_db("local_inventory")
    plan = tmp_path / "plan.toml"
    plan.write_text(pg_server.plan_text(database, vus="1", warehouses=1, rampup=1, duration=3))
    db = tmp_path / "sessions.sqlite3"
    assert main(["--db", str(db), "run", str(plan), "--json", "--quiet"]) == 0
    session = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["session"]
    with SessionStore(db) as store:
        run = store.get_run(session)
        steps = store.steps(session)
        histograms = store.histograms(session, 0)
    inventory = run.inventory
    assert inventory is not None
    assert inventory["collected_on"] == "local"
    assert inventory["cpu"]["model"]
    assert inventory["cpu"]["threads"] == os.cpu_count()
    assert inventory["memory"]["total_bytes"] > 1 << 28
    assert inventory["kernel"]["release"] == os.uname().release
    assert inventory["os"]["pretty_name"]
    disks = [d for d in inventory["block_devices"] if d["type"] == "disk"]
    assert disks
    for disk in disks:
        assert {"model", "size_bytes", "rotational", "scheduler", "read_ahead_kib"} <= set(disk)
    assert any(d["read_ahead_kib"] is not None for d in disks)

    database_part = inventory["database"]
    assert database_part["version"] == run.server_version
    assert database_part["version"].startswith("PostgreSQL ")
    data_dir = database_part["data_directory"]
    assert data_dir == run.agent["data_directory"]
    assert Path(data_dir, "PG_VERSION").exists()
    mounts = [m for m in inventory["filesystems"] if data_dir.startswith(m["target"].rstrip("/"))]
    deepest = max(mounts, key=lambda m: len(m["target"]))
    assert database_part["mount"] == deepest["target"]
    assert database_part["filesystem"] == deepest["fstype"]
    assert database_part["device"] == deepest["source"]
    if str(database_part["device"]).startswith("/dev/"):
        assert database_part["disks"], database_part["notes"]
        paths = {d["path"] for d in disks}
        assert {d["path"] for d in database_part["disks"]} <= paths
        assert all("scheduler" in d and "rotational" in d for d in database_part["disks"])

    # Settings in real units: PostgreSQL's own text, never the number and unit joined.
    shared = run.settings["shared_buffers"]
    assert shared["value"] == int(shared["setting"]) * 8192
    assert shared["display"].endswith(("kB", "MB", "GB"))
    assert shared["display"] != f"{shared['setting']}8kB"

    # Response times per transaction type, and their histograms, with every step.
    assert steps[0].complete
    assert {"all", "new_order", "payment"} <= set(steps[0].latency_ms)
    assert steps[0].latency_ms["new_order"]["avg"] > 0
    assert {"new_order", "payment"} <= set(histograms)


def test_data_directory_storage_of_other_filesystems(tmp_path: Path) -> None:
    """A folder not on a block device has no disks, said in a note; a folder that cannot be
    looked at (a data directory of mode 0700, another user's) is found through its parent."""
    shell = LocalShell()
    shm = data_directory_storage(shell, "/dev/shm")
    assert (shm["mount"], shm["filesystem"], shm["disks"]) == ("/dev/shm", "tmpfs", [])
    assert "not a block device" in shm["notes"][0]
    hidden = data_directory_storage(shell, str(tmp_path / "missing" / "deeper"))
    here = data_directory_storage(shell, str(tmp_path))
    assert hidden["mount"] == here["mount"]
    assert hidden["device"] == here["device"]
    assert hidden["data_directory"] == str(tmp_path / "missing" / "deeper")
