"""Pure parsers of what discovery reads on a host: ``/proc/self/mountinfo``, ``/proc/swaps``,
``blkid -p -o export``, the sysfs facts and the exclusive-open test's output.

Kept apart from the commands that print this text, so each is tested on captured output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


def _unescape(field: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


@dataclass
class Mount:
    major: int
    minor: int
    root: str
    point: str
    options: str
    fstype: str
    source: str
    super_options: str

    @property
    def dev(self) -> str:
        return f"{self.major}:{self.minor}"


def parse_mountinfo(text: str) -> list[Mount]:
    """``/proc/self/mountinfo`` lines -> mounts (octal escapes of paths decoded)."""
    mounts: list[Mount] = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        parts = left.split()
        tail = right.split()
        if len(parts) < 6 or len(tail) < 2:
            continue
        major, _, minor = parts[2].partition(":")
        try:
            major_n, minor_n = int(major), int(minor)
        except ValueError:
            continue
        mounts.append(
            Mount(
                major=major_n,
                minor=minor_n,
                root=_unescape(parts[3]),
                point=_unescape(parts[4]),
                options=parts[5],
                fstype=tail[0],
                source=_unescape(tail[1]),
                super_options=tail[2] if len(tail) > 2 else "",
            )
        )
    return mounts


def parse_swaps(text: str) -> list[str]:
    """``/proc/swaps`` -> the swap areas' file names (devices or files)."""
    out = []
    for line in text.splitlines()[1:]:
        parts = line.split()
        if parts:
            out.append(_unescape(parts[0]))
    return out


def parse_blkid_probes(text: str) -> dict[str, tuple[str, str, str]]:
    """The per-device probe script's output -> by device: blkid's export text, its exit status
    and its first error line (a device whose ``@@rc`` line is missing is left out)."""
    out: dict[str, tuple[str, str, str]] = {}
    device: str | None = None
    lines: list[str] = []
    for line in text.splitlines():
        if line.startswith("@@dev "):
            device, lines = line[6:], []
        elif line.startswith("@@rc ") and device is not None:
            status, _, error = line[5:].partition(" ")
            out[device] = ("\n".join(lines), status.strip(), error.strip())
            device = None
        elif device is not None:
            lines.append(line)
    return out


def parse_blkid_export(text: str) -> dict[str, dict[str, str]]:
    """``blkid -p -o export DEV...`` -> signatures by device (TYPE, UUID, PTTYPE, USAGE...)."""
    out: dict[str, dict[str, str]] = {}
    current: dict[str, str] = {}
    for line in [*text.splitlines(), ""]:
        if not line.strip():
            if current.get("DEVNAME"):
                out[current["DEVNAME"]] = current
            current = {}
            continue
        key, sep, value = line.partition("=")
        if sep:
            current[key.strip()] = value.strip()
    return out


@dataclass
class SysBlock:
    """What ``/sys/class/block/NAME`` tells about one block device."""

    name: str
    dev: str = ""
    parent: str = ""
    holders: list[str] = field(default_factory=list)
    slaves: list[str] = field(default_factory=list)
    scheduler: str = ""
    schedulers: list[str] = field(default_factory=list)
    discard_max_bytes: int | None = None
    write_zeroes_max_bytes: int | None = None
    read_ahead_kb: int | None = None
    rotational: bool | None = None
    ro: bool = False
    scsi: bool = False


def parse_sysfs(text: str) -> dict[str, SysBlock]:
    blocks: dict[str, SysBlock] = {}
    for line in text.splitlines():
        parts = line.split(" ", 2)
        if len(parts) < 2:
            continue
        key, name = parts[0], parts[1].replace("!", "/")
        value = parts[2].strip() if len(parts) > 2 else ""
        block = blocks.setdefault(name, SysBlock(name))
        if key == "dev":
            block.dev = value
        elif key == "parent":
            block.parent = value.replace("!", "/")
        elif key == "holder":
            block.holders.append(value.replace("!", "/"))
        elif key == "slave":
            block.slaves.append(value.replace("!", "/"))
        elif key == "scheduler":
            names = value.split()
            block.schedulers = [n.strip("[]") for n in names]
            block.scheduler = next((n.strip("[]") for n in names if n.startswith("[")), "")
        elif key in ("discard_max_bytes", "write_zeroes_max_bytes", "read_ahead_kb"):
            try:
                setattr(block, key, int(value))
            except ValueError:
                pass
        elif key == "rotational":
            block.rotational = value == "1"
        elif key == "ro":
            block.ro = value == "1"
        elif key == "scsi":
            block.scsi = True
    return blocks


def parse_excl(text: str) -> dict[str, str]:
    """The exclusive-open test's output -> "ok", or the error, by device."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        dev, _, rest = line.partition(" ")
        if dev.startswith("/dev/"):
            out[dev] = rest.strip()
    return out
