"""The Database page's SQL Server tab: connect to the plan's SQL Server, diff seed 003's settings
(MAXDOP, recovery model, target recovery time, max server memory from the RAM) or a preset
file against sys.configurations and the database's options, apply the ticked rows, roll back
the last apply, and show the history of this target.

Built from the same parts as the MariaDB tab (:mod:`.server_box`, :mod:`.settings_diff`,
:mod:`.history`) with :mod:`.mssql_form`; the work is :mod:`bench_gui.services.tuning`'s, the
same code ``bench-gui tune`` runs on a SQL Server plan. The tab says plainly, at its top, that
this engine has not been verified against a live server here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyodbc
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGridLayout, QGroupBox, QHBoxLayout, QVBoxLayout, QWidget

from bench_gui.agent.engines import EngineError
from bench_gui.core.plan import Plan, PlanError
from bench_gui.core.tuning.presets import PresetError
from bench_gui.gui.pages.database.common import PG_ERRORS, PlanProvider, plan_of
from bench_gui.gui.pages.database.history import apply_buttons, history_group
from bench_gui.gui.pages.database.mssql_form import MssqlForm
from bench_gui.gui.pages.database.server_box import ServerBox
from bench_gui.gui.pages.database.settings_diff import SettingsDiffTable
from bench_gui.gui.tasks import TaskRunner
from bench_gui.gui.widgets.page_parts import Banner, muted_label
from bench_gui.remote.mssql_tuner import NOT_VERIFIED, MssqlProposal
from bench_gui.remote.pg_tuner import DiffRow, HostFacts, TuningError
from bench_gui.services import tuning
from bench_gui.store.tuning_history import TuningHistory

ConnectFactory = Callable[[Plan], tuning.Connection]
# The PostgreSQL tab's expected failures, and the ODBC side's (a driver error, a bad value).
MSSQL_ERRORS: tuple[type[BaseException], ...] = (*PG_ERRORS, EngineError, pyodbc.Error, ValueError)
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
UNVERIFIED_NOTE = (
    f"⚠ {NOT_VERIFIED} (no SQL Server runs where bench-gui is tested). Read the diff before"
    " you apply, and check the server afterwards."
)


def sentences(lines: list[str]) -> str:
    """The result's messages as sentences after its summary."""
    return "".join(f" {line[:1].upper()}{line[1:]}." for line in lines if line)


def default_connect(plan: Plan) -> tuning.Connection:
    users = max(plan.workload.virtual_users, default=0) or None
    return tuning.connection_for_plan(plan.target, planned_users=users)


