"""Re-attaching, at start, to runs the app lost on SSH driver hosts (after a crash or a close).

A run on a driver host goes on when the app goes away: the agent runs detached and writes every
event to its spool. At the next start the app finds those runs, asks which to follow, and
fetches everything they recorded (:meth:`bench_gui.runner.RunController.reattach`).

Which sessions are offered (:func:`find_candidates`), always runs (kind ``run``) whose plan
named an SSH driver target:

- every session still marked "running": the app that ran it is gone;
- "incomplete" sessions created in the last :data:`RECENT_DAYS` days whose message says the
  run was lost rather than ended: the app stopped while it went on (``STALE_MESSAGE``), or the
  link could not be restored, or the host was out of reach when last offered (messages that
  end in :data:`REATTACH_LATER`). So a second crash, or a host that is back, is offered again;
- by the "Re-attach runs…" action only: also those the user declined when offered
  (:data:`DECLINED_MESSAGE`). A declined run is not offered again at each start.

Runs not found on their host, or fetched to the end, get a message outside these families and
are never offered again.

The start never waits for SSH: the window opens, a :class:`Reattacher` scans each target that
has candidates in a background task (the transport's timeouts; an unknown host key is never
accepted here, the user accepts it on the Targets page), then a :class:`ReattachDialog` lists
the runs with their state on the host. The chosen runs are followed: one still going on at a
time on the Live page (the main window takes it from :meth:`Reattacher.take_live`; what the
store has is replayed first, so the charts show the whole run), finished ones are fetched in
the background, one after another. The others are closed as incomplete, with a message that
says why. Nothing found: no dialog.
"""

from __future__ import annotations

import html
import logging
import threading
from collections.abc import Callable, Collection, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Final

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

from bench_gui.agent.protocol import Event
from bench_gui.core.plan import PlanError, plan_from_dict
from bench_gui.gui.remote_tasks import RemoteTask
from bench_gui.gui.worker import RunWorker
from bench_gui.remote.errors import SSHError, UnknownHostKey
from bench_gui.remote.ssh import RemoteRun, SSHTransport, desktop_identity
from bench_gui.runner import RunController, RunError, ssh_transport
from bench_gui.store import SessionStore
from bench_gui.store.sessions import STALE_MESSAGE

log = logging.getLogger(__name__)

RECENT_DAYS: Final = 7
# The end of every message that means "the run may still be there": the runner's when a link
# could not be restored, and ours when a host was out of reach.
REATTACH_LATER: Final = "re-attach later"
DECLINED_MESSAGE: Final = (
    "not re-attached when bench-gui offered it; “Re-attach runs…” can still fetch it"
)

# A candidate's state on its driver host, after the scan.
ATTACHABLE: Final = ("running", "finished", "ended")
STATE_WORDS: Final = {
    "unknown": "not checked yet",
    "running": "still running",
    "finished": "finished",
    "ended": "ended without finishing",
    "missing": "not found on the host",
    "unreachable": "host unreachable",
    "hostkey": "host key not accepted",
    "no-target": "target no longer saved",
}
_STATE_COLORS: Final = {
    "running": "#42be65",
    "finished": "#33b1ff",
    "ended": "#f1c21b",
    "missing": "#93a0b8",
    "unreachable": "#ff6b74",
    "hostkey": "#f1c21b",
    "no-target": "#ff6b74",
}


