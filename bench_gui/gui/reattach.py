"""Re-attaching, at start, to runs the app lost on SSH driver hosts: the dialog and the workflow.

What decides which runs are offered, the scan of their hosts and the controller that follows a
run are Qt-free, in :mod:`bench_gui.services.reattach`. Here: the start never waits for SSH: the
window opens, a :class:`Reattacher` scans each target that has candidates in a background task
(the transport's timeouts; an unknown host key is never accepted here, the user accepts it on
the Targets page), then a :class:`ReattachDialog` lists the runs with their state on the host.
The chosen runs are followed: one still going on at a time on the Live page (the main window
takes it from :meth:`Reattacher.take_live`; what the store has is replayed first, so the charts
show the whole run), finished ones are fetched in the background, one after another. The others
are closed as incomplete, with a message that says why. Nothing found: no dialog.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from typing import Final

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from bench_gui.gui.tasks import Task, TaskRunner
from bench_gui.gui.worker import RunWorker
from bench_gui.services.errors import SessionNotFound, SSHError, StoreError
from bench_gui.services.reattach import (
    STATE_WORDS,
    Candidate,
    ReattachController,
    local_time,
    scan,
)
from bench_gui.services.run_errors import RunError
from bench_gui.services.sessions import STALE_MESSAGE, SessionStore

log = logging.getLogger(__name__)

_STATE_COLORS: Final = {
    "running": "#42be65",
    "finished": "#33b1ff",
    "ended": "#f1c21b",
    "missing": "#93a0b8",
    "unreachable": "#ff6b74",
    "hostkey": "#f1c21b",
    "no-target": "#ff6b74",
}


# ---- the dialog -------------------------------------------------------------------------------

COLUMNS: Final = ("", "Session", "Name", "Driver host", "Started", "Events stored", "On the host")

_STYLE: Final = """
QLabel#dialogTitle { font-size: 21px; font-weight: 700; color: #ffffff; }
QLabel#dialogNote { color: #93a0b8; font-size: 14px; }
QLabel#dialogProblems {
    background-color: #2a1f0c; border: 1px solid #6b5514; border-radius: 8px; padding: 10px 12px;
}
QTableWidget::indicator { width: 18px; height: 18px; border-radius: 4px; }
QTableWidget::indicator:unchecked { border: 2px solid #4a5570; background: #1a1f29; }
QTableWidget::indicator:checked { border: 2px solid #33b1ff; background: #33b1ff; }
QTableWidget::indicator:disabled { border: 2px solid #2a3140; background: #161a22; }
"""
ROW_HEIGHT: Final = 46
MAX_ROWS_SHOWN: Final = 8


class ReattachDialog(QDialog):
    """Lists the runs found, with a check box for each one that can be re-attached.

    Opened with :meth:`QDialog.open` (window-modal, the event loop keeps running); read
    :meth:`chosen` when ``finished`` is emitted with ``Accepted``.
    """

    def __init__(self, candidates: Sequence[Candidate], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.candidates = list(candidates)
        self.setWindowTitle("Re-attach to runs")
        self.setObjectName("reattachDialog")
        self.setStyleSheet(_STYLE)
        self.setModal(True)
        self.setMinimumWidth(1180)
        self._build()
        self._update_button()
        # Word-wrapped labels make the size hint taller than needed at the dialog's width.
        layout = self.layout()
        assert layout is not None
        self.resize(self.minimumWidth(), layout.totalHeightForWidth(self.minimumWidth()))

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 22, 24, 18)
        layout.setSpacing(14)
        n = len(self.candidates)
        title = QLabel(
            f"{n} runs on driver hosts were left behind when bench-gui stopped"
            if n != 1
            else "A run on a driver host was left behind when bench-gui stopped"
        )
        title.setObjectName("dialogTitle")
        title.setWordWrap(True)
        layout.addWidget(title)
        intro = QLabel(
            "Re-attaching fetches everything a run recorded on its driver host. A run still"
            " going on is followed live on the Live page (one at a time); finished ones are"
            " fetched in the background."
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)

        self.table = QTableWidget(len(self.candidates), len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.setAlternatingRowColors(True)
        rows = self.table.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(ROW_HEIGHT)
        for row, c in enumerate(self.candidates):
            self._fill_row(row, c)
        header = self.table.horizontalHeader()
        for col in range(len(COLUMNS)):
            mode = QHeaderView.ResizeMode.ResizeToContents
            if col in (2, 6):
                mode = QHeaderView.ResizeMode.Stretch
            header.setSectionResizeMode(col, mode)
        height = header.sizeHint().height() + 4
        if self.table.rowCount() <= MAX_ROWS_SHOWN:
            self.table.setFixedHeight(height + self.table.rowCount() * ROW_HEIGHT)
        else:
            self.table.setMinimumHeight(height + MAX_ROWS_SHOWN * ROW_HEIGHT)
        self.table.itemChanged.connect(lambda _item: self._update_button())
        layout.addWidget(self.table, 1)

        problems = [c for c in self.candidates if not c.attachable]
        self.problems = QLabel(self._problem_text(problems))
        self.problems.setObjectName("dialogProblems")
        self.problems.setWordWrap(True)
        self.problems.setTextFormat(Qt.TextFormat.RichText)
        self.problems.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.problems.setVisible(bool(problems))
        layout.addWidget(self.problems)

        note = QLabel(
            "Runs not re-attached now are kept as incomplete, with everything stored so far;"
            " “Re-attach runs…” in the side panel offers them again."
        )
        note.setObjectName("dialogNote")
        note.setWordWrap(True)
        layout.addWidget(note)

        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.skip_button = QPushButton("Not now")
        self.skip_button.clicked.connect(self.reject)
        buttons.addWidget(self.skip_button)
        self.reattach_button = QPushButton("Re-attach")
        self.reattach_button.setProperty("role", "primary")
        self.reattach_button.setDefault(True)
        self.reattach_button.clicked.connect(self.accept)
        buttons.addWidget(self.reattach_button)
        if not any(c.attachable for c in self.candidates):
            self.reattach_button.hide()
            self.skip_button.setText("Close")
        layout.addLayout(buttons)

    @staticmethod
    def _problem_text(problems: Sequence[Candidate]) -> str:
        lines = []
        for c in problems:
            what = STATE_WORDS.get(c.state, c.state)
            detail = c.detail
            if c.state == "hostkey":
                detail = f"accept its key on the Targets page first ({c.detail})"
            lines.append(
                f"<b>#{c.session_id} on {html.escape(c.where)}</b> — {html.escape(what)}:"
                f" {html.escape(detail)}"
            )
        return "<br>".join(lines)

    def _fill_row(self, row: int, c: Candidate) -> None:
        check = QTableWidgetItem()
        flags = Qt.ItemFlag.ItemIsUserCheckable
        if c.attachable:
            flags |= Qt.ItemFlag.ItemIsEnabled
        check.setFlags(flags)
        check.setCheckState(Qt.CheckState.Checked if c.attachable else Qt.CheckState.Unchecked)
        check.setData(Qt.ItemDataRole.UserRole, c.session_id)
        self.table.setItem(row, 0, check)
        stored = f"{c.events:,} event{'s' if c.events != 1 else ''}"
        if c.steps:
            stored += f", {c.steps} step{'s' if c.steps != 1 else ''}"
        cells = (f"#{c.session_id}", c.name, c.where, local_time(c.created_at), stored)
        for col, text in enumerate(cells, start=1):
            item = QTableWidgetItem(text)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled)
            item.setToolTip(text)
            self.table.setItem(row, col, item)
        state = QTableWidgetItem(c.state_text())
        state.setFlags(Qt.ItemFlag.ItemIsEnabled)
        state.setForeground(QColor(_STATE_COLORS.get(c.state, "#e8ecf3")))
        state.setToolTip(f"{STATE_WORDS.get(c.state, c.state)}: {c.detail}" if c.detail else "")
        self.table.setItem(row, 6, state)

    def _row_of(self, session_id: int) -> int:
        for row, c in enumerate(self.candidates):
            if c.session_id == session_id:
                return row
        raise KeyError(session_id)

    def _check_item(self, row: int) -> QTableWidgetItem:
        item = self.table.item(row, 0)
        assert item is not None  # every row gets its check box in _fill_row
        return item

    def is_checked(self, session_id: int) -> bool:
        return self._check_item(self._row_of(session_id)).checkState() == Qt.CheckState.Checked

    def set_checked(self, session_id: int, checked: bool) -> None:
        """Tick or untick a run (ignored for a run that cannot be re-attached)."""
        row = self._row_of(session_id)
        if not self.candidates[row].attachable:
            return
        state = Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked
        self._check_item(row).setCheckState(state)

    def chosen(self) -> list[int]:
        """The session ids ticked (only runs that can be re-attached can be)."""
        return [
            c.session_id for c in self.candidates if c.attachable and self.is_checked(c.session_id)
        ]

    def _update_button(self) -> None:
        n = len(self.chosen())
        self.reattach_button.setEnabled(n > 0)
        self.reattach_button.setText(
            f"Re-attach {n} run{'s' if n != 1 else ''}" if n else "Re-attach"
        )


# ---- the coordinator --------------------------------------------------------------------------


class Reattacher(QObject):
    """Scan, ask, follow: the re-attach workflow of the main window (one at a time).

    The window takes still-running runs with :meth:`take_live` whenever it has no task (they
    need the Live page); finished ones are fetched here, in the background, one after another.

    Signals:
        status(str): a line for the status bar.
        live_ready(): a run to follow live is waiting (see :meth:`take_live`).
        session_changed(int): a session's stored state changed (refresh the Sessions page).
        scan_finished(): the scan ended; the dialog is open, or nothing needed asking.
    """

    status = Signal(str)
    live_ready = Signal()
    session_changed = Signal(int)
    scan_finished = Signal()

    def __init__(
        self,
        store: SessionStore,
        parent: QWidget,
        scan_body: Callable[[Sequence[Candidate]], list[Candidate]] = scan,
    ) -> None:
        super().__init__(parent)
        self.store = store
        self._parent = parent
        self._scan_body = scan_body
        # A scan catches what a host does; what escapes it marks every run unreachable.
        self.runner = TaskRunner(self, expected=(SSHError, RunError, OSError), where="re-attach")
        self.dialog: ReattachDialog | None = None
        self.pending: list[Candidate] = []  # being scanned or shown in the dialog
        self.results: list[Candidate] = []
        self.live_queue: list[Candidate] = []
        self.fetch_queue: list[Candidate] = []
        self.fetcher: RunWorker | None = None
        self.fetching: Candidate | None = None

    # ---- state ---------------------------------------------------------------------------

    @property
    def task(self) -> Task | None:
        """The scan, while it runs."""
        return self.runner.task

    @property
    def busy(self) -> bool:
        """Scanning, or waiting for the user's answer."""
        return self.runner.busy is not None or self.dialog is not None

    def followed_ids(self) -> set[int]:
        """Sessions this workflow holds (never offered twice at once)."""
        ids = {c.session_id for c in (*self.pending, *self.live_queue, *self.fetch_queue)}
        if self.fetching is not None:
            ids.add(self.fetching.session_id)
        return ids

    # ---- scan ----------------------------------------------------------------------------

    def start_scan(self, candidates: Sequence[Candidate]) -> bool:
        """Look for these sessions on their hosts; False if there are none or a scan runs."""
        if self.busy or not candidates:
            return False
        self.pending = list(candidates)
        hosts = sorted({c.target for c in candidates})
        body = self._scan_body
        self.status.emit(f"Looking for runs left on {', '.join(hosts)}…")
        return self.runner.start(
            "reattach-scan",
            lambda: body(list(candidates)),
            then=self._on_scanned,
            failed=self._on_scan_failed,
        )

    def _on_scan_failed(self, _what: str, message: str, details: str) -> None:
        log.warning("re-attach scan failed: %s", details)
        self._on_scanned([replace(c, state="unreachable", detail=message) for c in self.pending])

    def _on_scanned(self, results: list[Candidate] | None) -> None:
        self.results = list(results or [])
        shown = [c for c in self.results if c.needs_attention]
        if not shown:
            self._close(self.results)
            self.pending = []
            n = len(self.results)
            self.status.emit(
                f"No run to re-attach: {n} session{'s' if n != 1 else ''} not found on"
                " their driver hosts (kept as incomplete)."
            )
            self.scan_finished.emit()
            return
        self.dialog = ReattachDialog(shown, self._parent)
        self.dialog.finished.connect(self._on_dialog_finished)
        self.status.emit("Runs were left on driver hosts: choose which to re-attach.")
        self.scan_finished.emit()
        self.dialog.open()

    # ---- the answer ----------------------------------------------------------------------

    def _close(self, candidates: Sequence[Candidate]) -> None:
        for c in candidates:
            try:
                if self.store.close_unfinished(c.session_id, c.closing_message()):
                    self.session_changed.emit(c.session_id)
            except (SessionNotFound, StoreError) as exc:  # deleted meanwhile, or unreadable
                log.info("cannot close session %s: %s", c.session_id, exc)

    def _on_dialog_finished(self, result: int) -> None:
        dialog, self.dialog = self.dialog, None
        if dialog is None:
            return
        chosen = set(dialog.chosen()) if result == QDialog.DialogCode.Accepted else set()
        dialog.deleteLater()
        self.pending = []
        self.apply(chosen)

    def apply(self, chosen: Collection[int]) -> None:
        """Follow the chosen runs; close the others as incomplete, with the reason."""
        picked = [c for c in self.results if c.session_id in chosen and c.attachable]
        self._close([c for c in self.results if c not in picked])
        live = [c for c in picked if c.state == "running"]
        fetch = [c for c in picked if c.state != "running"]
        self.live_queue.extend(live)
        self.fetch_queue.extend(fetch)
        self.results = []
        if picked:
            parts = []
            if live:
                parts.append(f"following {len(live)} live")
            if fetch:
                parts.append(f"fetching {len(fetch)} in the background")
            self.status.emit("Re-attaching: " + ", ".join(parts) + ".")
        else:
            self.status.emit("No run re-attached; they are kept as incomplete.")
        if live:
            self.live_ready.emit()
        self._fetch_next()

    # ---- following -----------------------------------------------------------------------

    def take_live(self) -> Candidate | None:
        """The next run to follow on the Live page, if any (the caller follows it)."""
        return self.live_queue.pop(0) if self.live_queue else None

    def _fetch_next(self) -> None:
        if self.fetcher is not None or not self.fetch_queue:
            return
        c = self.fetch_queue.pop(0)
        store = self.store
        worker = RunWorker(lambda: ReattachController(c, store), action="fetch")
        worker.finished.connect(lambda status: self._on_fetch_ended(f"fetched ({status})"))
        worker.failed.connect(lambda message: self._on_fetch_ended(f"failed: {message}"))
        self.fetcher, self.fetching = worker, c
        self.status.emit(f"Fetching session #{c.session_id} from {c.where}…")
        worker.start()

    def _on_fetch_ended(self, outcome: str) -> None:
        worker, c = self.fetcher, self.fetching
        self.fetcher = self.fetching = None
        if worker is not None:
            worker.wait(60)  # the thread is returning: its last signal was just delivered
        if c is not None:
            self.status.emit(f"Session #{c.session_id} from {c.where}: {outcome}")
            self.session_changed.emit(c.session_id)
        self._fetch_next()

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        """Stop scanning and fetching; sessions still held are closed as stale, so the next
        start offers them again."""
        ok = self.runner.shutdown(timeout_s)
        if self.dialog is not None:
            dialog, self.dialog = self.dialog, None
            dialog.finished.disconnect(self._on_dialog_finished)
            dialog.close()
        if self.fetcher is not None:
            ok = self.fetcher.shutdown(timeout_s) and ok
            self.fetcher = None
        held = [*self.pending, *self.live_queue, *self.fetch_queue]
        if self.fetching is not None:
            held.append(self.fetching)
        self.pending, self.live_queue, self.fetch_queue, self.fetching = [], [], [], None
        for c in held:
            try:
                if self.store.get_run(c.session_id).status == "running":
                    self.store.close_unfinished(c.session_id, STALE_MESSAGE)
            except (SessionNotFound, StoreError) as exc:  # deleted meanwhile, or unreadable
                log.info("cannot close session %s: %s", c.session_id, exc)
        return ok


__all__ = ["ReattachDialog", "Reattacher"]
