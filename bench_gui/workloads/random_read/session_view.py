"""What the Sessions page and ``bench-gui sessions`` show of a random-read session.

A random-read session is a sweep over dataset sizes, not over virtual users: its figures are
ops/s by dataset size and the multiplier over the device's raw IOPS (seed 004), never NOPM.
These functions read a stored session (through the comparison's own reader, so every view
says the same thing) and word its list cells, its points and its samples over time.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from bench_gui.workloads.base import run_record, workload_of_record
from bench_gui.workloads.random_read.compare import (
    RRSession,
    multiple_text,
    multiplier_text,
    ops_text,
    session_from_record,
)
from bench_gui.workloads.random_read.session import WORKLOAD, RandomReadCompareError

# The engine a random-read run records (the agent's hello): only such rows are read further.
ENGINE = "fio"


def load_session(store: Any, run_id: int) -> RRSession | None:
    """The stored random-read session, or None when it is not one (or measured nothing the
    reader can use: its steps are then still listed by :func:`point_rows`)."""
    detail = store.get_run(run_id)
    if workload_of_record(run_record(detail)) != WORKLOAD:
        return None
    steps = [asdict(step) for step in store.steps(run_id)]
    try:
        return session_from_record(run_record(detail), steps)
    except RandomReadCompareError:
        return None


@dataclass(frozen=True)
class BestResult:
    """A list cell: the session's headline figure, its sort key, and what it swept."""

    text: str  # "4.45X raw IOPS at 2x RAM", "3,100,000 ops/s"
    key: float
    swept: str  # "0.5x to 4x RAM (5 sizes)"


def best_result(session: RRSession | None) -> BestResult:
    """The best multiplier beyond RAM (the point of the study), else the best ops/s."""
    if session is None or not session.points:
        return BestResult("", 0.0, "")
    ratios = [p.ram_ratio for p in session.points]
    low, high = multiple_text(min(ratios)), multiple_text(max(ratios))
    count = len(session.points)
    swept = low if count == 1 else f"{low.removesuffix(' RAM')} to {high} ({count} sizes)"
    beyond = [p for p in session.points if p.beyond_memory and p.multiplier is not None]
    if beyond:
        best = max(beyond, key=lambda p: p.multiplier or 0.0)
        assert best.multiplier is not None
        return BestResult(
            f"{multiplier_text(best.multiplier)} raw IOPS at {multiple_text(best.ram_ratio)}",
            best.multiplier,
            swept,
        )
    top = max((p.ops_s or 0.0 for p in session.points), default=0.0)
    return BestResult(f"{ops_text(top)} ops/s", top, swept)


@dataclass(frozen=True)
class PointRow:
    """One dataset size of a stored random-read session, as the step table shows it."""

    step: int
    label: str
    ram_ratio: float | None
    ops_s: float | None
    mbs: float | None
    p99_ms: float | None
    p999_ms: float | None
    multiplier: float | None
    warmup_s: float | None
    warm: bool | None  # False: measured before its cache was steady; None: not judged
    complete: bool
    problems: tuple[str, ...] = ()


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _ratio(summary: Mapping[str, Any], memory_bytes: int | None) -> float | None:
    size = _num(summary.get("dataset_bytes"))
    if memory_bytes and size:
        return size / memory_bytes
    return _num(summary.get("ram_ratio"))


def point_rows(store: Any, run_id: int, memory_bytes: int | None = None) -> list[PointRow]:
    """Every stored step of a random-read session, complete or not, by step; ``memory_bytes``
    (the data cache the session measured, :attr:`RRSession.memory_bytes`) sets the multiples
    of RAM, else those stored with the steps."""
    rows = []
    for result in store.steps(run_id):
        summary = result.summary if isinstance(result.summary, dict) else {}
        latency = summary.get("latency_ms")
        read = latency.get("read") if isinstance(latency, dict) else None
        read = read if isinstance(read, dict) else {}
        warm = summary.get("warm")
        problems = summary.get("problems")
        rows.append(
            PointRow(
                step=int(result.step),
                label=str(summary.get("dataset_label") or f"point {result.step + 1}"),
                ram_ratio=_ratio(summary, memory_bytes),
                ops_s=_num(summary.get("ops_s")),
                mbs=_num(summary.get("mbs")),
                p99_ms=_num(read.get("p99")),
                p999_ms=_num(read.get("p999")),
                multiplier=_num(summary.get("multiplier")),
                warmup_s=_num(summary.get("warmup_taken_s", summary.get("rampup_s"))),
                warm=warm if isinstance(warm, bool) else None,
                complete=bool(result.complete),
                problems=tuple(str(p) for p in problems) if isinstance(problems, list) else (),
            )
        )
    rows.sort(key=lambda r: r.step)
    return rows


@dataclass
class OpsSeries:
    """A random-read session's samples: ops/s and major faults/s by time (``t`` in seconds
    since the first sample), and where each dataset size began."""

    t: np.ndarray
    ops_s: np.ndarray
    major_faults_s: np.ndarray
    point_starts: list[tuple[float, int, str]]  # (t, step, "2x RAM")

    def __len__(self) -> int:
        return len(self.t)


def ops_series(store: Any, run_id: int, labels: Mapping[int, str]) -> OpsSeries:
    """The stored samples as arrays; ``labels``: each step's dataset size in words."""
    records = list(store.samples(run_id))
    n = len(records)
    t, ops, faults = np.full(n, np.nan), np.full(n, np.nan), np.full(n, np.nan)
    starts: list[tuple[float, int, str]] = []
    last: int | None = None
    t0: float | None = None
    for i, record in enumerate(records):
        extra = record.extra if isinstance(record.extra, dict) else {}
        if t0 is None:
            t0 = float(record.t)
        t[i] = float(record.t) - t0
        ops[i] = _num(extra.get("ops_s")) if _num(extra.get("ops_s")) is not None else np.nan
        value = _num(extra.get("major_faults_s"))
        faults[i] = np.nan if value is None else value
        if record.step != last:
            last = record.step
            starts.append((t[i], record.step, labels.get(record.step, f"point {record.step + 1}")))
    return OpsSeries(t, ops, faults, starts)


def list_row(store: Any, row: Any) -> None:
    """The Sessions list's cells of a random-read study (a ``RunRow``): its best multiplier
    over raw IOPS (or ops/s) and the dataset sizes it swept, never NOPM or virtual users."""
    best = best_result(load_session(store, row.id))
    row.best_text, row.best_key, row.swept = best.text, best.key, best.swept
    row.best_nopm = None


def facts(header: Any) -> list[str]:
    """What the Sessions detail's line of facts says of a random-read study after its engine."""
    return ["random reads by dataset size"]


def short_label(ram_ratio: float | None, label: str) -> str:
    """A point's marker text: ``2x RAM`` (or the size it was named by)."""
    return multiple_text(ram_ratio) if ram_ratio else label


__all__ = [
    "ENGINE",
    "BestResult",
    "OpsSeries",
    "PointRow",
    "best_result",
    "facts",
    "list_row",
    "load_session",
    "ops_series",
    "point_rows",
    "short_label",
]


def target_summary(target: dict[str, Any]) -> str:
    """A session's target as the Sessions list says it: ``fio on HOST: FILE``."""
    machine = str(target.get("host") or "local")
    where = "this machine" if machine == "local" else machine
    return f"fio on {where}: {target.get('file') or 'no file'}"
