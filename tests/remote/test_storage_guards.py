"""The guards, for real: devices in use are refused with their evidence and nothing is touched.

Every apply here goes through :class:`NoDestruction`, a runner that fails the test instead of
running anything that writes to a disk: if a guard let a device through, the test fails before
the device is harmed (this matters most for the root device).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bench_gui.core.open_handles import parse_handle_scan
from bench_gui.core.storage import DeviceSpec, Layout, layout_from_dict
from bench_gui.remote.storage import (
    NOT_RECORDED_FIELD,
    UNREADABLE_FIELD,
    StorageRefused,
    analyse,
    apply_layout,
    check_layout,
    discover,
    parse_blkid_export,
    parse_mountinfo,
    parse_swaps,
    record_layout,
    recorded_layouts,
    teardown_layout,
)
from tests._fixtures.loop import LoopDevices, command_of, held_open, signature

WRITERS = {
    "blkdiscard",
    "wipefs",
    "mkfs.xfs",
    "mkfs.ext4",
    "mkfs.btrfs",
    "mdadm",
    "mount",
    "umount",
    "nvme",
    "sg_sanitize",
    "hdparm",
    "tee",
    "blockdev",
    "chown",
    "chmod",
    "mkdir",
    "dd",
}


class NoDestruction:
    """Passes read-only commands to the real runner; a writing one fails the test."""

    def __init__(self, runner: Any) -> None:
        self.runner = runner
        self.ran: list[list[str]] = []

    def run(self, argv: list[str], **kwargs: Any) -> Any:
        self.ran.append(list(argv))
        if argv[0] in WRITERS:
            raise AssertionError(f"a guard let a writing command through: {argv}")
        return self.runner.run(argv, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.runner, name)


def sh(*argv: str) -> str:
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout


def one_device(path: str, **extra: Any) -> Layout:
    return layout_from_dict(
        {"devices": [{"path": path, "erase": "discard"}], "mount": {"point": "/mnt/bench-x"}}
        | extra
    )


def refused(runner: Any, layout: Layout, **kwargs: Any) -> StorageRefused:
    guarded = NoDestruction(runner)
    with pytest.raises(StorageRefused) as info:
        apply_layout(guarded, layout, layout.device_paths, **kwargs)
    assert not any(argv[0] in WRITERS for argv in guarded.ran)
    return info.value


def kinds(error: StorageRefused, device: str) -> dict[str, str]:
    for refusal in error.refusals:
        if refusal.device == device:
            return {e.kind: e.text for e in refusal.evidence}
    raise AssertionError(f"{device} was not refused: {error}")


def test_a_mounted_loop_device_is_refused(
    loops: LoopDevices, ssh_runner: Any, tmp_path: Path
) -> None:
    dev = loops.make(256)
    sh("mkfs.ext4", "-q", dev)
    point = tmp_path / "mounted"
    point.mkdir()
    sh("mount", dev, str(point))
    before = signature(dev)
    error = refused(ssh_runner, one_device(dev))
    found = kinds(error, dev)
    assert f"is mounted on {point}" in found["mounted"]
    assert "exclusively" in found["busy"]
    assert f"is mounted on {point}" in str(error)
    assert "nothing was changed" in str(error)
    assert signature(dev) == before
    assert "TYPE=ext4" in before


def test_a_swap_loop_device_is_refused(loops: LoopDevices, local_runner: Any) -> None:
    dev = loops.make(64)
    sh("mkswap", dev)
    loops.extra_cleanup.append(lambda: subprocess.run(["swapoff", dev], check=False))
    if subprocess.run(["swapon", dev], capture_output=True, check=False).returncode != 0:
        pytest.skip("swapon is not allowed here")
    before = signature(dev)
    found = kinds(refused(local_runner, one_device(dev)), dev)
    assert found["swap"] == "is in use as swap"
    assert signature(dev) == before


def _root_disk() -> str | None:
    dev = os.stat("/").st_dev
    sys_path = Path(f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}")
    if os.major(dev) == 0 or not sys_path.exists():
        return None
    real = sys_path.resolve()
    if (real / "partition").exists():
        real = real.parent
    return f"/dev/{real.name}"


def test_the_root_device_is_refused(ssh_runner: Any) -> None:
    root = _root_disk()
    if root is None:
        pytest.skip("/ is not on a block device here (overlay or btrfs subvolume)")
    if not os.access(root, os.F_OK):
        pytest.skip(f"{root} has no device node here")
    error = refused(ssh_runner, one_device(root))
    found = kinds(error, root)
    assert found["root"] == "holds the root filesystem (/)"
    assert "mounted" in found or "busy" in found


def test_a_device_whose_partition_is_mounted_is_refused(
    loops: LoopDevices, local_runner: Any, tmp_path: Path
) -> None:
    dev = loops.make(256, partscan=True)
    # This kernel may parse no partition table at all: BLKPG (addpart) adds one regardless.
    result = subprocess.run(["addpart", dev, "1", "2048", "400000"], capture_output=True)
    part = f"{dev}p1"
    if result.returncode != 0 or not Path(part).exists():
        pytest.skip(f"cannot add a partition to a loop device: {result.stderr!r}")
    sh("mkfs.ext4", "-q", part)
    point = tmp_path / "part"
    point.mkdir()
    sh("mount", part, str(point))
    before = signature(part), signature(dev)
    error = refused(local_runner, one_device(dev))
    found = kinds(error, dev)
    assert found["mounted"] == f"partition {part} is mounted on {point}"
    disc = discover(local_runner)
    parent = disc.find(dev)
    assert parent is not None
    assert parent.children == [part]
    assert any(e.kind == "partitions" and not e.blocking for e in parent.evidence)
    assert (signature(part), signature(dev)) == before


def test_a_device_of_a_mounted_multi_device_btrfs_is_refused(
    loops: LoopDevices, local_runner: Any, tmp_path: Path
) -> None:
    first, second = loops.make_many(2, 300)
    sh("mkfs.btrfs", "-q", "-f", "-d", "raid1", "-m", "raid1", first, second)
    point = tmp_path / "btrfs"
    point.mkdir()
    sh("mount", first, str(point))
    found = kinds(refused(local_runner, one_device(second)), second)
    # mountinfo names only the first device: the UUID and the exclusive open tell the rest.
    assert f"mounted on {point}" in found["btrfs"]
    assert "exclusively" in found["busy"]


def test_unknown_device_and_shell_characters_are_refused_and_never_run(
    loops: LoopDevices, local_runner: Any, tmp_path: Path
) -> None:
    loops.make(64)
    error = refused(local_runner, one_device("/dev/nosuchdisk9"))
    assert "is not one of the block devices" in error.refusals[0].reason
    marker = tmp_path / "pwned"
    evil = f"/dev/loop0; touch {marker}"
    layout = Layout(devices=[DeviceSpec(path=evil)])  # built around the validation on purpose
    guarded = NoDestruction(local_runner)
    with pytest.raises(StorageRefused) as info:
        apply_layout(guarded, layout, [evil])
    assert info.value.refusals[0].field_name == "devices[0].path"
    assert not marker.exists()
    assert not any(evil in argv for argv in guarded.ran)
    assert all(evil not in entry.command for entry in local_runner.command_log)


def test_the_confirmation_must_name_every_device(loops: LoopDevices, local_runner: Any) -> None:
    first, second = loops.make_many(2, 64)
    layout = layout_from_dict(
        {
            "devices": [first, second],
            "array": {"level": "1", "backend": "btrfs"},
            "filesystem": {"type": "btrfs"},
            "mount": {"point": "/mnt/bench-x"},
        }
    )
    guarded = NoDestruction(local_runner)
    with pytest.raises(StorageRefused, match=f"not typed: {second}"):
        apply_layout(guarded, layout, [first])
    with pytest.raises(StorageRefused, match="not in the layout: /dev/sdz"):
        apply_layout(guarded, layout, [f"{first},{second}", "sdz"])
    assert guarded.ran == []  # nothing at all ran: not even discovery


def test_teardown_refuses_a_mount_of_something_else(
    loops: LoopDevices, local_runner: Any, tmp_path: Path
) -> None:
    ours, other = loops.make_many(2, 256)
    sh("mkfs.ext4", "-q", other)
    point = tmp_path / "mnt"
    point.mkdir()
    sh("mount", other, str(point))
    layout = layout_from_dict({"devices": [ours], "mount": {"point": str(point)}})
    guarded = NoDestruction(local_runner)
    # Even with the user's word that it was not built by bench-gui, the guards still hold.
    with pytest.raises(StorageRefused, match=f"mounted from {other}"):
        teardown_layout(guarded, layout, [ours], not_built_confirm=[ours], accept_unreadable=True)
    assert "TYPE=ext4" in signature(other)


def test_evidence_from_captured_host_output() -> None:
    """The analysis alone, on what a server with LVM on an md array and a swap would show."""
    nodes = [
        {"kname": "sda", "path": "/dev/sda", "type": "disk", "size_bytes": 10, "dev": "8:0"},
        {
            "kname": "sda1",
            "path": "/dev/sda1",
            "type": "part",
            "size_bytes": 9,
            "dev": "8:1",
            "pkname": "sda",
            "mountpoints": ["/boot"],
        },
        {
            "kname": "sda2",
            "path": "/dev/sda2",
            "type": "part",
            "size_bytes": 1,
            "dev": "8:2",
            "pkname": "sda",
        },
        {"kname": "sdb", "path": "/dev/sdb", "type": "disk", "size_bytes": 10, "dev": "8:16"},
        {"kname": "sdc", "path": "/dev/sdc", "type": "disk", "size_bytes": 10, "dev": "8:32"},
        {
            "kname": "md0",
            "path": "/dev/md0",
            "type": "raid1",
            "size_bytes": 10,
            "dev": "9:0",
            "pkname": "sdb",
        },
        {
            "kname": "dm-0",
            "path": "/dev/mapper/vg-root",
            "type": "lvm",
            "size_bytes": 10,
            "dev": "253:0",
            "pkname": "md0",
            "mountpoints": ["/"],
        },
        {"kname": "sdd", "path": "/dev/sdd", "type": "disk", "size_bytes": 10, "dev": "8:48"},
    ]
    sections = {
        "mountinfo": "20 1 253:0 / / rw,relatime - xfs /dev/mapper/vg-root rw\n"
        "21 20 8:1 / /boot rw,relatime - ext4 /dev/sda1 rw\n"
        "22 20 0:40 / /mnt/my\\040disk rw - tmpfs tmpfs rw\n",
        "swaps": "Filename\tType\tSize\tUsed\tPriority\n/dev/sda2 partition 1 0 -2\n",
        "mdstat": "Personalities : [raid1]\nmd0 : active raid1 sdc[1] sdb[0]\n      10 blocks\n",
        "sysfs": "dev sdb 8:16\nholder sdb md0\ndev sdc 8:32\nholder sdc md0\ndev md0 9:0\n"
        "slave md0 sdb\nslave md0 sdc\nholder md0 dm-0\ndev dm-0 253:0\nslave dm-0 md0\n"
        "dev sda 8:0\ndev sda1 8:1\nparent sda1 sda\ndev sda2 8:2\nparent sda2 sda\n"
        "dev sdd 8:48\nscheduler sdd [mq-deadline] none\ndiscard_max_bytes sdd 0\n",
        "rootdev": "64768\n",
    }
    blkid = parse_blkid_export(
        "DEVNAME=/dev/sdb\nTYPE=linux_raid_member\n\nDEVNAME=/dev/sdd\nTYPE=LVM2_member\n"
    )
    disc = analyse(nodes, sections, blkid, {"/dev/sdd": "ok"}, ["wipefs", "blkdiscard"])
    by = {d.path: {e.kind for e in d.blocking} for d in disc.devices}
    assert {"root", "holders", "member"} <= by["/dev/sdb"]
    assert {"root", "holders", "member"} <= by["/dev/sdc"]
    assert {"boot", "mounted", "swap"} <= by["/dev/sda"]
    assert by["/dev/sdd"] == set()  # a bare physical volume: refused unless named again
    sdd = disc.find("/dev/sdd")
    assert sdd is not None
    assert [e.text for e in sdd.signatures] == ["is an LVM physical volume (signature LVM2_member)"]
    assert sdd.erase_methods == ["format-only", "zeroout"]  # no discard on this disk
    assert sdd.schedulers == ["mq-deadline", "none"]
    assert "/dev/sdb" in disc.root_devices
    assert parse_mountinfo(sections["mountinfo"])[2].point == "/mnt/my disk"
    assert parse_swaps(sections["swaps"]) == ["/dev/sda2"]
    layout = layout_from_dict({"devices": ["/dev/sdd"], "mount": {"point": "/mnt/b"}})
    reasons = check_layout(layout, disc)
    assert {r.field_name for r in reasons} >= {"signatures", "devices[0].erase"}
    assert [r.device for r in reasons if r.field_name == "signatures"] == ["/dev/sdd"]


# ---- devices held open by a process, and a scan that cannot see every process -----------------
# The override for an incomplete scan is passed where a test is about something else: in a
# container or sandbox, some processes (its init) cannot be read even by root. A process the
# scan does find holding a device refuses whatever the override says.


@pytest.mark.parametrize("how", ["fd", "mmap"])
def test_a_device_held_open_by_a_process_is_refused_naming_it(
    loops: LoopDevices, local_runner: Any, how: str
) -> None:
    dev = loops.make(64)
    sh("mkfs.ext4", "-q", dev)
    before = signature(dev)
    with held_open(dev, how) as holder:
        error = refused(local_runner, one_device(dev), accept_unreadable=True)
        command = command_of(holder.pid)
    found = kinds(error, dev)
    assert "busy" not in found  # not exclusive: the O_EXCL test alone saw nothing
    how_text = "as fd 3" if how == "fd" else "mapped in its memory"
    assert found["open"] == f"is held open by process {holder.pid} ({command}) {how_text}"
    assert f"process {holder.pid} ({command})" in str(error)
    assert signature(dev) == before
    # Once the process is gone, the device is free again.
    disc = discover(local_runner)
    device = disc.find(dev)
    assert device is not None
    assert not [e for e in device.blocking if e.kind == "open"]


def test_a_held_open_device_is_refused_over_ssh(loops: LoopDevices, ssh_runner: Any) -> None:
    dev = loops.make(64)
    with held_open(dev, "mmap") as holder:
        error = refused(ssh_runner, one_device(dev), accept_unreadable=True)
        command = command_of(holder.pid)
    found = kinds(error, dev)
    assert found["open"] == (
        f"is held open by process {holder.pid} ({command}) mapped in its memory"
    )
    assert signature(dev) == ""


def test_a_held_open_partition_refuses_its_disk(loops: LoopDevices, local_runner: Any) -> None:
    dev = loops.make(256, partscan=True)
    result = subprocess.run(["addpart", dev, "1", "2048", "400000"], capture_output=True)
    part = f"{dev}p1"
    if result.returncode != 0 or not Path(part).exists():
        pytest.skip(f"cannot add a partition to a loop device: {result.stderr!r}")
    with held_open(part) as holder:
        found = kinds(refused(local_runner, one_device(dev), accept_unreadable=True), dev)
    assert found["open"] == f"is held open by process {holder.pid} (sleep) as fd 3"


def test_a_scan_that_cannot_read_every_process_refuses_unless_accepted(
    loops: LoopDevices, sshd: Any
) -> None:
    """Over SSH as a user without sudo: other users' open files are out of sight."""
    if sshd.nosudo_user is None:
        pytest.skip("a user without sudo needs root to create")
    from bench_gui.remote import secrets
    from bench_gui.remote.connection import connect

    dev = loops.make(64)
    sshd.trust()
    target = sshd.target(name="plain", user=sshd.nosudo_user, auth="password", key_path=None)
    secrets.set_secret("plain", "password", sshd.password)
    session = connect(target)
    try:
        with held_open(dev):  # a root process: invisible to this user
            disc = discover(session)
    finally:
        session.close()
    scan = disc.handles
    assert scan is not None
    assert not scan.complete
    assert "not root" in scan.problem()
    layout = one_device(dev)
    reasons = {r.field_name: r.reason for r in check_layout(layout, disc)}
    assert "could not be read" in reasons[UNREADABLE_FIELD]
    assert "not root" in reasons[UNREADABLE_FIELD]
    accepted = check_layout(layout, disc, accept_unreadable=True)
    assert UNREADABLE_FIELD not in {r.field_name for r in accepted}


