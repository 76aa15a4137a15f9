"""A random-read run as it happens (seed 004): events in, the Live view's seconds and points out.

No Qt here, so the tests feed it the real agent's events and check every figure. The agent's
events are those listed in :mod:`bench_gui.workloads.random_read.agent` (the package docstring):
the ``hello``
says what the study is (its RAM, dataset sizes, device), ``progress`` the file being written
(task ``prepare``) and the raw-IOPS pass (task ``raw_iops``, the last one with the result), each
dataset size is a ``step`` (start, then end with fio's summary), and a ``sample`` a second
carries ops/s, MB/s, the second's latency percentiles and the host sampler's disks.

What it gives: :attr:`RandomReadLive.seconds` (one row a second of the whole run) and
:meth:`RandomReadLive.point_seconds` (the current point's rows, on the point's own clock),
:attr:`RandomReadLive.points` (one result per finished dataset size), the raw IOPS, the phase
the run is in (pre-allocating, raw-IOPS pass, dropping caches, warm-up, measured) with its
progress, and the tiles' figures.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from bench_gui.services.live_model import DEFAULT_CAPACITY, RingBuffer
from bench_gui.wire.fio_sizes import GIB, KIB, MIB, TIB
from bench_gui.wire.protocol import Event

WORKLOAD = "random_read"
# Columns of the per-second buffer. ``t`` is run time (s since the first event); ``elapsed``
# the point's own clock (s since its fio started); ``measured`` 1 in the measured window.
SECOND_COLUMNS: tuple[str, ...] = (
    "t",
    "step",
    "elapsed",
    "measured",
    "ops_s",
    "mbs",
    "p50",
    "p99",
    "p999",
    "device_r_iops",
    "major_faults_s",
    "memory_used",
)
# Seconds the ops/s and MB/s tiles average (per-second rates jump about; the charts show them).
SMOOTHING = 5

PHASE_LABELS: dict[str, str] = {
    "idle": "Idle",
    "starting": "Starting",
    "baseline": "Idle power",
    "preparing": "Pre-allocating",
    "raw_iops": "Raw IOPS",
    "dropping": "Dropping caches",
    "next": "Next point",
    "warmup": "Warm-up",
    "measure": "Measured",
    "finishing": "Finishing",
    "ok": "Finished",
    "stopped": "Stopped",
    "failed": "Failed",
}
ENDED = frozenset({"ok", "stopped", "failed"})


def _num(value: Any) -> float | None:
    """A finite float, or None for anything missing or not a number (bool included)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _nan(value: Any) -> float:
    number = _num(value)
    return math.nan if number is None else number


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def is_random_read(event: Event) -> bool:
    """Whether an event says its run is the random-read workload (the hello, a step, a
    sample or the summary carry ``workload``)."""
    return bool(event.get("workload") == WORKLOAD)


