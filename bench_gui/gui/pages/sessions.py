"""The Sessions page: every stored run, and the charts and step table of the one opened.

All reads go through :mod:`bench_gui.gui.store_adapter`. The list is reloaded when the page is
shown and when a run finishes; opening a run (double-click or the Open button) loads its
samples and steps once and draws them with the same chart widgets as the Live page.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from bench_gui.gui import store_adapter
from bench_gui.gui.store_adapter import RunHeader, RunRow, short_server
from bench_gui.gui.widgets.charts import (
    NOPM_COLOR,
    TPM_COLOR,
    ScalingChart,
    SeriesSpec,
    TimeSeriesChart,
)
from bench_gui.gui.widgets.step_table import StepTable

RUN_COLUMNS = ("Name", "Date", "Status", "Engine", "Steps", "Best NOPM", "Virtual users")
STATUS_LABELS = {
    "running": "● running",
    "complete": "✔ complete",
    "incomplete": "◐ incomplete",
    "failed": "✘ failed",
}
STATUS_COLORS = {
    "running": "#33b1ff",
    "complete": "#42be65",
    "incomplete": "#f1c21b",
    "failed": "#ff6b74",
}
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
ID_ROLE = Qt.ItemDataRole.UserRole + 2


class _Item(QTableWidgetItem):
    """A cell that sorts by its SORT_ROLE value (numbers, dates) rather than its text."""

    def __lt__(self, other: QTableWidgetItem) -> bool:
        mine, theirs = self.data(SORT_ROLE), other.data(SORT_ROLE)
        if mine is not None and theirs is not None:
            try:
                return bool(mine < theirs)
            except TypeError:
                pass
        return super().__lt__(other)


class SessionsPage(QWidget):
    """Lists stored runs and shows one.

    Signals:
        run_opened(int): a run's charts were loaded (its id).
    """

    run_opened = Signal(int)

    def __init__(self, store: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.rows: list[RunRow] = []
        self.current: RunHeader | None = None
        self._build_ui()

    def _build_ui(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(20, 16, 20, 12)
        outer.setSpacing(10)

        header = QHBoxLayout()
        titles = QVBoxLayout()
        titles.setSpacing(0)
        title = QLabel("Sessions")
        title.setObjectName("pageTitle")
        titles.addWidget(title)
        self.subtitle = QLabel("")
        self.subtitle.setObjectName("pageSubtitle")
        titles.addWidget(self.subtitle)
        header.addLayout(titles, 1)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refresh)
        header.addWidget(self.refresh_button)
        self.open_button = QPushButton("Open")
        self.open_button.setProperty("role", "primary")
        self.open_button.setEnabled(False)
        self.open_button.clicked.connect(self.open_selected)
        header.addWidget(self.open_button)
        outer.addLayout(header)

        self.error_label = QLabel("")
        self.error_label.setObjectName("fieldError")
        self.error_label.setWordWrap(True)
        self.error_label.hide()
        outer.addWidget(self.error_label)

        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.setChildrenCollapsible(False)

        self.table = QTableWidget(0, len(RUN_COLUMNS))
        self.table.setHorizontalHeaderLabels(list(RUN_COLUMNS))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        self.table.setSortingEnabled(True)
        head = self.table.horizontalHeader()
        head.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        head.setSectionResizeMode(len(RUN_COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        self.table.sortByColumn(1, Qt.SortOrder.DescendingOrder)
        self.table.itemSelectionChanged.connect(self._on_selection)
        self.table.cellDoubleClicked.connect(lambda row, _col: self.open_row(row))
        self.table.setMinimumHeight(140)
        splitter.addWidget(self.table)

        detail = QWidget()
        detail_layout = QVBoxLayout(detail)
        detail_layout.setContentsMargins(0, 6, 0, 0)
        detail_layout.setSpacing(10)
        self.detail_title = QLabel("Open a session to see its charts.")
        self.detail_title.setObjectName("sectionTitle")
        detail_layout.addWidget(self.detail_title)
        self.detail_info = QLabel("")
        self.detail_info.setObjectName("muted")
        self.detail_info.setWordWrap(True)
        detail_layout.addWidget(self.detail_info)
        charts = QHBoxLayout()
        charts.setSpacing(12)
        self.time_chart = TimeSeriesChart(
            "Throughput over time",
            "Per minute",
            (SeriesSpec("nopm", "NOPM", NOPM_COLOR), SeriesSpec("tpm", "TPM", TPM_COLOR)),
        )
        self.scaling_chart = ScalingChart(
            "NOPM and TPM by virtual users",
            "Per minute",
            SeriesSpec("nopm", "NOPM", NOPM_COLOR),
            SeriesSpec("tpm", "TPM", TPM_COLOR),
        )
        charts.addWidget(self.time_chart, 3)
        charts.addWidget(self.scaling_chart, 2)
        detail_layout.addLayout(charts, 3)
        self.step_table = StepTable()
        self.step_table.setMinimumHeight(120)
        detail_layout.addWidget(self.step_table, 2)
        splitter.addWidget(detail)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 3)
        outer.addWidget(splitter, 1)

    # ---- list ----------------------------------------------------------------------------

    def refresh(self) -> None:
        """Reload the list of runs, keeping the selection."""
        selected = self.selected_id()
        try:
            self.rows = store_adapter.run_rows(self.store)
        except Exception as exc:  # the store names the file and the reason
            self._show_error(f"Cannot read the sessions: {exc}")
            return
        self.error_label.hide()
        self.table.setSortingEnabled(False)
        self.table.setRowCount(len(self.rows))
        for r, run in enumerate(self.rows):
            cells: list[tuple[str, Any]] = [
                (run.name, run.name.lower()),
                (run.created, run.sort_key),
                (STATUS_LABELS.get(run.status, run.status), run.status),
                (run.engine, run.engine),
                (str(run.n_steps), run.n_steps),
                ("" if run.best_nopm is None else f"{run.best_nopm:,.0f}", run.best_nopm or 0.0),
                (run.vus, run.vus),
            ]
            for c, (text, key) in enumerate(cells):
                item = _Item(text)
                item.setData(SORT_ROLE, key)
                item.setData(ID_ROLE, run.id)
                if c in (4, 5):
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                if c == 2 and run.status in STATUS_COLORS:
                    item.setForeground(QColor(STATUS_COLORS[run.status]))
                self.table.setItem(r, c, item)
        self.table.setSortingEnabled(True)
        count = len(self.rows)
        self.subtitle.setText(
            "No sessions yet: every sweep you run is kept here."
            if not count
            else f"{count} session{'s' if count != 1 else ''}  ·  double-click one to open it"
        )
        if selected is not None:
            self.select_id(selected)

    def row_texts(self) -> list[list[str]]:
        """The table's text, in display order (for tests and exports)."""
        out = []
        for r in range(self.table.rowCount()):
            row = []
            for c in range(self.table.columnCount()):
                item = self.table.item(r, c)
                row.append(item.text() if item is not None else "")
            out.append(row)
        return out

    def selected_id(self) -> int | None:
        items = self.table.selectedItems()
        return int(items[0].data(ID_ROLE)) if items else None

    def select_id(self, run_id: int) -> bool:
        for r in range(self.table.rowCount()):
            item = self.table.item(r, 0)
            if item is not None and item.data(ID_ROLE) == run_id:
                self.table.selectRow(r)
                return True
        return False

    def _on_selection(self) -> None:
        self.open_button.setEnabled(self.selected_id() is not None)

    def open_selected(self) -> None:
        run_id = self.selected_id()
        if run_id is not None:
            self.open_run(run_id)

    def open_row(self, row: int) -> None:
        item = self.table.item(row, 0)
        if item is not None:
            self.open_run(int(item.data(ID_ROLE)))

    # ---- detail --------------------------------------------------------------------------

    def open_run(self, run_id: int) -> bool:
        """Load one run's charts and steps; False (message shown) if it cannot be read."""
        try:
            header = store_adapter.run_header(self.store, run_id)
            series = store_adapter.run_samples(self.store, run_id)
            steps = store_adapter.run_steps(self.store, run_id)
        except Exception as exc:
            self._show_error(f"Cannot open session {run_id}: {exc}")
            return False
        self.error_label.hide()
        self.current = header
        self.select_id(run_id)
        self.detail_title.setText(f"#{header.id}  {header.name}")
        info = [
            header.created,
            STATUS_LABELS.get(header.status, header.status),
            header.engine,
            short_server(header.server_version),
        ]
        plan = header.plan if isinstance(header.plan, dict) else {}
        workload = plan.get("workload", {}) if isinstance(plan.get("workload"), dict) else {}
        if workload.get("warehouses"):
            info.append(f"{workload['warehouses']} warehouses")
        if workload.get("duration_s"):
            info.append(
                f"ramp-up {workload.get('rampup_s', 0):g} s, measured {workload['duration_s']:g} s"
            )
        self.detail_info.setText("  ·  ".join(str(p) for p in info if p))

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
        self.run_opened.emit(run_id)
        return True

    def _show_error(self, text: str) -> None:
        self.error_label.setText(text)
        self.error_label.show()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        self.refresh()
