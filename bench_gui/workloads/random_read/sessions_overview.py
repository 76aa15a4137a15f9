"""The Overview tab of a stored random-read session: its own figures, never TPROC-C's.

ops/s by run time with a marker where each dataset size began, ops/s by dataset size (the
curve of seed 004, with the device's raw IOPS and each point's multiplier over them), and a
table of the points: dataset, multiple of RAM, ops/s, MB/s, p99 and p99.9 latency, the
multiplier, the warm-up each point took and whether it was warm when measured.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QHBoxLayout, QLabel, QTableWidgetItem, QVBoxLayout, QWidget

from bench_gui.gui.widgets.charts import SeriesSpec, TimeSeriesChart
from bench_gui.gui.widgets.page_parts import FitTable
from bench_gui.workloads.random_read import session_view
from bench_gui.workloads.random_read.compare import RRSession, multiple_text, multiplier_text
from bench_gui.workloads.random_read.live_charts import (
    OPS_COLOR,
    DatasetPoint,
    DatasetSizeChart,
)
from bench_gui.workloads.random_read.session_view import OpsSeries, PointRow

POINT_COLUMNS = (
    "Dataset", "x RAM", "ops/s", "MB/s", "p99 ms", "p99.9 ms", "x raw IOPS", "Warm-up", "Note"
)  # fmt: skip
FLAG_COLOR = "#f1c21b"


def _num(value: float | None, digits: int = 0) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def _ms(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:,.1f}" if value >= 10 else f"{value:.3g}"


def point_note(row: PointRow) -> str:
    """Why a point does not count as measured warm and whole ("" when it does)."""
    notes = list(row.problems)
    if row.warm is False:
        notes.append("measured before its cache was steady")
    if not row.complete and not row.problems:
        notes.append("incomplete")
    return "; ".join(notes)


def point_cells(row: PointRow) -> list[str]:
    """One row of the points table, as text."""
    return [
        row.label,
        "—" if row.ram_ratio is None else multiple_text(row.ram_ratio).removesuffix(" RAM"),
        _num(row.ops_s),
        _num(row.mbs, 1),
        _ms(row.p99_ms),
        _ms(row.p999_ms),
        "—" if row.multiplier is None else multiplier_text(row.multiplier),
        "—" if row.warmup_s is None else f"{row.warmup_s:,.0f} s",
        point_note(row),
    ]


class RandomReadOverview(QWidget):
    """ops/s over time and by dataset size, and the table of points."""

    def __init__(self) -> None:
        super().__init__()
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 8, 0, 0)
        column.setSpacing(10)
        self.summary = QLabel("")
        self.summary.setObjectName("muted")
        self.summary.setWordWrap(True)
        column.addWidget(self.summary)
        charts = QHBoxLayout()
        charts.setSpacing(12)
        self.time_chart = TimeSeriesChart(
            "Random reads over time",
            "ops/s",
            (SeriesSpec("ops_s", "ops/s", OPS_COLOR),),
            empty_message="No samples were stored with this session",
        )
        self.dataset_chart = DatasetSizeChart("Operations per second by dataset size")
        self.dataset_chart.empty_message = "No dataset size of this session was measured"
        charts.addWidget(self.time_chart, 3)
        charts.addWidget(self.dataset_chart, 2)
        column.addLayout(charts, 3)
        self.table = FitTable(POINT_COLUMNS)
        self.table.setMinimumHeight(120)
        column.addWidget(self.table, 2)

    def show_session(self, store: Any, header: Any) -> None:
        """The stored session ``header`` names (a ``RunHeader``): read, then shown."""
        session = session_view.load_session(store, header.id)
        memory = session.memory_bytes if session is not None else None
        rows = session_view.point_rows(store, header.id, memory)
        labels = {r.step: session_view.short_label(r.ram_ratio, r.label) for r in rows}
        self.show_points(session, rows, session_view.ops_series(store, header.id, labels))

    def show_points(
        self, session: RRSession | None, rows: Sequence[PointRow], series: OpsSeries
    ) -> None:
        """A stored random-read session's samples, points and summary line."""
        self.time_chart.clear()
        self.time_chart.set_data("ops_s", series.t, series.ops_s)
        for t, _step, label in series.point_starts:
            self.time_chart.add_marker(t, label)
        if len(series):
            self.time_chart.plot.autoRange()
        self.dataset_chart.clear()
        self.dataset_chart.set_planned([r.ram_ratio for r in rows if r.ram_ratio])
        self.dataset_chart.set_raw(session.raw_iops if session is not None else None)
        self.dataset_chart.set_points(
            [
                DatasetPoint(r.ram_ratio, r.ops_s, r.multiplier, r.complete)
                for r in rows
                if r.ram_ratio is not None and r.ops_s is not None and math.isfinite(r.ops_s)
            ]
        )
        self.summary.setText(summary_text(session))
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(point_cells(row)):
                item = QTableWidgetItem(text)
                if 1 <= c <= 7:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                if c == len(POINT_COLUMNS) - 1 and text:
                    item.setForeground(QColor(FLAG_COLOR))
                self.table.setItem(r, c, item)
        self.table.fit_columns()

    def clear(self) -> None:
        self.time_chart.clear()
        self.dataset_chart.clear()
        self.table.setRowCount(0)
        self.summary.setText("")


def summary_text(session: RRSession | None) -> str:
    """The study in one line: RAM, reads, the device and its raw IOPS."""
    if session is None:
        return "This random-read session measured no dataset size."
    parts = [f"RAM for the study: {session.memory_label}"]
    reads = []
    if session.block_size:
        reads.append(f"{session.block_size:,} B reads")
    if session.ioengine:
        reads.append(session.ioengine)
    if session.jobs:
        reads.append(f"{session.jobs} fio jobs")
    if session.zipf_theta is not None:
        reads.append(f"zipf {session.zipf_theta:g}")
    if reads:
        parts.append(", ".join(reads))
    if session.device:
        parts.append(f"device {session.device}")
    if session.raw_iops:
        parts.append(
            f"raw {session.raw_iops:,.0f} IOPS ({session.raw_method or 'method not stored'})"
        )
    else:
        parts.append("raw IOPS not measured: no multiplier")
    return "  ·  ".join(parts)


__all__ = ["POINT_COLUMNS", "RandomReadOverview", "point_cells", "point_note", "summary_text"]
