"""A random-read study end to end on a throttled device: the study builds each system's layout
on its own loop device (one held to :data:`THROTTLE_IOPS` reads a second by a cgroup, a slow
disk), runs real fio through the real agent under a memory limit, takes the layouts down and
writes the brief. No timing is asserted: only what was measured, relative to the throttle and
to the other device."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from bench_gui.core.study import load_study
from bench_gui.report.study_brief import write_brief
from bench_gui.services.study_run import StudyRunner
from bench_gui.store import SessionStore
from bench_gui.workloads.random_read.agent.cgroup import parse_mountinfo, parse_proc_cgroup
from tests._fixtures.layout_file import write_layout
from tests._fixtures.loop import LoopDevices
from tests.workloads.random_read.agent.helpers import (
    Throttle,
    memory_cgroups_usable,
    need_fio,
    need_root,
    throttled,
)

pytestmark = pytest.mark.integration

# As in test_collapse: fast enough to warm the in-memory point in seconds.
THROTTLE_IOPS = 2000


def own_procs() -> str:
    """This process's ``cgroup.procs`` in the hierarchy the throttle uses."""
    mounts = parse_mountinfo(Path("/proc/self/mountinfo").read_text())
    own = parse_proc_cgroup(Path("/proc/self/cgroup").read_text())
    blkio = next((m for m in mounts if m.version == 1 and "blkio" in m.controllers), None)
    if blkio is not None:
        return os.path.join(blkio.point, own.get("blkio", "/").lstrip("/"), "cgroup.procs")
    unified = next(m for m in mounts if m.version == 2)
    return os.path.join(unified.point, own.get("", "/").lstrip("/"), "cgroup.procs")


@contextmanager
def inside(throttle: Throttle) -> Iterator[None]:
    """This test process (and so the agent and fio it starts) in the throttling cgroup, and
    back where it was before the cgroup is removed."""
    home = own_procs()
    Path(throttle.procs).write_text(str(os.getpid()))
    try:
        yield
    finally:
        Path(home).write_text(str(os.getpid()))


def test_a_random_read_study_on_a_throttled_device_runs_to_its_brief(
    loops: LoopDevices, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    need_fio()
    need_root()
    memory_cgroups_usable()
    monkeypatch.setenv("BENCH_GUI_DATA_DIR", str(tmp_path / "data"))
    devices = {"fast": loops.make(800), "slow": loops.make(800)}
    systems: dict[str, Any] = {}
    for key, device in devices.items():
        write_layout(tmp_path / f"{key}.toml", device, tmp_path / key)
        systems[key] = {
            "name": f"{key.capitalize()} loop device",
            "storage": {
                "layout": f"{key}.toml",
                "confirm": [Path(device).name],
                "accept_unreadable_processes": True,
            },
        }
    study_file = tmp_path / "study.toml"
    study_file.write_text(
        tomli_w.dumps(
            {
                "name": "Fast against throttled",
                "baseline": "slow",
                "workload": {
                    "kind": "random_read",
                    "dataset_sizes": [0.25, 4],
                    "memory_limit": "128MiB",
                    "warmup_s": 8,
                    "measure_s": 2,
                    "raw_iops_s": 2,
                },
                "report": {"formats": ["html", "json"], "output": "brief"},
                "systems": systems,
            }
        )
    )
    study = load_study(study_file)
    slow = Path(devices["slow"]).name
    with (
        SessionStore(tmp_path / "sessions.sqlite3") as store,
        throttled(slow, THROTTLE_IOPS, f"bench-gui-test-study-{slow}") as throttle,
        inside(throttle),
    ):
        result = StudyRunner(study, store, tmp_path, write_brief=write_brief).run()
    assert result.measured == ["fast", "slow"]
    brief = json.loads((tmp_path / "brief.json").read_text())
    by_name = {s["name"]: s for s in brief["sessions"]}
    fast, slow_run = by_name["Fast loop device"], by_name["Slow loop device"]
    # The throttle made a slow device: its raw IOPS at most the throttle's, far below the
    # other's; past the memory limit it reads fewer a second than the fast device.
    assert slow_run["raw_iops"] <= THROTTLE_IOPS * 1.05
    assert fast["raw_iops"] > 5 * slow_run["raw_iops"]
    assert slow_run["points"][-1]["ops_s"] < fast["points"][-1]["ops_s"]
    assert [p["label"] for p in slow_run["points"]] == ["0.25x RAM (32 MiB)", "4x RAM (512 MiB)"]
    html = (tmp_path / "brief.html").read_text()
    assert "Fast against throttled" in html
    assert "How to reproduce: the study file" in html
    # Both layouts were taken down: nothing left recorded as built on this machine.
    records = json.loads((tmp_path / "data" / "storage" / "local.json").read_text())
    assert records["layouts"] == {}
