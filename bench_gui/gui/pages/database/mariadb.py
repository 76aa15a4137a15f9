"""The Database page's MariaDB / MySQL tab: connect to the plan's server, propose InnoDB
settings (buffer pool, redo log, flush method, I/O capacity, durability, connections), diff
them against ``SHOW GLOBAL VARIABLES``, apply the ticked rows, roll back the last apply, and
show the history of this target.

Built from the same parts as the PostgreSQL tab (:mod:`.server_box`, :mod:`.settings_diff`,
:mod:`.history`) with the InnoDB form (:mod:`.innodb_form`); the work is
:mod:`bench_gui.services.tuning`'s, the same code ``bench-gui tune`` runs on a MariaDB plan.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyodbc
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGridLayout, QGroupBox, QHBoxLayout, QVBoxLayout, QWidget

from bench_gui.agent.engines import EngineError
from bench_gui.core.plan import Plan, PlanError
from bench_gui.core.tuning.innodb import FLAVOUR_LABELS, DbVersion, InnoDbProposal
from bench_gui.core.tuning.pgtune import TunedSetting
from bench_gui.gui.pages.database.common import PG_ERRORS, PlanProvider, plan_of
from bench_gui.gui.pages.database.history import apply_buttons, history_group
from bench_gui.gui.pages.database.innodb_form import InnoDbForm
from bench_gui.gui.pages.database.server_box import ServerBox
from bench_gui.gui.pages.database.settings_diff import SettingsDiffTable
from bench_gui.gui.tasks import TaskRunner
from bench_gui.gui.widgets.page_parts import muted_label
from bench_gui.remote.errors import SSHError
from bench_gui.remote.pg_tuner import DiffRow, HostFacts, TuningError
from bench_gui.services import tuning
from bench_gui.store.tuning_history import TuningHistory

ConnectFactory = Callable[[Plan], tuning.Connection]
# The PostgreSQL tab's expected failures, and the ODBC side's (a driver error, a bad value).
MARIADB_ERRORS: tuple[type[BaseException], ...] = (
    *PG_ERRORS,
    EngineError,
    pyodbc.Error,
    ValueError,
)
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


def default_connect(plan: Plan) -> tuning.Connection:
    users = max(plan.workload.virtual_users, default=0) or None
    return tuning.connection_for_plan(plan.target, planned_users=users)


class MariaDbPanel(QWidget):
    """Tune the plan's MariaDB or MySQL server's InnoDB.

    Signals: as :class:`~bench_gui.gui.pages.database.postgresql.PostgresPanel`'s
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
        self.version: DbVersion | None = None
        self.flavour = "mariadb"
        self.proposal: InnoDbProposal | None = None
        self.runner = TaskRunner(self, MARIADB_ERRORS, "the Database page")
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
        top = QGridLayout()
        top.setHorizontalSpacing(18)
        top.setColumnStretch(0, 2)
        top.setColumnStretch(1, 3)
        self.server = ServerBox()
        self.server.connect_button.clicked.connect(lambda: self.connect_target())
        top.addWidget(self.server, 0, 0)
        self.form = InnoDbForm()
        self.form.changed.connect(self.recompute)
        top.addWidget(self.form, 0, 1)
        layout.addLayout(top)

        diff_group = QGroupBox("Diff: SHOW GLOBAL VARIABLES against the proposal")
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
            "Static variables go into the option file and take effect at the next restart."
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
        self.proposal = self.form.build_proposal(self.version, self.flavour)
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
        p = self.proposal
        edited = [
            TunedSetting(s.name, value, "edited by hand", "user") if s.name.lower() == name else s
            for s in p.settings
        ]
        self.proposal = InnoDbProposal(p.title, edited, p.version, p.flavour, p.inputs)
        self._keep_ticks = True
        self._rediff()

    def _ticks_changed(self) -> None:
        self.summary_label.setText(self.diff.summary(self.conn is not None))
        self._update_actions()

    # ---- connecting ----------------------------------------------------------------------

    def connect_target(self) -> None:
        """Connect to the current plan's MariaDB/MySQL server and read it and its machine."""
        try:
            plan = plan_of(self.plan_provider)
        except PlanError as exc:
            self.message.emit(f"The plan's target is not valid: {exc}", "failed")
            return
        if plan is None:
            return
        if plan.target.kind not in tuning.MARIADB_KINDS:
            self.message.emit(
                f"The plan's target is {plan.target.kind}, not MariaDB or MySQL: set"
                ' [target] kind = "mariadb" on the Workload page, or use the PostgreSQL tab.',
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
                machine = tuning.server_facts(conn)
            except (TuningError, SSHError, OSError) as exc:
                machine = HostFacts(notes=[str(exc)])  # the facts are only defaults
            return conn, facts, machine

        self.conn = None
        self._run("connect", work, self._connected)

    def _connected(self, result: tuple[tuning.Connection, dict[str, Any], HostFacts]) -> None:
        conn, facts, machine = result
        self.conn, self.facts = conn, facts
        self.version = DbVersion.parse(str(facts["version"]))
        self.flavour = str(facts["flavour"])
        privileges = set(facts.get("privileges", []))
        may = bool(privileges & {"ALL PRIVILEGES", "SUPER", "SYSTEM_VARIABLES_ADMIN"})
        role = "may change variables" if may else "no SUPER privilege: read-only"
        label = FLAVOUR_LABELS.get(self.flavour, self.flavour)
        tuner = conn.tuner
        where = (
            f"Writes static variables to {tuner.config_file} on {conn.host.label}"
            if conn.host is not None
            else "The server's machine is out of reach: dynamic variables only (SET GLOBAL)"
        )
        restarts = f"; restarts with {tuner.control.label}" if tuner.control else ""
        self.server.show_server(
            conn.target.label,
            f"{label} {facts['server']}  ·  user {facts['user']} ({role})",
            facts.get("data_directory"),
            machine,
            where + restarts,
        )
        self.form.use_machine(machine, conn.planned_users)
        self.status.emit(f"Connected to {conn.target.label}")
        self.refresh_history()
        self.recompute()

    # ---- apply, roll back ------------------------------------------------------------------

    def apply_selected(self) -> None:
        if self.conn is None or self.proposal is None:
            return
        picked = set(self.diff.checked_names())
        items = [s for s in self.proposal.settings if s.name.lower() in picked]
        if not items:
            self.message.emit("Nothing to apply: tick the settings to change.", "stopped")
            return
        conn, store = self.conn, self.store
        title = self.proposal.title

        def work() -> Any:
            return tuning.apply_profile(store, conn, items, profile=title, skip_invalid=True)[0]

        self._run("apply", work, self._applied)

    def _applied(self, result: Any) -> None:
        tone = "ok" if result.ok and not result.pending_restart else "stopped"
        if not result.ok:
            tone = "failed"
        self.message.emit(f"Applied: {result.summary()}.", tone)
        self.refresh_history()
        self.recompute()

    def rollback_last(self) -> None:
        if self.conn is None:
            return
        conn, store = self.conn, self.store
        self._run(
            "rollback", lambda: tuning.rollback_last(store, conn, restart=True), self._rolled_back
        )

    def _rolled_back(self, result: tuple[Any, int, Any]) -> None:
        outcome, _rid, undone = result
        tone = "ok" if outcome.ok else "failed"
        self.message.emit(
            f"Rolled back #{undone.id} ({undone.profile}): {outcome.summary()}.", tone
        )
        self.refresh_history()
        self.recompute()

    def refresh_history(self) -> None:
        key = self.conn.target.key if self.conn is not None else None
        entries = TuningHistory(self.store).entries(key) if key else []
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
        """Stop waiting for the running task and join it; close the connection's SSH links."""
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
