"""A memory limit for fio: a cgroup of its own, v1 or v2, so the page cache it fills is capped.

The page cache is charged to the cgroup of the process that first reads a page in, so fio in a
cgroup with ``memory.max`` (v2) or ``memory.limit_in_bytes`` (v1) sees a machine of that much
RAM: a large server can be studied at small scale, and a test can have 256 MiB of "RAM".

Where the cgroup goes: on v1, under the agent's own memory cgroup (v1 allows processes beside
child groups); on v2, beside the agent's own cgroup (v2 forbids a group with processes to hand
controllers to its children), with the ``memory`` controller enabled in that parent when it is
not yet. Each fio run gets a fresh cgroup, removed after it (its peak usage is the run's), and
groups left by an agent that died are removed first. Every failure is a :class:`CgroupError`
that says what is missing.

Also here: the RAM the agent itself may use (the machine's, or less when the agent runs in a
cgroup with a limit), which is the study's RAM when the plan sets no limit.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import time
from dataclasses import dataclass
from typing import Final

PREFIX: Final = "bench-gui-fio-"
# v1 reports "no limit" as a huge number (PAGE_COUNTER_MAX pages); anything this big is none.
UNLIMITED_V1: Final = 2**60


class CgroupError(RuntimeError):
    """A memory cgroup cannot be used here; the message says why and what to do."""


@dataclass(frozen=True)
class Mount:
    """A mounted cgroup hierarchy: where it is, its version, its root, and (v1) controllers."""

    point: str
    version: int
    root: str
    controllers: frozenset[str]


def parse_mountinfo(text: str) -> list[Mount]:
    """The cgroup hierarchies of ``/proc/self/mountinfo`` text."""
    mounts: list[Mount] = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3:
            continue
        fstype = tail[0]
        point = fields[4].replace("\\040", " ")
        if fstype == "cgroup2":
            mounts.append(Mount(point, 2, fields[3], frozenset()))
        elif fstype == "cgroup":
            options = frozenset(tail[2].split(","))
            mounts.append(Mount(point, 1, fields[3], options))
    return mounts


def parse_proc_cgroup(text: str) -> dict[str, str]:
    """``/proc/self/cgroup`` as {controller: path}; the v2 line under the key ``""``."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _hid, controllers, path = parts
        if not controllers:
            out[""] = path
        for name in controllers.split(","):
            if name:
                out[name] = path
    return out


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def _under(mount: Mount, path: str) -> str:
    """The folder of cgroup ``path`` (as /proc/self/cgroup names it) under ``mount``."""
    if mount.root not in ("", "/") and (path == mount.root or path.startswith(mount.root + "/")):
        path = path[len(mount.root) :] or "/"
    return os.path.join(mount.point, path.lstrip("/")).rstrip("/") or mount.point


@dataclass(frozen=True)
class Hierarchy:
    """Where memory cgroups are made on this host: the hierarchy and the agent's own group."""

    mount: Mount
    own: str  # the agent's own cgroup folder

    @property
    def version(self) -> int:
        return self.mount.version

    def controller_folder(self) -> str:
        """The folder new groups go in (see the module docstring)."""
        if self.version == 1:
            return self.own
        if os.path.normpath(self.own) == os.path.normpath(self.mount.point):
            return self.own
        return os.path.dirname(self.own)


def find_hierarchy(
    mountinfo: str | None = None, proc_cgroup: str | None = None, controller: str = "memory"
) -> Hierarchy:
    """The hierarchy holding ``controller`` (v1 first: a hybrid host keeps memory there) and
    the agent's group in it; :class:`CgroupError` when there is none."""
    try:
        if mountinfo is None:
            mountinfo = _read("/proc/self/mountinfo")
        if proc_cgroup is None:
            proc_cgroup = _read("/proc/self/cgroup")
    except OSError as exc:
        raise CgroupError(f"cannot read this process's cgroups: {exc}") from exc
    mounts = parse_mountinfo(mountinfo)
    own = parse_proc_cgroup(proc_cgroup)
    for mount in mounts:
        if mount.version == 1 and controller in mount.controllers:
            return Hierarchy(mount, _under(mount, own.get(controller, "/")))
    for mount in mounts:
        if mount.version == 2:
            try:
                available = _read(os.path.join(mount.point, "cgroup.controllers")).split()
            except OSError:
                available = []
            if controller in available:
                return Hierarchy(mount, _under(mount, own.get("", "/")))
    found = ", ".join(f"{m.point} (v{m.version})" for m in mounts) or "none mounted"
    raise CgroupError(
        f"no cgroup hierarchy with the {controller} controller on this host (cgroups: {found});"
        " a memory limit needs one: mount cgroup v2 with memory enabled, or leave"
        " workload.memory_limit out to use the machine's RAM"
    )


def _limit_of(hierarchy: Hierarchy, folder: str) -> int | None:
    name = "memory.limit_in_bytes" if hierarchy.version == 1 else "memory.max"
    try:
        text = _read(os.path.join(folder, name)).strip()
    except OSError:
        return None
    if text == "max":
        return None
    try:
        value = int(text)
    except ValueError:
        return None
    return None if value >= UNLIMITED_V1 else value


