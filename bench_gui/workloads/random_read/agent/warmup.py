"""When a point's cache is warm: the data's page cache has stopped growing, and major faults
per second and ops/s have settled.

One warm-up length cannot serve every point: a device held to 250 IOPS needs minutes to fill
199 MiB of cache, a fast one seconds (seed 004 warmed every point for 600 s). So each point is
warmed until it is steady, up to a cap: the last :data:`WINDOW` seconds agree with the
:data:`WINDOW` before them within :data:`TOLERANCE` on both major faults per second and
ops/s, and the file's resident bytes grew by at most :data:`CACHE_GROWTH` of themselves over
those seconds. Faults alone cannot tell: a slow device faults at its own IOPS, flat, for as
long as the cache fills (a 200-IOPS loop device looked steady after 6 s with 17 of its 64 MiB
cached); once the cache is full a flat fault rate is the steady state past RAM. A point that
reaches the cap unsteady is measured anyway and flagged (``warm`` false), never silently
counted as warm.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

WINDOW: Final = 3  # seconds compared with the three before them
TOLERANCE: Final = 0.15  # relative change allowed between the two windows
# Fewer major faults a second than this are none to speak of (an in-memory point's stray).
FAULT_FLOOR: Final = 20.0
# The cache still fills while it grows by more than this share of itself over two windows.
CACHE_GROWTH: Final = 0.02
# Growth below this over two windows is none to speak of (a few stray pages).
CACHE_GROWTH_FLOOR: Final = 256 * 1024


def _settled(before: list[float], after: list[float], floor: float = 0.0) -> bool:
    a = sum(before) / len(before)
    b = sum(after) / len(after)
    if max(a, b) <= floor:
        return True
    return abs(b - a) <= TOLERANCE * max(a, b)


@dataclass
class SteadyJudge:
    """Fed one second at a time (ops/s, major faults/s and, when it can be read, the data
    file's resident bytes); says when they have all settled."""

    ops: list[float] = field(default_factory=list)
    faults: list[float] = field(default_factory=list)
    cached: list[int | None] = field(default_factory=list)

    def push(self, ops_s: float, major_faults_s: float, cached_bytes: int | None = None) -> bool:
        """Add a second; whether the point is steady now."""
        self.ops.append(ops_s)
        self.faults.append(major_faults_s)
        self.cached.append(cached_bytes)
        return self.steady

    @property
    def steady(self) -> bool:
        if len(self.ops) < 2 * WINDOW:
            return False
        ops, faults = self.ops[-2 * WINDOW :], self.faults[-2 * WINDOW :]
        return (
            _settled(ops[:WINDOW], ops[WINDOW:])
            and _settled(faults[:WINDOW], faults[WINDOW:], FAULT_FLOOR)
            and self._cache_full()
        )

    def _cache_full(self) -> bool:
        """The cache no longer grows (True when it cannot be read: faults and ops decide)."""
        first, last = self.cached[-2 * WINDOW], self.cached[-1]
        if first is None or last is None:
            return True
        grown = last - first
        return grown <= max(CACHE_GROWTH_FLOOR, CACHE_GROWTH * last)


__all__ = ["CACHE_GROWTH", "FAULT_FLOOR", "TOLERANCE", "WINDOW", "SteadyJudge"]
