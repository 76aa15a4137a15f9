"""What the Database page's engine tabs (PostgreSQL, MariaDB / MySQL, SQL Server) share: the
server box and its connect flow, the diff table and its count, the Apply / Roll back flow
through the tab's one :class:`~bench_gui.gui.tasks.TaskRunner`, the history box and the busy
state.

An engine tab subclasses :class:`TuningTab` and gives only what differs: its form, its words,
which plans it takes, how it reads the server's machine, and its call to apply. The work is
:mod:`bench_gui.services.tuning`'s, the same code ``bench-gui tune`` runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGridLayout, QGroupBox, QHBoxLayout, QVBoxLayout, QWidget

from bench_gui.core.plan_model import Plan, PlanError
from bench_gui.engines.base import EngineKit
from bench_gui.engines.tuning_terms import TunedSetting
from bench_gui.gui.pages.database.common import PG_ERRORS, PlanProvider, plan_of
from bench_gui.gui.pages.database.history import apply_buttons, history_group
from bench_gui.gui.pages.database.server_box import ServerBox
from bench_gui.gui.pages.database.settings_diff import SettingsDiffTable
from bench_gui.gui.tasks import TaskRunner
from bench_gui.gui.widgets.page_parts import muted_label
from bench_gui.services import tuning
from bench_gui.services.tuning_parts import Connection
from bench_gui.services.tuning_view import DiffRow, HostFacts, TuningHistory

ConnectFactory = Callable[[Plan], Connection]
Connected = tuple[Connection, dict[str, Any], HostFacts]

BUSY_WORDS = {
    "connect": "Connecting…",
    "diff": "Comparing…",
    "apply": "Applying…",
    "rollback": "Rolling back…",
}
FAILED_WORDS = {
    "connect": "Cannot connect",
    "diff": "Cannot compare with the server",
    "apply": "Not applied",
    "rollback": "Not rolled back",
}


def default_connect(plan: Plan) -> Connection:
    """A connection to the plan's target; the plan's most users size the form's defaults."""
    users = max(plan.workload.virtual_users, default=0) or None
    return tuning.connection_for_plan(plan.target, planned_users=users)


def edited_settings(settings: list[TunedSetting], name: str, value: str) -> list[TunedSetting]:
    """The settings with ``name``'s value typed by hand (the rule says who chose it)."""
    return [
        TunedSetting(s.name, value, "edited by hand", "user") if s.name.lower() == name else s
        for s in settings
    ]


def result_tone(result: Any) -> str:
    """An apply's tone: ok, stopped (a restart is pending) or failed."""
    if not result.ok:
        return "failed"
    return "stopped" if result.pending_restart else "ok"