def test_an_incomplete_scan_refuses_apply_on_this_machine_unless_accepted(
    loops: LoopDevices, local_runner: Any
) -> None:
    disc = discover(local_runner)
    if disc.handles is None or disc.handles.complete:
        pytest.skip("root reads every process here: the SSH test above covers the refusal")
    dev = loops.make(64)
    error = refused(local_runner, one_device(dev))
    refusal = next(r for r in error.refusals if r.field_name == UNREADABLE_FIELD)
    assert refusal.evidence
    assert all(e.kind == "unreadable" for e in refusal.evidence)
    assert disc.handles.unreadable[0].describe() in str(error)


# ---- teardown of what bench-gui did not build --------------------------------------------------


def test_teardown_of_an_unrecorded_layout_is_refused_unless_confirmed_separately(
    loops: LoopDevices, local_runner: Any, tmp_path: Path
) -> None:
    dev = loops.make(256)
    sh("mkfs.ext4", "-q", dev)  # someone else's filesystem, mounted by hand
    point = tmp_path / "theirs"
    point.mkdir()
    sh("mount", dev, str(point))
    state = tmp_path / "state"
    layout = layout_from_dict({"devices": [dev], "mount": {"point": str(point)}})
    guarded = NoDestruction(local_runner)
    with pytest.raises(StorageRefused) as info:
        teardown_layout(guarded, layout, [dev], state_dir=state, accept_unreadable=True)
    assert [r.field_name for r in info.value.refusals] == [NOT_RECORDED_FIELD]
    assert "bench-gui has no record of building" in str(info.value)
    assert guarded.ran == []  # refused before the host was asked anything
    # The override wants every device typed once more; a wrong one is refused too.
    with pytest.raises(StorageRefused, match="type every device of it again"):
        teardown_layout(guarded, layout, [dev], state_dir=state, not_built_confirm=["/dev/loop999"])
    assert "TYPE=ext4" in signature(dev)
    assert str(point) in sh("findmnt", "-n", "-o", "TARGET", dev)

    done = teardown_layout(
        local_runner,
        layout,
        [dev],
        state_dir=state,
        accept_unreadable=True,
        not_built_confirm=[Path(dev).name],
    )
    assert done.ok
    assert signature(dev) == ""
    assert subprocess.run(["findmnt", dev], capture_output=True).returncode != 0


