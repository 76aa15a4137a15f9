"""Importing a power meter's CSV log into a stored session, from the Sessions page.

The user picks the file, confirms its time and watts columns (those found by name are
preselected), and the log is read and stored in a background task: each measured step gets
the average watts over exactly its window (:meth:`SessionStore.import_power_log`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QPushButton, QWidget

from bench_gui.core.power import PowerImport, PowerLogError, preview_power_log, read_power_log
from bench_gui.gui.tasks import Task, TaskRunner
from bench_gui.gui.widgets.power_log_dialog import PowerLogDialog
from bench_gui.services.errors import SessionNotFound, StoreError

POWER_LOG_FILTER = "Power logs (*.csv *.tsv *.txt);;All files (*)"
BUTTON_TEXT = "Import power log…"


class PowerLogImport(QObject):
    """The import's steps and its button (enabled while a session that can take a log is
    open and no import is running).

    Signals:
        imported(object): the :class:`PowerImport` of a log that was stored.
        failed(str): why a log was not imported, for the page's error line.
    """

    imported = Signal(object)
    failed = Signal(str)

    def __init__(self, store: Any, button: QPushButton, parent: QWidget) -> None:
        super().__init__(parent)
        self.store = store
        self.button = button
        self.dialog: PowerLogDialog | None = None  # the column chooser last shown
        self._armed = False
        self.runner = TaskRunner(
            self, expected=(PowerLogError, SessionNotFound, StoreError), where="power log import"
        )
        self.runner.busy_changed.connect(self._show_busy)

    @property
    def task(self) -> Task | None:
        """The import running in the background, if any."""
        return self.runner.task

    def arm(self, enabled: bool) -> None:
        """Whether the open session (if any) can take a log."""
        self._armed = enabled
        self.button.setEnabled(enabled and self.runner.busy is None)

    def choose(self, run_id: int) -> None:
        parent = self.parent()
        assert isinstance(parent, QWidget)
        path, _ = QFileDialog.getOpenFileName(
            parent, "Import a power log", str(Path.home()), POWER_LOG_FILTER
        )
        if path:
            self.ask_columns(Path(path), run_id)

    def ask_columns(self, path: Path, run_id: int) -> PowerLogDialog | None:
        """Show the log's columns and its first rows; the import starts when the user
        confirms (non-modal: ``open()``, so tests can drive it)."""
        try:
            preview = preview_power_log(path)
        except PowerLogError as exc:
            self.failed.emit(f"Power log not imported: {exc}")
            return None
        parent = self.parent()
        assert isinstance(parent, QWidget)
        dialog = PowerLogDialog(path, preview, parent)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(
            lambda: self.start(path, run_id, dialog.watts_column, dialog.time_column)
        )
        self.dialog = dialog
        dialog.open()
        return dialog

    def start(
        self, path: Path, run_id: int, watts_column: str = "", time_column: str = ""
    ) -> Task | None:
        """Read the log and store each step's power figures in a worker thread; None when
        an import is already running."""
        store = self.store

        def work() -> PowerImport:
            readings = read_power_log(path, watts_column, time_column)
            return store.import_power_log(run_id, readings, path.name)  # type: ignore[no-any-return]

        def failed(_what: str, message: str, _details: str) -> None:
            self.failed.emit(f"Power log not imported into session {run_id}: {message}")

        if not self.runner.start("power-import", work, self.imported.emit, failed, run_id):
            return None
        return self.runner.task

    def _show_busy(self, busy: bool) -> None:
        self.button.setText("Importing…" if busy else BUTTON_TEXT)
        self.button.setEnabled(self._armed and not busy)
