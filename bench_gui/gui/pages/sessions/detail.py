"""The opened session: its title and facts, tags and note, and three tabs (the overview's
charts and step table, the host metrics, the log)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from bench_gui.core.random_read_compare import RRSession
from bench_gui.gui.pages.sessions.random_read_overview import RandomReadOverview
from bench_gui.gui.pages.sessions.run_table import STATUS_LABELS
from bench_gui.gui.widgets.charts import (
    NOPM_COLOR,
    TPM_COLOR,
    ScalingChart,
    SeriesSpec,
    TimeSeriesChart,
)
from bench_gui.gui.widgets.page_parts import scrolled
from bench_gui.gui.widgets.session_log import SessionLogView
from bench_gui.gui.widgets.session_metrics import SessionMetricsView
from bench_gui.gui.widgets.step_table import StepTable
from bench_gui.services.random_read_view import OpsSeries, PointRow
from bench_gui.services.session_view import RunHeader, SampleSeries, StepRow, short_server

TAB_OVERVIEW, TAB_METRICS, TAB_LOG = 0, 1, 2
NO_SESSION_TITLE = "Open a session to see its charts."
NO_SESSION_MESSAGE = "Open a session (double-click it) to see its charts"


def run_facts(header: RunHeader) -> str:
    """One line about a run: when, its status, engine and server, warehouses and timing, and
    its driver hosts when it ran on several."""
    info = [
        header.created,
        STATUS_LABELS.get(header.status, header.status),
        header.engine,
        short_server(header.server_version),
    ]
    if header.workload == "random_read":
        return "  ·  ".join(str(p) for p in [*info, "random reads by dataset size"] if p)
    plan = header.plan if isinstance(header.plan, dict) else {}
    workload = plan.get("workload", {}) if isinstance(plan.get("workload"), dict) else {}
    if workload.get("warehouses"):
        info.append(f"{workload['warehouses']} warehouses")
    if workload.get("duration_s"):
        info.append(
            f"ramp-up {workload.get('rampup_s', 0):g} s, measured {workload['duration_s']:g} s"
        )
    driver = plan.get("driver") if isinstance(plan.get("driver"), dict) else {}
    hosts = driver.get("targets") if isinstance(driver, dict) else None
    if isinstance(hosts, list) and len(hosts) > 1:
        info.append(f"{len(hosts)} driver hosts: {', '.join(str(h) for h in hosts)}")
    return "  ·  ".join(str(p) for p in info if p)


class SessionDetail(QWidget):
    """What the Sessions page shows of the session it opened (nothing until one is)."""

    def __init__(self) -> None:
        super().__init__()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 6, 0, 0)
        layout.setSpacing(10)
        title_row = QHBoxLayout()
        title_row.setSpacing(8)
        self.title = QLabel(NO_SESSION_TITLE)
        self.title.setObjectName("sectionTitle")
        title_row.addWidget(self.title, 1)
        self.power_button = QPushButton("Import power log…")
        self.power_button.setToolTip(
            "Give this session's steps the power a meter logged during the run (CSV with a"
            " time and a watts column): average watts over each measured window, mW per NOPM,"
            " J per new order"
        )
        self.power_button.setEnabled(False)
        title_row.addWidget(self.power_button)
        layout.addLayout(title_row)
        self.info = QLabel("")
        self.info.setObjectName("muted")
        self.info.setWordWrap(True)
        layout.addWidget(self.info)
        layout.addLayout(self._notes_row())
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
        self._note_no_session()
        self.step_table = StepTable()
        self.step_table.setMinimumHeight(120)
        self.metrics_view = SessionMetricsView()
        self.log_view = SessionLogView()
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        # The charts and the step table scroll when the window is short (a 720 px screen).
        self.random_read = RandomReadOverview()
        self.overview_stack = QStackedWidget()
        self.overview_stack.addWidget(self._overview())
        self.overview_stack.addWidget(self.random_read)
        self.tabs.addTab(scrolled(self.overview_stack), "Overview")
        self.tabs.addTab(self.metrics_view, "Metrics")
        self.tabs.addTab(self.log_view, "Log")
        layout.addWidget(self.tabs, 1)

    def _notes_row(self) -> QHBoxLayout:
        notes = QHBoxLayout()
        notes.setSpacing(8)
        tags_label = QLabel("Tags")
        tags_label.setObjectName("muted")
        notes.addWidget(tags_label)
        self.tags_edit = QLineEdit()
        self.tags_edit.setPlaceholderText("ssd, raid10, booth…")
        notes.addWidget(self.tags_edit, 1)
        note_label = QLabel("Note")
        note_label.setObjectName("muted")
        notes.addWidget(note_label)
        self.note_edit = QPlainTextEdit()
        self.note_edit.setPlaceholderText("What was special about this run…")
        self.note_edit.setFixedHeight(44)
        notes.addWidget(self.note_edit, 3)
        self.save_notes_button = QPushButton("Save")
        notes.addWidget(self.save_notes_button)
        self._enable_notes(False)
        return notes

    def _overview(self) -> QWidget:
        overview = QWidget()
        column = QVBoxLayout(overview)
        column.setContentsMargins(0, 8, 0, 0)
        column.setSpacing(10)
        charts = QHBoxLayout()
        charts.setSpacing(12)
        charts.addWidget(self.time_chart, 3)
        charts.addWidget(self.scaling_chart, 2)
        column.addLayout(charts, 3)
        column.addWidget(self.step_table, 2)
        return overview

    def _enable_notes(self, enabled: bool) -> None:
        for widget in (self.tags_edit, self.note_edit, self.save_notes_button):
            widget.setEnabled(enabled)

    def _note_no_session(self) -> None:
        for chart in (self.time_chart, self.scaling_chart):
            chart.note_empty(NO_SESSION_MESSAGE)

    def show_run(self, header: RunHeader, series: SampleSeries, steps: Sequence[StepRow]) -> None:
        """A run's title, facts, throughput over time, results by users and step table."""
        self.title.setText(f"#{header.id}  {header.name}")
        self.info.setText(run_facts(header))
        self.overview_stack.setCurrentIndex(0)
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

    def show_random_read(
        self,
        header: RunHeader,
        session: RRSession | None,
        rows: Sequence[PointRow],
        series: OpsSeries,
    ) -> None:
        """A random-read study's title, facts, and its own overview (ops/s by time and by
        dataset size, the multiplier over raw IOPS, the points)."""
        self.title.setText(f"#{header.id}  {header.name}")
        self.info.setText(run_facts(header))
        self.random_read.show_session(session, rows, series)
        self.overview_stack.setCurrentIndex(1)

    def show_annotations(self, tags: Sequence[str], note: str) -> None:
        """The run's tags and note, ready to edit."""
        self.tags_edit.setText(", ".join(tags))
        self.note_edit.setPlainText(note)
        self._enable_notes(True)

    def tags(self) -> list[str]:
        return self.tags_edit.text().split(",")

    def note(self) -> str:
        return self.note_edit.toPlainText()

    def forget(self) -> None:
        """Back to showing no session (the one shown was deleted)."""
        self.title.setText(NO_SESSION_TITLE)
        self.info.setText("")
        self.time_chart.clear()
        self.scaling_chart.clear()
        self.random_read.clear()
        self.overview_stack.setCurrentIndex(0)
        self._note_no_session()
        self._enable_notes(False)
        self.power_button.setEnabled(False)
        self.log_view.clear()
        self.metrics_view.show_session([], [])