@dataclass
class Candidate:
    """A stored session that may have events left on its driver host, and what the scan found."""

    session_id: int
    name: str
    target: str  # the SSH target's name (plan.driver.target)
    created_at: str  # UTC, ISO 8601
    status: str  # the stored status: running or incomplete
    message: str
    events: int  # the last event seq the store has
    steps: int
    plan: dict[str, Any] = field(repr=False, default_factory=dict)
    state: str = "unknown"  # a key of STATE_WORDS
    detail: str = ""  # why (unreachable...), or the run directory on the host
    run_dir: str = ""
    remote_seq: int = 0  # the last event seq in the host's spool

    @property
    def attachable(self) -> bool:
        return self.state in ATTACHABLE

    @property
    def needs_attention(self) -> bool:
        """Worth showing in the dialog: the user can fetch it, or should know why not."""
        return self.state != "missing"

    def state_text(self) -> str:
        """The state column: a few words, with the number of events waiting."""
        words = STATE_WORDS.get(self.state, self.state)
        if self.state in ("finished", "ended"):
            new = max(0, self.remote_seq - self.events)
            short = "finished" if self.state == "finished" else "ended early"
            return f"{short} · {new:,} new event{'s' if new != 1 else ''}"
        return words

    def closing_message(self) -> str:
        """The session's message when it is not re-attached now."""
        where = self.target
        if self.state == "missing":
            return f"not found on {where} (its run directory is gone); nothing more to fetch"
        if self.state == "unreachable":
            return (
                f"{where} could not be reached ({self.detail}); the run may still be there:"
                f" {REATTACH_LATER}"
            )
        if self.state == "hostkey":
            return (
                f"the host key of {where} is not accepted yet (accept it on the Targets page);"
                f" the run may still be there: {REATTACH_LATER}"
            )
        if self.state == "no-target":
            return f"the SSH target {where!r} is no longer saved: add it again to re-attach"
        if self.state in ATTACHABLE:
            return DECLINED_MESSAGE
        return STALE_MESSAGE


def _utc(text: str) -> datetime | None:
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def local_time(text: str) -> str:
    """A stored UTC timestamp as local time, to the minute."""
    value = _utc(text)
    return text if value is None else value.astimezone().strftime("%Y-%m-%d %H:%M")


def offered(status: str, message: str, at_start: bool) -> bool:
    """Whether a session's status and message make it a candidate (see the module docstring)."""
    if status == "running":
        return True
    if status != "incomplete":
        return False
    lost = message == STALE_MESSAGE or message.rstrip(". ").endswith(REATTACH_LATER)
    return lost or (not at_start and message == DECLINED_MESSAGE)


def find_candidates(
    store: SessionStore,
    at_start: bool = True,
    exclude: Collection[int] = (),
    now: datetime | None = None,
) -> list[Candidate]:
    """Sessions to look for on their driver hosts, oldest first (reads the store only)."""
    since = (now or datetime.now(UTC)) - timedelta(days=RECENT_DAYS)
    found = []
    for info in store.list_runs("run"):
        if info.id in exclude or info.status not in ("running", "incomplete"):
            continue
        created = _utc(info.created_at)
        if info.status != "running" and (created is None or created < since):
            continue
        run = store.get_run(info.id)
        driver = str(run.target.get("driver") or run.plan.get("driver", {}).get("target") or "")
        if not driver or not offered(run.status, run.message, at_start):
            continue
        found.append(
            Candidate(
                session_id=run.id,
                name=run.name,
                target=driver,
                created_at=run.created_at,
                status=run.status,
                message=run.message,
                events=store.last_seq(run.id),
                steps=run.steps,
                plan=run.plan,
            )
        )
    found.sort(key=lambda c: c.session_id)
    return found


def match_run(candidate: Candidate, runs: Sequence[RemoteRun], me: str) -> RemoteRun | None:
    """The run directory of a session: this desktop's newest run with its session id that
    started after the session was created (a store started afresh reuses ids)."""
    created = _utc(candidate.created_at)
    best = None
    for run in runs:
        meta = run.meta
        if meta.get("session_id") != candidate.session_id or meta.get("desktop", me) != me:
            continue
        started = _utc(str(meta.get("started_at") or ""))
        if created is not None and started is not None and started < created.replace(microsecond=0):
            continue
        best = run
    return best


TransportFactory = Callable[[str], SSHTransport]


