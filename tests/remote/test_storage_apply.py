"""Layouts built for real on loop devices, over the real SSH target and on this machine.

Every run passes ``accept_unreadable``: in a container or sandbox some processes (its init)
cannot be read even by root, and the process scan's refusal is tested on its own in
``test_storage_guards.py``. Every layout is built with a ``state_dir``: teardown takes down
only what bench-gui recorded as built.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bench_gui.core.storage import layout_from_dict
from bench_gui.remote.storage import (
    Progress,
    StepFailed,
    StorageRefused,
    apply_layout,
    discover,
    recorded_layouts,
    session_layout,
    teardown_layout,
)
from tests._fixtures.loop import LoopDevices, signature


def sh(*argv: str) -> str:
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout


def findmnt(point: Path) -> dict[str, Any]:
    out = subprocess.run(
        ["findmnt", "-J", "-o", "SOURCE,FSTYPE,OPTIONS", "--mountpoint", str(point)],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return json.loads(out)["filesystems"][0] if out.strip() else {}


def test_xfs_on_a_discarded_device_over_ssh(
    loops: LoopDevices, ssh_runner: Any, tmp_path: Path
) -> None:
    dev = loops.make(1024)
    name = Path(dev).name
    schedulers = Path(f"/sys/block/{name}/queue/scheduler").read_text()
    scheduler = "mq-deadline" if "mq-deadline" in schedulers else ""
    point = tmp_path / "bench"
    layout = layout_from_dict(
        {
            "name": "one SSD",
            "target": "loop",
            "devices": [
                {"path": dev, "erase": "discard", "scheduler": scheduler, "read_ahead_kib": 64}
            ],
            "filesystem": {"type": "xfs", "label": "bench"},
            "mount": {"point": str(point), "options": ["noatime"], "owner": "nobody"},
        }
    )
    lines: list[str] = []
    progress: list[Progress] = []
    state = tmp_path / "state"
    result = apply_layout(
        ssh_runner,
        layout,
        [name],
        on_log=lines.append,
        on_progress=progress.append,
        state_dir=state,
        accept_unreadable=True,
    )
    assert result.ok
    mounted = findmnt(point)
    assert mounted["source"] == dev
    assert mounted["fstype"] == "xfs"
    assert "noatime" in mounted["options"].split(",")
    assert sh("blockdev", "--getra", dev).strip() == "128"
    if scheduler:
        assert f"[{scheduler}]" in Path(f"/sys/block/{name}/queue/scheduler").read_text()
    assert point.stat().st_uid == int(sh("id", "-u", "nobody"))
    assert "Discarded 1073741824 bytes" in "\n".join(lines)
    assert any(line.startswith("$ mkfs.xfs -K -L bench -- ") for line in lines)
    commands = [e.command for e in ssh_runner.command_log]
    assert any(c.startswith("blkdiscard --verbose -- /dev/loop") for c in commands)
    assert [p.index for p in progress] == sorted(p.index for p in progress)
    assert progress[-1].overall == 1.0

    described = result.description
    assert described is not None
    assert described["devices"][0]["erase"] == "discard"
    assert described["devices"][0]["read_ahead_kib"] == 64
    if scheduler:
        assert described["devices"][0]["scheduler"] == scheduler
    assert described["filesystem"]["type"] == "xfs"
    assert "noatime" in described["mount"]["options"]
    assert described["array"] == {"level": "single"}
    assert recorded_layouts(state, "loop") == [described]
    assert session_layout(state, "loop") == described

    down = teardown_layout(
        ssh_runner, layout, [dev], on_log=lines.append, state_dir=state, accept_unreadable=True
    )
    assert down.ok
    assert findmnt(point) == {}
    assert signature(dev) == ""
    assert recorded_layouts(state, "loop") == []


def test_ext4_format_only_on_this_machine(
    loops: LoopDevices, local_runner: Any, tmp_path: Path
) -> None:
    dev = loops.make(512)
    sh("mkfs.xfs", "-q", dev)  # an old filesystem: "format only" wipes it first
    point = tmp_path / "hdd"
    layout = layout_from_dict(
        {
            "devices": [{"path": dev, "erase": "format-only"}],
            "filesystem": {"type": "ext4"},
            "mount": {"point": str(point), "options": ["noatime", "nodiratime"], "owner": ""},
        }
    )
    state = tmp_path / "state"
    with pytest.raises(StorageRefused, match="carries a signature"):
        apply_layout(local_runner, layout, [dev], state_dir=state, accept_unreadable=True)
    result = apply_layout(
        local_runner, layout, [dev], state_dir=state, accept_unreadable=True, wipe_signed=[dev]
    )
    assert [s.status for s in result.steps] == ["ok"] * len(result.steps)
    assert result.steps[0].command == f"wipefs --all -- {dev}"
    assert "TYPE=ext4" in signature(dev)
    mounted = findmnt(point)
    assert mounted["fstype"] == "ext4"
    assert {"noatime", "nodiratime"} <= set(mounted["options"].split(","))
    teardown_layout(local_runner, layout, [dev], state_dir=state, accept_unreadable=True)
    assert findmnt(point) == {}
    assert recorded_layouts(state, "local") == []
    # Taken down, it is no longer bench-gui's: a second teardown needs the separate word,
    # then finds nothing mounted and says so instead of failing.
    with pytest.raises(StorageRefused, match="no record of building"):
        teardown_layout(local_runner, layout, [dev], state_dir=state, accept_unreadable=True)
    again = teardown_layout(
        local_runner,
        layout,
        [dev],
        state_dir=state,
        accept_unreadable=True,
        not_built_confirm=[dev],
    )
    assert again.steps[0].status == "skipped"


def test_btrfs_raid10_over_four_loop_devices_over_ssh(
    loops: LoopDevices, ssh_runner: Any, tmp_path: Path
) -> None:
    devices = loops.make_many(4, 512)
    point = tmp_path / "array"
    layout = layout_from_dict(
        {
            "name": "4x RAID 10 (btrfs)",
            "devices": [{"path": d, "erase": "discard"} for d in devices],
            "array": {"level": "10", "backend": "btrfs"},
            "filesystem": {"type": "btrfs"},
            "mount": {"point": str(point), "options": ["noatime"], "owner": ""},
        }
    )
    state = tmp_path / "state"
    result = apply_layout(ssh_runner, layout, devices, state_dir=state, accept_unreadable=True)
    usage = sh("btrfs", "filesystem", "df", str(point))
    assert "Data, RAID10" in usage
    assert "Metadata, RAID10" in usage
    shown = sh("btrfs", "filesystem", "show", str(point))
    assert all(d in shown for d in devices)
    assert result.resync is not None
    assert "no initial resync" in result.resync["text"]
    described = result.description
    assert described is not None
    assert described["array"]["level"] == "10"
    assert described["array"]["backend"] == "btrfs"
    assert len(described["devices"]) == 4
    # The array is in use now: applying it again is refused for every member.
    with pytest.raises(StorageRefused) as info:
        apply_layout(ssh_runner, layout, devices, accept_unreadable=True)
    assert {r.device for r in info.value.refusals if r.device} == set(devices)
    teardown_layout(ssh_runner, layout, devices, state_dir=state, accept_unreadable=True)
    assert all(signature(d) == "" for d in devices)


def test_mdadm_raid10_for_real_where_md_exists(
    loops: LoopDevices, local_runner: Any, tmp_path: Path
) -> None:
    if not Path("/proc/mdstat").exists():
        try:
            subprocess.run(["modprobe", "md_mod"], capture_output=True, check=False)
        except FileNotFoundError:
            pass  # no kmod: the md driver is either built in (then /proc/mdstat exists) or absent
    if not Path("/proc/mdstat").exists():
        pytest.skip(
            "this kernel has no md driver (no /proc/mdstat, modprobe md_mod fails): the mdadm"
            " path is covered by its generated plan (core/test_storage_layout.py) and the"
            " refusal below"
        )
    devices = loops.make_many(4, 256)
    point = tmp_path / "md"
    layout = layout_from_dict(
        {
            "devices": [{"path": d, "erase": "zeroout"} for d in devices],
            "array": {"level": "10", "chunk_kib": 64, "device": "/dev/md/benchtest"},
            "filesystem": {"type": "xfs"},
            "mount": {"point": str(point), "owner": ""},
        }
    )
    loops.extra_cleanup.append(
        lambda: subprocess.run(["mdadm", "--stop", "/dev/md/benchtest"], check=False)
    )
    state = tmp_path / "state"
    result = apply_layout(local_runner, layout, devices, state_dir=state, accept_unreadable=True)
    assert result.resync is not None
    assert result.resync["done"]
    assert findmnt(point)["fstype"] == "xfs"
    teardown_layout(local_runner, layout, devices, state_dir=state, accept_unreadable=True)
    assert all(signature(d) == "" for d in devices)


def test_mdadm_is_refused_where_the_kernel_has_no_md(loops: LoopDevices, local_runner: Any) -> None:
    if Path("/proc/mdstat").exists():
        pytest.skip("this kernel has md")
    devices = loops.make_many(4, 64)
    layout = layout_from_dict(
        {"devices": devices, "array": {"level": "10"}, "mount": {"point": "/mnt/bench-md"}}
    )
    with pytest.raises(StorageRefused, match="no md driver"):
        apply_layout(local_runner, layout, devices, accept_unreadable=True)
    disc = discover(local_runner, exclusive_test=False)
    assert not disc.md_available


def test_a_failing_step_stops_the_plan_and_says_which(
    loops: LoopDevices, local_runner: Any, tmp_path: Path
) -> None:
    dev = loops.make(32)  # too small for XFS: mkfs fails
    layout = layout_from_dict(
        {"devices": [dev], "filesystem": {"type": "xfs"}, "mount": {"point": str(tmp_path / "m")}}
    )
    with pytest.raises(StepFailed, match=r"step 2 \(Make an XFS filesystem") as info:
        apply_layout(local_runner, layout, [dev], accept_unreadable=True)
    steps = info.value.result.steps
    assert [s.status for s in steps] == ["ok", "failed"]
    assert steps[1].output
    assert findmnt(tmp_path / "m") == {}
