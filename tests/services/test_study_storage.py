"""A study system's storage layout built before its runs and taken down after them, also when
its run fails: real loop devices, real mkfs and mount, real fio through the real agent."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from bench_gui.core.study import load_study
from bench_gui.services.run_errors import RunError
from bench_gui.services.study_run import StudyProgress, StudyRunner
from bench_gui.store import SessionStore
from tests._fixtures.layout_file import write_layout
from tests._fixtures.loop import LoopDevices
from tests.workloads.random_read.agent.helpers import memory_cgroups_usable, need_fio, need_root

pytestmark = pytest.mark.integration


def mounted_at(point: Path) -> bool:
    out = subprocess.run(
        ["findmnt", "-J", "--mountpoint", str(point)], capture_output=True, text=True
    ).stdout
    return bool(out.strip())


def test_each_system_s_layout_is_built_for_its_runs_and_taken_down_even_when_they_fail(
    loops: LoopDevices, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    need_fio()
    need_root()
    memory_cgroups_usable()
    monkeypatch.setenv("BENCH_GUI_DATA_DIR", str(tmp_path / "data"))
    points = {"big": tmp_path / "big", "small": tmp_path / "small"}
    # The small device cannot hold the 72 MiB point: its run fails after the layout is built.
    devices = {"big": loops.make(400), "small": loops.make(48)}
    systems: dict[str, Any] = {}
    for key, device in devices.items():
        write_layout(tmp_path / f"{key}-layout.toml", device, points[key])
        systems[key] = {
            "name": f"{key} device",
            "storage": {
                "layout": f"{key}-layout.toml",
                "confirm": [Path(device).name],
                "accept_unreadable_processes": True,
            },
        }
    study_file = tmp_path / "study.toml"
    study_file.write_text(
        tomli_w.dumps(
            {
                "name": "Layouts per system",
                "workload": {
                    "kind": "random_read",
                    "dataset_sizes": ["24MiB", "72MiB"],
                    "memory_limit": "128MiB",
                    "warmup_s": 1,
                    "measure_s": 1,
                    "raw_iops_s": 1,
                },
                "systems": systems,
            }
        )
    )
    study = load_study(study_file)
    stages: list[tuple[str, str]] = []

    def seen(progress: StudyProgress) -> None:
        stages.append((progress.system, progress.stage))
        if progress.stage == "running" and progress.step:
            # While a system runs, its own layout is mounted and the other's is not.
            other = "small" if progress.system == "big" else "big"
            assert mounted_at(points[progress.system])
            assert not mounted_at(points[other])

    with SessionStore(tmp_path / "sessions.sqlite3") as store:
        runner = StudyRunner(study, store, tmp_path, on_progress=seen)
        # The run's own words, with the system they are about.
        named = r"system small \(small device\) failed \(session \d+: .*the data file needs 72 MiB"
        with pytest.raises(RunError, match=named):
            runner.run(brief=False)
        (big,) = [r for r in store.list_runs() if r.status == "complete"]
        inventory = store.get_run(big.id).inventory or {}
        # The session records the layout it measured, and its data file was on it.
        assert inventory["storage_layout"]["mount"]["point"] == str(points["big"])
        assert store.get_run(big.id).plan["workload"]["file"] == ""
    assert ("big", "storage") in stages
    assert ("big", "teardown") in stages
    assert ("small", "teardown") in stages  # taken down after its run failed
    for point in points.values():
        assert not mounted_at(point)
    records = tmp_path / "data" / "storage" / "local.json"
    assert json.loads(records.read_text())["layouts"] == {}
    assert any("mkfs.ext4" in line for line in runner.storage_log)
