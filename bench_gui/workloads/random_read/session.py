"""Stored random-read sessions read as plain data (seed 004), and the workload of a session.

A random-read session is one fio sweep over dataset sizes: each stored step is a point (a
prefix of one file read at random under a fixed RAM for the study), with its ops/s, latency
and the multiplier over the device's raw IOPS. :func:`session_from_record` reads the store's
plain records; :func:`bench_gui.workloads.mix.check_same_workload`
keeps random-read studies and TPROC-C sweeps from being compared with one another. Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bench_gui.core.compare import CompareError
from bench_gui.wire.fio_sizes import format_size
from bench_gui.workloads.base import workload_of_record

WORKLOAD = "random_read"
# Two points match when their dataset/RAM multiples differ by at most this fraction.
MATCH_TOLERANCE = 0.02
_EPS = 1e-9


class RandomReadCompareError(CompareError):
    """Random-read sessions that cannot be compared as asked; the message names them."""


# ---- the workload of a stored session -----------------------------------------------------------


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


# ---- input ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RRPoint:
    """One dataset size of a random-read session (one stored step)."""

    step: int
    dataset_bytes: int
    ram_ratio: float  # dataset / RAM for the study: 2.0 is "2x RAM"
    label: str  # as the run named it: "2x RAM (32 GiB)", "48 MiB"
    ops_s: float | None
    mbs: float | None = None
    p50_ms: float | None = None
    p99_ms: float | None = None
    p999_ms: float | None = None
    raw_iops: float | None = None
    multiplier: float | None = None  # ops_s / raw_iops
    memory_peak_bytes: int | None = None
    complete: bool = True
    warm: bool | None = None  # False: measured before its cache was steady (None: not judged)
    warmup_s: float | None = None  # how long its warm-up took

    @property
    def ram_fraction(self) -> float:
        """RAM / dataset: 0.5 at 2x RAM."""
        return 1.0 / self.ram_ratio

    @property
    def beyond_memory(self) -> bool:
        """The dataset is larger than the RAM of the study: misses go to the device."""
        return self.ram_ratio > 1.0 + _EPS


@dataclass(frozen=True)
class RRSession:
    """A stored random-read session as the comparison needs it."""

    id: int
    name: str
    status: str
    memory_bytes: int  # RAM for the study
    points: tuple[RRPoint, ...]  # complete points, by dataset size
    memory_label: str = ""  # "cgroup limit: 16 GiB"
    raw_iops: float | None = None
    raw_method: str = ""
    created_at: str = ""
    file: str = ""
    device: str = ""
    block_size: int | None = None
    jobs: int | None = None
    ioengine: str = ""
    zipf_theta: float | None = None
    warmup_s: float | None = None
    measure_s: float | None = None
    caches_dropped: bool | None = None
    fio_command: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()  # points not compared, and why
    # What the author says the storage was ("" when not said): the device name alone may
    # be a loop device held to a few hundred IOPS, which is not a disk.
    storage_text: str = ""

    def point_near(self, ram_ratio: float) -> RRPoint | None:
        """Its point whose RAM multiple is within MATCH_TOLERANCE of ``ram_ratio``."""
        best = min(self.points, key=lambda p: abs(p.ram_ratio / ram_ratio - 1.0), default=None)
        if best is None or abs(best.ram_ratio / ram_ratio - 1.0) > MATCH_TOLERANCE + _EPS:
            return None
        return best


def _latency(summary: Mapping[str, Any], step: Mapping[str, Any]) -> dict[str, Any]:
    for source in (summary.get("latency_ms"), step.get("latency_ms")):
        read = _dict(source).get("read")
        if isinstance(read, dict):
            return read
    return {}


def _point(
    step: Mapping[str, Any], memory: int, raw: float | None, effective: bool = False
) -> RRPoint | str:
    """A stored step as a point, or why it is left out."""
    summary = _dict(step.get("summary"))
    number = int(_num(step.get("step", summary.get("step"))) or 0)
    label = str(summary.get("dataset_label") or f"point {number + 1}")
    if not (step.get("complete", summary.get("complete", True)) and summary.get("complete", True)):
        return f"{label}: stopped before its measured window ended"
    size = _num(summary.get("dataset_bytes"))
    if size is None or size <= 0:
        return f"{label}: no dataset size stored"
    ratio = _num(summary.get("ram_ratio"))
    if effective or ratio is None or ratio <= 0:
        ratio = size / memory
    ops = _num(summary.get("ops_s"))
    if ops is None or ops < 0:
        return f"{label}: no ops/s stored"
    point_raw = _num(summary.get("raw_iops")) or raw
    multiplier = _num(summary.get("multiplier"))
    if multiplier is None and point_raw:
        multiplier = ops / point_raw
    lat = _latency(summary, step)
    peak = _num(summary.get("memory_peak_bytes"))
    return RRPoint(
        step=number,
        dataset_bytes=int(size),
        ram_ratio=ratio,
        label=label,
        ops_s=ops,
        mbs=_num(summary.get("mbs")),
        p50_ms=_num(lat.get("p50")),
        p99_ms=_num(lat.get("p99")),
        p999_ms=_num(lat.get("p999")),
        raw_iops=point_raw,
        multiplier=multiplier,
        memory_peak_bytes=None if peak is None else int(peak),
        warm=summary["warm"] if isinstance(summary.get("warm"), bool) else None,
        warmup_s=_num(summary.get("warmup_taken_s")),
    )


# A point whose dataset is this much larger than its data's cache filled the cache: its
# cached bytes are the cache the data had (a point that fits caches only its dataset).
FULL_CACHE_MARGIN = 1.05


def effective_cache(summaries: Sequence[Mapping[str, Any]]) -> int | None:
    """The page cache the data really had: the most of the data file cached at a point that
    did not fit (fio's own memory is charged to the same limit, so this is less than it);
    None when no point measured it or every point fit."""
    full = [
        cached
        for s in summaries
        if (cached := _num(s.get("data_cache_bytes"))) is not None
        and cached > 0
        and (size := _num(s.get("dataset_bytes"))) is not None
        and size > FULL_CACHE_MARGIN * cached
    ]
    return int(max(full)) if full else None


def session_from_record(run: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> RRSession:
    """A random-read session from the store's records: ``run`` is the run record (a
    ``RunDetail`` as a dict), ``steps`` its step records (``StepResult`` as dicts). Raise
    RandomReadCompareError naming the session when it is not one, or measured nothing."""
    sid = int(_num(run.get("id")) or 0)
    name = str(run.get("name") or f"session {sid}")
    if workload_of_record(run) != WORKLOAD:
        raise RandomReadCompareError(f"session {sid} ({name}) is not a random-read study")
    agent = _dict(run.get("agent"))
    record = _dict(agent.get("random_read"))
    memory_record = _dict(record.get("memory"))
    summaries = [_dict(s.get("summary")) for s in steps]
    memory = _num(memory_record.get("bytes")) or next(
        (m for s in summaries if (m := _num(s.get("memory_bytes")))), None
    )
    if not memory or memory <= 0:
        raise RandomReadCompareError(
            f"session {sid} ({name}) did not record the RAM of its study: its dataset sizes"
            " cannot be read as multiples of RAM"
        )
    limit_label = str(memory_record.get("label") or f"{format_size(memory)}")
    effective = effective_cache(summaries)
    memory_label = limit_label
    if effective is not None:
        memory_label = (
            f"page cache measured for the data: {format_size(effective)} ({limit_label}, of"
            f" which {format_size(max(0, memory - effective))} held fio's own memory and other"
            " pages)"
        )
        memory = effective
    raw_record = _dict(record.get("raw_iops"))
    raw = _num(raw_record.get("iops"))
    points: list[RRPoint] = []
    left_out: list[str] = []
    for step in steps:
        found = _point(step, int(memory), raw, effective is not None)
        if isinstance(found, str):
            left_out.append(found)
        else:
            points.append(found)
    points.sort(key=lambda p: p.ram_ratio)
    command = record.get("fio_command")
    return RRSession(
        id=sid,
        name=name,
        status=str(run.get("status") or ""),
        memory_bytes=int(memory),
        points=tuple(points),
        memory_label=memory_label,
        raw_iops=raw,
        raw_method=str(raw_record.get("method") or record.get("raw_method") or ""),
        created_at=str(run.get("created_at") or ""),
        file=str(record.get("file") or ""),
        device=str(record.get("device") or ""),
        block_size=_int_or_none(record.get("block_size")),
        jobs=_int_or_none(record.get("jobs")),
        ioengine=str(record.get("ioengine") or ""),
        zipf_theta=_num(record.get("zipf_theta")),
        warmup_s=_num(record.get("warmup_s")),
        measure_s=_num(record.get("measure_s")),
        caches_dropped=record.get("caches_dropped")
        if isinstance(record.get("caches_dropped"), bool)
        else None,
        fio_command=tuple(str(c) for c in command) if isinstance(command, list) else (),
        left_out=tuple(left_out),
    )


def _int_or_none(value: Any) -> int | None:
    number = _num(value)
    return None if number is None else int(number)
