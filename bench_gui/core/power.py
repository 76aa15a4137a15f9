"""The power-meter seam and the arithmetic of power per unit of work.

Meters (IPMI DCMI, Redfish, RAPL, an imported log) are plugins in the ``bench_gui.power_meters``
entry-point group; each yields timestamped readings. The figures a report shows are computed
here once: average power over exactly the measured window (integrated with the trapezoid rule,
never a last reading), mW per NOPM and joules per new order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

POWER_METER_GROUP = "bench_gui.power_meters"


@dataclass(frozen=True)
class PowerReading:
    t: float  # seconds (any clock shared with the window's edges)
    watts: float
    source: str = ""  # e.g. "ipmi", "redfish", "rapl:package" (RAPL is CPU power, not wall)


@runtime_checkable
class PowerMeter(Protocol):
    """A source of power readings; ``read`` returns None when no valid reading is available."""

    name: str
    label: str

    def read(self) -> PowerReading | None: ...


def average_power(readings: Sequence[PowerReading], t0: float, t1: float) -> float | None:
    """Mean watts over [t0, t1] by the trapezoid rule, interpolating at the window's edges.

    Returns None when the readings do not cover the window (a report must not invent power).
    """
    if t1 <= t0:
        raise ValueError("the window must have a positive length")
    points = sorted((r.t, r.watts) for r in readings)
    if len(points) < 2 or points[0][0] > t0 or points[-1][0] < t1:
        return None

    def at(t: float) -> float:
        for (ta, wa), (tb, wb) in zip(points, points[1:], strict=False):
            if ta <= t <= tb:
                return wa if tb == ta else wa + (wb - wa) * (t - ta) / (tb - ta)
        raise AssertionError("unreachable: t is inside the covered range")

    inner = [(t, w) for t, w in points if t0 < t < t1]
    series = [(t0, at(t0)), *inner, (t1, at(t1))]
    energy = sum(
        (tb - ta) * (wa + wb) / 2 for (ta, wa), (tb, wb) in zip(series, series[1:], strict=False)
    )
    return energy / (t1 - t0)


def mw_per_nopm(watts: float, nopm: float) -> float:
    """Milliwatts per new order per minute: 1000 · P̄ / NOPM."""
    if nopm <= 0:
        raise ValueError("NOPM must be positive")
    return 1000.0 * watts / nopm


def joules_per_new_order(watts: float, nopm: float) -> float:
    """Energy one new order costs: 60 · P̄ / NOPM."""
    if nopm <= 0:
        raise ValueError("NOPM must be positive")
    return 60.0 * watts / nopm
