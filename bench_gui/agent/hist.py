"""Latency histograms (HDR, microseconds) and their summaries in milliseconds."""

from __future__ import annotations

from typing import Any

from hdrh.histogram import HdrHistogram

from bench_gui.agent.protocol import PERCENTILES

HIST_MAX_US = 3_600_000_000  # one hour


def new_histogram() -> HdrHistogram:
    return HdrHistogram(1, HIST_MAX_US, 3)


def add_encoded(target: HdrHistogram, encoded: bytes | str) -> None:
    """Merge a histogram that travelled as hdrh's compressed base64 into ``target``."""
    target.decode_and_add(encoded if isinstance(encoded, bytes) else encoded.encode())


def summarize(hist: HdrHistogram) -> dict[str, float] | None:
    """avg, p50, p95, p99, p999 and max in milliseconds; None when nothing was recorded."""
    if hist.get_total_count() == 0:
        return None
    result = {"avg": round(hist.get_mean_value() / 1000.0, 3)}
    for name, pct in PERCENTILES.items():
        result[name] = round(hist.get_value_at_percentile(pct) / 1000.0, 3)
    result["max"] = round(hist.get_max_value() / 1000.0, 3)
    return result


def encode(hist: HdrHistogram) -> str:
    return str(hist.encode().decode("ascii"))


def decode(encoded: str) -> HdrHistogram:
    hist = new_histogram()
    add_encoded(hist, encoded)
    return hist


def merged_summary(hists: dict[str, Any]) -> dict[str, dict[str, float]]:
    """Per-type summaries plus ``all`` (every type merged)."""
    out: dict[str, dict[str, float]] = {}
    total = new_histogram()
    for key, hist in hists.items():
        summary = summarize(hist)
        if summary is not None:
            out[key] = summary
            total.add(hist)
    all_summary = summarize(total)
    if all_summary is not None:
        out["all"] = all_summary
    return out
