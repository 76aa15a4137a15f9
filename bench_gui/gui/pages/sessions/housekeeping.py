"""Housekeeping of the Sessions page: rename, delete, export and import sessions.

A delete says what goes and waits for a confirmation; an export writes one session to one
file to share; an import refuses a damaged or foreign file and changes nothing. Dialogs go
through :attr:`SessionsPage.confirm` and :attr:`SessionsPage.ask_text`, which tests replace.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QFileDialog, QInputDialog, QLineEdit, QMessageBox, QWidget

from bench_gui.gui.pages.sessions.detail import SessionDetail
from bench_gui.gui.pages.sessions.run_table import RunTable
from bench_gui.gui.widgets.page_parts import ErrorLine, PageHeader
from bench_gui.services.errors import SessionFileError, SessionNotFound, StoreError
from bench_gui.services.session_view import RunHeader, RunRow

SESSION_FILE_FILTER = "bench-gui session (*.json *.json.gz);;All files (*)"


class Housekeeping(QWidget):
    """The Sessions page's housekeeping actions (a base of :class:`SessionsPage`, which
    provides what is declared here)."""

    store: Any
    rows: list[RunRow]
    current: RunHeader | None
    table: RunTable
    detail: SessionDetail
    header: PageHeader
    error_label: ErrorLine
    confirm: Callable[[str, str], bool]
    ask_text: Callable[[str, str, str], str | None]

    def refresh(self) -> None:
        raise NotImplementedError

    def forget_current(self) -> None:
        raise NotImplementedError

    def _row(self, run_id: int) -> RunRow | None:
        return next((r for r in self.rows if r.id == run_id), None)

    def rename_selected(self) -> bool:
        run_id = self.table.selected_id()
        if run_id is None:
            return False
        row = self._row(run_id)
        name = self.ask_text(
            "Rename session", f"New name for session #{run_id}:", row.name if row else ""
        )
        if name is None:
            return False
        return self.rename_run(run_id, name)

    def rename_run(self, run_id: int, name: str) -> bool:
        try:
            self.store.rename_run(run_id, name)
        except (StoreError, SessionNotFound, ValueError) as exc:  # ValueError: an empty name
            self.error_label.show_error(f"Cannot rename session {run_id}: {exc}")
            return False
        self.error_label.clear_error()
        self.refresh()
        if self.current is not None and self.current.id == run_id:
            self.detail.title.setText(f"#{run_id}  {name.strip()}")
        return True

    def delete_selected(self) -> bool:
        """Delete the selected session after the user confirmed it."""
        run_id = self.table.selected_id()
        if run_id is None:
            return False
        row = self._row(run_id)
        name = row.name if row else f"#{run_id}"
        steps = row.n_steps if row else 0
        if row is not None and row.status == "running":
            self.error_label.show_error(
                f"Session {run_id} is still running: stop it before deleting it."
            )
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
        except (StoreError, SessionNotFound) as exc:
            self.error_label.show_error(f"Cannot delete session {run_id}: {exc}")
            return False
        if self.current is not None and self.current.id == run_id:
            self.forget_current()
        self.error_label.clear_error()
        self.refresh()
        return True

    def export_run(self, run_id: int, path: Path) -> bool:
        from bench_gui.services.sessions import export_session

        try:
            export_session(self.store, run_id, path)
        except (StoreError, SessionNotFound, OSError) as exc:
            self.error_label.show_error(f"Cannot export session {run_id}: {exc}")
            return False
        self.error_label.clear_error()
        self.header.set_subtitle(f"Session {run_id} exported to {path}")
        return True

    def import_file(self, path: Path) -> int | None:
        """Import a session file; its id, or None (and why) when the file is refused."""
        from bench_gui.services.sessions import import_session

        try:
            run_id = import_session(self.store, path)
        except (SessionFileError, StoreError) as exc:  # each says what is wrong and where
            self.error_label.show_error(str(exc))
            return None
        self.error_label.clear_error()
        self.refresh()
        self.table.select_id(run_id)
        self.header.set_subtitle(f"Imported {path.name} as session {run_id}")
        return run_id

    def choose_export_file(self) -> None:
        run_id = self.table.selected_id()
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