def _scan_target(
    name: str, candidates: list[Candidate], factory: TransportFactory, me: str
) -> list[Candidate]:
    try:
        transport = factory(name)
    except RunError as exc:
        return [replace(c, state="no-target", detail=str(exc)) for c in candidates]
    try:
        runs = transport.list_runs()
    except UnknownHostKey as exc:
        detail = f"{exc.key_type} key {exc.fingerprint_sha256}"
        return [replace(c, state="hostkey", detail=detail) for c in candidates]
    except SSHError as exc:
        return [replace(c, state="unreachable", detail=str(exc)) for c in candidates]
    finally:
        transport.close()
    out = []
    for c in candidates:
        run = match_run(c, runs, me)
        if run is None:
            out.append(replace(c, state="missing", detail=f"no run of this session on {name}"))
        else:
            found = replace(c, state=run.state, detail=run.run_dir, run_dir=run.run_dir)
            out.append(replace(found, remote_seq=run.last_seq))
    return out


def scan(
    candidates: Sequence[Candidate], transport_factory: TransportFactory = ssh_transport
) -> list[Candidate]:
    """Blocking (for a worker thread): each candidate with its state on its host, in order.

    The targets are asked at the same time, so one host that does not answer costs one
    connection timeout, not one per host.
    """
    by_target: dict[str, list[Candidate]] = {}
    for c in candidates:
        by_target.setdefault(c.target, []).append(c)
    me = desktop_identity()
    results: dict[int, Candidate] = {}
    with ThreadPoolExecutor(max_workers=min(8, max(1, len(by_target)))) as pool:
        futures = [
            pool.submit(_scan_target, name, group, transport_factory, me)
            for name, group in by_target.items()
        ]
        for future in futures:
            for c in future.result():
                results[c.session_id] = c
    return [results[c.session_id] for c in candidates]


def stored_events(store: SessionStore, session_id: int) -> list[Event]:
    """What the store has of a run, as the events it came from, in seq order (to replay into
    the Live page before following the rest). Histograms are left out: the page shows none."""
    data = store.run_to_json(session_id)
    events = [Event(e["kind"], e["seq"], e["t"], dict(e["data"] or {})) for e in data["events"]]
    for s in data["samples"]:
        body = {k: v for k, v in s.items() if k not in ("seq", "t", "extra")}
        body.update(s.get("extra") or {})
        events.append(Event("sample", s["seq"], s["t"], body))
    for step in data["steps"]:
        summary = dict(step.get("summary") or {})
        body = {"phase": "end", "step": step["step"], "vus": step["vus"], "summary": summary}
        events.append(Event("step", step["seq"], step["t"], body))
    for line in data["log"]:
        if line["seq"] is None:
            continue  # a desktop-side line, not an event of the agent
        if line["level"] in ("error", "fatal"):
            body = {"message": line["message"], "fatal": line["level"] == "fatal"}
            events.append(Event("error", line["seq"], line["t"], body))
        else:
            body = {"level": line["level"], "message": line["message"]}
            events.append(Event("log", line["seq"], line["t"], body))
    events.sort(key=lambda e: e.seq)
    return events


