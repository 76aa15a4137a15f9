"""Helpers of the storage tests: loop devices that always go away, signatures, root checks."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

IS_ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not IS_ROOT, reason="loop devices and mkfs need root")


def _run(argv: list[str], check: bool = False) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, check=check)


def _mounts_of(device: str) -> list[str]:
    points = []
    with open("/proc/self/mountinfo", encoding="utf-8") as fh:
        for line in fh:
            left, _, right = line.partition(" - ")
            parts = left.split()
            tail = right.split()
            if len(tail) >= 2 and (tail[1] == device or tail[1].startswith(device + "p")):
                points.append(parts[4].replace("\\040", " "))
    return points


class LoopDevices:
    """Makes loop devices for one test and takes every trace of them away afterwards."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.devices: list[str] = []
        self.files: list[Path] = []
        self.extra_cleanup: list[Callable[[], Any]] = []

    def make(self, size_mib: int = 1024, partscan: bool = False) -> str:
        path = self.folder / f"disk{len(self.files)}.img"
        with open(path, "wb") as fh:
            fh.truncate(size_mib * 1024 * 1024)
        self.files.append(path)
        argv = ["losetup", "-f", "--show", *(["-P"] if partscan else []), str(path)]
        result = _run(argv)
        if result.returncode != 0:
            pytest.skip(f"cannot create a loop device: {result.stderr.strip()}")
        device = result.stdout.strip()
        self.devices.append(device)
        return device

    def make_many(self, count: int, size_mib: int = 1024) -> list[str]:
        return [self.make(size_mib) for _ in range(count)]

    def cleanup(self) -> None:
        for fn in reversed(self.extra_cleanup):
            with contextlib.suppress(Exception):
                fn()
        swaps = Path("/proc/swaps").read_text().split()
        for device in self.devices:
            for point in sorted(_mounts_of(device), key=len, reverse=True):
                _run(["umount", "-l", point])
            for name in swaps:
                if name == device or name.startswith(device + "p"):
                    _run(["swapoff", name])
        if shutil.which("btrfs") and self.devices:
            _run(["btrfs", "device", "scan", "--forget", *self.devices])
        for device in self.devices:
            for part in sorted(Path("/dev").glob(Path(device).name + "p*")):
                number = part.name.rsplit("p", 1)[1]
                if number.isdigit():
                    _run(["delpart", device, number])
            _run(["losetup", "-d", device])
        for path in self.files:
            path.unlink(missing_ok=True)


def signature(device: str) -> str:
    """What ``blkid -p`` finds on a device (empty when nothing): to prove nothing changed."""
    result = _run(["blkid", "-p", "-o", "export", device])
    keep = ("TYPE", "UUID", "PTTYPE", "LABEL")
    return "\n".join(line for line in result.stdout.splitlines() if line.split("=", 1)[0] in keep)