class MssqlPanel(QWidget):
    """Tune the plan's SQL Server with seed 003's settings or a preset file.

    Signals: as :class:`~bench_gui.gui.pages.database.mariadb.MariaDbPanel`'s
    (message(str, str), status(str), busy_changed(bool)).
    """

    message = Signal(str, str)
    status = Signal(str)
    busy_changed = Signal(bool)

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
        self.conn: tuning.Connection | None = None
        self.facts: dict[str, Any] = {}
        self.version = ""
        self.proposal: MssqlProposal | None = None
        self.runner = TaskRunner(self, MSSQL_ERRORS, "the Database page")
        self.runner.busy_changed.connect(lambda _busy: self._update_actions())
        self.runner.busy_changed.connect(self.busy_changed)
        self._recompute_pending = False
        self._keep_ticks = False
        self._build_ui()
        self.recompute()

    def _build_ui(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        layout.setSpacing(10)
        # Said on the tab itself, always: the banner of the page is for outcomes.
        self.unverified = Banner()
        self.unverified.show_text("stopped", UNVERIFIED_NOTE)
        layout.addWidget(self.unverified)
        top = QGridLayout()
        top.setHorizontalSpacing(18)
        top.setColumnStretch(0, 2)
        top.setColumnStretch(1, 3)
        self.server = ServerBox()
        self.server.connect_button.clicked.connect(lambda: self.connect_target())
        top.addWidget(self.server, 0, 0)
        self.form = MssqlForm()
        self.form.changed.connect(self.recompute)
        top.addWidget(self.form, 0, 1)
        layout.addLayout(top)

        diff_group = QGroupBox("Diff: sys.configurations and the database's options")
        diff_layout = QVBoxLayout(diff_group)
        self.diff = SettingsDiffTable({"reload": "at once"}, reload_word="at once")
        self.diff.edited.connect(self._edited)
        self.diff.ticks_changed.connect(self._ticks_changed)
        diff_layout.addWidget(self.diff, 1)
        self.summary_label = muted_label()
        self.summary_label.setWordWrap(False)
        diff_layout.addWidget(self.summary_label)
        actions = QHBoxLayout()
        self.restart_note = muted_label(
            "Options that are not dynamic take effect when the SQL Server service restarts;"
            " bench-gui never restarts it."
        )
        actions.addWidget(self.restart_note, 1)
        self.rollback_button, self.apply_button = apply_buttons(
            self.apply_selected, self.rollback_last
        )
        actions.addWidget(self.rollback_button)
        actions.addWidget(self.apply_button)
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
            self._recompute_pending = True
            return
        self._recompute_pending = False
        self._keep_ticks = False
        self.proposal = self.form.build_proposal(self.version)
        if self.proposal is None:
            self._show_rows([])
            return
        self.form.show_notes(self.proposal)
        if self.conn is None:
            rows = [
                DiffRow(s.name, s.value, s.rule, None, "reload") for s in self.proposal.settings
            ]
            self._show_rows(rows, connected=False)
            return
        self._rediff()

    def _rediff(self) -> None:
        conn, proposal = self.conn, self.proposal
        if conn is not None and proposal is not None:
            self._run("diff", lambda: conn.tuner.diff(proposal), self._show_rows)

    def _show_rows(self, rows: list[DiffRow], connected: bool = True) -> None:
        self.diff.show_rows(rows, connected, {}, keep_ticks=self._keep_ticks)
        self.summary_label.setText(self.diff.summary(connected))
        self._update_actions()

    def _edited(self, name: str, value: str) -> None:
        """A proposed value typed in the table: diff again with it."""
        if self.proposal is None:
            return
        try:
            self.proposal = self.proposal.edited(name, value)
        except PresetError as exc:
            self.message.emit(str(exc), "failed")
        self._keep_ticks = True
        self._rediff()

    def _ticks_changed(self) -> None:
        self.summary_label.setText(self.diff.summary(self.conn is not None))
        self._update_actions()

    # ---- connecting ----------------------------------------------------------------------

    def connect_target(self) -> None:
        """Connect to the current plan's SQL Server and read it (and its machine's RAM)."""
        try:
            plan = plan_of(self.plan_provider)
        except PlanError as exc:
            self.message.emit(f"The plan's target is not valid: {exc}", "failed")
            return
        if plan is None:
            return
        if plan.target.kind != tuning.MSSQL_KIND:
            self.message.emit(
                f"The plan's target is {plan.target.kind}, not SQL Server: set [target]"
                ' kind = "mssql" on the Workload page, or use the tab of its engine.',
                "stopped",
            )
            return
        factory, old = self.connect_factory, self.conn

        def work() -> tuple[tuning.Connection, dict[str, Any], HostFacts]:
            if old is not None:
                old.close()
            conn = factory(plan)
            facts = conn.tuner.facts()
            try:
                machine = conn.tuner.host_facts()
            except (TuningError, OSError) as exc:
                machine = HostFacts(notes=[str(exc)])  # the RAM is only a default
            return conn, facts, machine

        self.conn = None
        self._run("connect", work, self._connected)

    def _connected(self, result: tuple[tuning.Connection, dict[str, Any], HostFacts]) -> None:
        conn, facts, machine = result
        self.conn, self.facts = conn, facts
        self.version = str(facts.get("version") or "")
        self.server.show_server(
            conn.target.label,
            f"{facts['server']}  ·  login {facts['user']} ({facts['rights']})",
            facts.get("data_directory"),
            machine,
            "Never restarted from here: options that are not dynamic wait for a restart of the"
            " SQL Server service.",
        )
        self.form.use_machine(machine)
        self.status.emit(f"Connected to {conn.target.label}")
        self.refresh_history()
        self.recompute()

    # ---- apply, roll back ------------------------------------------------------------------

    def apply_selected(self) -> None:
        if self.conn is None or self.proposal is None:
            return
        picked = set(self.diff.checked_names())
        items = [s for s in self.proposal.settings if s.name in picked]
        if not items:
            self.message.emit("Nothing to apply: tick the settings to change.", "stopped")
            return
        conn, store = self.conn, self.store
        profile = self.form.profile if self.form.profile != "file" else self.proposal.title

        def work() -> Any:
            return tuning.apply_profile(store, conn, items, profile=profile, skip_invalid=True)[0]

        self._run("apply", work, self._applied)

    def _applied(self, result: Any) -> None:
        tone = "ok" if result.ok and not result.pending_restart else "stopped"
        if not result.ok:
            tone = "failed"
        self.message.emit(f"Applied: {result.summary()}.{sentences(result.messages)}", tone)
        self.refresh_history()
        self.recompute()

    def rollback_last(self) -> None:
        if self.conn is None:
            return
        conn, store = self.conn, self.store
        self._run(
            "rollback", lambda: tuning.rollback_last(store, conn, restart=False), self._rolled_back
        )

    def _rolled_back(self, result: tuple[Any, int, Any]) -> None:
        outcome, _rid, undone = result
        tone = "ok" if outcome.ok else "failed"
        notes = sentences(outcome.messages)
        self.message.emit(
            f"Rolled back #{undone.id} ({undone.profile}): {outcome.summary()}.{notes}", tone
        )
        self.refresh_history()
        self.recompute()

    def refresh_history(self) -> None:
        key = self.conn.target.key if self.conn is not None else None
        entries = TuningHistory(self.store).entries(key, kind=tuning.MSSQL_KIND) if key else []
        self.history_table.show_entries(entries)
        self._update_actions()

    # ---- tasks ---------------------------------------------------------------------------

    def _run(self, what: str, work: Callable[[], Any], then: Callable[[Any], None]) -> bool:
        def done(result: Any) -> None:
            try:
                then(result)
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
            self._keep_ticks = True
            self._rediff()
        self._next()

    def _next(self) -> None:
        if not self.busy and self._recompute_pending:
            self.recompute()
        self._update_actions()

    def shutdown(self, timeout_s: float = 60.0) -> bool:
        """Stop waiting for the running task and join it."""
        task = self.runner.task
        done = self.runner.shutdown(timeout_s)
        if task is not None and task.kind == "connect" and task.result is not None:
            task.result[0].close()
        if self.conn is not None:
            self.conn.close()
        return done

    def _update_actions(self) -> None:
        idle = not self.busy
        connected = self.conn is not None
        self.server.set_connected(connected, idle)
        self.apply_button.setEnabled(idle and connected and self.diff.ticked_changes())
        self.rollback_button.setEnabled(idle and connected and self.history_table.open_apply())
        if self.runner.busy:
            self.summary_label.setText(BUSY_WORDS.get(self.runner.busy, "Working…"))
