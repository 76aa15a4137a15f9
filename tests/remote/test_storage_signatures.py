"""Devices that carry a signature are refused by ``storage apply`` unless named again, whatever
their place in the layout: real loop devices, each kind of signature written by its own tool
(mkfs.ext4, pvcreate, sfdisk, mkswap; an md superblock by mdadm where the kernel has md, else
written as mdadm writes it and checked by ``mdadm --examine``), probed by the real discovery.

The case behind it: one ``blkid -p`` over every device stops at the first device without a
signature (util-linux 2.38), so a bare LVM physical volume after it was taken for empty and
wiped with no warning.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench_gui.core.storage import layout_from_dict
from bench_gui.remote.storage import SIGNED_FIELD, StorageRefused, apply_layout, discover
from tests._fixtures.loop import LoopDevices, signature
from tests.remote.test_storage_guards import WRITERS, NoDestruction


def run(*argv: str) -> None:
    subprocess.run(argv, capture_output=True, text=True, check=True)


def md_superblock(max_dev: int = 2) -> bytes:
    """An md v1.2 superblock as mdadm writes it (magic, version, offsets, checksum), for a
    kernel without the md driver, where ``mdadm --create`` cannot run."""
    sb = bytearray(256 + max_dev * 2)
    struct.pack_into("<IIII", sb, 0, 0xA92B4EFC, 1, 0, 0)
    sb[0x10:0x20] = uuid.uuid4().bytes
    sb[0x20:0x27] = b"bench:0"
    struct.pack_into("<iIQII", sb, 0x48, 1, 0, 1024, 0, 2)  # raid1 of 2
    struct.pack_into("<QQQ", sb, 0x80, 2048, 1024, 8)  # data, size, super_offset (4 KiB)
    sb[0xA8:0xB8] = uuid.uuid4().bytes
    struct.pack_into("<I", sb, 0xDC, max_dev)
    struct.pack_into("<HH", sb, 0x100, 0, 1)
    total = sum(struct.unpack_from(f"<{len(sb) // 4}I", sb))
    struct.pack_into("<I", sb, 0xD8, ((total & 0xFFFFFFFF) + (total >> 32)) & 0xFFFFFFFF)
    return bytes(sb)


def write_md(dev: str) -> None:
    if Path("/proc/mdstat").exists():
        run("mdadm", "--create", "/dev/md/bench-sig", "--run", "--metadata=1.2", "--level=1",
            "--raid-devices=2", dev, "missing")  # fmt: skip
        run("mdadm", "--stop", "/dev/md/bench-sig")
    else:
        with open(dev, "r+b") as fh:
            fh.seek(4096)
            fh.write(md_superblock())
    examined = subprocess.run(["mdadm", "--examine", dev], capture_output=True, text=True)
    assert "a92b4efc" in examined.stdout, examined.stdout + examined.stderr


# kind: (the tool it needs, how it is written, what blkid -p then reports)
KINDS: dict[str, tuple[str, Callable[[str], None], str]] = {
    "ext4": ("mkfs.ext4", lambda d: run("mkfs.ext4", "-q", "-F", d), "TYPE=ext4"),
    "lvm-pv": ("pvcreate", lambda d: run("pvcreate", "-qq", "-y", d), "TYPE=LVM2_member"),
    "md-raid": ("mdadm", write_md, "TYPE=linux_raid_member"),
    "gpt": (
        "sfdisk",
        lambda d: subprocess.run(
            ["sfdisk", "-q", "-X", "gpt", d],
            input=",\n",
            text=True,
            check=True,
            capture_output=True,
        ),
        "PTTYPE=gpt",
    ),  # fmt: skip
    "swap": ("mkswap", lambda d: run("mkswap", d), "TYPE=swap"),
}


def wipe(dev: str) -> None:
    if shutil.which("pvremove"):
        subprocess.run(["pvremove", "-qq", "-ff", "-y", dev], capture_output=True)
    run("wipefs", "-a", "-q", dev)


def layout_of(devices: list[str], point: Path) -> Any:
    return layout_from_dict(
        {
            "devices": [{"path": d, "erase": "format-only"} for d in devices],
            "filesystem": {"type": "ext4"} if len(devices) == 1 else {"type": "btrfs"},
            "array": {"level": "raid0", "backend": "btrfs"} if len(devices) > 1 else {},
            "mount": {"point": str(point), "owner": ""},
        }
    )


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_signed_device_is_refused_in_every_position(
    kind: str, loops: LoopDevices, local_runner: Any, tmp_path: Path
) -> None:
    tool, write, reported = KINDS[kind]
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed (scripts/install-system-deps.sh --test)")
    devices = loops.make_many(3, 64)
    layout = layout_of(devices, tmp_path / "vol")
    for position, signed in enumerate(devices):
        write(signed)
        before = signature(signed)
        assert reported in before, before
        disc = discover(local_runner)
        found = {d: [e.text for e in disc.find(d).signatures] for d in devices}  # type: ignore[union-attr]
        assert [bool(texts) for texts in found.values()] == [i == position for i in range(3)], found
        guarded = NoDestruction(local_runner)
        with pytest.raises(StorageRefused) as info:
            apply_layout(guarded, layout, devices, accept_unreadable=True)
        assert not any(argv[0] in WRITERS for argv in guarded.ran)
        refusals = [r for r in info.value.refusals if r.field_name == SIGNED_FIELD]
        assert [r.device for r in refusals] == [signed], str(info.value)
        assert f"{signed} carries a signature" in str(info.value)
        assert signature(signed) == before
        wipe(signed)


def test_a_signed_device_named_again_is_wiped_and_built_on(
    loops: LoopDevices, local_runner: Any, tmp_path: Path
) -> None:
    if shutil.which("pvcreate") is None:
        pytest.skip("pvcreate is not installed (scripts/install-system-deps.sh --test)")
    dev = loops.make(64)
    run("pvcreate", "-qq", "-y", dev)
    layout = layout_of([dev], tmp_path / "vol")
    # Naming another device, or none, is not naming it.
    for typed in (None, [], ["/dev/loop-none"]):
        with pytest.raises(StorageRefused, match=SIGNED_FIELD):
            apply_layout(NoDestruction(local_runner), layout, [dev], accept_unreadable=True,
                         wipe_signed=typed)  # fmt: skip
    assert "TYPE=LVM2_member" in signature(dev)
    result = apply_layout(
        local_runner, layout, [dev], accept_unreadable=True, wipe_signed=[Path(dev).name]
    )
    assert result.ok
    assert "TYPE=ext4" in signature(dev)
    loops.extra_cleanup.append(lambda: subprocess.run(["umount", str(tmp_path / "vol")]))
