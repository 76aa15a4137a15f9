"""The Database page: tune the target's PostgreSQL with a diff before anything changes.

Connect to the current plan's target (the embedded demo or a PostgreSQL server); the PgTune
calculator's inputs default to the server's machine (RAM, CPUs, whether the data device is
rotational or NVMe); pick PgTune or a preset (the seed briefs' or the user's); the diff shows
each setting's current and proposed value, how it takes effect (reload or restart) and the
rule behind it; apply the ticked rows, roll back the last apply, and see the history of what
was applied to this target.

The OS knobs tab does the same for the database host's kernel (:class:`OsKnobsPanel`): the
sysctls, the data devices' read-ahead and I/O scheduler, transparent huge pages; a preset or
values typed for the run, the diff, apply, roll back, persist only when asked.

Every server operation runs on a thread pool of the page's own (one task at a time); results
come back through queued signals, so the page never blocks the event loop and no widget is
touched from another thread. The work itself is :mod:`bench_gui.tuning`'s, the same code the
``bench-gui tune`` command runs.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, QThreadPool, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from bench_gui.core.pgtune import (
    DB_TYPE_LABELS,
    DB_TYPES,
    EDITIONS,
    STORAGE_LABELS,
    STORAGE_TYPES,
    PgVersion,
    Proposal,
    TunedSetting,
    format_bytes,
    memory_warnings,
    parse_size,
)
from bench_gui.core.plan import Plan, PlanError, plan_from_dict
from bench_gui.core.tuning_presets import (
    BUILTIN_OS_PRESETS,
    Preset,
    PresetError,
    preset_from_proposal,
)
from bench_gui.gui.remote_tasks import RemoteTask
from bench_gui.gui.widgets.common import scrolled

PGTUNE_LABEL = "PgTune (calculated)"
COLUMNS = ("", "Setting", "Current", "Proposed", "Takes effect", "Rule")
COL_CHECK, COL_NAME, COL_CURRENT, COL_PROPOSED, COL_EFFECT, COL_RULE = range(6)
EFFECT_WORDS = {
    "same": "unchanged",
    "reload": "reload",
    "restart": "restart",
    "invalid": "refused",
    "unknown": "unknown",
}
EFFECT_COLOURS = {
    "same": "#6f7b93",
    "reload": "#42be65",
    "restart": "#f1c21b",
    "invalid": "#ff6b74",
    "unknown": "#ff6b74",
}
HISTORY_COLUMNS = ("#", "When", "What", "Result")

PlanProvider = Callable[[], dict[str, Any] | Plan | None]
ConnectFactory = Callable[[Plan], Any]  # -> bench_gui.tuning.Connection


def default_connect(plan: Plan) -> Any:
    from bench_gui.tuning import connection_for_plan

    return connection_for_plan(plan.target)


class _Relay(QObject):
    """Carries a task's outcome from the pool thread to the GUI thread (queued)."""

    done = Signal(object, object)  # (then, result)
    failed = Signal(str, str, str)  # (what, message, details)


