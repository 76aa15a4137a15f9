"""The machine's RAM, CPUs and storage kind, from the text of ``/proc`` and ``/sys`` files: read
through PostgreSQL's ``pg_read_file`` by the tuner, or from this machine by the services.
"""

from __future__ import annotations

import re


def parse_meminfo_total(text: str) -> int | None:
    match = re.search(r"^MemTotal:\s+(\d+)\s*kB", text, re.MULTILINE)
    return int(match.group(1)) * 1024 if match else None


def parse_cpu_list(text: str) -> int | None:
    """``0-23`` or ``0,2-5`` -> how many CPUs."""
    total = 0
    for part in text.strip().split(","):
        if not part:
            continue
        low, _, high = part.partition("-")
        try:
            total += (int(high) - int(low) + 1) if high else 1
        except ValueError:
            return None
    return total or None


def storage_kind(device: str, rotational: str | None) -> str:
    """nvme for NVMe devices, hdd for rotational ones, ssd otherwise."""
    if device.startswith("nvme"):
        return "nvme"
    if rotational is not None and rotational.strip() == "1":
        return "hdd"
    return "ssd"


def mount_device(mountinfo: str, path: str) -> tuple[int, int] | None:
    """The major:minor of the filesystem holding ``path`` (longest mount point prefix)."""
    best: tuple[int, tuple[int, int]] | None = None
    for line in mountinfo.splitlines():
        fields = line.split()
        if len(fields) < 5:
            continue
        point = fields[4].replace("\\040", " ")
        inside = path == point or path.startswith(point.rstrip("/") + "/") or point == "/"
        if inside and (best is None or len(point) > best[0]):
            try:
                major, minor = (int(x) for x in fields[2].split(":"))
            except ValueError:
                continue
            best = (len(point), (major, minor))
    return best[1] if best else None
