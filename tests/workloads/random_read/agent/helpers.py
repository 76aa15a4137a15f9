"""Real storage for the random-read tests: loop-device filesystems, one of them throttled to a
disk's IOPS by a cgroup, and the agent run as a subprocess inside that cgroup.

The throttle is cgroup v1 ``blkio.throttle.read_iops_device`` or v2 ``io.max riops=``: the
agent (and so fio, its child) runs in the throttled group; on v2 the group is a parent with the
agent in a leaf below it, so the memory cgroup the agent makes beside itself is throttled too.
What this host cannot do is a skip that names what is missing.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench_gui.workloads.random_read.agent.cgroup import (
    find_hierarchy,
    parse_mountinfo,
    parse_proc_cgroup,
)
from tests._fixtures.loop import LoopDevices

REPO = Path(__file__).resolve().parents[4]


def need_fio() -> str:
    found = shutil.which("fio")
    if found is None:
        pytest.skip("fio is not installed (Debian package fio)")
    return found


def need_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("loop devices, cgroups and dropping caches need root")


def cgroup_filesystem_mounted() -> None:
    """Skip unless a cgroup filesystem is mounted here (a chroot or a bare container has none)."""
    from bench_gui.workloads.random_read.agent.cgroup import CgroupError

    try:
        find_hierarchy()
    except CgroupError as exc:
        pytest.skip(f"no cgroup filesystem here: {exc}")


def memory_cgroups_usable() -> None:
    """Skip unless a memory cgroup can be made here (the agent's own check)."""
    from bench_gui.workloads.random_read.agent.cgroup import CgroupError, MemoryCgroup

    try:
        MemoryCgroup(256 * 1024 * 1024).remove()
    except CgroupError as exc:
        pytest.skip(f"memory cgroups cannot be used here: {exc}")


def make_filesystem(loops: LoopDevices, mount: Path, size_mib: int = 1200) -> str:
    """A loop device with ext4 mounted at ``mount``; its device name (``loop3``).

    Direct I/O on the backing file when the kernel allows it: the loop device then reads the
    real disk instead of keeping a second copy of every page in the page cache (which the
    memory cgroup would be charged for too).
    """
    if shutil.which("mkfs.ext4") is None:
        pytest.skip("mkfs.ext4 is missing (e2fsprogs)")
    device = loops.make(size_mib)
    subprocess.run(["losetup", "--direct-io=on", device], capture_output=True, check=False)
    subprocess.run(["mkfs.ext4", "-q", "-F", device], check=True, capture_output=True)
    mount.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", device, str(mount)], check=True, capture_output=True)
    return Path(device).name


def device_numbers(name: str) -> str:
    return Path(f"/sys/class/block/{name}/dev").read_text().strip()


class Throttle:
    """A cgroup holding one device to ``iops`` reads a second (and ``write_iops`` writes when
    given); :meth:`wrap` runs a command inside it, :meth:`move` puts a running process there.
    Removed by :meth:`close` (whatever is left in it is killed)."""

    def __init__(self, device: str, iops: int, name: str, write_iops: int | None = None) -> None:
        self.folders: list[str] = []
        numbers = device_numbers(device)
        mounts = parse_mountinfo(Path("/proc/self/mountinfo").read_text())
        own = parse_proc_cgroup(Path("/proc/self/cgroup").read_text())
        blkio = next((m for m in mounts if m.version == 1 and "blkio" in m.controllers), None)
        if blkio is not None:
            parent = os.path.join(blkio.point, own.get("blkio", "/").lstrip("/"))
            self.home = os.path.join(parent, "cgroup.procs")
            group = self._mkdir(os.path.join(parent, name))
            self._write(os.path.join(group, "blkio.throttle.read_iops_device"), f"{numbers} {iops}")
            if write_iops is not None:
                self._write(
                    os.path.join(group, "blkio.throttle.write_iops_device"),
                    f"{numbers} {write_iops}",
                )
            self.procs = os.path.join(group, "cgroup.procs")
            return
        hierarchy = find_hierarchy(controller="io")
        self.home = os.path.join(hierarchy.own, "cgroup.procs")
        parent = hierarchy.controller_folder()
        self._write(os.path.join(parent, "cgroup.subtree_control"), "+io +memory")
        group = self._mkdir(os.path.join(parent, name))
        writes = f" wiops={write_iops}" if write_iops is not None else ""
        self._write(os.path.join(group, "io.max"), f"{numbers} riops={iops}{writes}")
        self._write(os.path.join(group, "cgroup.subtree_control"), "+io +memory")
        leaf = self._mkdir(os.path.join(group, "agent"))
        self.procs = os.path.join(leaf, "cgroup.procs")

    def _mkdir(self, folder: str) -> str:
        try:
            os.mkdir(folder)
        except OSError as exc:
            self.close()
            pytest.skip(f"cannot create the throttling cgroup {folder}: {exc.strerror}")
        self.folders.append(folder)
        return folder

    def _write(self, path: str, text: str) -> None:
        try:
            Path(path).write_text(text)
        except OSError as exc:
            self.close()
            pytest.skip(f"cannot throttle a device here ({path}: {exc.strerror})")

    def wrap(self, argv: list[str]) -> list[str]:
        return ["sh", "-c", 'echo $$ > "$0" && exec "$@"', self.procs, *argv]

    def move(self, pid: int) -> None:
        """A running process into the group (its later children are born there)."""
        Path(self.procs).write_text(str(pid))

    def release(self, pid: int) -> None:
        """A process moved in back to this process's own group, to outlive :meth:`close`."""
        Path(self.home).write_text(str(pid))

    def close(self) -> None:
        for folder in reversed(self.folders):
            for _ in range(100):
                procs = Path(folder, "cgroup.procs")
                pids = procs.read_text().split() if procs.exists() else []
                for pid in pids:
                    with contextlib.suppress(OSError):
                        os.kill(int(pid), 9)
                try:
                    os.rmdir(folder)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    import time

                    time.sleep(0.05)
        self.folders = []


@contextlib.contextmanager
def throttled(
    device: str, iops: int, name: str, write_iops: int | None = None
) -> Iterator[Throttle]:
    throttle = Throttle(device, iops, name, write_iops)
    try:
        yield throttle
    finally:
        throttle.close()


def agent_config(file: Path | str, **fields: Any) -> dict[str, Any]:
    """An agent configuration of a random-read run (short windows unless told)."""
    config: dict[str, Any] = {
        "action": "run",
        "kind": "random_read",
        "dataset_sizes": [0.25, 4],
        "block_size": "1k",
        "jobs": 8,
        "ioengine": "mmap",
        "zipf_theta": 0.99,
        "warmup_s": 1,
        "measure_s": 2,
        "file": str(file),
        "drop_caches": True,
        "memory_limit": "",
        "raw_iops_s": 1,
        "monitor": {},
        "power": {},
    }
    config.update(fields)
    return config


def run_agent(
    config: dict[str, Any],
    folder: Path,
    throttle: Throttle | None = None,
    timeout: float = 600,
) -> tuple[list[dict[str, Any]], subprocess.CompletedProcess[str]]:
    """The real agent as a subprocess (inside ``throttle`` when given): its events and the
    finished process."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "config.json"
    path.write_text(json.dumps(config))
    argv = [
        sys.executable,
        "-m",
        "bench_gui.agent",
        "--config",
        str(path),
        "--lock-dir",
        str(folder / "locks"),
    ]
    if throttle is not None:
        argv = throttle.wrap(argv)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run(
        argv, capture_output=True, text=True, timeout=timeout, env=env, check=False
    )
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return events, done


def kinds(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["kind"] == kind]


def step_summaries(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e["summary"] for e in events if e["kind"] == "step" and e["phase"] == "end"]
