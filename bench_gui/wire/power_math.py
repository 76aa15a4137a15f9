"""The arithmetic of power over a window and the parsing of power logs: pure, stdlib only.

Shared by the agent (which integrates its meters' readings over each measured window) and the
desktop side (``bench_gui.core.power``, which works on stored and imported readings). Nothing
here does I/O, so the desktop side can own it without importing the meters.

- :func:`average_watts`: trapezoid rule with the window's edges interpolated;
- :func:`counter_average`: an energy counter interpolated at the edges;
- :func:`mw_per_nopm` and :func:`joules_per_new_order`;
- :func:`parse_power_csv` and friends: a power log written by some other logger.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

SCOPE_WALL = "wall"  # the whole system at the wall socket / PSU input (IPMI, Redfish, PDU logs)
SCOPE_CPU = "cpu"  # CPU packages (and DRAM) only: RAPL

# Environment variables the desktop side fills with secrets (through the agent's env file).
IPMI_PASSWORD_ENV = "IPMI_PASSWORD"  # the name ipmitool -E reads
REDFISH_PASSWORD_ENV = "BENCH_GUI_REDFISH_PASSWORD"


class MeterError(RuntimeError):
    """No valid reading, with a reason meant for the user."""


# ---- the arithmetic ---------------------------------------------------------------------------


def _interpolate(points: Sequence[tuple[float, float]], t: float) -> float:
    """The value at ``t`` on the polyline through sorted ``points`` (t inside their span)."""
    lo, hi = 0, len(points) - 1
    while hi - lo > 1:  # bisect: long runs have tens of thousands of readings
        mid = (lo + hi) // 2
        if points[mid][0] <= t:
            lo = mid
        else:
            hi = mid
    (ta, va), (tb, vb) = points[lo], points[hi]
    if tb == ta or t <= ta:
        return va
    if t >= tb:
        return vb
    return va + (vb - va) * (t - ta) / (tb - ta)


def average_watts(points: Iterable[tuple[float, float]], t0: float, t1: float) -> float | None:
    """Mean watts over [t0, t1] from (t, watts) readings, by the trapezoid rule.

    The watts at the window's edges are interpolated between the readings around them, so the
    integral covers exactly the window. None when the readings do not cover it: a report must
    not invent power.
    """
    if t1 <= t0:
        raise ValueError("the window must have a positive length")
    pts = sorted(points)
    if len(pts) < 2 or pts[0][0] > t0 or pts[-1][0] < t1:
        return None
    series = [(t0, _interpolate(pts, t0))]
    series += [(t, w) for t, w in pts if t0 < t < t1]
    series.append((t1, _interpolate(pts, t1)))
    energy = sum(
        (tb - ta) * (wa + wb) / 2 for (ta, wa), (tb, wb) in zip(series, series[1:], strict=False)
    )
    return energy / (t1 - t0)


def counter_average(points: Iterable[tuple[float, float]], t0: float, t1: float) -> float | None:
    """Mean watts over [t0, t1] from (t, joules) readings of a cumulative energy counter.

    The counter is interpolated at the window's edges; None when the readings do not cover
    the window.
    """
    if t1 <= t0:
        raise ValueError("the window must have a positive length")
    pts = sorted(points)
    if len(pts) < 2 or pts[0][0] > t0 or pts[-1][0] < t1:
        return None
    return (_interpolate(pts, t1) - _interpolate(pts, t0)) / (t1 - t0)


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


def significant(value: float, digits: int = 6) -> float:
    """A per-unit figure kept to ``digits`` significant digits, not decimal places: a fast
    system's 0.0385 J per new order must not lose its third digit to rounding."""
    return float(f"{value:.{digits}g}")


# ---- CSV power logs ---------------------------------------------------------------------------

TIME_COLUMNS = ("timestamp", "time", "datetime", "date_time", "epoch", "unix_time", "t", "ts")
WATTS_COLUMNS = ("watts", "power_w", "power", "w", "power (w)", "power_watts", "watt")


def parse_timestamp(text: str) -> float:
    """Epoch seconds, or ISO 8601 (``2024-05-01T10:00:00.5Z``; no zone: this host's time)."""
    value = text.strip()
    try:
        return float(value)
    except ValueError:
        pass
    iso = value.replace("Z", "+00:00").replace("z", "+00:00")
    try:
        stamp = datetime.fromisoformat(iso)
    except ValueError:
        raise ValueError(f"{value!r} is neither epoch seconds nor an ISO 8601 time") from None
    return stamp.timestamp()  # a naive time is taken as local time


def _pick(header: list[str], wanted: str, candidates: Sequence[str], what: str) -> int:
    names = [h.strip().lower() for h in header]
    if wanted:
        if wanted.strip().lower() not in names:
            raise MeterError(
                f"the power log has no column {wanted!r} (columns: {', '.join(header)})"
            )
        return names.index(wanted.strip().lower())
    for candidate in candidates:
        if candidate in names:
            return names.index(candidate)
    raise MeterError(
        f"the power log has no {what} column (looked for {', '.join(candidates)};"
        f" columns: {', '.join(header)})"
    )


def parse_power_csv(
    text: str, time_column: str = "", watts_column: str = ""
) -> list[tuple[float, float]]:
    """(epoch seconds, watts) rows of a CSV power log with a header line.

    The delimiter (comma, semicolon, tab) is sniffed; rows whose time or watts do not parse are
    skipped (a logger's comment or a half-written last line), a header without the columns is
    an error.
    """
    lines = text.splitlines()
    if not lines:
        return []
    reader = _csv_reader(lines[0])
    header = next(reader([lines[0]]))
    t_col = _pick(header, time_column, TIME_COLUMNS, "time")
    w_col = _pick(header, watts_column, WATTS_COLUMNS, "watts")
    rows = []
    for row in reader(lines[1:]):
        if len(row) <= max(t_col, w_col):
            continue
        try:
            rows.append((parse_timestamp(row[t_col]), float(row[w_col])))
        except ValueError:
            continue
    return rows


def preview_power_csv(text: str, rows: int = 5) -> tuple[list[str], list[list[str]]]:
    """The header and the first ``rows`` data rows of a CSV power log (delimiter sniffed),
    so a user can pick its time and watts columns."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return [], []
    reader = _csv_reader(lines[0])
    header = [h.strip() for h in next(reader([lines[0]]))]
    return header, [list(r) for r in reader(lines[1 : rows + 1])]


def guess_column(header: Sequence[str], kind: str) -> str:
    """The column found by name for ``kind`` ("time" or "watts"), or "" when none matches."""
    candidates = TIME_COLUMNS if kind == "time" else WATTS_COLUMNS
    names = [h.strip().lower() for h in header]
    for candidate in candidates:
        if candidate in names:
            return header[names.index(candidate)]
    return ""


def _csv_reader(header_line: str) -> Callable[[Iterable[str]], Iterator[list[str]]]:
    try:
        dialect: Any = csv.Sniffer().sniff(header_line, delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel

    def read(lines: Iterable[str]) -> Iterator[list[str]]:
        return csv.reader(lines, dialect)

    return read


METER_KINDS = ("none", "ipmi", "redfish", "rapl", "csv")