class TuningTab(QWidget):
    """One engine's tuning tab: connect, propose, diff, apply, roll back, history.

    Signals:
        message(str, str): a sentence and its tone (ok, stopped, failed) for the page's banner.
        status(str): a line for the status bar.
        busy_changed(bool): a server task started (True) or the tab became idle (False).
        local_data_directory(str): connected to a server on this machine, whose data
            directory its engine reads (PostgreSQL's): the OS knobs tab suggests it.
    """

    message = Signal(str, str)
    status = Signal(str)
    busy_changed = Signal(bool)
    local_data_directory = Signal(str)

    #: The engine's form (a widget with ``show_notes(proposal)`` and a ``changed`` signal).
    FORM: Callable[[], QWidget]
    form: Any
    #: The failures the tab expects from its server work (shown in the page's banner).
    ERRORS: tuple[type[BaseException], ...] = PG_ERRORS
    #: The diff box's title.
    DIFF_TITLE = "Diff"
    #: The diff's own words for a setting taking effect on reload (MariaDB's: "at once").
    RELOAD_WORD: str | None = None
    #: A line left of Roll back and Apply saying when settings take effect.
    RESTART_NOTE = ""
    #: Said when the plan's target is not this tab's engine ({kind}: the target's).
    WRONG_KIND = "The plan's target is {kind}: use the tab of its engine."
    #: The history kind this tab lists (None: every kind of the target).
    HISTORY_KIND: str | None = None
    #: The engine kit whose tab this is: the target kinds it takes.
    KIT: EngineKit
    #: Whether a rollback may restart the server.
    ROLLBACK_RESTARTS = True
    #: A failure reading the server's machine: its facts are only defaults, so a note.
    MACHINE_ERRORS: tuple[type[BaseException], ...] = (OSError,)

    def __init__(
        self,
        store: Any,
        plan_provider: PlanProvider | None = None,
        connect_factory: ConnectFactory | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.store = store
        self.plan_provider = plan_provider
        self.connect_factory = connect_factory or default_connect
        self.conn: Connection | None = None
        self.facts: dict[str, Any] = {}
        self.proposal: Any = None
        self.runner = TaskRunner(self, self.ERRORS, "the Database page")
        self.runner.busy_changed.connect(lambda _busy: self._update_actions())
        self.runner.busy_changed.connect(self.busy_changed)
        self._recompute_pending = False
        self._keep_ticks = False
        self._build_ui()
        self.recompute()

    # ---- what an engine tab gives ----------------------------------------------------------

    def _add_actions(self, actions: QHBoxLayout) -> None:
        """The action row's widgets left of Roll back and Apply."""
        self.restart_note = muted_label(self.RESTART_NOTE)
        actions.addWidget(self.restart_note, 1)

    def _build_proposal(self) -> Any:
        """The form's proposal (None, with the reason shown, if its inputs are not valid)."""
        raise NotImplementedError

    def _edited_proposal(self, proposal: Any, name: str, value: str) -> Any:
        """The proposal with ``name`` set to a value typed in the table."""
        raise NotImplementedError

    def _warnings(self, rows: list[DiffRow]) -> dict[str, str]:
        return {}

    def _takes(self, kind: str) -> bool:
        """Whether this tab tunes a target of this kind (if not, :attr:`WRONG_KIND` says so)."""
        return kind in self.KIT.kinds

    def _machine(self, conn: Connection) -> HostFacts:
        return tuning.server_facts(conn)

    def _show_connection(self, conn: Connection, facts: dict[str, Any], machine: HostFacts) -> None:
        """Show the server just connected to, and take its machine's facts into the form."""
        raise NotImplementedError

    def _setting_key(self, name: str) -> str:
        """A setting's name as the diff table's ticks name it."""
        return name.lower()

    def _apply_work(
        self, conn: Connection, proposal: Any, items: list[TunedSetting]
    ) -> Callable[[], Any]:
        """The background work applying the ticked settings; returns the apply's result."""
        raise NotImplementedError

    def _notes(self, result: Any) -> str:
        """Sentences after an apply's or rollback's summary."""
        return ""

    def _update_more(self, idle: bool) -> None:
        """A tab's own buttons, enabled or not."""

    # ---- the layout ------------------------------------------------------------------------

    def _top_widgets(self) -> list[QWidget]:
        """Widgets above the server box (none by default)."""
        return []

    def _build_ui(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        layout.setSpacing(10)
        for widget in self._top_widgets():
            layout.addWidget(widget)
        top = QGridLayout()
        top.setHorizontalSpacing(18)
        # The proposal's fields get the room ("Online transaction processing" whole at 1366);
        # the server box holds a line and a button.
        top.setColumnStretch(0, 1)
        top.setColumnStretch(1, 3)
        self.server = ServerBox()
        self.server.connect_button.clicked.connect(lambda: self.connect_target())
        top.addWidget(self.server, 0, 0)
        self.form = self.FORM()
        self.form.changed.connect(self.recompute)
        top.addWidget(self.form, 0, 1)
        layout.addLayout(top)

        diff_group = QGroupBox(self.DIFF_TITLE)
        diff_layout = QVBoxLayout(diff_group)
        word = self.RELOAD_WORD
        if word is None:
            self.diff = SettingsDiffTable()
        else:
            self.diff = SettingsDiffTable({"reload": word}, reload_word=word)
        self.diff.edited.connect(self._edited)
        self.diff.ticks_changed.connect(self._ticks_changed)
        diff_layout.addWidget(self.diff, 1)
        # The count on a line of its own, the actions under it: the row fits a 1280 px screen.
        self.summary_label = muted_label()
        self.summary_label.setWordWrap(False)
        diff_layout.addWidget(self.summary_label)
        actions = QHBoxLayout()
        self._add_actions(actions)
        self.rollback_button, self.apply_button = apply_buttons(
            self.apply_selected, self.rollback_last, actions
        )
        diff_layout.addLayout(actions)
        layout.addWidget(diff_group, 3)
        history, self.history_table = history_group("History of this target", 110, 170)
        layout.addWidget(history, 1)

    # ---- the proposal and its diff --------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self.runner.busy is not None

    def recompute(self) -> None:
        """Rebuild the proposal and, when connected, diff it against the server."""
        if self.busy:
            self._recompute_pending = True  # done when the running task ends
            return
        self._recompute_pending = False
        self._keep_ticks = False
        self.proposal = proposal = self._build_proposal()
        if proposal is None:
            self._show_rows([])
            return
        self.form.show_notes(proposal)
        if self.conn is None:
            rows = [DiffRow(s.name, s.value, s.rule, None, "reload") for s in proposal.settings]
            self._show_rows(rows, connected=False)
            return
        self._rediff()

    def _rediff(self) -> None:
        conn, proposal = self.conn, self.proposal
        if conn is not None and proposal is not None:
            self._run("diff", lambda: conn.tuner.diff(proposal), self._show_rows)

    def _show_rows(self, rows: list[DiffRow], connected: bool = True) -> None:
        warnings = self._warnings(rows)
        self.diff.show_rows(rows, connected, warnings, keep_ticks=self._keep_ticks)
        self.summary_label.setText(self.diff.summary(connected))
        self._update_actions()

    def _edited(self, name: str, value: str) -> None:
        """A proposed value typed in the table: diff again with it."""
        if self.proposal is None:
            self._ticks_changed()
            return
        self.proposal = self._edited_proposal(self.proposal, name, value)
        self._keep_ticks = True
        self._rediff()

    def _ticks_changed(self) -> None:
        self.summary_label.setText(self.diff.summary(self.conn is not None))
        self._update_actions()

    # ---- connecting ----------------------------------------------------------------------

    def current_plan(self) -> Plan | None:
        try:
            return plan_of(self.plan_provider)
        except PlanError as exc:
            self.message.emit(f"The plan's target is not valid: {exc}", "failed")
            return None

    def connect_target(self) -> None:
        """Connect to the current plan's server and read it and its machine."""
        plan = self.current_plan()
        if plan is None:
            return
        if not self._takes(plan.target.kind):
            self.message.emit(self.WRONG_KIND.format(kind=plan.target.kind), "stopped")
            return
        factory, old, read_machine = self.connect_factory, self.conn, self._machine
        machine_errors = self.MACHINE_ERRORS

        def work() -> Connected:
            if old is not None:
                old.close()
            conn = factory(plan)
            facts = conn.tuner.facts()
            try:
                machine = read_machine(conn)
            except machine_errors as exc:
                machine = HostFacts(notes=[str(exc)])  # the facts are only defaults
            return conn, facts, machine

        self.conn = None
        self._run("connect", work, self._connected)

    def _connected(self, result: Connected) -> None:
        conn, facts, machine = result
        self.conn, self.facts = conn, facts
        self._show_connection(conn, facts, machine)
        self.status.emit(f"Connected to {conn.target.label}")
        self.refresh_history()
        self.recompute()

    # ---- apply, roll back ------------------------------------------------------------------

    def apply_selected(self) -> None:
        if self.conn is None or self.proposal is None:
            return
        picked = set(self.diff.checked_names())
        items = [s for s in self.proposal.settings if self._setting_key(s.name) in picked]
        if not items:
            self.message.emit("Nothing to apply: tick the settings to change.", "stopped")
            return
        self._run("apply", self._apply_work(self.conn, self.proposal, items), self._applied)

    def _applied(self, result: Any) -> None:
        self.message.emit(f"Applied: {result.summary()}.{self._notes(result)}", result_tone(result))
        self.refresh_history()
        self.recompute()

    def rollback_last(self) -> None:
        if self.conn is None:
            return
        conn, store, restart = self.conn, self.store, self.ROLLBACK_RESTARTS
        self._run(
            "rollback",
            lambda: tuning.rollback_last(store, conn, restart=restart),
            self._rolled_back,
        )

    def _rolled_back(self, result: tuple[Any, int, Any]) -> None:
        outcome, _rid, undone = result
        tone = "ok" if outcome.ok else "failed"
        self.message.emit(
            f"Rolled back #{undone.id} ({undone.profile}): {outcome.summary()}."
            f"{self._notes(outcome)}",
            tone,
        )
        self.refresh_history()
        self.recompute()

    def refresh_history(self) -> None:
        key = self.conn.target.key if self.conn is not None else None
        history = TuningHistory(self.store)
        entries = history.entries(key, kind=self.HISTORY_KIND) if key else []
        self.history_table.show_entries(entries)
        self._update_actions()

    # ---- tasks ---------------------------------------------------------------------------

    def _run(self, what: str, work: Callable[[], Any], then: Callable[[Any], None]) -> bool:
        def done(result: Any) -> None:
            try:
                then(result)  # may start the next task (a diff after an apply)
            finally:
                self._next()

        if not self.runner.start(what, work, done, self._failed):
            self.status.emit(f"Busy: {self.runner.busy} is still running.")
            return False
        return True

    def _failed(self, what: str, message: str, _details: str) -> None:
        self.message.emit(f"{FAILED_WORDS.get(what, what)}: {message}", "failed")
        if what in ("apply", "rollback"):
            self.refresh_history()
            # Show what the server has now (an automatic rollback restored it).
            self._keep_ticks = True
            self._rediff()
        self._next()

    def _next(self) -> None:
        """After a task: a recompute asked for meanwhile."""
        if not self.busy and self._recompute_pending:
            self.recompute()
        self._update_actions()

    def shutdown(self, timeout_s: float = 60.0) -> bool:
        """Stop waiting for the running task and join it; close the connection's SSH links."""
        task = self.runner.task
        done = self.runner.shutdown(timeout_s)
        if task is not None and task.kind == "connect" and task.result is not None:
            task.result[0].close()  # connected while the page closed: nobody will use it
        if self.conn is not None:
            self.conn.close()
        return done

    def _update_actions(self) -> None:
        idle = not self.busy
        connected = self.conn is not None
        self.server.set_connected(connected, idle)
        self.apply_button.setEnabled(idle and connected and self.diff.ticked_changes())
        self.rollback_button.setEnabled(idle and connected and self.history_table.open_apply())
        self._update_more(idle)
        if self.runner.busy:
            self.summary_label.setText(BUSY_WORDS.get(self.runner.busy, "Working…"))