def test_teardown_refuses_a_record_of_other_devices_or_another_host(
    loops: LoopDevices, local_runner: Any, tmp_path: Path
) -> None:
    ours, other = loops.make_many(2, 64)
    state = tmp_path / "state"
    point = str(tmp_path / "vol")
    built = {
        "name": "bench volume",
        "target": "local",
        "host": "some-other-host",
        "volume": ours,
        "devices": [{"path": ours}],
        "mount": {"point": point},
    }
    record_layout(state, built)
    wrong = layout_from_dict({"devices": [other], "mount": {"point": point}})
    guarded = NoDestruction(local_runner)
    with pytest.raises(StorageRefused, match=f"is over {ours}, not {other}"):
        teardown_layout(guarded, wrong, [other], state_dir=state, accept_unreadable=True)
    right = layout_from_dict({"devices": [ours], "mount": {"point": point}})
    with pytest.raises(StorageRefused) as info:
        teardown_layout(guarded, right, [ours], state_dir=state, accept_unreadable=True)
    assert "was built on host some-other-host" in str(info.value)
    assert recorded_layouts(state, "local") == [built]


def test_open_handles_and_open_counts_from_captured_host_output() -> None:
    """The analysis alone: a disk held by a device-mapper device that is open twice (no dm
    driver here to try it for real), and a partition a process holds and maps."""
    nodes = [
        {"kname": "sdb", "path": "/dev/sdb", "type": "disk", "size_bytes": 10, "dev": "8:16"},
        {
            "kname": "dm-0",
            "path": "/dev/mapper/vg-data",
            "type": "lvm",
            "size_bytes": 10,
            "dev": "253:0",
            "pkname": "sdb",
        },
        {"kname": "sdc", "path": "/dev/sdc", "type": "disk", "size_bytes": 10, "dev": "8:32"},
        {
            "kname": "sdc1",
            "path": "/dev/sdc1",
            "type": "part",
            "size_bytes": 9,
            "dev": "8:33",
            "pkname": "sdc",
        },
    ]
    sections = {
        "sysfs": "dev sdb 8:16\nholder sdb dm-0\ndev dm-0 253:0\nslave dm-0 sdb\n"
        "dev sdc 8:32\ndev sdc1 8:33\nparent sdc1 sdc\n",
    }
    scan = parse_handle_scan(
        "@@uid\n0\n@@fds\n/proc/700/fd/5 61b0 8 21\n"
        "@@maps\n/proc/700/maps:7f00-7f01 r--s 00000000 00:05 9 /dev/sdc1\n"
        "/proc/701/maps:7f00-7f01 r--s 00000000 00:05 9 /dev/mapper/vg-data\n"
        "@@comm\n700 fio\n701 postgres\n@@dmopen\n253:0 2\n@@end\n"
    )
    disc = analyse(nodes, sections, {}, {}, ["wipefs"], handles=scan)
    evidence = {d.path: {e.kind: e.text for e in d.evidence} for d in disc.devices}
    assert evidence["/dev/sdc1"]["open"] == (
        "is held open by process 700 (fio) as fd 5 and mapped in its memory"
    )
    assert evidence["/dev/sdc"]["open"] == evidence["/dev/sdc1"]["open"]  # a disk carries it
    assert evidence["/dev/mapper/vg-data"]["open"] == (
        "is held open by process 701 (postgres) mapped in its memory"
    )
    assert evidence["/dev/mapper/vg-data"]["open-count"] == (
        "is open 2 times (the kernel's open count)"
    )
    sdb = disc.find("/dev/sdb")
    assert sdb is not None
    assert [e.text for e in sdb.evidence if e.kind in ("holders", "open-count")] == [
        "is held by dm-0",
        "its holder is in use: dm-0 is open 2 times (the kernel's open count)",
        "is open 2 times (the kernel's open count)",  # dm-0's own, as its parent carries it
    ]
    mapped = disc.find("/dev/mapper/vg-data")
    assert mapped is not None
    assert mapped.open_count == 2
    assert disc.handles is not None
    assert disc.handles.complete
