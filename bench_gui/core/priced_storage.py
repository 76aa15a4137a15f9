"""Is the array a report prices the storage it measured?

A report prices each session's array from its storage layout or from what the author entered
in the price form. When those disagree with what was recorded about the storage (the layout
bench-gui built, the author's description of storage it did not build, or the disks found
under the data directory), the economics would price one system and measure another - so the
disagreement is flagged, as a hand-entered cost that disagrees with unit price x count is
(:mod:`bench_gui.core.economics`). The author's description wins over what was found.

What a device is, HDD or SSD, is told by the kernel's rotational flag - except for virtual
disks and loop devices, where the kernel cannot know (a virtio disk reads as rotational
whatever backs it): those are said to be what they are (:func:`device_kind`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_VIRTUAL_MODEL = re.compile(r"qemu|vbox|virtual|vmware|xen|hyper-?v|bochs", re.IGNORECASE)
_SIZE = re.compile(r"(\d+(?:[.,]\d+)?)\s*([GT])i?B\b", re.IGNORECASE)
_HDD_WORDS = re.compile(r"\b(hdd|rpm|\d+k\s*rpm|\d+k|sas\s*hdd|nl-?sas|disk\s*drive)\b", re.I)
_SSD_WORDS = re.compile(r"\b(ssd|nvme|flash|optane)\b", re.IGNORECASE)
SIZE_TOLERANCE = 0.15  # marketing and kernel sizes of one device differ by a few percent


def device_kind(device: Mapping[str, Any]) -> str:
    """``HDD``, ``SSD``, ``virtual disk``, ``loop device on /var/tmp/x.img``, or "" (unknown).

    The rotational flag is trusted only where the kernel can know it: a virtio/Xen disk or a
    loop device says nothing about what backs it."""
    path = str(device.get("path") or device.get("name") or "")
    name = path.rsplit("/", 1)[-1]
    if name.startswith("loop") or device.get("type") == "loop":
        backing = str(device.get("backing_file") or "").strip()
        return f"loop device on {backing}" if backing else "loop device"
    transport = str(device.get("transport") or "").lower()
    if (
        re.match(r"x?vd[a-z]", name)
        or transport in ("virtio", "xen")
        or _VIRTUAL_MODEL.search(str(device.get("model") or ""))
    ):
        return "virtual disk"
    rotational = device.get("rotational")
    if rotational is None:
        return ""
    return "HDD" if rotational else "SSD"


def kind_in_text(text: str) -> str:
    """``HDD`` or ``SSD`` when a device's name or the author's words say so, else ""."""
    ssd, hdd = bool(_SSD_WORDS.search(text)), bool(_HDD_WORDS.search(text))
    if ssd == hdd:
        return ""
    return "SSD" if ssd else "HDD"


def size_in_text(text: str) -> float | None:
    """Bytes of the first ``800GB`` / ``3.84 TB`` in a device name, else None."""
    match = _SIZE.search(text)
    if match is None:
        return None
    value = float(match.group(1).replace(",", "."))
    return value * (1000**4 if match.group(2).upper() == "T" else 1000**3)


@dataclass(frozen=True)
class RecordedStorage:
    """What was recorded about a session's storage, from the source that wins."""

    source: str  # "the author's description", "the storage layout", "the data directory's disks"
    count: int | None = None
    kind: str = ""  # "HDD", "SSD", "virtual disk", "loop device..." or ""
    size_bytes: float | None = None  # of one device
    text: str = ""  # how it reads: "1 x Micron 7450 3.84TB NVMe"


def _size_text(size: float) -> str:
    return f"{size / 1000**4:.2f} TB" if size >= 1000**4 else f"{size / 1000**3:.0f} GB"


def disagreement(device: str | None, count: int | None, recorded: RecordedStorage) -> str | None:
    """Why the priced array (``count`` x ``device``) is not the storage recorded, or None."""
    said = []
    if count and recorded.count and count != recorded.count:
        said.append(f"{count} devices are priced, {recorded.count} recorded")
    name = device or ""
    priced_kind = kind_in_text(name)
    if priced_kind and recorded.kind in ("HDD", "SSD") and priced_kind != recorded.kind:
        said.append(f"the priced device is an {priced_kind}, the recorded one an {recorded.kind}")
    priced_size = size_in_text(name)
    recorded_size = recorded.size_bytes
    if (
        priced_size
        and recorded_size
        and (abs(priced_size - recorded_size) > SIZE_TOLERANCE * recorded_size)
    ):
        said.append(
            f"the priced device holds {_size_text(priced_size)}, the recorded one"
            f" {_size_text(recorded_size)}"
        )
    if not said:
        return None
    priced = f"{count} x {name}" if count and name else (name or f"{count} devices")
    return (
        f"the array priced ({priced}) is not the storage recorded ({recorded.text}, from"
        f" {recorded.source}): " + "; ".join(said)
    )
