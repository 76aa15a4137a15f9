"""Byte sizes as plans write them ("512MiB", "1k", "2 GiB") and as reports show them.

Pure and stdlib-only: the plan reader (desktop side) and the agent (target host) share it, so
a size means the same bytes on both ends. Binary units (K, KiB, M, MiB...) are powers of 1024
as fio takes them; KB, MB, GB and TB are powers of 1000, as disk makers write them.
"""

from __future__ import annotations

import math
import re
from typing import Final

KIB: Final = 1024
MIB: Final = 1024 * KIB

# The workload fields of a random-read plan: the plan reader checks them, the agent's hello
# reports them (one list, shared by both ends like the sizes).
RANDOM_READ_FIELDS: Final = (
    "dataset_sizes",
    "block_size",
    "jobs",
    "ioengine",
    "direct",
    "zipf_theta",
    "warmup_s",
    "measure_s",
    "file",
    "drop_caches",
    "memory_limit",
    "raw_iops_s",
)
GIB: Final = 1024 * MIB
TIB: Final = 1024 * GIB
PIB: Final = 1024 * TIB

_UNITS: Final = {
    "": 1,
    "b": 1,
    "k": KIB,
    "kib": KIB,
    "m": MIB,
    "mib": MIB,
    "g": GIB,
    "gib": GIB,
    "t": TIB,
    "tib": TIB,
    "kb": 1000,
    "mb": 1000**2,
    "gb": 1000**3,
    "tb": 1000**4,
}
_SIZE: Final = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*$")
# Anything bigger is a typo: no file or memory of an exabyte.
MAX_BYTES: Final = 2**60


def parse_size(value: object) -> int:
    """Bytes of ``512MiB``, ``1k``, ``1.5 GiB``, ``4096`` (or an int); raise ValueError saying
    what is wrong. Fractions of a byte are refused (``1.5`` alone is no size)."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a size")
    if isinstance(value, int):
        number = value
    elif isinstance(value, str):
        match = _SIZE.match(value)
        if match is None:
            raise ValueError(f"{value!r} is not a size like 512MiB, 1k or 2GiB")
        unit = match.group(2).lower()
        if unit not in _UNITS:
            raise ValueError(
                f"{value!r}: unknown unit {match.group(2)!r} (use B, K/KiB, M/MiB, G/GiB,"
                " T/TiB, or KB/MB/GB/TB for powers of 1000)"
            )
        scaled = float(match.group(1)) * _UNITS[unit]
        if not math.isfinite(scaled) or scaled != int(scaled):
            raise ValueError(f"{value!r} is not a whole number of bytes")
        number = int(scaled)
    else:
        raise ValueError(f"{value!r} is not a size like 512MiB")
    if number <= 0:
        raise ValueError(f"{value!r} is not a positive size")
    if number > MAX_BYTES:
        raise ValueError(f"{value!r} is larger than {format_size(MAX_BYTES)}")
    return number


def format_size(n: float) -> str:
    """``268435456`` -> ``256 MiB``; ``1.5 GiB``; plain bytes below 1 KiB."""
    for unit, size in (("PiB", PIB), ("TiB", TIB), ("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if abs(n) >= size:
            value = n / size
            text = f"{value:.0f}" if value == int(value) else f"{value:.3g}"
            return f"{text} {unit}"
    return f"{n:.0f} B"


def format_multiple(m: float) -> str:
    """A RAM multiple as a label: ``0.25x RAM``, ``4x RAM``."""
    text = f"{m:g}"
    return f"{text}x RAM"


def is_power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


__all__ = [
    "GIB",
    "KIB",
    "MAX_BYTES",
    "MIB",
    "PIB",
    "TIB",
    "format_multiple",
    "format_size",
    "is_power_of_two",
    "parse_size",
]