class DatabasePage(QWidget):
    """Tune the target's PostgreSQL.

    Signals:
        busy_changed(bool): a server task started (True) or ended (False).
        status(str): a line for the status bar.
    """

    busy_changed = Signal(bool)
    status = Signal(str)

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
        self.conn: Any = None  # bench_gui.tuning.Connection once connected
        self.facts: dict[str, Any] = {}
        self.host_facts: Any = None
        self.version: PgVersion | None = None
        self.proposal: Proposal | None = None
        self.rows: list[Any] = []  # DiffRow of the table, in order
        self.last_error = ""
        self._busy: str | None = None
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._relay = _Relay(self)
        self._relay.done.connect(self._task_done)
        self._relay.failed.connect(self._task_failed)
        self._filling = False
        self._recompute_pending = False
        self._keep_ticks = False
        self._build_ui()
        self._fill_profiles()
        self.recompute()

    # ---- construction --------------------------------------------------------------------

    def _build_ui(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(20, 16, 20, 12)
        outer.setSpacing(10)
        title = QLabel("Database")
        title.setObjectName("pageTitle")
        outer.addWidget(title)
        subtitle = QLabel(
            "PostgreSQL settings and the host's OS knobs: PgTune or a preset, a diff before"
            " anything changes, apply, roll back."
        )
        subtitle.setObjectName("pageSubtitle")
        outer.addWidget(subtitle)

        self.banner = QFrame()
        self.banner.setObjectName("banner")
        banner_row = QHBoxLayout(self.banner)
        banner_row.setContentsMargins(14, 8, 14, 8)
        self.banner_label = QLabel("")
        self.banner_label.setWordWrap(True)
        self.banner_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        banner_row.addWidget(self.banner_label, 1)
        self.banner.hide()
        outer.addWidget(self.banner)

        self.tabs = QTabWidget()
        postgresql = QWidget()
        pg_layout = QVBoxLayout(postgresql)
        pg_layout.setContentsMargins(0, 8, 0, 0)
        pg_layout.setSpacing(10)
        top = QGridLayout()
        top.setHorizontalSpacing(18)
        top.setColumnStretch(0, 2)
        top.setColumnStretch(1, 3)
        top.addWidget(self._server_group(), 0, 0)
        top.addWidget(self._calculator_group(), 0, 1)
        pg_layout.addLayout(top)
        pg_layout.addWidget(self._diff_group(), 3)
        pg_layout.addWidget(self._history_group(), 1)
        # Each tab scrolls when the window is short, so its groups never overlap.
        self.tabs.addTab(scrolled(postgresql), "PostgreSQL")

        self.os_panel = OsKnobsPanel(self.store, self.current_plan_quiet)
        self.os_panel.message.connect(self.show_message)
        self.os_panel.busy_changed.connect(self.busy_changed)
        self.os_scroll = scrolled(self.os_panel)
        self.tabs.addTab(self.os_scroll, "OS knobs")
        self.tabs.currentChanged.connect(self._tab_changed)
        outer.addWidget(self.tabs, 1)

    def _tab_changed(self, index: int) -> None:
        if self.tabs.widget(index) is self.os_scroll and not self.os_panel.busy:
            self.os_panel.reload_hosts()

    def _server_group(self) -> QGroupBox:
        group = QGroupBox("Server")
        layout = QVBoxLayout(group)
        layout.setSpacing(8)
        row = QHBoxLayout()
        self.target_label = QLabel("The current plan's target")
        self.target_label.setObjectName("muted")
        self.target_label.setWordWrap(True)
        row.addWidget(self.target_label, 1)
        self.connect_button = QPushButton("Connect")
        self.connect_button.setProperty("role", "primary")
        self.connect_button.clicked.connect(lambda: self.connect_target())
        row.addWidget(self.connect_button)
        layout.addLayout(row)
        self.server_label = QLabel("Not connected.")
        self.server_label.setWordWrap(True)
        self.server_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.server_label)
        self.machine_label = QLabel("")
        self.machine_label.setObjectName("muted")
        self.machine_label.setWordWrap(True)
        layout.addWidget(self.machine_label)
        self.control_label = QLabel("")
        self.control_label.setObjectName("muted")
        self.control_label.setWordWrap(True)
        layout.addWidget(self.control_label)
        layout.addStretch(1)
        return group

    def _calculator_group(self) -> QGroupBox:
        group = QGroupBox("Proposal")
        grid = QGridLayout(group)
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(8)

        def label(text: str) -> QLabel:
            widget = QLabel(text)
            widget.setObjectName("formLabel")
            widget.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            return widget

        self.profile_combo = QComboBox()
        self.profile_combo.currentIndexChanged.connect(self._profile_changed)
        grid.addWidget(label("Profile"), 0, 0)
        grid.addWidget(self.profile_combo, 0, 1, 1, 3)

        self.ram_edit = QLineEdit()
        self.ram_edit.setPlaceholderText("128GiB")
        self.ram_edit.editingFinished.connect(self._inputs_changed)
        self.cpus_spin = QSpinBox()
        self.cpus_spin.setRange(0, 9999)
        self.cpus_spin.setSpecialValueText("unknown")
        self.cpus_spin.valueChanged.connect(self._inputs_changed)
        self.connections_spin = QSpinBox()
        self.connections_spin.setRange(0, 262143)
        self.connections_spin.setSpecialValueText("by type")
        self.connections_spin.valueChanged.connect(self._inputs_changed)
        self.storage_combo = QComboBox()
        for key in STORAGE_TYPES:
            self.storage_combo.addItem(STORAGE_LABELS[key], key)
        self.storage_combo.currentIndexChanged.connect(self._inputs_changed)
        self.type_combo = QComboBox()
        for key in DB_TYPES:
            self.type_combo.addItem(DB_TYPE_LABELS[key], key)
        self.type_combo.setCurrentIndex(DB_TYPES.index("oltp"))
        self.type_combo.currentIndexChanged.connect(self._inputs_changed)
        self.edition_combo = QComboBox()
        for key in EDITIONS:
            text = "Current PgTune" if key == "current" else "Classic PgTune (the briefs' era)"
            self.edition_combo.addItem(text, key)
        self.edition_combo.currentIndexChanged.connect(self._inputs_changed)

        grid.addWidget(label("RAM"), 1, 0)
        grid.addWidget(self.ram_edit, 1, 1)
        grid.addWidget(label("CPUs"), 1, 2)
        grid.addWidget(self.cpus_spin, 1, 3)
        grid.addWidget(label("Connections"), 2, 0)
        grid.addWidget(self.connections_spin, 2, 1)
        grid.addWidget(label("Storage"), 2, 2)
        grid.addWidget(self.storage_combo, 2, 3)
        grid.addWidget(label("Workload"), 3, 0)
        grid.addWidget(self.type_combo, 3, 1)
        grid.addWidget(label("Rules"), 3, 2)
        grid.addWidget(self.edition_combo, 3, 3)
        self.inputs_error = QLabel("")
        self.inputs_error.setObjectName("fieldError")
        self.inputs_error.setWordWrap(True)
        self.inputs_error.hide()
        grid.addWidget(self.inputs_error, 4, 0, 1, 4)
        self.proposal_note = QLabel("")
        self.proposal_note.setObjectName("fieldHint")
        self.proposal_note.setWordWrap(True)
        grid.addWidget(self.proposal_note, 5, 0, 1, 4)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        return group

    def _diff_group(self) -> QGroupBox:
        group = QGroupBox("Diff: the server's values against the proposal")
        layout = QVBoxLayout(group)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
        )
        self.table.setWordWrap(False)
        head = self.table.horizontalHeader()
        head.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(COL_RULE, QHeaderView.ResizeMode.Stretch)
        self.table.itemChanged.connect(self._item_changed)
        layout.addWidget(self.table, 1)

        actions = QHBoxLayout()
        self.summary_label = QLabel("")
        self.summary_label.setObjectName("muted")
        actions.addWidget(self.summary_label, 1)
        self.restart_check = QCheckBox("Restart the server when a setting needs it")
        self.restart_check.toggled.connect(self._update_actions)
        actions.addWidget(self.restart_check)
        self.save_button = QPushButton("Save as preset…")
        self.save_button.clicked.connect(self._on_save_clicked)
        actions.addWidget(self.save_button)
        self.rollback_button = QPushButton("Roll back last")
        self.rollback_button.setProperty("role", "danger")
        self.rollback_button.clicked.connect(self.rollback_last)
        actions.addWidget(self.rollback_button)
        self.apply_button = QPushButton("Apply")
        self.apply_button.setProperty("role", "primary")
        self.apply_button.clicked.connect(self.apply_selected)
        actions.addWidget(self.apply_button)
        layout.addLayout(actions)
        return group

    def _history_group(self) -> QGroupBox:
        group = QGroupBox("History of this target")
        layout = QVBoxLayout(group)
        self.history_table = QTableWidget(0, len(HISTORY_COLUMNS))
        self.history_table.setHorizontalHeaderLabels(list(HISTORY_COLUMNS))
        self.history_table.verticalHeader().setVisible(False)
        self.history_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.history_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        head = self.history_table.horizontalHeader()
        head.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(len(HISTORY_COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        self.history_table.setMinimumHeight(110)
        self.history_table.setMaximumHeight(170)
        layout.addWidget(self.history_table)
        return group

    # ---- profiles ------------------------------------------------------------------------

    def _fill_profiles(self, select: str | None = None) -> None:
        from bench_gui.store.presets import all_presets

        current = select or self.profile_combo.currentData() or "pgtune"
        self._filling = True
        self.profile_combo.clear()
        self.profile_combo.addItem(PGTUNE_LABEL, "pgtune")
        self.presets: dict[str, Preset] = all_presets()
        for name, preset in self.presets.items():
            kind = "" if preset.builtin else "  (yours)"
            self.profile_combo.addItem(f"{preset.title}{kind}", name)
        index = self.profile_combo.findData(current)
        self.profile_combo.setCurrentIndex(max(0, index))
        self._filling = False

    def profile(self) -> str:
        return str(self.profile_combo.currentData() or "pgtune")

    def select_profile(self, name: str) -> None:
        index = self.profile_combo.findData(name)
        if index < 0:
            raise KeyError(name)
        self.profile_combo.setCurrentIndex(index)

    def _profile_changed(self) -> None:
        pgtune = self.profile() == "pgtune"
        for widget in (
            self.ram_edit,
            self.cpus_spin,
            self.connections_spin,
            self.storage_combo,
            self.type_combo,
            self.edition_combo,
        ):
            widget.setEnabled(pgtune)
        if not self._filling:
            self.recompute()

    def _inputs_changed(self) -> None:
        if not self._filling and self.profile() == "pgtune":
            self.recompute()

    def build_proposal(self) -> Proposal | None:
        """The proposal of the profile and inputs shown (None, with the reason, if invalid)."""
        from bench_gui.core.pgtune import TuneInputError
        from bench_gui.tuning import Inputs, resolve_profile

        self.inputs_error.hide()
        version = self.version or PgVersion(18)
        if self.profile() != "pgtune":
            return resolve_profile(self.profile(), version)
        try:
            ram = parse_size(self.ram_edit.text()) if self.ram_edit.text().strip() else None
        except ValueError as exc:
            self._input_error(f"RAM: {exc}")
            return None
        if ram is None:
            self.proposal_note.setText(
                "Connect to read the server's RAM, CPUs and storage, or type them in."
            )
            return None
        inputs = Inputs(
            ram_bytes=ram,
            cpus=self.cpus_spin.value() or None,
            connections=self.connections_spin.value() or None,
            storage=str(self.storage_combo.currentData()),
            db_type=str(self.type_combo.currentData()),
            version=version,
            edition=str(self.edition_combo.currentData()),
        )
        try:
            return resolve_profile("pgtune", version, inputs)
        except (TuneInputError, PresetError) as exc:
            self._input_error(str(exc))
            return None

    def _input_error(self, text: str) -> None:
        self.inputs_error.setText(text)
        self.inputs_error.show()

    def recompute(self) -> None:
        """Rebuild the proposal and, when connected, diff it against the server."""
        if self._busy is not None:
            self._recompute_pending = True  # done when the running task ends
            return
        self._recompute_pending = False
        self._keep_ticks = False
        proposal = self.build_proposal()
        self.proposal = proposal
        if proposal is None:
            self._show_rows([])
            return
        notes = list(proposal.warnings) + [f"Left out: {n}" for n in proposal.notes]
        preset = self.presets.get(self.profile())
        if preset is not None:
            about = " ".join(p for p in (preset.description, f"Source: {preset.source}.") if p)
            notes.insert(0, about if preset.source else preset.description)
        self.proposal_note.setText("\n".join(notes))
        if self.conn is None:
            self._show_proposal_only(proposal)
            return
        self._run("diff", lambda: self.conn.tuner.diff(proposal), self._show_rows)

    # ---- connecting ----------------------------------------------------------------------

    def current_plan_quiet(self) -> Plan | None:
        """The current plan, or None if it is not valid (nothing shown)."""
        if self.plan_provider is None:
            return Plan()
        data = self.plan_provider()
        if data is None or isinstance(data, Plan):
            return data
        try:
            return plan_from_dict(data)
        except PlanError:
            return None

    def current_plan(self) -> Plan | None:
        if self.plan_provider is None:
            return Plan()
        data = self.plan_provider()
        if data is None or isinstance(data, Plan):
            return data
        try:
            return plan_from_dict(data)
        except PlanError as exc:
            self.show_message(f"The plan's target is not valid: {exc}", "failed")
            return None

    def connect_target(self) -> None:
        """Connect to the current plan's target and read the server and its machine."""
        plan = self.current_plan()
        if plan is None:
            return
        factory = self.connect_factory
        old = self.conn

        def work() -> tuple[Any, dict[str, Any], Any]:
            from bench_gui.tuning import server_facts

            if old is not None:
                old.close()
            conn = factory(plan)
            facts = conn.tuner.facts()
            try:
                machine = server_facts(conn)
            except Exception as exc:  # noqa: BLE001 - the facts are only defaults
                from bench_gui.remote.pgtuning import HostFacts

                machine = HostFacts(notes=[str(exc)])
            return conn, facts, machine

        self.conn = None
        self._run("connect", work, self._connected)

    def _connected(self, result: tuple[Any, dict[str, Any], Any]) -> None:
        conn, facts, machine = result
        self.conn, self.facts, self.host_facts = conn, facts, machine
        self.version = PgVersion.parse(int(facts["server_version_num"]))
        self.target_label.setText(f"Target: {conn.target.label}")
        role = "superuser" if facts.get("superuser") else "not a superuser: read-only"
        self.server_label.setText(
            f"PostgreSQL {facts.get('server', '').split(' on ')[0].removeprefix('PostgreSQL ')}"
            f"  ·  user {facts.get('user')} ({role})"
            + (
                f"\nData directory: {facts['data_directory']}"
                if facts.get("data_directory")
                else ""
            )
        )
        parts = []
        if machine.ram_bytes:
            parts.append(f"RAM {format_bytes(machine.ram_bytes)}")
        if machine.cpus:
            parts.append(f"{machine.cpus} CPUs")
        if machine.device:
            parts.append(f"data on {machine.device} ({machine.storage})")
        text = "  ·  ".join(parts) or "The machine's RAM and CPUs are unknown."
        if machine.notes and not parts:
            text += f" ({machine.notes[0]})"
        self.machine_label.setText(text)
        control = conn.target.control
        self.control_label.setText(
            f"Restarts with {control.label}"
            if control is not None
            else "No server control: settings that need a restart are applied but stay pending."
        )
        self._filling = True
        if machine.ram_bytes:
            self.ram_edit.setText(format_bytes(machine.ram_bytes).replace(" ", ""))
        if machine.cpus:
            self.cpus_spin.setValue(int(machine.cpus))
        if machine.storage in STORAGE_TYPES:
            self.storage_combo.setCurrentIndex(STORAGE_TYPES.index(machine.storage))
        self._filling = False
        self.status.emit(f"Connected to {conn.target.label}")
        if conn.host is not None and conn.host.is_local:
            self.os_panel.suggest_data_dir(facts.get("data_directory"))
        self.refresh_history()
        self.recompute()

    # ---- the table -----------------------------------------------------------------------

    def _show_proposal_only(self, proposal: Proposal) -> None:
        from bench_gui.remote.pgtuning import DiffRow

        self._show_rows(
            [DiffRow(s.name, s.value, s.rule, None, "reload") for s in proposal.settings],
            connected=False,
        )

    def _show_rows(self, rows: list[Any], connected: bool = True) -> None:
        # The same proposal read again (after an edit or a failed apply) keeps the user's
        # ticks; a new proposal starts with every change ticked.
        previous = {
            r.name: self._item(i, COL_CHECK).checkState() == Qt.CheckState.Checked
            for i, r in enumerate(self.rows)
            if self._keep_ticks and i < self.table.rowCount() and r.changes
        }
        self.rows = list(rows)
        warnings: dict[str, str] = {}
        if self.host_facts is not None and self.host_facts.ram_bytes:
            warnings = memory_warnings(
                {r.name: r.proposed for r in rows}, self.host_facts.ram_bytes
            )
        self._filling = True
        self.table.setRowCount(len(rows))
        for i, row in enumerate(rows):
            check = QTableWidgetItem()
            selectable = row.changes and connected
            flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
            if selectable:
                flags |= Qt.ItemFlag.ItemIsUserCheckable
            check.setFlags(flags)
            ticked = selectable and previous.get(row.name, True)
            check.setCheckState(Qt.CheckState.Checked if ticked else Qt.CheckState.Unchecked)
            self.table.setItem(i, COL_CHECK, check)
            self.table.setItem(i, COL_NAME, self._cell(row.name))
            current = (row.current or "—") if connected else ""
            self.table.setItem(i, COL_CURRENT, self._cell(current))
            proposed = self._cell(row.proposed)
            proposed.setFlags(proposed.flags() | Qt.ItemFlag.ItemIsEditable)
            self.table.setItem(i, COL_PROPOSED, proposed)
            effect = EFFECT_WORDS.get(row.action, row.action) if connected else ""
            effect_item = self._cell(effect)
            effect_item.setForeground(QColor(EFFECT_COLOURS.get(row.action, "#e8ecf3")))
            self.table.setItem(i, COL_EFFECT, effect_item)
            rule = row.problem or row.rule
            if row.name in warnings:
                rule = f"⚠ {warnings[row.name]} — {rule}"
            rule_item = self._cell(rule)
            rule_item.setToolTip(rule)
            if row.problem or row.name in warnings:
                rule_item.setForeground(QColor("#ff6b74"))
            self.table.setItem(i, COL_RULE, rule_item)
            if row.action == "same":
                for col in (COL_NAME, COL_CURRENT, COL_PROPOSED):
                    self._item(i, col).setForeground(QColor("#6f7b93"))
        self._filling = False
        self._update_summary(connected)
        self._update_actions()

    def _item(self, row: int, col: int) -> QTableWidgetItem:
        item = self.table.item(row, col)
        assert item is not None
        return item

    @staticmethod
    def _cell(text: str) -> QTableWidgetItem:
        item = QTableWidgetItem(text)
        item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
        return item

    def _item_changed(self, item: QTableWidgetItem) -> None:
        if self._filling:
            return
        if item.column() == COL_PROPOSED and self.proposal is not None:
            # An edited value: diff again with it (the rule says who chose it).
            row = item.row()
            name = self.rows[row].name
            edited = [
                TunedSetting(s.name, item.text().strip(), "edited by hand", "user")
                if s.name.lower() == name
                else s
                for s in self.proposal.settings
            ]
            self.proposal = Proposal(
                self.proposal.title, edited, self.proposal.version, self.proposal.inputs
            )
            self._rediff()
            return
        self._update_summary(self.conn is not None)
        self._update_actions()

    def checked_names(self) -> list[str]:
        return [
            self.rows[i].name
            for i in range(self.table.rowCount())
            if self._item(i, COL_CHECK).checkState() == Qt.CheckState.Checked
        ]

    def set_checked(self, name: str, checked: bool) -> None:
        for i, row in enumerate(self.rows):
            if row.name == name:
                state = Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked
                self._item(i, COL_CHECK).setCheckState(state)
                return
        raise KeyError(name)

    def _update_summary(self, connected: bool) -> None:
        if not connected:
            self.summary_label.setText(
                f"{len(self.rows)} settings proposed. Connect to compare them with the server."
            )
            return
        picked = set(self.checked_names())
        reload = sum(1 for r in self.rows if r.name in picked and r.action == "reload")
        restart = sum(1 for r in self.rows if r.name in picked and r.action == "restart")
        same = sum(1 for r in self.rows if r.action == "same")
        refused = sum(1 for r in self.rows if r.action in ("invalid", "unknown"))
        parts = [f"{reload + restart} to change ({reload} on reload, {restart} need a restart)"]
        if same:
            parts.append(f"{same} unchanged")
        if refused:
            parts.append(f"{refused} refused by this server")
        self.summary_label.setText(", ".join(parts))

    # ---- apply and roll back --------------------------------------------------------------

    def apply_selected(self) -> None:
        if self.conn is None or self.proposal is None:
            return
        picked = set(self.checked_names())
        items = [s for s in self.proposal.settings if s.name.lower() in picked]
        if not items:
            self.show_message("Nothing to apply: tick the settings to change.", "stopped")
            return
        restart = self.restart_check.isChecked()
        profile = self.profile()
        conn, store = self.conn, self.store

        def work() -> Any:
            from bench_gui.tuning import apply_profile

            return apply_profile(
                store, conn, items, profile=profile, restart=restart, skip_invalid=True
            )[0]

        self._run("apply", work, self._applied)

    def _applied(self, result: Any) -> None:
        tone = "ok" if result.ok and not result.pending_restart else "stopped"
        if not result.ok:
            tone = "failed"
        self.show_message(f"Applied: {result.summary()}.", tone)
        self.refresh_history()
        self.recompute()

    def rollback_last(self) -> None:
        if self.conn is None:
            return
        conn, store = self.conn, self.store

        def work() -> Any:
            from bench_gui.tuning import rollback_last

            return rollback_last(store, conn, restart=True)

        self._run("rollback", work, self._rolled_back)

    def _rolled_back(self, result: tuple[Any, int, Any]) -> None:
        outcome, _rid, undone = result
        tone = "ok" if outcome.ok else "failed"
        self.show_message(
            f"Rolled back #{undone.id} ({undone.profile}): {outcome.summary()}.", tone
        )
        self.refresh_history()
        self.recompute()

    def refresh_history(self) -> None:
        from bench_gui.store.tuning import TuningHistory

        key = self.conn.target.key if self.conn is not None else None
        entries = TuningHistory(self.store).entries(key, kind="postgresql") if key else []
        self.history_entries = entries
        self.history_table.setRowCount(len(entries))
        for i, entry in enumerate(entries):
            ok = entry.result.get("ok", True)
            result = entry.result.get("summary") or entry.result.get("error") or ""
            cells = (f"#{entry.id}", entry.created_at[:19].replace("T", " "), entry.describe(),
                     result if ok else f"FAILED: {result}")  # fmt: skip
            for col, text in enumerate(cells):
                item = self._cell(str(text))
                changes = "\n".join(
                    f"{name}: {c.get('from')} → {c.get('to')}" for name, c in entry.changes.items()
                )
                item.setToolTip(changes or str(text))
                if not ok:
                    item.setForeground(QColor("#ff6b74"))
                self.history_table.setItem(i, col, item)
        self._update_actions()

    def _on_save_clicked(self) -> None:
        name, ok = QInputDialog.getText(
            self, "Save as preset", "Preset name (lower-case letters, digits, . _ -):"
        )
        if ok and name.strip():
            self.save_preset(name.strip())

    def save_preset(self, name: str) -> bool:
        """Keep the ticked rows' proposed values as a user preset."""
        from bench_gui.store.presets import save_preset

        if self.proposal is None:
            return False
        picked = set(self.checked_names()) or {s.name.lower() for s in self.proposal.settings}
        settings = [s for s in self.proposal.settings if s.name.lower() in picked]
        subset = Proposal(self.proposal.title, settings, self.proposal.version)
        try:
            save_preset(preset_from_proposal(name, subset, title=name))
        except (PresetError, OSError) as exc:
            self.show_message(f"Cannot save the preset: {exc}", "failed")
            return False
        self._fill_profiles(select=self.profile())
        self.show_message(f"Saved {len(settings)} settings as preset {name!r}.", "ok")
        return True

    # ---- tasks ---------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self._busy is not None or self.os_panel.busy

    def _run(self, what: str, work: Callable[[], Any], then: Callable[[Any], None]) -> bool:
        if self._busy is not None:
            self.status.emit(f"Busy: {self._busy} is still running.")
            return False
        self._busy = what
        self._update_actions()
        self.busy_changed.emit(True)
        relay = self._relay

        def body() -> None:
            try:
                result = work()
            except Exception as exc:  # every failure becomes a message
                try:
                    relay.failed.emit(what, str(exc) or type(exc).__name__, traceback.format_exc())
                except RuntimeError:
                    pass  # the page is gone
                return
            try:
                relay.done.emit(then, result)
            except RuntimeError:
                pass

        self._pool.start(body)
        return True

    def _task_done(self, then: Callable[[Any], None], result: Any) -> None:
        self._busy = None
        self.last_error = ""
        try:
            then(result)  # may start the next task (a diff after an apply)
        finally:
            self._next()

    def _next(self) -> None:
        """After a task: a recompute asked for meanwhile, or idle."""
        if self._busy is None and self._recompute_pending:
            self.recompute()
        self._update_actions()
        if self._busy is None:
            self.busy_changed.emit(False)

    def _task_failed(self, what: str, message: str, details: str) -> None:
        self._busy = None
        self.last_error = message
        self.last_error_details = details
        words = {
            "connect": "Cannot connect",
            "diff": "Cannot compare with the server",
            "apply": "Not applied",
            "rollback": "Not rolled back",
        }
        self.show_message(f"{words.get(what, what)}: {message}", "failed")
        if what in ("apply", "rollback"):
            self.refresh_history()
            if self.conn is not None and self.proposal is not None:
                # Show what the server has now (an automatic rollback restored it).
                self._rediff()
        self._next()

    def _rediff(self) -> None:
        self._keep_ticks = True
        proposal = self.proposal
        if self.conn is not None and proposal is not None:
            self._run("diff", lambda: self.conn.tuner.diff(proposal), self._show_rows)

    def shutdown(self, timeout_s: float = 60.0) -> bool:
        """Wait for the running task; close the connection's SSH links."""
        done = bool(self._pool.waitForDone(int(timeout_s * 1000)))
        done = self.os_panel.shutdown(timeout_s) and done
        if self.conn is not None:
            self.conn.close()
        return done

    # ---- state ---------------------------------------------------------------------------

    def show_message(self, text: str, tone: str) -> None:
        self.banner_label.setText(text)
        self.banner.setProperty("tone", tone)
        self.banner.style().unpolish(self.banner)
        self.banner.style().polish(self.banner)
        self.banner.show()
        # The status bar gets one short line (a long one would widen the window).
        line = text.split("; ")[0]
        self.status.emit(line if len(line) <= 120 else line[:117] + "…")

    def message(self) -> str:
        return self.banner_label.text() if self.banner.isVisibleTo(self) else ""

    def _update_actions(self) -> None:
        idle = self._busy is None
        connected = self.conn is not None
        self.connect_button.setEnabled(idle)
        self.connect_button.setText("Reconnect" if connected else "Connect")
        changes = connected and any(
            r.changes for r in self.rows if r.name in set(self.checked_names())
        )
        self.apply_button.setEnabled(idle and bool(changes))
        open_apply = connected and any(
            e.action == "apply" and e.undone_by is None and e.snapshot is not None
            for e in getattr(self, "history_entries", [])
        )
        self.rollback_button.setEnabled(idle and bool(open_apply))
        self.save_button.setEnabled(idle and self.proposal is not None)
        if self._busy:
            words = {"connect": "Connecting…", "diff": "Comparing…", "apply": "Applying…",
                     "rollback": "Rolling back…"}  # fmt: skip
            self.summary_label.setText(words.get(self._busy, "Working…"))


# ---- OS knobs ------------------------------------------------------------------------------

THIS_MACHINE = "This machine"
BY_HAND = "By hand (edit the “For the run” column)"
OS_COLUMNS = ("Knob", "Current", "For the run", "Choices", "Status")
OS_KEY, OS_CURRENT, OS_WANTED, OS_CHOICES, OS_STATUS = range(5)
OS_HISTORY_COLUMNS = ("#", "When", "What", "Result")
OS_TASK_WORDS = {
    "os-read": ("Reading the knobs…", "Cannot read the knobs"),
    "os-reread": ("Reading the knobs again…", "Cannot read the knobs"),
    "os-apply": ("Applying…", "Not applied"),
    "os-rollback": ("Rolling back…", "Not rolled back"),
    "os-persist": ("Persisting…", "Not persisted"),
}


def _open_os_host(name: str) -> tuple[Any, Any]:
    """(HostIO, what to close) for "local" or a saved SSH target (in a worker thread)."""
    from bench_gui.remote.hostio import LocalHost

    if name == "local":
        return LocalHost(), None
    from bench_gui.tuning import _ssh_host

    return _ssh_host(name)


def _on_host(name: str, work: Callable[[Any], Any]) -> Any:
    host, closer = _open_os_host(name)
    try:
        return work(host)
    finally:
        if closer is not None:
            closer.close()


class OsKnobsPanel(QWidget):
    """The OS knobs of the database host: shown, applied (after the diff), rolled back,
    persisted only when asked and confirmed; the history of what was applied there.

    Remote work runs in :class:`~bench_gui.gui.remote_tasks.RemoteTask` threads, one at a time;
    the work is :mod:`bench_gui.tuning`'s, as ``bench-gui tune os`` does it.

    Signals:
        message(str, str): a sentence and its tone (ok, stopped, failed) for the page's banner.
        busy_changed(bool): a task started or ended.
    """

    message = Signal(str, str)
    busy_changed = Signal(bool)

    def __init__(
        self,
        store: Any,
        plan_provider: Callable[[], Plan | None] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        from bench_gui.remote.osknobs import SYSCTL_FILE

        self.store = store
        self.plan_provider = plan_provider
        self.knobs: dict[str, Any] = {}  # key -> osknobs.Knob, in the table's order
        self.devices: list[str] = []
        self.shown_host = ""  # the host the table shows ("local" or a target name)
        self.host_label = ""
        self.history_entries: list[Any] = []
        self.last_result: Any = None
        self.last_error = ""
        self.task: RemoteTask | None = None
        self.persist_path = SYSCTL_FILE
        # Asked before persisting: (title, question) -> yes? Tests answer it themselves.
        self.confirm: Callable[[str, str], bool] = self._ask
        self._filling = False
        self._build_ui()
        self.reload_hosts()
        self._update_actions()

    # ---- construction --------------------------------------------------------------------

    def _build_ui(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 8, 0, 0)
        outer.setSpacing(10)

        host_group = QGroupBox("Host and data devices")
        grid = QGridLayout(host_group)
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(8)

        def label(text: str) -> QLabel:
            widget = QLabel(text)
            widget.setObjectName("formLabel")
            widget.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            return widget

        self.host_combo = QComboBox()
        self.host_combo.setMinimumWidth(200)
        self.data_dir_edit = QLineEdit()
        self.data_dir_edit.setPlaceholderText("/var/lib/postgresql/18/main")
        self.devices_edit = QLineEdit()
        self.devices_edit.setPlaceholderText("from the data directory, else every disk")
        self.read_button = QPushButton("Read knobs")
        self.read_button.setProperty("role", "primary")
        self.read_button.clicked.connect(lambda: self.read_knobs())
        grid.addWidget(label("Host"), 0, 0)
        grid.addWidget(self.host_combo, 0, 1)
        grid.addWidget(label("Data directory"), 0, 2)
        grid.addWidget(self.data_dir_edit, 0, 3)
        grid.addWidget(label("Devices"), 0, 4)
        grid.addWidget(self.devices_edit, 0, 5)
        grid.addWidget(self.read_button, 0, 6)
        grid.setColumnStretch(3, 3)
        grid.setColumnStretch(5, 2)
        self.host_note = QLabel(
            "The database host: knobs are changed as root there (sudo over SSH), for the run,"
            " and never persisted unless you ask."
        )
        self.host_note.setObjectName("muted")
        self.host_note.setWordWrap(True)
        grid.addWidget(self.host_note, 1, 0, 1, 7)
        outer.addWidget(host_group)

        knobs_group = QGroupBox("Knobs: the host's values and those for the run")
        layout = QVBoxLayout(knobs_group)
        row = QHBoxLayout()
        row.addWidget(label("Preset"))
        self.preset_combo = QComboBox()
        self.preset_combo.addItem(BY_HAND, "")
        for name, preset in BUILTIN_OS_PRESETS.items():
            self.preset_combo.addItem(preset.title, name)
        self.preset_combo.currentIndexChanged.connect(self._preset_changed)
        row.addWidget(self.preset_combo, 1)
        self.preset_note = QLabel("")
        self.preset_note.setObjectName("fieldHint")
        self.preset_note.setWordWrap(True)
        row.addWidget(self.preset_note, 2)
        layout.addLayout(row)

        self.table = QTableWidget(0, len(OS_COLUMNS))
        self.table.setHorizontalHeaderLabels(list(OS_COLUMNS))
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.AnyKeyPressed
        )
        self.table.setWordWrap(False)
        head = self.table.horizontalHeader()
        head.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(OS_STATUS, QHeaderView.ResizeMode.Stretch)
        self.table.itemChanged.connect(self._item_changed)
        self.table.setMinimumHeight(240)
        layout.addWidget(self.table, 1)

        self.diff_label = QLabel("Read the knobs of the host to compare them.")
        self.diff_label.setObjectName("muted")
        self.diff_label.setWordWrap(True)
        self.diff_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.diff_label)
        self.result_label = QLabel("")
        self.result_label.setWordWrap(True)
        self.result_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.result_label.hide()
        layout.addWidget(self.result_label)

        actions = QHBoxLayout()
        actions.addStretch(1)
        self.persist_button = QPushButton("Persist sysctls…")
        self.persist_button.setToolTip(
            "Write the sysctls of the “For the run” column to a sysctl.d file, so they survive"
            " a reboot (asks first)"
        )
        self.persist_button.clicked.connect(lambda: self.persist_sysctls())
        actions.addWidget(self.persist_button)
        self.rollback_button = QPushButton("Roll back last")
        self.rollback_button.setProperty("role", "danger")
        self.rollback_button.clicked.connect(lambda: self.rollback())
        actions.addWidget(self.rollback_button)
        self.apply_button = QPushButton("Apply")
        self.apply_button.setProperty("role", "primary")
        self.apply_button.clicked.connect(lambda: self.apply())
        actions.addWidget(self.apply_button)
        layout.addLayout(actions)
        outer.addWidget(knobs_group, 3)

        history_group = QGroupBox("History of OS knobs on this host")
        hl = QVBoxLayout(history_group)
        self.history_table = QTableWidget(0, len(OS_HISTORY_COLUMNS))
        self.history_table.setHorizontalHeaderLabels(list(OS_HISTORY_COLUMNS))
        self.history_table.verticalHeader().setVisible(False)
        self.history_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.history_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        head = self.history_table.horizontalHeader()
        head.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(len(OS_HISTORY_COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        self.history_table.setMinimumHeight(90)
        self.history_table.setMaximumHeight(130)
        hl.addWidget(self.history_table)
        outer.addWidget(history_group, 0)

    # ---- hosts ---------------------------------------------------------------------------

    def reload_hosts(self) -> None:
        """This machine and the saved SSH targets; the plan's driver host chosen first."""
        from bench_gui.remote.targets import TARGETS_FILE, load_targets
        from bench_gui.store.paths import data_dir

        try:
            names = sorted(load_targets(data_dir() / TARGETS_FILE))
        except Exception:  # noqa: BLE001 - a broken targets file: the Targets page says why
            names = []
        current = self.host_combo.currentData()
        if current is None:
            plan = self.plan_provider() if self.plan_provider is not None else None
            current = (plan.driver.target if plan is not None else "") or "local"
        self.host_combo.blockSignals(True)
        self.host_combo.clear()
        self.host_combo.addItem(THIS_MACHINE, "local")
        for name in names:
            self.host_combo.addItem(f"{name} (SSH)", name)
        index = self.host_combo.findData(current)
        if index < 0:
            self.host_combo.addItem(f"{current} (not saved)", current)
            index = self.host_combo.count() - 1
        self.host_combo.setCurrentIndex(index)
        self.host_combo.blockSignals(False)

    def host_name(self) -> str:
        return str(self.host_combo.currentData() or "local")

    def select_host(self, name: str) -> None:
        index = self.host_combo.findData(name)
        if index < 0:
            raise KeyError(name)
        self.host_combo.setCurrentIndex(index)

    def suggest_data_dir(self, path: str | None) -> None:
        """The server's data directory, when it is on this machine (kept if one is typed)."""
        if path and not self.data_dir_edit.text().strip() and self.host_name() == "local":
            self.data_dir_edit.setText(path)

    # ---- reading -------------------------------------------------------------------------

    def _device_list(self) -> list[str]:
        text = self.devices_edit.text().replace(",", " ")
        return [d.removeprefix("/dev/") for d in text.split() if d]

    def read_knobs(self, again: bool = False) -> bool:
        """Read every knob of the host (and the data devices) in the background; ``again``
        after an apply or a rollback (whose outcome stays shown)."""
        from bench_gui.remote import osknobs

        name = self.host_name()
        data_directory, named = self.data_dir_edit.text().strip(), self._device_list()
        preset = self._preset_changes()

        def work(host: Any) -> dict[str, Any]:
            notes: list[str] = []
            devices = named
            if not devices and data_directory:
                devices, notes = osknobs.data_devices(host, data_directory)
            if not devices:
                devices = osknobs.block_devices(host)
                notes.append(f"every disk: {', '.join(devices) or 'none'}")
            keys = osknobs.default_keys(devices)
            keys += list(osknobs.expand_changes(preset, devices))  # a preset's own knobs too
            return {
                "host": name,
                "label": host.label,
                "devices": devices,
                "notes": notes,
                "knobs": osknobs.read_knobs(host, keys),
            }

        kind = "os-reread" if again else "os-read"
        return self._start(kind, lambda: _on_host(name, work), self._shown)

    def _shown(self, found: dict[str, Any]) -> None:
        previous = (
            {k: v for k, v in self.wanted().items()} if found["host"] == self.shown_host else {}
        )
        self.shown_host, self.host_label = found["host"], found["label"]
        self.devices = list(found["devices"])
        self.knobs = dict(found["knobs"])
        devices = ", ".join(self.devices) or "none"
        notes = "; ".join(found["notes"])
        self.host_note.setText(
            f"{self.host_label}: data devices {devices}" + (f" ({notes})" if notes else "")
        )
        self._fill_table(previous)
        self.refresh_history()

    def _fill_table(self, wanted: dict[str, str] | None = None) -> None:
        """The knobs, with the preset's (or the given) values in "For the run"."""
        from bench_gui.remote import osknobs

        values = osknobs.expand_changes(self._preset_changes(), self.devices)
        values.update(wanted or {})
        self._filling = True
        self.table.setRowCount(len(self.knobs))
        for i, knob in enumerate(self.knobs.values()):
            self.table.setItem(i, OS_KEY, DatabasePage._cell(knob.key))
            current = knob.value if knob.value is not None else "—"
            self.table.setItem(i, OS_CURRENT, DatabasePage._cell(current))
            wanted_item = QTableWidgetItem(values.get(knob.key, ""))
            flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
            if knob.available:
                flags |= Qt.ItemFlag.ItemIsEditable
            wanted_item.setFlags(flags)
            self.table.setItem(i, OS_WANTED, wanted_item)
            self.table.setItem(i, OS_CHOICES, DatabasePage._cell(" ".join(knob.choices)))
            if knob.status == "ok":
                status, colour = "ok", "#42be65"
            elif knob.status == "missing":
                status, colour = f"not on this kernel — {knob.note}", "#6f7b93"
            else:
                status, colour = f"unreadable — {knob.note}", "#ff6b74"
            status_item = DatabasePage._cell(status)
            status_item.setToolTip(status)
            status_item.setForeground(QColor(colour))
            self.table.setItem(i, OS_STATUS, status_item)
            if not knob.available:
                for col in (OS_KEY, OS_CURRENT):
                    self._item(i, col).setForeground(QColor("#6f7b93"))
        self._filling = False
        self._mark_changes()

    def _item(self, row: int, col: int) -> QTableWidgetItem:
        item = self.table.item(row, col)
        assert item is not None
        return item

    def _item_changed(self, item: QTableWidgetItem) -> None:
        if not self._filling and item.column() == OS_WANTED:
            self._mark_changes()

    def _row_of(self, key: str) -> int:
        return list(self.knobs).index(key)

    def set_wanted(self, key: str, value: str) -> None:
        """Type a value in the "For the run" column (as a user would)."""
        self._item(self._row_of(key), OS_WANTED).setText(value)

    def wanted(self) -> dict[str, str]:
        """The "For the run" column: knob -> value, empty cells left out."""
        out: dict[str, str] = {}
        for i, key in enumerate(self.knobs):
            text = self._item(i, OS_WANTED).text().strip()
            if text:
                out[key] = text
        return out

    def changes(self) -> dict[str, str]:
        """The diff: knobs the host has whose value for the run differs from the current."""
        return {
            key: value
            for key, value in self.wanted().items()
            if self.knobs[key].available and self.knobs[key].value != value
        }

    def _mark_changes(self) -> None:
        changes = self.changes()
        self._filling = True
        for i, key in enumerate(self.knobs):
            item = self._item(i, OS_WANTED)
            item.setForeground(QColor("#f1c21b" if key in changes else "#e8ecf3"))
            font = item.font()
            font.setBold(key in changes)
            item.setFont(font)
        self._filling = False
        if not self.knobs:
            self.diff_label.setText("Read the knobs of the host to compare them.")
        elif changes:
            parts = [f"{k}: {self.knobs[k].value} → {v}" for k, v in changes.items()]
            lacking = [k for k in self.wanted() if not self.knobs[k].available]
            text = f"{len(changes)} knob(s) to change: " + ", ".join(parts)
            if lacking:
                text += f". Not on this kernel, left out: {', '.join(lacking)}"
            self.diff_label.setText(text)
        else:
            self.diff_label.setText(
                "Nothing to change: type values in “For the run” or choose a preset."
            )
        self._update_actions()

    # ---- presets -------------------------------------------------------------------------

    def preset(self) -> str:
        return str(self.preset_combo.currentData() or "")

    def select_preset(self, name: str) -> None:
        index = self.preset_combo.findData(name)
        if index < 0:
            raise KeyError(name)
        self.preset_combo.setCurrentIndex(index)

    def _preset_changes(self) -> dict[str, str]:
        name = self.preset()
        return dict(BUILTIN_OS_PRESETS[name].knobs) if name else {}

    def _preset_changed(self) -> None:
        preset = BUILTIN_OS_PRESETS.get(self.preset())
        self.preset_note.setText(
            " ".join([f"Source: {preset.source}.", *preset.notes]) if preset else ""
        )
        if self.knobs:
            missing = [k for k in self._expanded_preset() if k not in self.knobs]
            if missing:
                self.read_knobs()  # knobs the table lacks: read them too
            else:
                self._fill_table()

    def _expanded_preset(self) -> dict[str, str]:
        from bench_gui.remote import osknobs

        return osknobs.expand_changes(self._preset_changes(), self.devices)

    # ---- apply, roll back, persist ----------------------------------------------------------

    def apply(self) -> bool:
        """Apply the diff shown (knobs the kernel lacks are reported, not errors)."""
        from bench_gui.tuning import apply_os

        changes = self.changes()
        if not changes:
            self.message.emit("Nothing to apply: no knob differs from the host's value.", "stopped")
            return False
        name, store = self.shown_host, self.store
        missing = [k for k in self.wanted() if not self.knobs[k].available]
        profile = self.preset() or ", ".join(f"{k}={v}" for k, v in changes.items())
        wanted = {**changes, **{k: self.wanted()[k] for k in missing}}
        return self._start(
            "os-apply",
            lambda: _on_host(name, lambda host: apply_os(store, host, wanted, [], profile)[0]),
            self._applied,
        )

    def _applied(self, result: Any) -> None:
        self.last_result = result
        lines = [f"{k}: {a} → {b}" for k, (a, b) in result.changed.items()]
        text = f"Changed: {', '.join(lines) or 'nothing'}."
        if result.unchanged:
            text += f" Unchanged: {', '.join(result.unchanged)}."
        if result.missing:
            text += f" Not on this kernel: {', '.join(result.missing)}."
        self.result_label.setText(text)
        self.result_label.show()
        self.message.emit(f"Applied on {self.host_label}: {result.summary()}.", "ok")
        self._reread()

    def rollback(self) -> bool:
        """Restore the last apply on this host not rolled back yet (a run's too)."""
        from bench_gui.tuning import rollback_os

        name, store = self.shown_host or self.host_name(), self.store
        return self._start(
            "os-rollback",
            lambda: _on_host(name, lambda host: rollback_os(store, host)),
            self._rolled_back,
        )

    def _rolled_back(self, outcome: tuple[Any, int, Any]) -> None:
        result, _rid, undone = outcome
        self.last_result = result
        back = ", ".join(f"{k} = {v}" for k, (_a, v) in result.changed.items())
        self.result_label.setText(f"Restored: {back}.")
        self.result_label.show()
        self.message.emit(f"Rolled back #{undone.id} ({undone.profile}).", "ok")
        self._reread()

    def persist_sysctls(self) -> bool:
        """Write the sysctls for the run to a sysctl.d file, after a confirmation of its own."""
        from bench_gui.remote.osknobs import persist_sysctls

        values = {k: v for k, v in self.wanted().items() if k.startswith(("vm.", "kernel."))}
        values = {k: v for k, v in values.items() if self.knobs[k].available}
        if not values:
            self.message.emit("No sysctl to persist: type values in “For the run”.", "stopped")
            return False
        listing = "\n".join(f"  {k} = {v}" for k, v in values.items())
        question = (
            f"Write these sysctls to {self.persist_path} on {self.host_label}, so they survive"
            f" a reboot?\n\n{listing}\n\nA rollback does not undo this: delete the file to."
        )
        if not self.confirm("Persist sysctls", question):
            return False
        name, path = self.shown_host, self.persist_path
        return self._start(
            "os-persist",
            lambda: _on_host(name, lambda host: persist_sysctls(host, values, path)),
            lambda _text: self.message.emit(
                f"Persisted {len(values)} sysctl(s) to {path} on {self.host_label}.", "ok"
            ),
        )

    def _ask(self, title: str, question: str) -> bool:
        answer = QMessageBox.question(self, title, question)
        return answer == QMessageBox.StandardButton.Yes

    def _reread(self) -> None:
        self.read_knobs(again=True)

    # ---- history ---------------------------------------------------------------------------

    def refresh_history(self) -> None:
        from bench_gui.store.tuning import TuningHistory

        entries = []
        if self.host_label:
            entries = TuningHistory(self.store).entries(f"os://{self.host_label}", kind="os")
        self.history_entries = entries
        self.history_table.setRowCount(len(entries))
        for i, entry in enumerate(entries):
            ok = entry.result.get("ok", True)
            result = entry.result.get("summary") or entry.result.get("error") or ""
            cells = (f"#{entry.id}", entry.created_at[:19].replace("T", " "), entry.describe(),
                     result if ok else f"FAILED: {result}")  # fmt: skip
            changes = "\n".join(
                f"{name}: {c.get('from')} → {c.get('to')}" for name, c in entry.changes.items()
            )
            for col, text in enumerate(cells):
                item = DatabasePage._cell(str(text))
                item.setToolTip(changes or str(text))
                self.history_table.setItem(i, col, item)
        self._update_actions()

    # ---- tasks -----------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self.task is not None

    def _start(self, kind: str, body: Callable[[], Any], then: Callable[[Any], None]) -> bool:
        if self.task is not None:
            return False
        task = RemoteTask(kind, body, parent=self)
        task.done.connect(lambda: self._task_done(task, then))
        self.task = task
        self.busy_changed.emit(True)
        self._update_actions()
        task.start()
        return True

    def _task_done(self, task: RemoteTask, then: Callable[[Any], None]) -> None:
        task.wait()
        self.task = None
        self.busy_changed.emit(False)
        if task.error is not None:
            self.last_error = str(task.error) or type(task.error).__name__
            word = OS_TASK_WORDS.get(task.kind, ("", "Failed"))[1]
            self.message.emit(f"{word}: {self.last_error}", "failed")
            if task.kind in ("os-apply", "os-rollback"):
                self.refresh_history()
                if self.knobs:
                    self._reread()  # what the host has now (a failed apply undid itself)
            self._update_actions()
            return
        if task.kind != "os-reread":
            self.last_error = ""
        then(task.result)
        self._update_actions()

    def shutdown(self, timeout_s: float = 60.0) -> bool:
        task = self.task
        return task.shutdown(timeout_s) if task is not None else True

    def _update_actions(self) -> None:
        idle = self.task is None
        shown = bool(self.knobs)
        for widget in (self.host_combo, self.data_dir_edit, self.devices_edit, self.read_button):
            widget.setEnabled(idle)
        self.apply_button.setEnabled(idle and shown and bool(self.changes()))
        open_apply = any(
            e.action == "apply" and e.undone_by is None and e.snapshot is not None
            for e in self.history_entries
        )
        self.rollback_button.setEnabled(idle and open_apply)
        self.persist_button.setEnabled(idle and shown)
        if self.task is not None:
            self.diff_label.setText(OS_TASK_WORDS.get(self.task.kind, ("Working…", ""))[0])


__all__ = ["DatabasePage", "OsKnobsPanel", "default_connect"]
