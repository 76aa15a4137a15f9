"""The Overview tab of a stored TPROC-C sweep: NOPM and TPM over time with a marker where
each step's virtual users began, both by virtual users, and the table of its steps."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QHBoxLayout, QVBoxLayout, QWidget

from bench_gui.gui.widgets.charts import (
    NOPM_COLOR,
    TPM_COLOR,
    ScalingChart,
    SeriesSpec,
    TimeSeriesChart,
)
from bench_gui.gui.widgets.step_table import StepTable
from bench_gui.services import session_view

NO_SESSION_MESSAGE = "Open a session (double-click it) to see its charts"


class TprocCOverview(QWidget):
    """A sweep's charts over time and by virtual users, and its step table."""

    def __init__(self) -> None:
        super().__init__()
        self.time_chart = TimeSeriesChart(
            "Throughput over time",
            "Per minute",
            (SeriesSpec("nopm", "NOPM", NOPM_COLOR), SeriesSpec("tpm", "TPM", TPM_COLOR)),
            empty_message="No samples were stored with this session",
        )
        self.scaling_chart = ScalingChart(
            "NOPM and TPM by virtual users",
            "Per minute",
            SeriesSpec("nopm", "NOPM", NOPM_COLOR),
            SeriesSpec("tpm", "TPM", TPM_COLOR),
            empty_message="No step of this session was measured",
        )
        self.step_table = StepTable()
        self.step_table.setMinimumHeight(120)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 8, 0, 0)
        column.setSpacing(10)
        charts = QHBoxLayout()
        charts.setSpacing(12)
        charts.addWidget(self.time_chart, 3)
        charts.addWidget(self.scaling_chart, 2)
        column.addLayout(charts, 3)
        column.addWidget(self.step_table, 2)
        self.clear()

    def show_session(self, store: Any, header: Any) -> None:
        """The stored sweep ``header`` names (a ``RunHeader``): its samples and steps."""
        series = session_view.run_samples(store, header.id)
        steps = session_view.run_steps(store, header.id)
        self.time_chart.clear()
        self.time_chart.set_data("nopm", series.t, series.nopm)
        self.time_chart.set_data("tpm", series.t, series.tpm)
        for t, _step, vus in series.step_starts:
            self.time_chart.add_marker(t, f"{vus} VU")
        self.time_chart.plot.autoRange()
        self.scaling_chart.clear()
        self.scaling_chart.set_points(
            [s.vus for s in steps],
            [s.nopm for s in steps],
            [s.tpm for s in steps],
            partial=[not s.complete for s in steps],
        )
        self.step_table.set_steps(steps)

    def clear(self) -> None:
        """No session: empty charts that say how to open one."""
        for chart in (self.time_chart, self.scaling_chart):
            chart.clear()
            chart.note_empty(NO_SESSION_MESSAGE)
        self.step_table.set_steps([])
