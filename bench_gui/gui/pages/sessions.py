"""The Sessions page: every stored run, and the charts and step table of the one opened.

All reads go through :mod:`bench_gui.gui.store_adapter`. The list is reloaded when the page is
shown and when a run finishes; opening a run (double-click or the Open button) loads its
samples and steps once and draws them with the same chart widgets as the Live page.

Housekeeping: search (name, tags, note, engine, ``#id``), tags and a note per session, rename,
delete (after a confirmation that says what goes), and export/import of one session as one
file to share with a colleague (a damaged or foreign file is refused and nothing changes).
Dialogs go through :attr:`SessionsPage.confirm` and :attr:`SessionsPage.ask_text`, which tests
replace.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from bench_gui.core.power import PowerImport, PowerLogError, preview_power_log, read_power_log
from bench_gui.gui import store_adapter
from bench_gui.gui.remote_tasks import RemoteTask
from bench_gui.gui.store_adapter import RunHeader, RunRow, short_server
from bench_gui.gui.widgets.charts import (
    NOPM_COLOR,
    TPM_COLOR,
    ScalingChart,
    SeriesSpec,
    TimeSeriesChart,
)
from bench_gui.gui.widgets.power_log_dialog import PowerLogDialog
from bench_gui.gui.widgets.session_log import SessionLogView
from bench_gui.gui.widgets.session_metrics import SessionMetricsView
from bench_gui.gui.widgets.step_table import StepTable

RUN_COLUMNS = (
    "Name", "Date", "Status", "Engine", "Steps", "Best NOPM", "Virtual users", "Tags"
)  # fmt: skip
SESSION_FILE_FILTER = "bench-gui session (*.json *.json.gz);;All files (*)"
POWER_LOG_FILTER = "Power logs (*.csv *.tsv *.txt);;All files (*)"
NO_SESSION_MESSAGE = "Open a session (double-click it) to see its charts"
TAB_OVERVIEW, TAB_METRICS, TAB_LOG = 0, 1, 2
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
        self.annotations: dict[int, tuple[list[str], str]] = {}
        # Dialogs, replaceable in tests: (title, text) -> yes?, (title, label, value) -> text.
        self.confirm: Callable[[str, str], bool] = self._confirm
        self.ask_text: Callable[[str, str, str], str | None] = self._ask_text
        self.power_task: RemoteTask | None = None
        self.power_dialog: PowerLogDialog | None = None  # the column chooser last shown
        self.last_power_import: PowerImport | None = None
        self._metrics_for: int | None = None  # the session the Metrics tab shows
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

        tools = QHBoxLayout()
        tools.setSpacing(8)
        self.search_edit = QLineEdit()
        self.search_edit.setPlaceholderText("Search name, tag, note or #id…")
        self.search_edit.setClearButtonEnabled(True)
        self.search_edit.textChanged.connect(self.apply_search)
        tools.addWidget(self.search_edit, 1)
        self.import_button = QPushButton("Import…")
        self.import_button.setToolTip("Add a session from a file a colleague exported")
        self.import_button.clicked.connect(self.choose_import_file)
        tools.addWidget(self.import_button)
        self.export_button = QPushButton("Export…")
        self.export_button.setToolTip("Write the selected session to one file to share")
        self.export_button.clicked.connect(self.choose_export_file)
        tools.addWidget(self.export_button)
        self.rename_button = QPushButton("Rename…")
        self.rename_button.clicked.connect(self.rename_selected)
        tools.addWidget(self.rename_button)
        self.delete_button = QPushButton("Delete…")
        self.delete_button.clicked.connect(self.delete_selected)
        tools.addWidget(self.delete_button)
        for button in (self.export_button, self.rename_button, self.delete_button):
            button.setEnabled(False)
        outer.addLayout(tools)

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
        self.table.setMinimumHeight(200)
        splitter.addWidget(self.table)

        detail = QWidget()
        detail_layout = QVBoxLayout(detail)
        detail_layout.setContentsMargins(0, 6, 0, 0)
        detail_layout.setSpacing(10)
        title_row = QHBoxLayout()
        title_row.setSpacing(8)
        self.detail_title = QLabel("Open a session to see its charts.")
        self.detail_title.setObjectName("sectionTitle")
        title_row.addWidget(self.detail_title, 1)
        self.power_button = QPushButton("Import power log…")
        self.power_button.setToolTip(
            "Give this session's steps the power a meter logged during the run (CSV with a"
            " time and a watts column): average watts over each measured window, mW per NOPM,"
            " J per new order"
        )
        self.power_button.setEnabled(False)
        self.power_button.clicked.connect(self.choose_power_log)
        title_row.addWidget(self.power_button)
        detail_layout.addLayout(title_row)
        self.detail_info = QLabel("")
        self.detail_info.setObjectName("muted")
        self.detail_info.setWordWrap(True)
        detail_layout.addWidget(self.detail_info)
        notes = QHBoxLayout()
        notes.setSpacing(8)
        tags_label = QLabel("Tags")
        tags_label.setObjectName("muted")
        notes.addWidget(tags_label)
        self.tags_edit = QLineEdit()
        self.tags_edit.setPlaceholderText("ssd, raid10, booth…")
        self.tags_edit.setEnabled(False)
        notes.addWidget(self.tags_edit, 1)
        note_label = QLabel("Note")
        note_label.setObjectName("muted")
        notes.addWidget(note_label)
        self.note_edit = QPlainTextEdit()
        self.note_edit.setPlaceholderText("What was special about this run…")
        self.note_edit.setFixedHeight(44)
        self.note_edit.setEnabled(False)
        notes.addWidget(self.note_edit, 3)
        self.save_notes_button = QPushButton("Save")
        self.save_notes_button.setEnabled(False)
        self.save_notes_button.clicked.connect(self.save_annotations)
        notes.addWidget(self.save_notes_button)
        detail_layout.addLayout(notes)
        charts = QHBoxLayout()
        charts.setSpacing(12)
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
        charts.addWidget(self.time_chart, 3)
        charts.addWidget(self.scaling_chart, 2)
        overview = QWidget()
        overview_layout = QVBoxLayout(overview)
        overview_layout.setContentsMargins(0, 8, 0, 0)
        overview_layout.setSpacing(10)
        overview_layout.addLayout(charts, 3)
        self.step_table = StepTable()
        self.step_table.setMinimumHeight(120)
        overview_layout.addWidget(self.step_table, 2)
        self.metrics_view = SessionMetricsView()
        self.log_view = SessionLogView()
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(overview, "Overview")
        self.tabs.addTab(self.metrics_view, "Metrics")
        self.tabs.addTab(self.log_view, "Log")
        self.tabs.currentChanged.connect(self._on_tab)
        detail_layout.addWidget(self.tabs, 1)
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
            self.annotations = self._read_annotations()
        except Exception as exc:  # the store names the file and the reason
            self._show_error(f"Cannot read the sessions: {exc}")
            return
        self.error_label.hide()
        self.table.setSortingEnabled(False)
        self.table.setRowCount(len(self.rows))
        for r, run in enumerate(self.rows):
            tags = ", ".join(self.annotations.get(run.id, ([], ""))[0])
            cells: list[tuple[str, Any]] = [
                (run.name, run.name.lower()),
                (run.created, run.sort_key),
                (STATUS_LABELS.get(run.status, run.status), run.status),
                (run.engine, run.engine),
                (str(run.n_steps), run.n_steps),
                ("" if run.best_nopm is None else f"{run.best_nopm:,.0f}", run.best_nopm or 0.0),
                (run.vus, run.vus),
                (tags, tags.lower()),
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
        self.apply_search(self.search_edit.text())

    def _read_annotations(self) -> dict[int, tuple[list[str], str]]:
        reader = getattr(self.store, "annotations", None)
        return dict(reader()) if callable(reader) else {}

    def apply_search(self, text: str) -> int:
        """Show only the sessions matching ``text`` (name, engine, tags, note; ``#12`` for an
        id); return how many are shown."""
        needle = text.strip().lower()
        shown = 0
        for r in range(self.table.rowCount()):
            item = self.table.item(r, 0)
            if item is None:
                continue
            run_id = int(item.data(ID_ROLE))
            tags, note = self.annotations.get(run_id, ([], ""))
            if needle.startswith("#") and needle[1:].isdigit():
                match = int(needle[1:]) == run_id
            else:
                engine = self.table.item(r, 3)
                words = [item.text(), engine.text() if engine else "", note, *tags]
                match = not needle or needle in " ".join(words).lower()
            self.table.setRowHidden(r, not match)
            shown += int(match)
        return shown

    def visible_names(self) -> list[str]:
        """Names of the rows the search leaves visible, in display order (for tests)."""
        out = []
        for r in range(self.table.rowCount()):
            item = self.table.item(r, 0)
            if item is not None and not self.table.isRowHidden(r):
                out.append(item.text())
        return out

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
        chosen = self.selected_id() is not None
        for button in (self.open_button, self.export_button, self.rename_button):
            button.setEnabled(chosen)
        self.delete_button.setEnabled(chosen)

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
        try:
            self.log_view.set_lines(self.store.log(run_id), f"#{header.id} {header.name}")
        except Exception as exc:
            self.log_view.clear()
            self._show_error(f"Cannot read the log of session {run_id}: {exc}")
        self._metrics_for = None
        if self.tabs.currentIndex() == TAB_METRICS:
            self.load_metrics()
        tags, note = self.annotations.get(run_id, ([], ""))
        self.tags_edit.setText(", ".join(tags))
        self.note_edit.setPlainText(note)
        for widget in (self.tags_edit, self.note_edit, self.save_notes_button):
            widget.setEnabled(True)
        self.power_button.setEnabled(self.power_task is None and header.status != "running")
        self.run_opened.emit(run_id)
        return True

    def _on_tab(self, index: int) -> None:
        if index == TAB_METRICS:
            self.load_metrics()

    def load_metrics(self) -> bool:
        """Draw the opened session's host metrics (read when the Metrics tab is first shown:
        a long run holds tens of thousands of samples)."""
        if self.current is None or self._metrics_for == self.current.id:
            return self.current is not None
        run_id = self.current.id
        try:
            samples = self.store.samples(run_id)
            steps = self.store.steps(run_id)
        except Exception as exc:
            self._show_error(f"Cannot read the metrics of session {run_id}: {exc}")
            return False
        self.metrics_view.show_session(samples, steps)
        self._metrics_for = run_id
        return True

    # ---- power log import ----------------------------------------------------------------

    def choose_power_log(self) -> None:
        if self.current is None:
            return
        path, _ = QFileDialog.getOpenFileName(
            self, "Import a power log", str(Path.home()), POWER_LOG_FILTER
        )
        if path:
            self.ask_power_columns(Path(path))

    def ask_power_columns(self, path: Path) -> PowerLogDialog | None:
        """Show the log's columns (those found by name preselected) and its first rows; the
        import starts when the user confirms (non-modal: ``open()``, so tests can drive it)."""
        try:
            preview = preview_power_log(path)
        except PowerLogError as exc:
            self._show_error(f"Power log not imported: {exc}")
            return None
        dialog = PowerLogDialog(path, preview, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(
            lambda: self.import_power_log(path, dialog.watts_column, dialog.time_column)
        )
        self.power_dialog = dialog
        dialog.open()
        return dialog

    def import_power_log(
        self, path: Path, watts_column: str = "", time_column: str = ""
    ) -> RemoteTask | None:
        """Read a meter's CSV log and store each step's power figures, in a worker thread;
        the steps table shows them when it is done (see :meth:`_power_done`)."""
        if self.current is None or self.power_task is not None:
            return None
        run_id = self.current.id
        store = self.store

        def work() -> PowerImport | Exception:
            try:
                readings = read_power_log(path, watts_column, time_column)
                return store.import_power_log(run_id, readings, path.name)  # type: ignore[no-any-return]
            except (PowerLogError, KeyError) as exc:  # KeyError: SessionNotFound
                return exc

        task = RemoteTask("power-import", work, context=run_id, parent=self)
        task.done.connect(self._power_done)
        self.power_task = task
        self.power_button.setEnabled(False)
        self.power_button.setText("Importing…")
        task.start()
        return task

    def _power_done(self) -> None:
        task = self.power_task
        if task is None:
            return
        task.wait()
        self.power_task = None
        self.power_button.setText("Import power log…")
        self.power_button.setEnabled(self.current is not None)
        outcome = task.error if task.error is not None else task.result
        run_id = int(task.context)
        if isinstance(outcome, BaseException):
            self._show_error(f"Power log not imported into session {run_id}: {outcome}")
            return
        assert isinstance(outcome, PowerImport)
        self.last_power_import = outcome
        if self.current is not None and self.current.id == run_id:
            self.open_run(run_id)
        self.error_label.hide()
        if not outcome.changed:
            text = f"{outcome.source}: these power figures were already stored"
        else:
            text = f"Power from {outcome.source} stored with session {run_id}"
            if outcome.idle_w is not None:
                text += f" (idle {outcome.idle_w:,.1f} W)"
        self.subtitle.setText(text)

    # ---- housekeeping --------------------------------------------------------------------

    def save_annotations(self) -> bool:
        """Store the opened session's tags (comma-separated) and note."""
        if self.current is None:
            return False
        run_id = self.current.id
        try:
            self.store.set_tags(run_id, self.tags_edit.text().split(","))
            self.store.set_note(run_id, self.note_edit.toPlainText())
        except Exception as exc:
            self._show_error(f"Cannot save the tags and note: {exc}")
            return False
        self.error_label.hide()
        self.refresh()
        self.select_id(run_id)
        return True

    def rename_selected(self) -> bool:
        run_id = self.selected_id()
        if run_id is None:
            return False
        row = next((r for r in self.rows if r.id == run_id), None)
        name = self.ask_text(
            "Rename session", f"New name for session #{run_id}:", row.name if row else ""
        )
        if name is None:
            return False
        return self.rename_run(run_id, name)

    def rename_run(self, run_id: int, name: str) -> bool:
        try:
            self.store.rename_run(run_id, name)
        except Exception as exc:
            self._show_error(f"Cannot rename session {run_id}: {exc}")
            return False
        self.error_label.hide()
        self.refresh()
        if self.current is not None and self.current.id == run_id:
            self.detail_title.setText(f"#{run_id}  {name.strip()}")
        return True

    def delete_selected(self) -> bool:
        """Delete the selected session after the user confirmed it."""
        run_id = self.selected_id()
        if run_id is None:
            return False
        row = next((r for r in self.rows if r.id == run_id), None)
        name = row.name if row else f"#{run_id}"
        steps = row.n_steps if row else 0
        if row is not None and row.status == "running":
            self._show_error(f"Session {run_id} is still running: stop it before deleting it.")
            return False
        question = (
            f"Delete session #{run_id} “{name}”?\n\nIts {steps} measured steps, every sample,"
            " the latency histograms, the log, its tags and note go with it. This cannot be"
            " undone; export it first to keep a copy."
        )
        if not self.confirm("Delete session", question):
            return False
        try:
            self.store.delete_run(run_id)
        except Exception as exc:
            self._show_error(f"Cannot delete session {run_id}: {exc}")
            return False
        if self.current is not None and self.current.id == run_id:
            self.current = None
            self.detail_title.setText("Open a session to see its charts.")
            self.detail_info.setText("")
            self.time_chart.clear()
            self.scaling_chart.clear()
            self._note_no_session()
            for widget in (self.tags_edit, self.note_edit, self.save_notes_button):
                widget.setEnabled(False)
            self.power_button.setEnabled(False)
            self.log_view.clear()
            self.metrics_view.show_session([], [])
            self._metrics_for = None
        self.error_label.hide()
        self.refresh()
        return True

    def export_run(self, run_id: int, path: Path) -> bool:
        from bench_gui.store.exchange import export_session

        try:
            export_session(self.store, run_id, path)
        except Exception as exc:
            self._show_error(f"Cannot export session {run_id}: {exc}")
            return False
        self.error_label.hide()
        self.subtitle.setText(f"Session {run_id} exported to {path}")
        return True

    def import_file(self, path: Path) -> int | None:
        """Import a session file; its id, or None (and why) when the file is refused."""
        from bench_gui.store.exchange import import_session

        try:
            run_id = import_session(self.store, path)
        except Exception as exc:  # SessionFileError says what is wrong with the file
            self._show_error(str(exc))
            return None
        self.error_label.hide()
        self.refresh()
        self.select_id(run_id)
        self.subtitle.setText(f"Imported {path.name} as session {run_id}")
        return run_id

    def choose_export_file(self) -> None:
        run_id = self.selected_id()
        if run_id is None:
            return
        default = Path.home() / f"session-{run_id}.bgsession.json"
        path, _ = QFileDialog.getSaveFileName(
            self, "Export session", str(default), SESSION_FILE_FILTER
        )
        if path:
            self.export_run(run_id, Path(path))

    def choose_import_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Import a session", str(Path.home()), SESSION_FILE_FILTER
        )
        if path:
            self.import_file(Path(path))

    def _confirm(self, title: str, text: str) -> bool:
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle(title)
        box.setText(text)
        delete = box.addButton("Delete", QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return box.clickedButton() is delete

    def _ask_text(self, title: str, label: str, value: str) -> str | None:
        text, ok = QInputDialog.getText(self, title, label, QLineEdit.EchoMode.Normal, value)
        return text if ok else None

    def _show_error(self, text: str) -> None:
        self.error_label.setText(text)
        self.error_label.show()

    def _note_no_session(self) -> None:
        for chart in (self.time_chart, self.scaling_chart):
            chart.note_empty(NO_SESSION_MESSAGE)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        self.refresh()
