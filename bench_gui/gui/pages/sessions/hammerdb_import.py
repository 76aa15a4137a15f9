"""Importing HammerDB's results from the Sessions page.

The user picks HammerDB's job store (``hammer.DB``) or its log; :func:`import_hammerdb` reads
it in a background task and stores its jobs as sessions marked as imported (jobs that follow
each other with one configuration and a rising user count become one sweep; jobs imported
before are skipped; a bad file stores nothing). The outcome is said on the panel's banner: the
sessions made, in a table the user can open them from, or why nothing was imported.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFileDialog, QPushButton, QTableWidgetItem, QVBoxLayout, QWidget

from bench_gui.gui.pages.sessions.hammerdb_options import ImportChoices, ImportOptionsDialog
from bench_gui.gui.tasks import Task, TaskRunner
from bench_gui.gui.widgets.page_parts import Banner, FitTable, fit_rows
from bench_gui.services.errors import HammerDBError, SessionNotFound, StoreError
from bench_gui.services.sessions import HammerDBImport, ImportedSession, import_hammerdb

BUTTON_TEXT = "Import HammerDB…"
SHOW_TEXT, HIDE_TEXT = "Show sessions", "Hide sessions"
BUSY_TEXT = "Importing HammerDB…"
FILE_FILTER = "HammerDB job store or log (*.DB *.db *.log *.txt);;All files (*)"
COLUMNS = ("Session", "Kind", "Status", "Steps (users)", "Name", "Note")
ID_ROLE = Qt.ItemDataRole.UserRole


def summary(result: HammerDBImport) -> tuple[str, str]:
    """The banner's tone and sentence for an import's outcome."""
    name = Path(result.file).name
    jobs = f"{result.jobs} HammerDB job{'s' if result.jobs != 1 else ''}"
    made = result.sessions
    runs = [s for s in made if s.kind == "run" and s.status == "complete"]
    failed = [s for s in made if s.kind == "run" and s.status != "complete"]
    builds = [s for s in made if s.kind == "build"]
    parts = []
    if runs:
        steps = sum(len(s.vus) for s in runs)
        parts.append(
            f"{len(runs)} result session{'s' if len(runs) != 1 else ''}"
            f" ({steps} step{'s' if steps != 1 else ''})"
        )
    if failed:
        parts.append(f"{len(failed)} failed run{'s' if len(failed) != 1 else ''} (no result)")
    if builds:
        parts.append(
            f"{len(builds)} schema build{'s' if len(builds) != 1 else ''} (kept, not listed"
            " with the runs)"
        )
    held = sorted({run_id for _job, run_id in result.already})
    before = ""
    if result.already:
        before = (
            f" {len(result.already)} job{'s were' if len(result.already) != 1 else ' was'}"
            f" imported before (session{'s' if len(held) != 1 else ''}"
            f" {', '.join(f'#{i}' for i in held)}) and not imported again."
        )
    if not made:
        return "stopped", f"{name}: {jobs}, nothing new to import.{before}"
    tone = "ok" if runs else "stopped"
    return tone, f"{name}: {jobs} imported as " + ", ".join(parts) + "." + before


def _steps(session: ImportedSession) -> str:
    return "/".join(str(v) for v in session.vus) if session.vus else "–"


class HammerDBImportPanel(QWidget):
    """The import's button (the page puts it in its tool row), banner and result table.

    Signals:
        imported(object): the :class:`HammerDBImport` of a file that was read.
        open_requested(int): the user double-clicked an imported session.
    """

    imported = Signal(object)
    open_requested = Signal(int)

    def __init__(self, store: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.result: HammerDBImport | None = None
        self.button = QPushButton(BUTTON_TEXT)
        self.button.setToolTip(
            "Add HammerDB's results as sessions: its job store (hammer.DB) or its log. Jobs"
            " with one configuration and a rising user count become one sweep."
        )
        self.button.clicked.connect(self.choose)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(6)
        self.banner = Banner()
        # The sessions made, in a table shown on demand: a 768 px screen has no room to spare.
        self.details_button = QPushButton(SHOW_TEXT)
        self.details_button.setCheckable(True)
        self.details_button.toggled.connect(self._show_details)
        self.banner.add_widget(self.details_button)
        self.close_button = QPushButton("Close")
        self.close_button.clicked.connect(self.dismiss)
        self.banner.add_widget(self.close_button)
        column.addWidget(self.banner)
        self.table = FitTable(COLUMNS)
        self.table.cellDoubleClicked.connect(self._open_row)
        self.table.setToolTip("Double-click a session to open it")
        column.addWidget(self.table)
        self.runner = TaskRunner(
            self, expected=(HammerDBError, StoreError, SessionNotFound), where="HammerDB import"
        )
        self.runner.busy_changed.connect(self._show_busy)
        self.dismiss()

    @property
    def task(self) -> Task | None:
        """The import running in the background, if any."""
        return self.runner.task

    def choose(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Import HammerDB results", str(Path.home()), FILE_FILTER
        )
        if not path:
            return
        dialog = ImportOptionsDialog(Path(path).name, self)
        if dialog.exec() == ImportOptionsDialog.DialogCode.Accepted:
            self.start(Path(path), dialog.choices())

    def start(self, path: Path, choices: ImportChoices | None = None) -> Task | None:
        """Read ``path`` and store its jobs in a worker thread; None if an import runs."""
        store = self.store
        chosen = choices or ImportChoices()

        def work() -> HammerDBImport:
            return import_hammerdb(store, path, each=chosen.each, utc_offset_h=chosen.utc_offset_h)

        def failed(_what: str, message: str, _details: str) -> None:
            self.result = None
            self._fill(())
            self.banner.show_text("failed", f"Nothing imported from {path.name}: {message}")
            self.show()

        if not self.runner.start("hammerdb-import", work, self._done, failed, path):
            return None
        self.banner.show_text("stopped", f"Importing {path.name}…")
        self._fill(())
        self.show()
        return self.runner.task

    def _done(self, result: HammerDBImport) -> None:
        self.result = result
        tone, text = summary(result)
        self.banner.show_text(tone, text)
        self._fill(result.sessions)
        self.show()
        self.imported.emit(result)

    def _fill(self, sessions: tuple[ImportedSession, ...]) -> None:
        self.table.setRowCount(0)
        for s in sessions:
            row = self.table.rowCount()
            self.table.insertRow(row)
            cells = (f"#{s.run_id}", s.kind, s.status, _steps(s), s.name, s.message)
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(ID_ROLE, s.run_id)
                if col == 5 and text:
                    item.setToolTip(text)
                self.table.setItem(row, col, item)
        self.details_button.setVisible(bool(sessions))
        self._show_details(self.details_button.isChecked())
        if sessions:
            fit_rows(self.table, 1, 4)
            self.table.fit_columns()

    def _show_details(self, shown: bool) -> None:
        self.details_button.setText(HIDE_TEXT if shown else SHOW_TEXT)
        self.table.setVisible(shown and self.table.rowCount() > 0)

    def _open_row(self, row: int, _col: int) -> None:
        item = self.table.item(row, 0)
        if item is not None and self.result is not None:
            session = next(s for s in self.result.sessions if s.run_id == item.data(ID_ROLE))
            if session.kind == "run":
                self.open_requested.emit(session.run_id)

    def rows(self) -> list[list[str]]:
        """The result table's text, row by row."""
        out = []
        for r in range(self.table.rowCount()):
            items = [self.table.item(r, c) for c in range(self.table.columnCount())]
            out.append([item.text() if item is not None else "" for item in items])
        return out

    def dismiss(self) -> None:
        """Hide the outcome (the sessions stay imported)."""
        self.banner.clear()
        self._fill(())
        self.hide()

    def _show_busy(self, busy: bool) -> None:
        self.button.setText(BUSY_TEXT if busy else BUTTON_TEXT)
        self.button.setEnabled(not busy)
