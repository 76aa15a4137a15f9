"""What each time chart of the catalogue draws: its title, axis and series.

The Live page and a stored session's Metrics tab build their charts here, so that a run looks
the same while it runs and when it is opened later. The keys are those of
:data:`~bench_gui.gui.widgets.chart_layout.CHART_INFO`; the bar charts by virtual users
(``scaling``, ``efficiency``) are the Live page's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from bench_gui.gui.widgets.chart_layout import CHART_INFO
from bench_gui.gui.widgets.charts import (
    CPU_COLORS,
    EFFICIENCY_COLOR,
    LATENCY_COLORS,
    MEMORY_COLORS,
    NOPM_COLOR,
    POWER_COLOR,
    TPM_COLOR,
    SeriesSpec,
    TimeSeriesChart,
)

# Pen width 1 except for the headline throughput: a width-2 curve costs the raster engine
# about three times as much to draw (measured with benchmarks/gui_stream.py), and a page can
# show a dozen charts and fifty curves.
THIN: Final = 1.0
THROUGHPUT_SERIES: Final = (
    SeriesSpec("nopm", "NOPM", NOPM_COLOR),
    SeriesSpec("tpm", "TPM", TPM_COLOR),
)
LATENCY_SERIES: Final = (
    SeriesSpec("lat_avg", "avg", LATENCY_COLORS["avg"], THIN),
    SeriesSpec("lat_p95", "p95", LATENCY_COLORS["p95"], THIN),
    SeriesSpec("lat_p99", "p99", LATENCY_COLORS["p99"], THIN),
    SeriesSpec("lat_p999", "p99.9", LATENCY_COLORS["p999"], THIN),
)
POWER_SERIES: Final = (SeriesSpec("power_w", "watts", POWER_COLOR, THIN),)
EFFICIENCY_SERIES: Final = (SeriesSpec("mw_per_nopm", "mW/NOPM (5 s)", EFFICIENCY_COLOR, THIN),)
CPU_SERIES: Final = (
    SeriesSpec("cpu_user", "user", CPU_COLORS["user"], THIN),
    SeriesSpec("cpu_system", "system", CPU_COLORS["system"], THIN),
    SeriesSpec("cpu_iowait", "iowait", CPU_COLORS["iowait"], THIN),
)
MEMORY_SERIES: Final = (
    SeriesSpec("mem_used", "used", MEMORY_COLORS["used"], THIN),
    SeriesSpec("mem_cache", "page cache", MEMORY_COLORS["cache"], THIN),
    SeriesSpec("mem_dirty", "dirty", MEMORY_COLORS["dirty"], THIN),
)
WAITING: Final = "Waiting for the first samples…"
# Per-device charts: (y label, [(device column, legend word, dashed)], values on a count axis).
DEVICE_CHARTS: dict[str, tuple[str, tuple[tuple[str, str, bool], ...], bool]] = {
    "disk_iops": ("I/O per second", (("r_iops", "read", False), ("w_iops", "write", True)), True),
    "disk_mbs": ("MB/s", (("r_mbs", "read", False), ("w_mbs", "write", True)), True),
    "disk_latency": ("await (ms)", (("r_await", "read", False), ("w_await", "write", True)), False),
    "disk_queue": ("requests in queue", (("aqu_sz", "queue", False),), False),
}
# The other time charts: (title, y label, series, values on a count axis, top of the y axis).
TIME_CHARTS: dict[str, tuple[str, str, tuple[SeriesSpec, ...], bool, float | None]] = {
    "throughput": ("Throughput", "Per minute", THROUGHPUT_SERIES, True, None),
    "latency": ("Latency, all transactions", "Latency (ms)", LATENCY_SERIES, False, None),
    "power": ("Power", "Watts", POWER_SERIES, False, None),
    "mw_per_nopm": ("mW per NOPM", "mW / NOPM", EFFICIENCY_SERIES, False, None),
    "cpu": ("CPU", "% of all CPUs", CPU_SERIES, False, 100.0),
    "memory": ("Memory", "GB", MEMORY_SERIES, False, None),
}


def time_chart(
    key: str, empty_message: str = WAITING, extra: Sequence[SeriesSpec] = ()
) -> TimeSeriesChart:
    """A new time chart of the catalogue (per-device charts start without curves: they get
    one per device as the devices appear). ``extra`` series are drawn after the catalogue's.
    Raises KeyError for a key that is not a time chart."""
    if key in DEVICE_CHARTS:
        label, _columns, count = DEVICE_CHARTS[key]
        series: tuple[SeriesSpec, ...] = ()
        title, y_max = CHART_INFO[key].title, None
    else:
        title, label, series, count, y_max = TIME_CHARTS[key]
    return TimeSeriesChart(
        title,
        label,
        (*series, *extra),
        count_axis=count,
        empty_message=empty_message,
        y_max=y_max,
        manual_range=True,
    )
