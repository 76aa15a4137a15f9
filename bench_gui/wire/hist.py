"""Latency histograms (HDR, microseconds) and their summaries in milliseconds."""

from __future__ import annotations

from typing import Any

from hdrh.histogram import HdrHistogram

from bench_gui.wire.protocol import PERCENTILES

HIST_MAX_US = 3_600_000_000  # one hour


def new_histogram() -> HdrHistogram:
    return HdrHistogram(1, HIST_MAX_US, 3)


def add_encoded(target: HdrHistogram, encoded: bytes | str) -> None:
    """Merge a histogram that travelled as hdrh's compressed base64 into ``target``."""
    target.decode_and_add(encoded if isinstance(encoded, bytes) else encoded.encode())


def summarize(hist: HdrHistogram, sum_us: int | None = None) -> dict[str, float] | None:
    """avg, p50, p95, p99, p999 and max in milliseconds; None when nothing was recorded.

    The mean comes from the exact sum of latencies when it is known: hdrh computes its own
    mean by walking every bucket in Python (tens of milliseconds), far too slow to do every
    second for every transaction type.
    """
    count = hist.get_total_count()
    if count == 0:
        return None
    mean_us = sum_us / count if sum_us is not None else hist.get_mean_value()
    result = {"avg": round(mean_us / 1000.0, 3)}
    values = hist.get_percentile_to_value_dict(list(PERCENTILES.values()))
    for name, pct in PERCENTILES.items():
        result[name] = round(values[pct] / 1000.0, 3)
    result["max"] = round(hist.get_max_value() / 1000.0, 3)
    return result


def encode(hist: HdrHistogram) -> str:
    return str(hist.encode().decode("ascii"))


def decode(encoded: str) -> HdrHistogram:
    hist = new_histogram()
    add_encoded(hist, encoded)
    return hist


def merged_summary(
    hists: dict[str, Any], sums: dict[str, int] | None = None
) -> dict[str, dict[str, float]]:
    """Per-type summaries plus ``all`` (every type merged); ``sums``: exact µs totals."""
    out: dict[str, dict[str, float]] = {}
    total = new_histogram()
    total_sum: int | None = 0 if sums is not None else None
    for key, hist in hists.items():
        key_sum = sums.get(key, 0) if sums is not None else None
        summary = summarize(hist, key_sum)
        if summary is not None:
            out[key] = summary
            total.add(hist)
            if total_sum is not None and key_sum is not None:
                total_sum += key_sum
    all_summary = summarize(total, total_sum)
    if all_summary is not None:
        out["all"] = all_summary
    return out
