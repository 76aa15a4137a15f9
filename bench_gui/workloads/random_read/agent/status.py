"""fio's JSON output read as a live stream: objects split, readings taken, seconds derived.

With ``--output-format=json+ --status-interval=1`` fio writes one JSON object a second, then
its final result, back to back on stdout (the stream as a whole is not one JSON document).
Each status object is **cumulative** since the job started, or since the end of the warm-up:
``--ramp_time`` resets every counter when the warm-up ends, and latencies are only recorded
after it. ``json+`` adds the latency histogram (``clat_ns.bins``: bucket value in ns -> count),
so the latency of one second is the difference of two histograms, not an average of averages.

Pure: no I/O, so every rule here is tested on real fio output and on crafted edge cases.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

# The percentiles a sample and a step report (the protocol's latency fields, in ms).
PERCENTILES: Final = {"p50": 50.0, "p95": 95.0, "p99": 99.0, "p999": 99.9}
# fio pretty-prints each object with its braces alone on a line; a line longer than this, or
# an object of more lines, is not fio's (a runaway stream is cut, not buffered forever).
MAX_OBJECT_LINES: Final = 200_000


class JsonObjects:
    """Splits fio's stdout into its JSON objects as the text arrives.

    An object starts at a line that is ``{`` and ends at the next line that is ``}`` (fio
    indents everything inside). Text outside objects (a warning fio printed on stdout) and
    objects that do not parse are kept in :attr:`skipped`, never raised: one bad second must
    not end a measurement.
    """

    def __init__(self) -> None:
        self._partial = ""
        self._lines: list[str] | None = None
        self.skipped: list[str] = []

    def feed(self, text: str) -> list[dict[str, Any]]:
        """The objects completed by ``text``."""
        out: list[dict[str, Any]] = []
        data = self._partial + text
        lines = data.split("\n")
        self._partial = lines.pop()
        for line in lines:
            self._line(line.rstrip("\r"), out)
        return out

    def close(self) -> list[dict[str, Any]]:
        """The end of the stream: a last line without its newline, and what was left open."""
        out: list[dict[str, Any]] = []
        if self._partial:
            self._line(self._partial, out)
            self._partial = ""
        if self._lines is not None:
            self.skipped.append(f"an unfinished JSON object of {len(self._lines)} lines")
            self._lines = None
        return out

    def _line(self, line: str, out: list[dict[str, Any]]) -> None:
        if self._lines is None:
            if line == "{":
                self._lines = [line]
            elif line.strip():
                self.skipped.append(line.strip()[:500])
            return
        self._lines.append(line)
        if line == "}":
            text, self._lines = "\n".join(self._lines), None
            try:
                value = json.loads(text)
            except (ValueError, RecursionError) as exc:
                self.skipped.append(f"an object that is not JSON ({exc})")
                return
            if isinstance(value, dict):
                out.append(value)
            else:
                self.skipped.append("a JSON value that is not an object")
        elif len(self._lines) > MAX_OBJECT_LINES:
            self.skipped.append(f"an object of more than {MAX_OBJECT_LINES} lines, dropped")
            self._lines = None


def _num(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    return float(value)


def _int(value: Any) -> int:
    return int(_num(value))


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class Reading:
    """One fio object (a status or the final result), the read direction of every job summed
    (with ``--group_reporting`` there is one)."""

    t_ms: int  # fio's wall clock when it wrote the object (epoch ms)
    elapsed_s: int  # seconds since the jobs started, warm-up included
    runtime_ms: int  # time the counters below cover (reset at the end of the warm-up)
    ios: int
    io_bytes: int
    clat_n: int  # latencies recorded (none in the warm-up)
    clat_mean_ns: float
    clat_max_ns: float
    bins: dict[int, int] | None  # json+ histogram: bucket value (ns) -> count
    percentiles: dict[float, float]  # fio's own (cumulative): percentile -> ns
    error: int  # errno of a job that failed, 0 when none did
    major_faults: int
    minor_faults: int
    usr_cpu: float
    sys_cpu: float
    version: str


def reading(obj: Mapping[str, Any]) -> Reading | None:
    """A :class:`Reading` of one fio object; None when it holds no job (not fio's)."""
    jobs = [j for j in obj.get("jobs") or [] if isinstance(j, dict)]
    if not jobs:
        return None
    ios = io_bytes = clat_n = major = minor = 0
    runtime = elapsed = error = 0
    mean_sum = max_ns = usr = sys_ = 0.0
    bins: dict[int, int] | None = None
    percentiles: dict[float, float] = {}
    for job in jobs:
        read = _dict(job.get("read"))
        clat = _dict(read.get("clat_ns")) or _dict(read.get("lat_ns"))
        n = _int(clat.get("N"))
        ios += _int(read.get("total_ios"))
        io_bytes += _int(read.get("io_bytes"))
        clat_n += n
        mean_sum += _num(clat.get("mean")) * n
        max_ns = max(max_ns, _num(clat.get("max")))
        runtime = max(runtime, _int(read.get("runtime")))
        elapsed = max(elapsed, _int(job.get("elapsed")))
        error = error or _int(job.get("error"))
        major += _int(job.get("majf"))
        minor += _int(job.get("minf"))
        usr += _num(job.get("usr_cpu"))
        sys_ += _num(job.get("sys_cpu"))
        raw_bins = clat.get("bins")
        if isinstance(raw_bins, dict):
            bins = {} if bins is None else bins
            for key, count in raw_bins.items():
                try:
                    value = int(key)
                except ValueError:
                    continue
                bins[value] = bins.get(value, 0) + _int(count)
        if len(jobs) == 1:
            for key, value in _dict(clat.get("percentile")).items():
                try:
                    percentiles[float(key)] = _num(value)
                except ValueError:
                    continue
    return Reading(
        t_ms=_int(obj.get("timestamp_ms")),
        elapsed_s=elapsed,
        runtime_ms=runtime,
        ios=ios,
        io_bytes=io_bytes,
        clat_n=clat_n,
        clat_mean_ns=mean_sum / clat_n if clat_n else 0.0,
        clat_max_ns=max_ns,
        bins=bins,
        percentiles=percentiles,
        error=error,
        major_faults=major,
        minor_faults=minor,
        usr_cpu=round(usr / len(jobs), 2),
        sys_cpu=round(sys_ / len(jobs), 2),
        version=str(obj.get("fio version") or ""),
    )


def bin_percentiles(bins: Mapping[int, int], wanted: Iterable[float]) -> dict[float, float]:
    """Percentile -> bucket value (ns) of a histogram, the way fio reads its own: the first
    bucket whose running count reaches the percentile's share of the total."""
    items = sorted((k, c) for k, c in bins.items() if c > 0)
    total = sum(c for _k, c in items)
    out: dict[float, float] = {}
    if total == 0:
        return out
    for pct in sorted(wanted):
        need = pct / 100.0 * total
        running = 0
        for value, count in items:
            running += count
            if running >= need:
                out[pct] = float(value)
                break
    return out


def latency_ms(
    percentiles: Mapping[float, float], mean_ns: float, max_ns: float
) -> dict[str, float]:
    """The protocol's latency record (avg, p50, p95, p99, p999, max in ms) from ns figures;
    a percentile fio did not give is left out."""
    out = {"avg": round(mean_ns / 1e6, 6)}
    for name, pct in PERCENTILES.items():
        found = next((v for k, v in percentiles.items() if abs(k - pct) < 1e-6), None)
        if found is not None:
            out[name] = round(found / 1e6, 6)
    out["max"] = round(max_ns / 1e6, 6)
    return out


@dataclass(frozen=True)
class Second:
    """What one status interval measured."""

    phase: str  # "warmup" or "measure"
    seconds: float  # how long the interval was
    ios: int
    io_bytes: int
    latency_ms: dict[str, float] | None  # None in the warm-up (fio records none there)
    major_faults: int

    @property
    def ops_s(self) -> float:
        return self.ios / self.seconds if self.seconds > 0 else 0.0

    @property
    def mbs(self) -> float:
        return self.io_bytes / self.seconds / 1e6 if self.seconds > 0 else 0.0


@dataclass
class SecondTracker:
    """Turns cumulative status readings into per-interval figures.

    The warm-up ends when fio resets its counters: the first reading with latencies recorded,
    or whose runtime or counts went back. From there on every reading is of the measured
    window; its first interval counts from the reset (fio's runtime says how long ago).
    """

    warmup_s: float
    measuring: bool = False
    _last: Reading | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.measuring = self.warmup_s <= 0

    def push(self, now: Reading) -> Second | None:
        last = self._last
        went_back = last is not None and (
            now.runtime_ms < last.runtime_ms or now.ios < last.ios or now.clat_n < last.clat_n
        )
        fresh = last is None
        if not self.measuring and (now.clat_n > 0 or went_back):
            self.measuring = True
            fresh = True  # the counters restarted at the end of the warm-up
        elif went_back:
            fresh = True  # a reset we did not expect: never a negative second
        self._last = now
        if fresh:
            seconds = now.runtime_ms / 1000.0
            base_ios = base_bytes = base_n = base_majf = 0
            base_sum = 0.0
            base_bins: Mapping[int, int] = {}
        else:
            assert last is not None
            seconds = (now.t_ms - last.t_ms) / 1000.0
            if seconds <= 0:
                seconds = (now.runtime_ms - last.runtime_ms) / 1000.0
            base_ios, base_bytes, base_n = last.ios, last.io_bytes, last.clat_n
            base_majf = last.major_faults
            base_sum = last.clat_mean_ns * last.clat_n
            base_bins = last.bins or {}
        if seconds <= 0:
            return None
        latency = None
        if self.measuring and now.bins is not None:
            delta = {k: c - base_bins.get(k, 0) for k, c in now.bins.items()}
            delta = {k: c for k, c in delta.items() if c > 0}
            n = now.clat_n - base_n
            if delta and n > 0:
                mean = (now.clat_mean_ns * now.clat_n - base_sum) / n
                latency = latency_ms(
                    bin_percentiles(delta, PERCENTILES.values()), max(mean, 0.0), max(delta)
                )
        return Second(
            phase="measure" if self.measuring else "warmup",
            seconds=seconds,
            ios=max(0, now.ios - base_ios),
            io_bytes=max(0, now.io_bytes - base_bytes),
            latency_ms=latency,
            major_faults=max(0, now.major_faults - base_majf),
        )


@dataclass(frozen=True)
class WindowResult:
    """fio's own figures for the measured window (its final object, after the warm-up)."""

    ops_s: float
    mbs: float
    window_s: float
    ios: int
    latency_ms: dict[str, float]
    major_faults: int
    usr_cpu: float
    sys_cpu: float
    error: int


def window_result(final: Reading) -> WindowResult:
    """The step's figures from fio's final object: operations over fio's own runtime."""
    seconds = final.runtime_ms / 1000.0
    percentiles = final.percentiles
    if final.bins:
        # The histogram gives every percentile; fio's list may miss some.
        percentiles = {**bin_percentiles(final.bins, PERCENTILES.values()), **percentiles}
    return WindowResult(
        ops_s=round(final.ios / seconds, 1) if seconds > 0 else 0.0,
        mbs=round(final.io_bytes / seconds / 1e6, 3) if seconds > 0 else 0.0,
        window_s=round(seconds, 3),
        ios=final.ios,
        latency_ms=latency_ms(percentiles, final.clat_mean_ns, final.clat_max_ns)
        if final.clat_n
        else {},
        major_faults=final.major_faults,
        usr_cpu=final.usr_cpu,
        sys_cpu=final.sys_cpu,
        error=final.error,
    )


__all__ = [
    "PERCENTILES",
    "JsonObjects",
    "Reading",
    "Second",
    "SecondTracker",
    "WindowResult",
    "bin_percentiles",
    "latency_ms",
    "reading",
    "window_result",
]
