"""The Database page's PostgreSQL tab: connect to the plan's server, propose settings (PgTune
or a preset), diff them against the server, apply the ticked rows, roll back the last apply,
and show the history of what was applied to this target.

Server work runs in the tab's :class:`~bench_gui.gui.tasks.TaskRunner`, one task at a time;
the work is :mod:`bench_gui.services.tuning`'s, the same code ``bench-gui tune`` runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import psycopg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QInputDialog,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from bench_gui.core.plan import Plan, PlanError
from bench_gui.core.tuning.pgtune import PgVersion, Proposal, TunedSetting, memory_warnings
from bench_gui.core.tuning.presets import PresetError, preset_from_proposal
from bench_gui.gui.pages.database.common import PG_ERRORS, PlanProvider, plan_of
from bench_gui.gui.pages.database.history import apply_buttons, history_group
from bench_gui.gui.pages.database.proposal_form import ProposalForm
from bench_gui.gui.pages.database.server_box import ServerBox
from bench_gui.gui.pages.database.settings_diff import SettingsDiffTable
from bench_gui.gui.tasks import TaskRunner
from bench_gui.gui.widgets.page_parts import muted_label
from bench_gui.remote.errors import SSHError
from bench_gui.remote.pg_tuner import DiffRow, HostFacts, TuningError
from bench_gui.services import tuning
from bench_gui.store.tuning_history import TuningHistory
from bench_gui.store.user_presets import save_preset

ConnectFactory = Callable[[Plan], tuning.Connection]

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
    return tuning.connection_for_plan(plan.target)


class PostgresPanel(QWidget):
    """Tune the plan's PostgreSQL server.

    Signals:
        message(str, str): a sentence and its tone (ok, stopped, failed) for the page's banner.
        status(str): a line for the status bar.
        busy_changed(bool): a server task started (True) or the tab became idle (False).
        local_data_directory(str): connected to a server on this machine; its data directory.
    """

    message = Signal(str, str)
    status = Signal(str)
    busy_changed = Signal(bool)
    local_data_directory = Signal(str)

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
        self.host_facts: HostFacts | None = None
        self.version: PgVersion | None = None
        self.proposal: Proposal | None = None
        self.runner = TaskRunner(self, PG_ERRORS, "the Database page")
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
        self.form = ProposalForm()
        self.form.changed.connect(self.recompute)
        top.addWidget(self.form, 0, 1)
        layout.addLayout(top)

        diff_group = QGroupBox("Diff: the server's values against the proposal")
        diff_layout = QVBoxLayout(diff_group)
        self.diff = SettingsDiffTable()
        self.diff.edited.connect(self._edited)
        self.diff.ticks_changed.connect(self._ticks_changed)
        diff_layout.addWidget(self.diff, 1)
        # The count on a line of its own, the actions under it: the row fits a 1280 px screen.
        self.summary_label = muted_label()
        self.summary_label.setWordWrap(False)
        diff_layout.addWidget(self.summary_label)
        actions = QHBoxLayout()
        self.restart_check = QCheckBox("Restart the server when a setting needs it")
        self.restart_check.toggled.connect(self._update_actions)
        actions.addWidget(self.restart_check)
        actions.addStretch(1)
        self.save_button = QPushButton("Save as preset…")
        self.save_button.clicked.connect(self._on_save_clicked)
        actions.addWidget(self.save_button)
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
            self._recompute_pending = True  # done when the running task ends
            return
        self._recompute_pending = False
        self._keep_ticks = False
        proposal = self.form.build_proposal(self.version or PgVersion(18))
        self.proposal = proposal
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
        warnings: dict[str, str] = {}
        if self.host_facts is not None and self.host_facts.ram_bytes:
            values = {r.name: r.proposed for r in rows}
            warnings = memory_warnings(values, self.host_facts.ram_bytes)
        self.diff.show_rows(rows, connected, warnings, keep_ticks=self._keep_ticks)
        self.summary_label.setText(self.diff.summary(connected))
        self._update_actions()

    def _edited(self, name: str, value: str) -> None:
        """A proposed value typed in the table: diff again with it (the rule says who chose it)."""
        if self.proposal is None:
            self._ticks_changed()
            return
        edited = [
            TunedSetting(s.name, value, "edited by hand", "user") if s.name.lower() == name else s
            for s in self.proposal.settings
        ]
        self.proposal = Proposal(
            self.proposal.title, edited, self.proposal.version, self.proposal.inputs
        )
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
        """Connect to the current plan's target and read the server and its machine."""
        plan = self.current_plan()
        if plan is None:
            return
        if plan.target.kind in tuning.MARIADB_KINDS:
            self.message.emit(
                f"The plan's target is {plan.target.kind}: its InnoDB settings are on the"
                " MariaDB / MySQL tab.",
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
            except (TuningError, psycopg.Error, SSHError, OSError) as exc:
                machine = HostFacts(notes=[str(exc)])  # the facts are only defaults
            return conn, facts, machine

        self.conn = None
        self._run("connect", work, self._connected)

    def _connected(self, result: tuple[tuning.Connection, dict[str, Any], HostFacts]) -> None:
        conn, facts, machine = result
        self.conn, self.facts, self.host_facts = conn, facts, machine
        self.version = PgVersion.parse(int(facts["server_version_num"]))
        self.server.show_connection(conn, facts, machine)
        self.form.use_machine(machine)
        self.status.emit(f"Connected to {conn.target.label}")
        if conn.host is not None and conn.host.is_local and facts.get("data_directory"):
            self.local_data_directory.emit(str(facts["data_directory"]))
        self.refresh_history()
        self.recompute()

    # ---- apply, roll back, save ------------------------------------------------------------

    def apply_selected(self) -> None:
        if self.conn is None or self.proposal is None:
            return
        picked = set(self.diff.checked_names())
        items = [s for s in self.proposal.settings if s.name.lower() in picked]
        if not items:
            self.message.emit("Nothing to apply: tick the settings to change.", "stopped")
            return
        restart, profile = self.restart_check.isChecked(), self.form.profile()
        conn, store = self.conn, self.store

        def work() -> Any:
            return tuning.apply_profile(
                store, conn, items, profile=profile, restart=restart, skip_invalid=True
            )[0]

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
        entries = TuningHistory(self.store).entries(key, kind="postgresql") if key else []
        self.history_table.show_entries(entries)
        self._update_actions()

    def _on_save_clicked(self) -> None:
        name, ok = QInputDialog.getText(
            self, "Save as preset", "Preset name (lower-case letters, digits, . _ -):"
        )
        if ok and name.strip():
            self.save_preset(name.strip())

    def save_preset(self, name: str) -> bool:
        """Keep the ticked rows' proposed values as a user preset."""
        if self.proposal is None:
            return False
        settings = self.proposal.settings
        picked = set(self.diff.checked_names()) or {s.name.lower() for s in settings}
        chosen = [s for s in settings if s.name.lower() in picked]
        subset = Proposal(self.proposal.title, chosen, self.proposal.version)
        try:
            save_preset(preset_from_proposal(name, subset, title=name))
        except (PresetError, OSError) as exc:
            self.message.emit(f"Cannot save the preset: {exc}", "failed")
            return False
        self.form.fill_profiles(select=self.form.profile())
        self.message.emit(f"Saved {len(chosen)} settings as preset {name!r}.", "ok")
        return True

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
        open_apply = connected and self.history_table.open_apply()
        self.rollback_button.setEnabled(idle and open_apply)
        self.save_button.setEnabled(idle and self.proposal is not None)
        if self.runner.busy:
            self.summary_label.setText(BUSY_WORDS.get(self.runner.busy, "Working…"))