class ReattachController:
    """A controller for :class:`~bench_gui.gui.worker.RunWorker` that follows a lost run.

    ``replay``: first yield what the store has (for the Live page; never stored again). A run
    that cannot be re-attached, or whose agent ended without its ``done``, is never left
    "running": it is closed as incomplete with the reason.
    """

    def __init__(self, candidate: Candidate, store: SessionStore, replay: bool = False) -> None:
        self.candidate = candidate
        self.store = store
        self.replay = replay
        self.session_id: int | None = candidate.session_id
        self.inner: RunController | None = None
        self._lock = threading.Lock()
        self._stopped = False

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            inner = self.inner
        if inner is not None:
            inner.stop()

    def _give_up(self, message: str) -> RunError:
        self.store.close_unfinished(self.candidate.session_id, message)
        return RunError(message)

    def events(self) -> Iterator[Event]:
        c = self.candidate
        try:
            plan = plan_from_dict(c.plan)
        except PlanError as exc:
            raise self._give_up(f"cannot re-attach: the stored plan is not valid ({exc})") from exc
        if not plan.driver.target:
            plan.driver.target = c.target
        try:
            inner = RunController(plan, self.store)
        except RunError as exc:
            raise self._give_up(f"cannot re-attach: {exc}") from exc
        with self._lock:
            self.inner = inner
            stopped = self._stopped
        if stopped:
            self.store.close_unfinished(c.session_id, STALE_MESSAGE)
            return
        if self.replay:
            yield from stored_events(self.store, c.session_id)
        try:
            yield from inner.reattach(c.session_id, c.run_dir or None)
        except RunError as exc:
            if self.store.get_run(c.session_id).status == "running":
                self.store.close_unfinished(c.session_id, f"re-attaching failed: {exc}")
            raise
        if inner.final is None and self.store.get_run(c.session_id).status != "complete":
            # The spool had no done: everything there is stored now, and nothing will follow.
            self.store.close_unfinished(
                c.session_id,
                f"the agent on {c.target} ended without finishing the run;"
                " everything it recorded was fetched",
            )


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
                f"<b>#{c.session_id} on {html.escape(c.target)}</b> — {html.escape(what)}:"
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
        cells = (f"#{c.session_id}", c.name, c.target, local_time(c.created_at), stored)
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
        self.task: RemoteTask | None = None
        self.dialog: ReattachDialog | None = None
        self.pending: list[Candidate] = []  # being scanned or shown in the dialog
        self.results: list[Candidate] = []
        self.live_queue: list[Candidate] = []
        self.fetch_queue: list[Candidate] = []
        self.fetcher: RunWorker | None = None
        self.fetching: Candidate | None = None

    # ---- state ---------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """Scanning, or waiting for the user's answer."""
        return self.task is not None or self.dialog is not None

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
        self.task = RemoteTask("reattach-scan", lambda: body(list(candidates)))
        self.task.done.connect(self._on_scan_done)
        self.status.emit(f"Looking for runs left on {', '.join(hosts)}…")
        self.task.start()
        return True

    def _on_scan_done(self) -> None:
        task, self.task = self.task, None
        if task is None:
            return
        task.wait()
        if task.cancelled:
            return
        if task.error is not None:
            log.warning("re-attach scan failed: %s", task.error_details)
            self.results = [
                replace(c, state="unreachable", detail=str(task.error)) for c in self.pending
            ]
        else:
            self.results = list(task.result or [])
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
            except Exception as exc:  # noqa: BLE001 - a session deleted meanwhile
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
        self.status.emit(f"Fetching session #{c.session_id} from {c.target}…")
        worker.start()

    def _on_fetch_ended(self, outcome: str) -> None:
        worker, c = self.fetcher, self.fetching
        self.fetcher = self.fetching = None
        if worker is not None:
            worker.wait(60)  # the thread is returning: its last signal was just delivered
        if c is not None:
            self.status.emit(f"Session #{c.session_id} from {c.target}: {outcome}")
            self.session_changed.emit(c.session_id)
        self._fetch_next()

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        """Stop scanning and fetching; sessions still held are closed as stale, so the next
        start offers them again."""
        ok = True
        if self.task is not None:
            self.task.cancel()
            ok = self.task.wait(timeout_s)
            self.task = None
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
            except Exception as exc:  # noqa: BLE001 - a session deleted meanwhile
                log.info("cannot close session %s: %s", c.session_id, exc)
        return ok


__all__ = [
    "DECLINED_MESSAGE",
    "RECENT_DAYS",
    "REATTACH_LATER",
    "Candidate",
    "ReattachController",
    "ReattachDialog",
    "Reattacher",
    "find_candidates",
    "match_run",
    "offered",
    "scan",
    "stored_events",
]
