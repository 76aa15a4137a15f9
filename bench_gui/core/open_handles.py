"""Who holds a block device open: the pure reading of a process scan of a host.

An exclusive open (``O_EXCL``) fails only while something holds a device *exclusively* (a
mount, an array, another ``O_EXCL`` open); a process that merely has it open (``exec
3</dev/sdb``, a ``dd`` reading it, a program with it mapped in memory) leaves it looking free.
:mod:`bench_gui.remote.storage` therefore reads, as root, every process's open files and
memory maps and the kernel's open counts where they are exposed (device-mapper), and this
module turns that text into who holds what, and says whether the scan saw every process: a
process whose files cannot be read might hold a device, so an incomplete scan is itself a
reason to refuse (unless the user accepts it explicitly).

The scan's output, in sections that start with ``@@name`` (what the script in
``remote.storage`` prints; errors of its commands are kept in their section, ``2>&1``):

- ``uid``: the user id the scan ran as (0: root).
- ``fds``: ``/proc/PID/fd/N MODE MAJOR MINOR`` (``stat -L -c '%n %f %t %T'``, all hex) for
  every open file that points into ``/dev``, and the errors of ``find``/``stat``.
- ``maps``: ``/proc/PID/maps:START-END PERMS OFFSET DEV INODE PATH`` lines that name a device
  of the host (``grep -H``), and the errors of ``grep``.
- ``comm``: ``PID COMMAND`` for every process named above.
- ``dmopen``: ``MAJOR:MINOR COUNT`` (``dmsetup info -c -o devno,open``), the kernel's open
  count of each device-mapper device.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

_S_IFMT: Final = 0o170000
_S_IFBLK: Final = 0o060000
_FD_LINE: Final = re.compile(r"^/proc/(\d+)/fd/(\d+) ([0-9a-fA-F]+) ([0-9a-fA-F]+) ([0-9a-fA-F]+)$")
_MAPS_LINE: Final = re.compile(
    r"^/proc/(\d+)/maps:[0-9a-fA-F]+-[0-9a-fA-F]+\s+\S+\s+[0-9a-fA-F]+\s+\S+\s+\d+\s+(\S.*)$"
)
_ERROR_PID: Final = re.compile(r"/proc/(\d+)/")
_COMM_LINE: Final = re.compile(r"^(\d+) (.*)$")
_DMOPEN_LINE: Final = re.compile(r"^(\d+):(\d+)\s+(\d+)$")
# A process that ended while the scan ran: nothing to see, nothing missed.
_GONE: Final = ("No such file or directory", "No such process")
_DENIED: Final = ("Permission denied", "Operation not permitted")
SHOWN_UNREADABLE: Final = 8  # processes named in a refusal; the rest are counted


def _printable(text: str) -> str:
    """A process name as shown to the user: control and bidi characters escaped."""
    out = []
    for ch in text:
        code = ord(ch)
        if code < 0x20 or code == 0x7F or 0x202A <= code <= 0x202E or 0x2066 <= code <= 0x2069:
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


@dataclass(frozen=True)
class ProcessHold:
    """One process that holds one device: through open file descriptors and/or a mapping."""

    pid: int
    command: str
    fds: tuple[int, ...] = ()
    mapped: bool = False

    def describe(self) -> str:
        """The pid and command the refusal names: "process 4242 (dd) as fd 3"."""
        how = []
        if self.fds:
            label = "fd" if len(self.fds) == 1 else "fds"
            how.append(f"as {label} {', '.join(str(fd) for fd in self.fds)}")
        if self.mapped:
            how.append("mapped in its memory")
        who = f"process {self.pid} ({self.command or '?'})"
        return f"{who} {' and '.join(how)}" if how else who

    @property
    def source(self) -> str:
        where = [f"/proc/{self.pid}/fd"] if self.fds else []
        if self.mapped:
            where.append(f"/proc/{self.pid}/maps")
        return " and ".join(where) or f"/proc/{self.pid}"


@dataclass(frozen=True)
class Unreadable:
    """A process whose open files or maps the scan was not allowed to read."""

    pid: int
    command: str
    reason: str

    def describe(self) -> str:
        return f"process {self.pid} ({self.command or '?'}): {self.reason}"


@dataclass
class HandleScan:
    """What the scan found: open descriptors (by device number), mappings (by path), the
    processes it could not read, other errors, and device-mapper open counts."""

    uid: int | None = None
    fds: dict[str, dict[int, list[int]]] = field(default_factory=dict)  # dev -> pid -> fds
    maps: dict[str, set[int]] = field(default_factory=dict)  # path -> pids
    commands: dict[int, str] = field(default_factory=dict)
    unreadable: list[Unreadable] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    open_counts: dict[str, int] = field(default_factory=dict)  # "major:minor" -> count

    @property
    def as_root(self) -> bool:
        return self.uid == 0

    @property
    def complete(self) -> bool:
        """True when every process's open files and maps were read."""
        return self.as_root and not self.unreadable and not self.errors

    def problem(self) -> str:
        """Why the scan is not complete ("" when it is), in one sentence for the user."""
        parts = []
        if self.uid is None and not self.errors:
            parts.append("the process scan could not tell which user it ran as")
        elif self.uid is not None and not self.as_root:
            parts.append(
                f"the process scan ran as uid {self.uid}, not root: the open files of other"
                " users' processes cannot be seen"
            )
        if self.unreadable:
            count = len(self.unreadable)
            shown = ", ".join(u.describe() for u in self.unreadable[:SHOWN_UNREADABLE])
            more = f" and {count - SHOWN_UNREADABLE} more" if count > SHOWN_UNREADABLE else ""
            noun = "process" if count == 1 else "processes"
            parts.append(f"{count} {noun} could not be read ({shown}{more})")
        parts += self.errors[:3]
        return "; ".join(parts)

    def holds(self, dev: str, paths: Iterable[str]) -> list[ProcessHold]:
        """The processes that hold the device ``dev`` ("major:minor"), or map one of
        ``paths`` (its names under /dev), ordered by pid."""
        by_pid: dict[int, list[int]] = {
            pid: list(fds) for pid, fds in self.fds.get(dev, {}).items()
        }
        mapped: set[int] = set()
        for path in paths:
            mapped |= self.maps.get(path, set())
        out = []
        for pid in sorted(set(by_pid) | mapped):
            out.append(
                ProcessHold(
                    pid,
                    self.commands.get(pid, ""),
                    tuple(sorted(by_pid.get(pid, []))),
                    pid in mapped,
                )
            )
        return out