def short_size(n: float) -> str:
    """A dataset size for a tile: ``512 MiB``, ``4.0 GiB``, ``1.5 GiB`` (three figures)."""
    for unit, size in (("TiB", TIB), ("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if abs(n) >= size:
            value = n / size
            return f"{value:.1f} {unit}" if value < 10 else f"{value:,.0f} {unit}"
    return f"{n:.0f} B"


def ram_multiple_text(ratio: float) -> str:
    """A dataset / RAM ratio as people say it: ``0.25× RAM``, ``2× RAM``, ``0.375× RAM``."""
    return f"{ratio:.3g}× RAM"


def dataset_text(size: float, ratio: float | None) -> str:
    """The current dataset size: ``2× RAM · 4.0 GiB`` (just the size without a known RAM)."""
    if ratio is None or ratio <= 0:
        return short_size(size)
    return f"{ram_multiple_text(ratio)} · {short_size(size)}"


@dataclass(frozen=True)
class PlannedPoint:
    """One dataset size the run will measure, as its hello lists it."""

    bytes: int
    label: str
    multiple: float | None  # the plan's RAM multiple, None for an absolute size
    ram_ratio: float | None  # dataset / RAM for the study (None: RAM not known)


@dataclass(frozen=True)
class PointResult:
    """One finished dataset size: fio's own figures over its measured window."""

    step: int
    dataset_bytes: int
    label: str
    ram_ratio: float | None
    ops_s: float | None
    mbs: float | None = None
    p50_ms: float | None = None
    p99_ms: float | None = None
    p999_ms: float | None = None
    multiplier: float | None = None  # ops_s over the raw device IOPS
    complete: bool = True
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class Progress:
    """How far a preparation task is: ``done`` of ``total`` ``unit``, at ``rate`` a second."""

    done: float
    total: float
    unit: str
    rate: float | None

    @property
    def fraction(self) -> float:
        return min(1.0, max(0.0, self.done / self.total)) if self.total > 0 else 0.0


@dataclass
class RRTiles:
    """The figures of the random-read tiles (None: not known yet)."""

    ops_s: float | None = None
    mbs: float | None = None
    p99_ms: float | None = None
    p999_ms: float | None = None
    dataset: str = ""  # "2× RAM · 4.0 GiB"
    dataset_bytes: int | None = None
    dataset_ratio: float | None = None  # dataset / RAM
    point: int | None = None  # counted from 1
    point_count: int | None = None
    measured: bool = False  # the figures are of a measured window (not the warm-up)
    result_of: PointResult | None = None  # the figures are this finished point's result


class RandomReadLive:
    """Accumulates one random-read run's events; :attr:`version` changes with every event
    it took, so a view redraws only when something changed."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self.seconds = RingBuffer(SECOND_COLUMNS, capacity)
        self.generation = 0
        self.reset()

    # ---- lifecycle -----------------------------------------------------------------------

    def reset(
        self,
        name: str = "",
        warmup_s: float | None = None,
        measure_s: float | None = None,
        raw_iops_s: float | None = None,
    ) -> None:
        """Forget everything: a new run of this shape (the plan's, until the hello says)."""
        self.seconds.clear()
        self.name = name
        self.warmup_s = warmup_s
        self.measure_s = measure_s
        self.raw_iops_s = raw_iops_s
        self.t0: float | None = None
        self.phase = "idle"
        self.fio_version = ""
        self.device = ""
        self.memory_bytes: int | None = None
        self.memory_label = ""
        self.block_size: int | None = None
        self.jobs: int | None = None
        self.caches_dropped = True
        self.planned: list[PlannedPoint] = []
        self.points: list[PointResult] = []
        self.raw_iops: float | None = None
        self.raw_method = ""
        self.raw_rate: float | None = None  # the raw pass's latest second
        self.progress: Progress | None = None
        self.step: int | None = None
        self.dataset_bytes: int | None = None
        self.dataset_label = ""
        self.ram_ratio: float | None = None
        self.remaining: float | None = None
        self.remaining_at: float | None = None
        self.window: tuple[float, float] | None = None  # the point's measured window so far
        self.status_message = ""
        self.logs: list[tuple[str, str]] = []
        self._rows_in_point = 0
        self._point_warmup: float | None = None
        self.generation += 1
        self.version = 0

    def begin(
        self, name: str, warmup_s: float, measure_s: float, raw_iops_s: float | None = None
    ) -> None:
        """Reset for a run that is about to start."""
        self.reset(name, warmup_s, measure_s, raw_iops_s)
        self.phase = "starting"
        self.version += 1

    # ---- feeding -------------------------------------------------------------------------

    def feed(self, event: Event) -> None:
        """Take one event; kinds it does not need and odd payloads are ignored, never fatal."""
        if self.t0 is None:
            self.t0 = event.t
        handler = getattr(self, f"_on_{event.kind}", None)
        if handler is not None:
            handler(event)
            self.version += 1

    def feed_all(self, events: Iterable[Event]) -> None:
        for event in events:
            self.feed(event)

    def run_time(self, t: float) -> float:
        return t - (self.t0 if self.t0 is not None else t)

    def _on_hello(self, event: Event) -> None:
        self.fio_version = str(event.get("fio_version") or "")
        record = _dict(event.get("random_read"))
        memory = _dict(record.get("memory"))
        size = _num(memory.get("bytes"))
        self.memory_bytes = int(size) if size and size > 0 else None
        self.memory_label = str(memory.get("label") or "")
        self.device = str(record.get("device") or "")
        block = _num(record.get("block_size"))
        self.block_size = int(block) if block else None
        jobs = _num(record.get("jobs"))
        self.jobs = int(jobs) if jobs else None
        if isinstance(record.get("caches_dropped"), bool):
            self.caches_dropped = bool(record["caches_dropped"])
        for key in ("warmup_s", "measure_s", "raw_iops_s"):
            value = _num(record.get(key))
            if value is not None:
                setattr(self, key, value)
        planned = []
        for item in record.get("points") or []:
            point = _dict(item)
            nbytes = _num(point.get("bytes"))
            if nbytes is None or nbytes <= 0:
                continue
            multiple = _num(point.get("multiple"))
            ratio = nbytes / self.memory_bytes if self.memory_bytes else multiple
            planned.append(
                PlannedPoint(int(nbytes), str(point.get("label") or ""), multiple, ratio)
            )
        if planned:
            self.planned = planned
        if self.phase in ("idle", "starting"):
            self.phase = "preparing"

    def _on_progress(self, event: Event) -> None:
        task = event.get("task")
        done, total = _num(event.get("done")), _num(event.get("total"))
        rate = _num(event.get("rate"))
        if task == "idle":
            if self.phase in ("idle", "starting", "preparing"):
                self.phase = "baseline"
            return
        if task == "prepare":
            self.phase = "preparing"
            if done is not None and total:
                self.progress = Progress(done, total, "bytes", rate)
                if done >= total:  # written: the raw pass (or the first point) comes next
                    self.phase = "raw_iops" if (self.raw_iops_s or 0) > 0 else self._between()
                    self.progress = None
            return
        if task == "raw_iops":
            record = _dict(event.get("raw_iops"))
            iops = _num(record.get("iops"))
            if event.get("stage") == "done" and iops is not None:
                self.raw_iops = iops
                self.raw_method = str(record.get("method") or "")
                self.raw_rate = None
                self.progress = None
                self.phase = self._between()
                return
            self.phase = "raw_iops"
            self.raw_rate = rate
            if done is not None and total:
                self.progress = Progress(done, total, "s", rate)

    def _between(self) -> str:
        """What the agent does before the next point: drop the page cache (or nothing)."""
        if len(self.points) >= len(self.planned) > 0:
            return "finishing"
        return "dropping" if self.caches_dropped else "next"

    def _on_step(self, event: Event) -> None:
        step = event.get("step")
        if event.get("phase") == "start":
            self.step = step if isinstance(step, int) else (self.step or 0)
            size = _num(event.get("dataset_bytes"))
            self.dataset_bytes = int(size) if size else None
            self.dataset_label = str(event.get("dataset_label") or "")
            ratio = _num(event.get("ram_ratio"))
            if ratio is None and size and self.memory_bytes:
                ratio = size / self.memory_bytes
            self.ram_ratio = ratio
            self._point_warmup = _num(event.get("rampup_s"))
            if self._point_warmup is None:
                self._point_warmup = self.warmup_s
            self.phase = "warmup" if (self._point_warmup or 0) > 0 else "measure"
            self.progress = None
            self.remaining = self.remaining_at = None
            self.window = None
            self._rows_in_point = 0
            if self.step >= len(self.planned) and size:
                # More points than the hello listed (or no hello): the count stays true.
                self.planned.append(PlannedPoint(int(size), self.dataset_label, None, ratio))
        elif event.get("phase") == "end":
            summary = _dict(event.get("summary"))
            if summary:
                self._add_point(summary)
            self.remaining = self.remaining_at = None
            self.phase = self._between()

    def _add_point(self, summary: Mapping[str, Any]) -> None:
        step = summary.get("step")
        size = _num(summary.get("dataset_bytes"))
        if not isinstance(step, int) or size is None:
            return
        ratio = _num(summary.get("ram_ratio"))
        memory = _num(summary.get("memory_bytes")) or self.memory_bytes
        if ratio is None and memory:
            ratio = size / memory
        read = _dict(_dict(summary.get("latency_ms")).get("read"))
        problems = summary.get("problems")
        result = PointResult(
            step=step,
            dataset_bytes=int(size),
            label=str(summary.get("dataset_label") or ""),
            ram_ratio=ratio,
            ops_s=_num(summary.get("ops_s")),
            mbs=_num(summary.get("mbs")),
            p50_ms=_num(read.get("p50")),
            p99_ms=_num(read.get("p99")),
            p999_ms=_num(read.get("p999")),
            multiplier=_num(summary.get("multiplier")),
            complete=summary.get("complete") is not False,
            problems=tuple(str(p) for p in problems) if isinstance(problems, list) else (),
        )
        raw = _num(summary.get("raw_iops"))
        if self.raw_iops is None and raw:
            self.raw_iops = raw
        self.points = sorted([p for p in self.points if p.step != step] + [result], key=_step)

    def _on_sample(self, event: Event) -> None:
        step = event.get("step")
        if not isinstance(step, int):
            return
        if step != self.step:
            # A sample of a point whose start this model did not see (joined mid-run).
            self.step, self._rows_in_point, self.window = step, 0, None
            size = _num(event.get("dataset_bytes"))
            self.dataset_bytes = int(size) if size else self.dataset_bytes
            if size and self.memory_bytes:
                self.ram_ratio = size / self.memory_bytes
        phase = event.get("phase")
        if phase in ("warmup", "measure"):
            self.phase = phase
        t = self.run_time(event.t)
        elapsed = _nan(event.get("elapsed"))
        measured = phase == "measure"
        if measured and not math.isnan(elapsed):
            self._note_window(elapsed)
        self.remaining = _num(event.get("remaining"))
        self.remaining_at = t if self.remaining is not None else None
        read = _dict(_dict(event.get("latency_ms")).get("read"))
        memory = _nan(event.get("memory_used_bytes"))
        self.seconds.append_values(
            [
                t,
                float(step),
                elapsed,
                1.0 if measured else 0.0,
                _nan(event.get("ops_s")),
                _nan(event.get("mbs")),
                _nan(read.get("p50")),
                _nan(read.get("p99")),
                _nan(read.get("p999")),
                self._device_reads(_dict(event.get("host"))),
                _nan(event.get("major_faults_s")),
                memory,
            ]
        )
        self._rows_in_point += 1

    def _device_reads(self, host: Mapping[str, Any]) -> float:
        """Reads a second of the study's device (the host sampler's), else of all disks."""
        disks = _dict(host.get("disks"))
        if self.device and self.device in disks:
            return _nan(_dict(disks[self.device]).get("r_iops"))
        if not self.device and len(disks) == 1:
            return _nan(_dict(next(iter(disks.values()))).get("r_iops"))
        return _nan(_dict(host.get("disk_total")).get("r_iops"))

    def _note_window(self, elapsed: float) -> None:
        """A measured second at ``elapsed`` on the point's clock: the window opens where the
        warm-up ended (at most a second before this sample), or grows to it."""
        if self.window is None:
            start = elapsed - 1.0
            if self._point_warmup is not None:
                start = min(elapsed, max(start, self._point_warmup))
            self.window = (start, elapsed)
        else:
            self.window = (self.window[0], elapsed)

    def _on_log(self, event: Event) -> None:
        self.logs.append((str(event.get("level") or "info"), str(event.get("message") or "")))
        del self.logs[:-200]

    def _on_error(self, event: Event) -> None:
        if event.get("fatal"):
            self.phase = "failed"
            self.status_message = str(event.get("message") or "error")

    def _on_summary(self, event: Event) -> None:
        for summary in event.get("steps") or []:
            if isinstance(summary, dict):
                self._add_point(summary)
        iops = _num(_dict(event.get("raw_iops")).get("iops"))
        if iops is not None:
            self.raw_iops = iops

    def _on_done(self, event: Event) -> None:
        status = event.get("status")
        self.phase = status if status in ENDED else "ok"
        if event.get("message"):
            self.status_message = str(event.get("message"))
        self.remaining = self.remaining_at = None
        self.progress = None

    def finish(self, status: str, message: str = "") -> None:
        """The run ended outside the event stream (the worker said so, or failed)."""
        if self.phase not in ENDED or status == "failed":
            self.phase = status if status in ENDED else "ok"
        if message:
            self.status_message = message
        self.remaining = self.remaining_at = None
        self.progress = None
        self.version += 1

    # ---- reading -------------------------------------------------------------------------

    @property
    def ended(self) -> bool:
        return self.phase in ENDED

    @property
    def phase_label(self) -> str:
        """The phase in words, with its progress while the file is written or the raw pass
        runs: ``Pre-allocating 45%``, ``Raw IOPS 1.0 / 2 s``."""
        label = PHASE_LABELS.get(self.phase, self.phase.title())
        progress = self.progress
        if progress is not None and self.phase == "preparing":
            return f"{label} {progress.fraction * 100:.0f}%"
        return label

    @property
    def point_number(self) -> int | None:
        return None if self.step is None else self.step + 1

    @property
    def point_count(self) -> int | None:
        return len(self.planned) or None

    def planned_ratios(self) -> list[float]:
        """The dataset / RAM ratio of every planned point (those with a known RAM)."""
        return [p.ram_ratio for p in self.planned if p.ram_ratio is not None]

    def point_seconds(self, column: str) -> np.ndarray:
        """A column of the current point's seconds, oldest first (a read-only view)."""
        n = min(self._rows_in_point, len(self.seconds))
        if n == 0:
            return self.seconds.column(column)[:0]
        return self.seconds.last(column, n)

    def phase_remaining(self, now: float | None = None) -> float | None:
        """Seconds left in the current phase: the warm-up's or the measured window's (the
        agent reports the time left in the whole point); the pre-allocation's, estimated from
        its rate; the raw pass's. ``now``: the current run time (default: as of the last
        sample)."""
        if self.ended:
            return None
        progress = self.progress
        if progress is not None and self.phase in ("preparing", "raw_iops"):
            if progress.unit == "s":
                return max(0.0, progress.total - progress.done)
            if progress.rate:
                return max(0.0, (progress.total - progress.done) / (progress.rate * 1e6))
            return None
        if self.remaining is None:
            return None
        left = self.remaining
        if now is not None and self.remaining_at is not None:
            left -= max(0.0, now - self.remaining_at)
        if self.phase == "warmup" and self.measure_s is not None:
            left -= self.measure_s
        return max(0.0, left)

    def tiles(self) -> RRTiles:
        """The tiles' figures: the current point's latest seconds while it runs (its measured
        ones once it measures), the last finished point's result between points and at the
        end."""
        out = RRTiles(point=self.point_number, point_count=self.point_count)
        if self.dataset_bytes is not None:
            out.dataset = dataset_text(self.dataset_bytes, self.ram_ratio)
            out.dataset_bytes, out.dataset_ratio = self.dataset_bytes, self.ram_ratio
        running = self.phase in ("warmup", "measure") and self._rows_in_point > 0
        if running:
            measured = self.point_seconds("measured")
            k = min(SMOOTHING, len(measured))
            same = measured[-k:] == measured[-1]
            k = int(same[::-1].cumprod().sum())
            out.ops_s = _mean(self.point_seconds("ops_s")[-k:])
            out.mbs = _mean(self.point_seconds("mbs")[-k:])
            out.measured = bool(measured[-1])
            if out.measured:
                out.p99_ms = _last(self.point_seconds("p99"))
                out.p999_ms = _last(self.point_seconds("p999"))
            return out
        last = self.points[-1] if self.points else None
        if last is not None and (self.step is None or last.step == self.step):
            out.ops_s, out.mbs = last.ops_s, last.mbs
            out.p99_ms, out.p999_ms = last.p99_ms, last.p999_ms
            out.measured = True
            out.result_of = last
            out.dataset = dataset_text(last.dataset_bytes, last.ram_ratio)
            out.dataset_bytes, out.dataset_ratio = last.dataset_bytes, last.ram_ratio
        return out


def _step(point: PointResult) -> int:
    return point.step


def _mean(values: np.ndarray) -> float | None:
    finite = values[np.isfinite(values)]
    return float(finite.mean()) if finite.size else None


def _last(values: np.ndarray) -> float | None:
    finite = values[np.isfinite(values)]
    return float(finite[-1]) if finite.size else None


__all__ = [
    "SECOND_COLUMNS",
    "WORKLOAD",
    "PlannedPoint",
    "PointResult",
    "Progress",
    "RRTiles",
    "RandomReadLive",
    "dataset_text",
    "is_random_read",
    "ram_multiple_text",
    "short_size",
]
