"""The pure layout model: validation that names the field, the exact plan, TOML, mdstat."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench_gui.core.mdstat import parse_mdstat
from bench_gui.core.storage import ERASE_METHODS, Layout, LayoutError, layout_from_dict, load_layout
from bench_gui.core.storage_plan import build_plan, build_teardown


def raid10(**extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "4x SSD RAID 10",
        "target": "db1",
        "devices": [{"path": f"/dev/sd{c}", "erase": "discard"} for c in "bcde"],
        "array": {"level": "10", "chunk_kib": 512},
        "filesystem": {"type": "xfs"},
        "mount": {"point": "/mnt/bench", "options": ["noatime"]},
    }
    data.update(extra)
    return data


def problems(data: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(LayoutError) as info:
        layout_from_dict(data)
    return dict(info.value.problems)


def test_the_seed_layout_becomes_the_exact_mdadm_plan() -> None:
    """Erase, RAID 10 with default options, XFS, mount, permissions for the database user."""
    plan = build_plan(layout_from_dict(raid10()))
    assert plan.commands() == [
        "blkdiscard --verbose -- /dev/sdb",
        "blkdiscard --verbose -- /dev/sdc",
        "blkdiscard --verbose -- /dev/sdd",
        "blkdiscard --verbose -- /dev/sde",
        "mdadm --create /dev/md0 --run --metadata=1.2 --level=10 --raid-devices=4 --chunk=512K"
        " -- /dev/sdb /dev/sdc /dev/sdd /dev/sde",
        "cat /proc/mdstat",
        "mkfs.xfs -K -d su=512k,sw=2 -- /dev/md0",
        "mkdir -p -- /mnt/bench",
        "mount -t xfs -o noatime -- /dev/md0 /mnt/bench",
        "chown -- postgres: /mnt/bench",
    ]
    resync = plan.steps[5]
    assert resync.wait == "resync:/dev/md0"
    assert plan.confirm_devices == ["/dev/sdb", "/dev/sdc", "/dev/sdd", "/dev/sde"]
    assert all(isinstance(s.argv, tuple) for s in plan.steps)
    assert any("resync" in n for n in plan.notes)
    data = plan.to_dict()
    assert data["steps"][4]["argv"][:2] == ["mdadm", "--create"]
    assert data["steps"][0]["destructive"] is True


def test_resync_skip_only_after_a_full_discard() -> None:
    plan = build_plan(layout_from_dict(raid10(array={"level": "10", "resync": "skip"})))
    create = next(s for s in plan.steps if s.phase == "array")
    assert "--assume-clean" in create.argv
    assert not any(s.phase == "resync" for s in plan.steps)
    devices = [{"path": f"/dev/sd{c}", "erase": "format-only"} for c in "bcde"]
    found = problems(raid10(devices=devices, array={"level": "10", "resync": "skip"}))
    assert "array.resync" in found
    assert "full discard" in found["array.resync"]


def test_ext4_alignment_and_hdd_format_only() -> None:
    data = raid10(
        devices=[{"path": f"/dev/sd{c}", "erase": "format-only"} for c in "bcdefghi"],
        filesystem={"type": "ext4", "label": "bench"},
        array={"level": "10", "chunk_kib": 256},
    )
    plan = build_plan(layout_from_dict(data))
    assert plan.steps[0].argv == ("wipefs", "--all", "--", "/dev/sdb")
    mkfs = next(s for s in plan.steps if s.phase == "mkfs")
    assert mkfs.argv == (
        "mkfs.ext4",
        "-q",
        "-E",
        "nodiscard,stride=64,stripe_width=256",
        "-L",
        "bench",
        "--",
        "/dev/md0",
    )


def test_btrfs_raid10_over_four_devices_and_single_devices() -> None:
    data = raid10(array={"level": "10", "backend": "btrfs"}, filesystem={"type": "btrfs"})
    layout = layout_from_dict(data)
    assert layout.volume == "/dev/sdb"
    plan = build_plan(layout)
    mkfs = next(s for s in plan.steps if s.phase == "mkfs")
    assert mkfs.argv == (
        "mkfs.btrfs",
        "--nodiscard",
        "--data",
        "raid10",
        "--metadata",
        "raid10",
        "--",
        "/dev/sdb",
        "/dev/sdc",
        "/dev/sdd",
        "/dev/sde",
    )
    assert not any(s.phase in ("array", "resync") for s in plan.steps)
    found = problems(raid10(array={"level": "10", "backend": "btrfs"}))
    assert "btrfs" in found["filesystem.type"]
    single = layout_from_dict(
        {"devices": ["nvme0n1"], "filesystem": {"type": "ext4", "discard": True}}
    )
    assert single.devices[0].path == "/dev/nvme0n1"
    mkfs = next(s for s in build_plan(single).steps if s.phase == "mkfs")
    assert mkfs.argv == ("mkfs.ext4", "-q", "--", "/dev/nvme0n1")


def test_tuning_steps_write_sysfs_through_stdin() -> None:
    data = raid10(array={"level": "0", "read_ahead_kib": 0})
    data["devices"] = [
        {"path": "/dev/sdb", "scheduler": "none", "read_ahead_kib": 128},
        {"path": "/dev/sdc", "scheduler": "mq-deadline"},
    ]
    plan = build_plan(layout_from_dict(data))
    tune = [s for s in plan.steps if s.phase == "tune"]
    assert [s.argv for s in tune] == [
        ("blockdev", "--setra", "256", "/dev/sdb"),
        ("tee", "/sys/block/sdb/queue/scheduler"),
        ("tee", "/sys/block/sdc/queue/scheduler"),
        ("blockdev", "--setra", "0", "/dev/md0"),
    ]
    assert tune[1].input == "none\n"
    assert tune[1].display() == "tee /sys/block/sdb/queue/scheduler <<< none"
    mkfs = next(s for s in plan.steps if s.phase == "mkfs")
    assert "su=512k,sw=2" in mkfs.argv


def test_every_erase_method_has_commands() -> None:
    for name in ERASE_METHODS:
        path = "/dev/nvme0n1" if name.startswith("nvme") else "/dev/sdb"
        layout = layout_from_dict({"devices": [{"path": path, "erase": name}]})
        erase = [s for s in build_plan(layout).steps if s.phase == "erase"]
        assert erase, name
        assert all(path in s.argv or "/dev/nvme0" in s.argv for s in erase)
    sanitize = build_plan(
        layout_from_dict({"devices": [{"path": "/dev/nvme1n1", "erase": "nvme-sanitize-block"}]})
    ).steps[0]
    assert sanitize.argv == ("nvme", "sanitize", "/dev/nvme1", "-a", "start-block-erase")
    assert sanitize.wait == "sanitize:/dev/nvme1"
    ata = build_plan(
        layout_from_dict({"devices": [{"path": "/dev/sdb", "erase": "ata-secure-erase"}]})
    ).steps
    assert ata[0].argv == ("hdparm", "-I", "/dev/sdb")
    assert ata[0].expect


def test_teardown_plan() -> None:
    layout = layout_from_dict(raid10())
    assert build_teardown(layout).commands() == [
        "umount -- /mnt/bench",
        "wipefs --all -- /dev/md0",
        "mdadm --stop /dev/md0",
        "mdadm --zero-superblock -- /dev/sdb /dev/sdc /dev/sdd /dev/sde",
        "wipefs --all -- /dev/sdb",
        "wipefs --all -- /dev/sdc",
        "wipefs --all -- /dev/sdd",
        "wipefs --all -- /dev/sde",
    ]


@pytest.mark.parametrize(
    "name",
    ["/dev/sdb; rm -rf /", "/dev/sd b", "/dev/$(reboot)", "/dev/../etc/passwd", "-rf", "`x`"],
)
def test_shell_metacharacters_in_a_device_name_are_refused(name: str) -> None:
    found = problems({"devices": [{"path": name}]})
    assert "devices[0].path" in found


def test_every_bad_field_is_named_at_once() -> None:
    found = problems(
        {
            "name": "",
            "bogus": 1,
            "devices": [{"path": "/dev/sdb", "erase": "shred", "scheduler": "cfq"}, "/dev/sdb"],
            "array": {"level": "5", "chunk_kib": 100},
            "filesystem": {"type": "zfs", "options": ["-n; reboot"]},
            "mount": {"point": "/", "options": ["noatime;reboot"], "owner": "Bad User"},
            "database": {
                "placement": "elsewhere",
                "tablespace": "Bench Space",
                "databases": ["tpcc", "postgres"],
                "control": "service:x",
                "directory": "../up",
            },
        }
    )
    for field in (
        "name",
        "bogus",
        "devices[0].erase",
        "devices[0].scheduler",
        "devices[1].path",
        "array.level",
        "array.chunk_kib",
        "filesystem.type",
        "filesystem.options",
        "mount.point",
        "mount.options",
        "mount.owner",
        "database.placement",
        "database.tablespace",
        "database.databases",
        "database.control",
        "database.directory",
    ):
        assert field in found, field
    assert "system directory" in found["mount.point"]
    assert problems({"devices": ["/dev/sdb", "/dev/sdc"]})["array.level"].startswith("2 devices")
    assert "even" in problems(raid10(devices=["/dev/sdb", "/dev/sdc", "/dev/sdd"]))["devices"]
    assert (
        "/dev/md" in problems(raid10(array={"level": "10", "device": "/dev/sdx"}))["array.device"]
    )


def test_toml_round_trip(tmp_path: Path) -> None:
    layout = layout_from_dict(raid10(database={"placement": "datadir", "wal_directory": "/wal/x"}))
    path = tmp_path / "layout.toml"
    layout.save(path)
    again = load_layout(path)
    assert again == layout
    assert isinstance(again, Layout)
    path.write_text("name = [", encoding="utf-8")
    with pytest.raises(LayoutError, match="not valid TOML"):
        load_layout(path)


MDSTAT = """Personalities : [raid10] [raid1]
md0 : active raid10 sde[3] sdd[2] sdc[1] sdb[0]
      1562561536 blocks super 1.2 512K chunks 2 near-copies [4/4] [UUUU]
      [====>.......]  resync = 21.3% (333001216/1562561536) finish=98.2min speed=208640K/sec
      bitmap: 10/12 pages [40KB], 65536KB chunk

md1 : active (auto-read-only) raid1 sdg[1] sdf[0]
      976630464 blocks super 1.2 [2/2] [UU]
        resync=PENDING

md2 : active raid1 sdi[1] sdh[0]
      976630464 blocks super 1.2 [2/2] [UU]

unused devices: <none>
"""


def test_mdstat_progress() -> None:
    arrays = parse_mdstat(MDSTAT)
    md0 = arrays["md0"]
    assert md0.level == "raid10"
    assert md0.members == ["sde", "sdd", "sdc", "sdb"]
    assert md0.action == "resync"
    assert md0.percent == pytest.approx(21.3)
    assert md0.finish == "98.2min"
    assert md0.speed == "208640K/sec"
    assert md0.syncing
    assert arrays["md1"].pending
    assert arrays["md1"].syncing
    assert not arrays["md2"].syncing