def _sections(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("@@"):
            current = out.setdefault(line[2:].strip(), [])
        elif current is not None and line.strip():
            current.append(line.rstrip("\n"))
    return out


def _error(line: str, scan: HandleScan, denied: dict[int, str]) -> None:
    """One error line of find/stat/grep: a process gone, one we may not read, or a failure."""
    if any(word in line for word in _GONE):
        return
    m = _ERROR_PID.search(line)
    if m and any(word in line for word in _DENIED):
        denied.setdefault(int(m.group(1)), next(w for w in _DENIED if w in line))
        return
    scan.errors.append(_printable(line.strip()))


def parse_handle_scan(text: str) -> HandleScan:
    """The scan's output (see the module's docstring) -> a :class:`HandleScan`."""
    sections = _sections(text)
    scan = HandleScan()
    uid_lines = sections.get("uid", [])
    if uid_lines and uid_lines[0].strip().isdigit():
        scan.uid = int(uid_lines[0].strip())
    denied: dict[int, str] = {}
    for line in sections.get("fds", []):
        m = _FD_LINE.match(line.strip())
        if m is None:
            _error(line, scan, denied)
            continue
        mode = int(m.group(3), 16)
        if mode & _S_IFMT != _S_IFBLK:
            continue
        dev = f"{int(m.group(4), 16)}:{int(m.group(5), 16)}"
        pid = int(m.group(1))
        scan.fds.setdefault(dev, {}).setdefault(pid, []).append(int(m.group(2)))
    for line in sections.get("maps", []):
        m = _MAPS_LINE.match(line.strip())
        if m is None:
            _error(line, scan, denied)
            continue
        path = m.group(2).removesuffix(" (deleted)").strip()
        scan.maps.setdefault(path, set()).add(int(m.group(1)))
    for line in sections.get("comm", []):
        m = _COMM_LINE.match(line)
        if m:
            scan.commands[int(m.group(1))] = _printable(m.group(2).strip())
    for line in sections.get("dmopen", []):
        m = _DMOPEN_LINE.match(line.strip())
        if m:
            scan.open_counts[f"{int(m.group(1))}:{int(m.group(2))}"] = int(m.group(3))
    scan.unreadable = [
        Unreadable(pid, scan.commands.get(pid, ""), reason)
        for pid, reason in sorted(denied.items())
    ]
    if "end" not in sections:
        scan.errors.append("the process scan stopped before its end")
    return scan


def failed_scan(reason: str) -> HandleScan:
    """A scan that could not run at all (no shell, a timeout): incomplete, with the reason."""
    return HandleScan(errors=[_printable(reason)])


__all__ = [
    "HandleScan",
    "ProcessHold",
    "Unreadable",
    "failed_scan",
    "parse_handle_scan",
]
