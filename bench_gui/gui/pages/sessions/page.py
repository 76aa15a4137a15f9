"""The Sessions page: every stored run, and the charts and step table of the one opened.

All reads go through :mod:`bench_gui.services.session_view`. The list is reloaded when the page
is shown and when a run finishes; opening a run (double-click or the Open button) loads its
samples and steps once and draws them with the same chart widgets as the Live page. What
cannot be read is said in the page's error line (the store names the file and the reason).
The team store bar (:mod:`.team_store`) switches the list between this computer's file and the
team's store, narrows it to one author and pushes the sessions recorded here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QHideEvent, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QWidget,
)

from bench_gui.core.power import PowerImport
from bench_gui.gui.pages.sessions.detail import TAB_METRICS, SessionDetail
from bench_gui.gui.pages.sessions.hammerdb_import import HammerDBImportPanel
from bench_gui.gui.pages.sessions.housekeeping import Housekeeping
from bench_gui.gui.pages.sessions.power_import import PowerLogImport
from bench_gui.gui.pages.sessions.run_table import RunTable
from bench_gui.gui.pages.sessions.storage_description import StorageDescriptionPanel
from bench_gui.gui.pages.sessions.team_store import TeamBar
from bench_gui.gui.tasks import Task
from bench_gui.gui.widgets.page_parts import ErrorLine, PageHeader, page_layout, scrolled
from bench_gui.gui.widgets.power_log_dialog import PowerLogDialog
from bench_gui.services import session_view
from bench_gui.services.errors import SessionNotFound, StoreError
from bench_gui.services.session_view import RunHeader, RunRow
from bench_gui.workloads.base import DEFAULT_WORKLOAD

READ_ERRORS = (StoreError, SessionNotFound)
# The list and the opened session ask for no more height than this together: the page is laid
# out at its preferred height, and with the detail's charts asking for ~740 px it was 1053 px
# tall, scrolling 338 px at 1280 x 720 with two sessions of the list in sight. They share
# what the window gives instead: the list up to LIST_ROWS rows and at most a third of it, the
# opened session the rest, until the user moves the splitter.
SPLIT_HINT_PX = 440
LIST_ROWS = 6


class ListAndDetail(QSplitter):
    """The list over the opened session, asking for at most :data:`SPLIT_HINT_PX`."""

    def __init__(self, table: QTableWidget, detail: QWidget) -> None:
        super().__init__(Qt.Orientation.Vertical)
        self.setChildrenCollapsible(False)
        self.table = table
        self.addWidget(table)
        self.addWidget(detail)
        self.moved = False  # by the user: their sizes are kept
        self.splitterMoved.connect(self._moved)

    def _moved(self, _pos: int, _index: int) -> None:
        self.moved = True

    def list_px(self, height: int) -> int:
        """The list's share of ``height``: LIST_ROWS rows, at most a third."""
        table = self.table
        rows = table.verticalHeader().defaultSectionSize() * LIST_ROWS
        chrome = table.horizontalHeader().height() + table.horizontalScrollBar().sizeHint().height()
        want = rows + chrome + 2 * table.frameWidth()
        return max(table.minimumHeight(), min(want, height // 3))

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        hint = super().sizeHint()
        return QSize(hint.width(), min(hint.height(), SPLIT_HINT_PX))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        if not self.moved:
            room = self.height() - self.handleWidth()
            share = self.list_px(room)
            self.setSizes([share, room - share])


class SessionsPage(Housekeeping):
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
        self.shown_annotations: tuple[list[str], str] = ([], "")  # the opened session's
        # Dialogs, replaceable in tests: (title, text) -> yes?, (title, label, value) -> text.
        self.confirm: Callable[[str, str], bool] = self._confirm
        self.ask_text: Callable[[str, str, str], str | None] = self._ask_text
        self.last_power_import: PowerImport | None = None
        self._metrics_for: int | None = None  # the session the Metrics tab shows
        self._build_ui()
        self.power_import = PowerLogImport(store, self.power_button, self)
        self.power_import.imported.connect(self._power_imported)
        self.power_import.failed.connect(self.error_label.show_error)

    def _build_ui(self) -> None:
        outer = page_layout(self)
        self.header = PageHeader("Sessions")
        self.subtitle = self.header.subtitle
        self.refresh_button = self.header.add_action("Refresh")
        self.refresh_button.clicked.connect(self.refresh)
        self.open_button = self.header.add_action("Open", primary=True)
        self.open_button.setEnabled(False)
        self.open_button.clicked.connect(self.open_selected)
        outer.addWidget(self.header)
        outer.addLayout(self._tools())
        # Which store the list shows (this computer's file, the team's), whose sessions.
        self.team_bar = TeamBar(self.store)
        self.team_bar.view_changed.connect(self.show_store)
        self.team_bar.author_changed.connect(lambda: self.apply_search(self.search_edit.text()))
        self.team_bar.synced.connect(self._team_synced)
        outer.addWidget(self.team_bar)
        self.error_label = ErrorLine()
        outer.addWidget(self.error_label)
        # A HammerDB import's outcome: its banner and the sessions it made (hidden until then).
        self.hammerdb.imported.connect(self._hammerdb_imported)
        self.hammerdb.open_requested.connect(self.open_run)
        outer.addWidget(self.hammerdb)

        self.table = RunTable()
        self.table.itemSelectionChanged.connect(self._on_selection)
        self.table.cellDoubleClicked.connect(lambda row, _col: self.open_row(row))
        self.detail = SessionDetail()
        self.detail.save_notes_button.clicked.connect(self.save_annotations)
        self.detail.power_button.clicked.connect(self.choose_power_log)
        self.detail.tabs.currentChanged.connect(self._on_tab)
        # What bench-gui built of the storage, and the user's own description of it.
        self.storage_panel = StorageDescriptionPanel(self.store)
        self.detail.tabs.addTab(scrolled(self.storage_panel), "Storage")
        self.splitter = ListAndDetail(self.table, self.detail)
        outer.addWidget(self.splitter, 1)
        # The detail's parts by the names the tests know.
        d = self.detail
        self.detail_title, self.detail_info, self.power_button = d.title, d.info, d.power_button
        self.tags_edit, self.note_edit, self.tabs = d.tags_edit, d.note_edit, d.tabs
        sweep = d.overviews[DEFAULT_WORKLOAD]
        self.time_chart, self.scaling_chart, self.step_table = (
            sweep.time_chart,  # type: ignore[attr-defined]
            sweep.scaling_chart,  # type: ignore[attr-defined]
            sweep.step_table,  # type: ignore[attr-defined]
        )
        self.metrics_view, self.log_view = d.metrics_view, d.log_view

    def _tools(self) -> QHBoxLayout:
        tools = QHBoxLayout()
        tools.setSpacing(8)
        self.search_edit = QLineEdit()
        self.search_edit.setPlaceholderText("Search name, system, tag, note or #id…")
        self.search_edit.setClearButtonEnabled(True)
        self.search_edit.textChanged.connect(self.apply_search)
        tools.addWidget(self.search_edit, 1)
        buttons = []
        for text, tip, slot in (
            ("Import…", "Add a session from a file a colleague exported", self.choose_import_file),
            ("Export…", "Write the selected session to one file to share", self.choose_export_file),
            ("Rename…", "", self.rename_selected),
            ("Delete…", "", self.delete_selected),
        ):
            button = QPushButton(text)
            button.setToolTip(tip)
            button.clicked.connect(slot)
            tools.addWidget(button)
            buttons.append(button)
        self.import_button, self.export_button, self.rename_button, self.delete_button = buttons
        for button in buttons[1:]:
            button.setEnabled(False)
        self.hammerdb = HammerDBImportPanel(self.store)
        tools.insertWidget(2, self.hammerdb.button)  # after Import…
        return tools

    # ---- list ----------------------------------------------------------------------------

    def refresh(self) -> None:
        """Reload the list of runs, keeping the selection."""
        selected = self.table.selected_id()
        try:
            self.rows = session_view.run_rows(self.store)
            reader = getattr(self.store, "annotations", None)
            self.annotations = dict(reader()) if callable(reader) else {}
        except READ_ERRORS as exc:
            self.error_label.show_error(f"Cannot read the sessions: {exc}")
            return
        self.error_label.clear_error()
        self.table.fill(self.rows, self.annotations)
        self.team_bar.set_authors(r.author for r in self.rows)
        count = len(self.rows)
        self.header.set_subtitle(
            "No sessions yet: every sweep you run is kept here."
            if not count
            else f"{count} session{'s' if count != 1 else ''}  ·  double-click one to open it"
        )
        if selected is not None:
            self.table.select_id(selected)
        self.apply_search(self.search_edit.text())

    def apply_search(self, text: str) -> int:
        """Show only the sessions matching ``text`` (and the author chosen); how many are
        shown."""
        self.table.author = self.team_bar.author()
        return self.table.apply_search(text)

    def show_store(self, store: Any) -> None:
        """List the sessions of ``store`` (this computer's file or the team store): every
        part of the page reads and writes there from now on."""
        if store is self.store:
            self.refresh()
            return
        self.store = store
        self.power_import.store = store
        self.hammerdb.store = store
        self.storage_panel.store = store
        self.table.clearSelection()
        self.forget_current()
        self.refresh()

    def visible_names(self) -> list[str]:
        """Names of the sessions the search leaves visible, in display order."""
        return self.table.visible_names()

    def row_texts(self) -> list[list[str]]:
        """The list's text, in display order."""
        return self.table.row_texts()

    def selected_id(self) -> int | None:
        return self.table.selected_id()

    def select_id(self, run_id: int) -> bool:
        return self.table.select_id(run_id)

    def _on_selection(self) -> None:
        chosen = self.table.selected_id() is not None
        for button in (self.open_button, self.export_button, self.rename_button):
            button.setEnabled(chosen)
        self.delete_button.setEnabled(chosen)

    def open_selected(self) -> None:
        run_id = self.table.selected_id()
        if run_id is not None:
            self.open_run(run_id)

    def open_row(self, row: int) -> None:
        run_id = self.table.row_id(row)
        if run_id is not None:
            self.open_run(run_id)

    # ---- detail --------------------------------------------------------------------------

    def open_run(self, run_id: int) -> bool:
        """Load one run's charts and steps; False (message shown) if it cannot be read."""
        try:
            header = session_view.run_header(self.store, run_id)
            self.detail.show_session(self.store, header)
        except READ_ERRORS as exc:
            self.error_label.show_error(f"Cannot open session {run_id}: {exc}")
            return False
        self.error_label.clear_error()
        self.current = header
        self.table.select_id(run_id)
        try:
            self.log_view.set_lines(self.store.log(run_id), f"#{header.id} {header.name}")
        except READ_ERRORS as exc:
            self.log_view.clear()
            self.error_label.show_error(f"Cannot read the log of session {run_id}: {exc}")
        self._metrics_for = None
        if self.tabs.currentIndex() == TAB_METRICS:
            self.load_metrics()
        # What the editor starts from: a save changes only what differs from it.
        self.shown_annotations = self.annotations.get(run_id, ([], ""))
        self.detail.show_annotations(*self.shown_annotations)
        self.storage_panel.show_session(run_id)
        self.power_import.arm(header.status != "running")
        self.run_opened.emit(run_id)
        return True

    def forget_current(self) -> None:
        """The opened session is gone (deleted): show none."""
        self.current = None
        self.detail.forget()
        self.storage_panel.forget()
        self.power_import.arm(False)
        self._metrics_for = None

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
        except READ_ERRORS as exc:
            self.error_label.show_error(f"Cannot read the metrics of session {run_id}: {exc}")
            return False
        self.metrics_view.show_session(samples, steps)
        self._metrics_for = run_id
        return True

    def save_annotations(self) -> bool:
        """Store the opened session's tags (comma-separated) and note."""
        if self.current is None:
            return False
        run_id = self.current.id
        # Only what was changed here is changed: a tag a colleague added meanwhile stays, and
        # a note they wrote meanwhile is kept in the note's history (store.team_edits).
        seen_tags, seen_note = self.shown_annotations
        try:
            self.store.set_tags(run_id, self.detail.tags(), seen=seen_tags)
            replaced = self.store.set_note(run_id, self.detail.note(), seen=seen_note)
        except (*READ_ERRORS, ValueError) as exc:  # ValueError: a tag too long or with a comma
            self.error_label.show_error(f"Cannot save the tags and note: {exc}")
            return False
        self.refresh()
        self.table.select_id(run_id)
        self.shown_annotations = self.annotations.get(run_id, ([], ""))
        if replaced is not None:
            self.error_label.show_error(
                f"The note of session {run_id} had been changed meanwhile by"
                f" {replaced.author or 'someone'}: yours is saved, theirs is kept in the"
                " note's history."
            )
        if self.store is self.team_bar.local:
            self.team_bar.sync()  # a pushed session's edit: to the team store at once
        return True

    def _team_synced(self, result: Any) -> None:
        """Colleagues' edits of sessions listed here arrived: list them (the opened session's
        fields are left as they are: the user may be typing in them)."""
        if result.refreshed and self.store is self.team_bar.local:
            self.refresh()

    def _hammerdb_imported(self, result: Any) -> None:
        """The list shows the imported sessions, the newest selected."""
        self.refresh()
        runs = [s.run_id for s in result.sessions if s.kind == "run"]
        if runs:
            self.table.select_id(max(runs))

    # ---- power log import ----------------------------------------------------------------

    @property
    def power_task(self) -> Task | None:
        """The power-log import running in the background, if any."""
        return self.power_import.task

    def choose_power_log(self) -> None:
        if self.current is not None:
            self.power_import.choose(self.current.id)

    def ask_power_columns(self, path: Path) -> PowerLogDialog | None:
        """Show a power log's columns; it is imported into the opened session on OK."""
        if self.current is None:
            return None
        return self.power_import.ask_columns(path, self.current.id)

    def import_power_log(
        self, path: Path, watts_column: str = "", time_column: str = ""
    ) -> Task | None:
        """Import a power log into the opened session, in the background (None: no session
        is open, or an import is running)."""
        if self.current is None:
            return None
        return self.power_import.start(path, self.current.id, watts_column, time_column)

    def _power_imported(self, outcome: PowerImport) -> None:
        self.last_power_import = outcome
        if self.current is not None and self.current.id == outcome.run_id:
            self.open_run(outcome.run_id)
        self.error_label.clear_error()
        if not outcome.changed:
            text = f"{outcome.source}: these power figures were already stored"
        else:
            text = f"Power from {outcome.source} stored with session {outcome.run_id}"
            if outcome.idle_w is not None:
                text += f" (idle {outcome.idle_w:,.1f} W)"
        self.header.set_subtitle(text)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        self.refresh()
        self.team_bar.sync()  # sessions recorded since: to the team store, in the background

    def hideEvent(self, event: QHideEvent) -> None:  # noqa: N802 (Qt override)
        super().hideEvent(event)
        if not event.spontaneous():  # another page was chosen (not the window minimised)
            self.team_bar.leave()