def inherited_limit(hierarchy: Hierarchy) -> int | None:
    """The lowest memory limit on the agent's own group and its parents (None: none)."""
    lowest: int | None = None
    folder = os.path.normpath(hierarchy.own)
    top = os.path.normpath(hierarchy.mount.point)
    while True:
        limit = _limit_of(hierarchy, folder)
        if limit is not None:
            lowest = limit if lowest is None else min(lowest, limit)
        if folder == top or not folder.startswith(top):
            return lowest
        folder = os.path.dirname(folder)


def machine_ram() -> int:
    """MemTotal of /proc/meminfo, in bytes."""
    for line in _read("/proc/meminfo").splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) * 1024
    raise CgroupError("/proc/meminfo has no MemTotal line")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _procs(folder: str) -> list[int]:
    try:
        return [int(p) for p in _read(os.path.join(folder, "cgroup.procs")).split()]
    except (OSError, ValueError):
        return []


def _remove(folder: str, wait_s: float = 5.0) -> None:
    """Kill what is left in a group of ours and remove it (retrying while the kernel still
    counts a process that is exiting)."""
    deadline = time.monotonic() + wait_s
    while True:
        for pid in _procs(folder):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        try:
            os.rmdir(folder)
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                raise CgroupError(f"cannot remove the cgroup {folder}: {exc.strerror}") from exc
        time.sleep(0.05)


def remove_stale(parent: str) -> list[str]:
    """Remove the groups a dead agent left in ``parent``; return their folders."""
    removed: list[str] = []
    try:
        names = os.listdir(parent)
    except OSError:
        return removed
    for name in names:
        if not name.startswith(PREFIX):
            continue
        pid_text = name[len(PREFIX) :].split("-", 1)[0]
        if not pid_text.isdigit() or _alive(int(pid_text)):
            continue
        folder = os.path.join(parent, name)
        with contextlib.suppress(CgroupError):
            _remove(folder)
            removed.append(folder)
    return removed


def _enable_memory_v2(parent: str) -> None:
    control = os.path.join(parent, "cgroup.subtree_control")
    try:
        if "memory" in _read(control).split():
            return
        _write(control, "+memory")
    except OSError as exc:
        raise CgroupError(
            f"the memory controller is not enabled for the groups under {parent} and cannot"
            f" be ({exc.strerror}): enable it (echo +memory > {control}) or run the agent as"
            " root"
        ) from exc


class MemoryCgroup:
    """One fio run's cgroup with a memory limit: made, entered by fio, measured, removed."""

    _count = 0

    def __init__(self, limit_bytes: int, hierarchy: Hierarchy | None = None) -> None:
        self.hierarchy = hierarchy or find_hierarchy()
        self.limit_bytes = limit_bytes
        parent = self.hierarchy.controller_folder()
        MemoryCgroup._count += 1
        self.folder = os.path.join(parent, f"{PREFIX}{os.getpid()}-{MemoryCgroup._count}")
        self.stale_removed = remove_stale(parent)
        if self.version == 2:
            _enable_memory_v2(parent)
        try:
            os.mkdir(self.folder)
        except OSError as exc:
            raise CgroupError(
                f"cannot create a cgroup in {parent} ({exc.strerror}): a memory limit needs"
                " root on the target host and a writable cgroup hierarchy; or leave"
                " workload.memory_limit out to use the machine's RAM"
            ) from exc
        try:
            self._set_limit()
        except BaseException:
            self.remove()
            raise

    @property
    def version(self) -> int:
        return self.hierarchy.version

    @property
    def procs_file(self) -> str:
        return os.path.join(self.folder, "cgroup.procs")

    def _file(self, v1: str, v2: str) -> str:
        return os.path.join(self.folder, v1 if self.version == 1 else v2)

    def _set_limit(self) -> None:
        path = self._file("memory.limit_in_bytes", "memory.max")
        try:
            _write(path, str(self.limit_bytes))
            applied = int(_read(path).strip())
        except (OSError, ValueError) as exc:
            raise CgroupError(f"cannot set the memory limit in {path}: {exc}") from exc
        # The kernel rounds down to whole pages; anything farther off is not our limit.
        if abs(applied - self.limit_bytes) > 64 * 1024:
            raise CgroupError(f"{path} says {applied} bytes after {self.limit_bytes} were written")

    def wrap(self, argv: list[str]) -> list[str]:
        """``argv`` started inside this group: a shell enters it, then becomes the program,
        so not one page is read before the limit applies."""
        return ["sh", "-c", 'echo $$ > "$0" && exec "$@"', self.procs_file, *argv]

    def usage_bytes(self) -> int | None:
        try:
            return int(_read(self._file("memory.usage_in_bytes", "memory.current")).strip())
        except (OSError, ValueError):
            return None

    def peak_bytes(self) -> int | None:
        """The highest usage of the group (v2 needs Linux 5.19 for memory.peak)."""
        try:
            return int(_read(self._file("memory.max_usage_in_bytes", "memory.peak")).strip())
        except (OSError, ValueError):
            return None

    def remove(self) -> None:
        _remove(self.folder)

    def __enter__(self) -> MemoryCgroup:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


__all__ = [
    "CgroupError",
    "Hierarchy",
    "MemoryCgroup",
    "Mount",
    "find_hierarchy",
    "inherited_limit",
    "machine_ram",
    "parse_mountinfo",
    "parse_proc_cgroup",
    "remove_stale",
]
