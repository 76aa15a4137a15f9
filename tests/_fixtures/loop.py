"""Loop devices made from sparse files: real block devices that tests may format, mount, put
in a RAID or tune without touching the machine's own disks.

:class:`LoopDevices` (the ``loops`` fixture) makes them for one test and takes every trace of
them away afterwards, even when the test failed half-way: it unmounts whatever is mounted from
them, turns swap off, makes btrfs forget them, removes added partitions, detaches them and
deletes the files. ``loop_disk`` is one loop device with a mounted ext4 filesystem, for tests
that change a disk's knobs (read-ahead, scheduler). :func:`held_open` is a real process that
holds a device open (not exclusively) until the test is done with it. Tests that need root skip
themselves without it (CI runs as root).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
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


# Opens the device read-only (never O_EXCL), maps it and closes the descriptor (libc's mmap:
# Python's mmap module keeps a descriptor of its own), says so, sleeps until killed.
_HOLDER = r"""
import ctypes, os, signal, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
PROT_READ = MAP_SHARED = 1
if libc.mmap(None, 4096, PROT_READ, MAP_SHARED, fd, 0) in (None, ctypes.c_void_p(-1).value):
    sys.exit(f"mmap failed: {os.strerror(ctypes.get_errno())}")
os.close(fd)
print("ready", flush=True)
while True:
    signal.pause()
"""


@contextlib.contextmanager
def held_open(device: str, how: str = "fd") -> Iterator[subprocess.Popen[str]]:
    """A real process holding ``device`` open until the block ends, then killed.

    ``how``: "fd" (a shell's ``exec 3<DEV``, then ``sleep``: the descriptor is inherited),
    "mmap" (Python maps it and closes the descriptor: only /proc/PID/maps shows it).
    """
    if how == "fd":
        argv = ["sh", "-c", 'exec 3<"$1" && echo ready && exec sleep infinity', "sh", device]
    else:
        argv = [sys.executable, "-c", _HOLDER, device, how]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        ready = proc.stdout.readline().strip()
        if ready != "ready":
            raise RuntimeError(f"the holder of {device} did not start: {ready!r}")
        yield proc
    finally:
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def command_of(pid: int) -> str:
    """The process's command as the kernel names it (/proc/PID/comm)."""
    return Path(f"/proc/{pid}/comm").read_text(encoding="utf-8").strip()


def signature(device: str) -> str:
    """What ``blkid -p`` finds on a device (empty when nothing): to prove nothing changed."""
    result = _run(["blkid", "-p", "-o", "export", device])
    keep = ("TYPE", "UUID", "PTTYPE", "LABEL")
    return "\n".join(line for line in result.stdout.splitlines() if line.split("=", 1)[0] in keep)


@pytest.fixture
def loops(tmp_path: Path) -> Iterator[LoopDevices]:
    if not IS_ROOT:
        pytest.skip("loop devices need root")
    if shutil.which("losetup") is None:
        pytest.skip("losetup is missing (util-linux)")
    made = LoopDevices(tmp_path)
    try:
        yield made
    finally:
        made.cleanup()


@pytest.fixture
def loop_disk(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """(device name, mount point); detached again afterwards."""
    if not shutil.which("losetup") or not shutil.which("mkfs.ext4"):
        pytest.skip("losetup and mkfs.ext4 are needed")
    image = tmp_path / "disk.img"
    with open(image, "wb") as fh:
        fh.truncate(64 * 1024 * 1024)
    dev = subprocess.run(
        ["losetup", "-f", "--show", str(image)], capture_output=True, text=True, check=True
    ).stdout.strip()
    mount = tmp_path / "mnt"
    mount.mkdir()
    try:
        subprocess.run(["mkfs.ext4", "-q", "-F", dev], check=True, capture_output=True)
        subprocess.run(["mount", dev, str(mount)], check=True, capture_output=True)
        try:
            yield Path(dev).name, mount
        finally:
            subprocess.run(["umount", str(mount)], check=False)
    finally:
        subprocess.run(["losetup", "-d", dev], check=False)
