"""When a point's cache is warm: major faults per second and ops/s have settled.

One warm-up length cannot serve every point: a device held to 250 IOPS needs minutes to fill
199 MiB of cache, a fast one seconds (seed 004 warmed every point for 600 s). So each point is
warmed until it is steady, up to a cap: the last :data:`WINDOW` seconds agree with the
:data:`WINDOW` before them within :data:`TOLERANCE` on both major faults per second (the
cache filling) and ops/s. A point that reaches the cap unsteady is measured anyway and
flagged (``warm`` false), never silently counted as warm.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

WINDOW: Final = 3  # seconds compared with the three before them
TOLERANCE: Final = 0.15  # relative change allowed between the two windows
# Fewer major faults a second than this are none to speak of (an in-memory point's stray).
FAULT_FLOOR: Final = 20.0


def _settled(before: list[float], after: list[float], floor: float = 0.0) -> bool:
    a = sum(before) / len(before)
    b = sum(after) / len(after)
    if max(a, b) <= floor:
        return True
    return abs(b - a) <= TOLERANCE * max(a, b)


@dataclass
class SteadyJudge:
    """Fed one second at a time (ops/s, major faults/s); says when both have settled."""

    ops: list[float] = field(default_factory=list)
    faults: list[float] = field(default_factory=list)

    def push(self, ops_s: float, major_faults_s: float) -> bool:
        """Add a second; whether the point is steady now."""
        self.ops.append(ops_s)
        self.faults.append(major_faults_s)
        return self.steady

    @property
    def steady(self) -> bool:
        if len(self.ops) < 2 * WINDOW:
            return False
        ops, faults = self.ops[-2 * WINDOW :], self.faults[-2 * WINDOW :]
        return _settled(ops[:WINDOW], ops[WINDOW:]) and _settled(
            faults[:WINDOW], faults[WINDOW:], FAULT_FLOOR
        )


__all__ = ["FAULT_FLOOR", "TOLERANCE", "WINDOW", "SteadyJudge"]
