"""A loop device with a mounted ext4 filesystem: a real block device whose knobs (read-ahead,
scheduler) tests may change without touching the machine's own disks."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


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
