"""The Workload page's plan sections: where the database is, the sweep, and its options.

Each section shows its part of a :class:`Plan` (``set_plan``) and writes it back into the
plan's dictionary (``fill``); ``fields`` holds its inputs and error lines by plan field name.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QWidget,
)

from bench_gui.core.plan import BUILD_MODES, Plan, Target, parse_vu_list
from bench_gui.gui.widgets.plan_fields import PlanFields, add_row, styled_form
from bench_gui.remote.errors import SecretStoreError
from bench_gui.remote.secrets import database_password, set_db_password

THIS_MACHINE = "This machine"
DRIVER_HINT = (
    "Where the workload agent runs (SSH targets are added on the Targets page). Host and port"
    " below are as seen from it."
)
VU_HINT = "One sweep step per user count: a list (8,16,24) or a range (8-64/8)."
BUILD_MODE_LABELS = {
    "if_missing": "Build if missing",
    "always": "Always rebuild",
    "never": "Never build (use existing)",
}


def duration_words(seconds: float) -> str:
    """``5 min 20 s``, ``1 h 04 min``, ``45 s`` (plus setup time between steps)."""
    total = int(round(seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02d} s" if secs else f"{minutes} min"
    return f"{secs} s"


def _seconds_spin() -> QDoubleSpinBox:
    spin = QDoubleSpinBox()
    spin.setRange(0, 86_400)
    spin.setDecimals(0)
    spin.setSuffix(" s")
    return spin


class TargetSection(QGroupBox):
    """The database (the embedded demo or a PostgreSQL server), and the host the agent runs
    on (this machine or a saved SSH target)."""

    def __init__(self) -> None:
        super().__init__("Target")
        self.fields = PlanFields()
        self._driver_before_demo = ""  # the driver host kept while the demo is chosen
        form = styled_form(self)
        kinds = QWidget()
        row = QHBoxLayout(kinds)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(18)
        self.demo_radio = QRadioButton("Embedded demo")
        self.pg_radio = QRadioButton("PostgreSQL server")
        self.kind_group = QButtonGroup(self)
        self.kind_group.addButton(self.demo_radio)
        self.kind_group.addButton(self.pg_radio)
        row.addWidget(self.demo_radio)
        row.addWidget(self.pg_radio)
        row.addStretch(1)
        self.demo_radio.toggled.connect(self.update_enabled)
        add_row(form, "Database", self.fields.cell("target.kind", kinds))
        self.driver_combo = QComboBox()
        self.driver_combo.addItem(THIS_MACHINE, "")
        add_row(
            form, "Driver host", self.fields.cell("driver.target", self.driver_combo, DRIVER_HINT)
        )
        self.host_edit = QLineEdit()
        self.host_edit.setPlaceholderText("db.example.com")
        add_row(form, "Host", self.fields.cell("target.host", self.host_edit))
        self.port_spin = QSpinBox()
        self.port_spin.setRange(0, 65535)
        add_row(form, "Port", self.fields.cell("target.port", self.port_spin))
        self.user_edit = QLineEdit()
        add_row(form, "User", self.fields.cell("target.user", self.user_edit))
        self.database_edit = QLineEdit()
        add_row(form, "Database name", self.fields.cell("target.database", self.database_edit))
        self.password_env_edit = QLineEdit()
        self.password_env_edit.setPlaceholderText("PGPASSWORD")
        hint = "PGPASSWORD or a BENCH_GUI_* variable, if set; else the OS keyring's."
        add_row(
            form,
            "Password from",
            self.fields.cell("target.password_env", self.password_env_edit, hint),
        )
        # The password itself: straight to the OS keyring (per server, port and user), never
        # into the plan. The line under it says where a run's password will come from.
        password_row = QWidget()
        row = QHBoxLayout(password_row)
        row.setContentsMargins(0, 0, 0, 0)
        self.password_edit = QLineEdit()
        self.password_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.password_edit.setPlaceholderText("kept in the OS keyring")
        self.password_edit.returnPressed.connect(self.save_password)
        self.password_save_button = QPushButton("Save in keyring")
        self.password_save_button.clicked.connect(self.save_password)
        row.addWidget(self.password_edit, 1)
        row.addWidget(self.password_save_button)
        add_row(form, "Password", password_row)
        self.password_note = QLabel("")
        self.password_note.setObjectName("muted")
        self.password_note.setWordWrap(True)
        add_row(form, "", self.password_note)
        for edit in (self.host_edit, self.user_edit, self.password_env_edit):
            edit.editingFinished.connect(self.update_password_note)
        self.port_spin.valueChanged.connect(self.update_password_note)

    def set_plan(self, plan: Plan) -> None:
        target = plan.target
        (self.pg_radio if target.kind == "postgresql" else self.demo_radio).setChecked(True)
        self.host_edit.setText(target.host)
        self.port_spin.setValue(target.port)
        self.user_edit.setText(target.user)
        self.database_edit.setText(target.database)
        self.password_env_edit.setText(target.password_env)
        self._driver_before_demo = ""
        self.select_driver(plan.driver.target)
        self.update_enabled()

    def server_target(self) -> Target:
        """The database server and user in the fields (what a password is kept under)."""
        return Target(
            kind="postgresql",
            host=self.host_edit.text().strip(),
            port=self.port_spin.value(),
            user=self.user_edit.text().strip(),
            password_env=self.password_env_edit.text().strip(),
        )

    def save_password(self) -> None:
        """Keep the typed password in the OS keyring for the server and user in the fields."""
        password = self.password_edit.text()
        target = self.server_target()
        if not password or not target.host or not target.user:
            self.password_note.setText("Give the host and user, then type the password.")
            return
        try:
            set_db_password(target, password)
        except SecretStoreError as exc:
            self.password_note.setText(str(exc))
            return
        self.password_edit.clear()
        self.update_password_note()

    def update_password_note(self) -> None:
        """Say where a run's database password will come from (keyring, variable, none)."""
        if not self.pg_radio.isChecked():
            self.password_note.setText("")
            return
        try:
            source = database_password(self.server_target()).source
        except SecretStoreError as exc:
            self.password_note.setText(str(exc))
            return
        self.password_note.setText(f"A run's password: {source}.")

    def fill(self, data: dict[str, Any]) -> None:
        """Write ``target`` and ``driver`` (the demo always runs on this machine)."""
        target = data["target"]
        server_kind = self.pg_radio.isChecked()
        target["kind"] = "postgresql" if server_kind else "demo"
        target["host"] = self.host_edit.text().strip()
        target["port"] = self.port_spin.value()
        target["user"] = self.user_edit.text().strip()
        target["database"] = self.database_edit.text().strip()
        target["password_env"] = self.password_env_edit.text().strip()
        driver = data.setdefault("driver", {})
        driver["target"] = str(self.driver_combo.currentData() or "") if server_kind else ""

    def set_driver_targets(self, names: list[str]) -> None:
        """The saved SSH targets the agent can run on; the current choice is kept."""
        current = str(self.driver_combo.currentData() or "")
        self.driver_combo.blockSignals(True)
        self.driver_combo.clear()
        self.driver_combo.addItem(THIS_MACHINE, "")
        for name in names:
            self.driver_combo.addItem(name, name)
        self.driver_combo.blockSignals(False)
        self.select_driver(current)

    def select_driver(self, name: str) -> None:
        index = self.driver_combo.findData(name)
        if index < 0:
            # A plan naming a target this machine has not saved: kept, and marked as such.
            self.driver_combo.addItem(f"{name} (not saved)", name)
            index = self.driver_combo.count() - 1
        self.driver_combo.setCurrentIndex(index)

    def update_enabled(self) -> None:
        server = self.pg_radio.isChecked()
        for widget in (
            self.host_edit,
            self.port_spin,
            self.user_edit,
            self.password_env_edit,
            self.password_edit,
            self.password_save_button,
        ):
            widget.setEnabled(server)
        self.update_password_note()
        # The embedded demo runs on this machine only: the choice is kept for a server target.
        self.driver_combo.setEnabled(server)
        if not server and self.driver_combo.currentIndex() != 0:
            self._driver_before_demo = str(self.driver_combo.currentData() or "")
            self.driver_combo.setCurrentIndex(0)
        elif server and self._driver_before_demo:
            self.select_driver(self._driver_before_demo)
            self._driver_before_demo = ""


class SweepSection(QGroupBox):
    """The run's name, the warehouses, the user counts of the sweep and each step's timing;
    the hint under the users says how many steps they make and how long the sweep takes."""

    def __init__(self) -> None:
        super().__init__("Workload")
        self.fields = PlanFields()
        form = styled_form(self)
        self.name_edit = QLineEdit()
        add_row(form, "Run name", self.fields.cell("name", self.name_edit))
        self.warehouses_spin = QSpinBox()
        # 0 is allowed in the box so the plan's own validation can say why it is wrong.
        self.warehouses_spin.setRange(0, 100_000)
        add_row(form, "Warehouses", self.fields.cell("workload.warehouses", self.warehouses_spin))
        self.vus_edit = QLineEdit()
        self.vus_edit.setPlaceholderText("8,16,24  or  8-64/8")
        self.vus_edit.textChanged.connect(self._check_vus)
        add_row(
            form,
            "Virtual users",
            self.fields.cell("workload.virtual_users", self.vus_edit, VU_HINT),
        )
        self.vu_hint = self.fields.hints["workload.virtual_users"]
        self.rampup_spin = _seconds_spin()
        self.rampup_spin.valueChanged.connect(self._update_vu_hint)
        add_row(form, "Ramp-up", self.fields.cell("workload.rampup_s", self.rampup_spin))
        self.duration_spin = _seconds_spin()
        self.duration_spin.valueChanged.connect(self._update_vu_hint)
        add_row(
            form,
            "Measured window",
            self.fields.cell("workload.duration_s", self.duration_spin, "Per step, after ramp-up."),
        )

    def set_plan(self, plan: Plan) -> None:
        wl = plan.workload
        self.name_edit.setText(plan.name)
        self.warehouses_spin.setValue(wl.warehouses)
        self.vus_edit.setText(",".join(str(v) for v in wl.virtual_users))
        self.rampup_spin.setValue(wl.rampup_s)
        self.duration_spin.setValue(wl.duration_s)

    def fill(self, data: dict[str, Any]) -> None:
        data["name"] = self.name_edit.text().strip()
        wl = data["workload"]
        wl["warehouses"] = self.warehouses_spin.value()
        wl["virtual_users"] = self.vus_edit.text()
        wl["rampup_s"] = self.rampup_spin.value()
        wl["duration_s"] = self.duration_spin.value()

    def _check_vus(self, text: str) -> None:
        """The user list is checked as it is typed."""
        try:
            parse_vu_list(text)
        except ValueError as exc:
            reason = f"Virtual users {exc}" if str(exc) == "is empty" else str(exc)
            self.fields.set_error("workload.virtual_users", reason)
        else:
            self.fields.set_error("workload.virtual_users", "")
        self._update_vu_hint()

    def _update_vu_hint(self) -> None:
        """Under the user list: the steps it makes and how long the sweep will take."""
        try:
            users = parse_vu_list(self.vus_edit.text())
        except ValueError:
            self.vu_hint.setText(VU_HINT)
            return
        shown = ", ".join(str(u) for u in users[:12]) + (" …" if len(users) > 12 else "")
        steps = "1 step" if len(users) == 1 else f"{len(users)} steps"
        total = len(users) * (self.rampup_spin.value() + self.duration_spin.value())
        self.vu_hint.setText(f"{steps}: {shown} users  ·  about {duration_words(total)}")


class OptionsSection(QGroupBox):
    """How the sweep runs: all warehouses, keying and thinking time, a reset between steps,
    and when the schema is built."""

    def __init__(self) -> None:
        super().__init__("Options")
        self.fields = PlanFields()
        form = styled_form(self)
        self.all_warehouses_check = QCheckBox("Use all warehouses")
        form.addRow(self.fields.cell("workload.all_warehouses", self.all_warehouses_check))
        self.keying_check = QCheckBox("Keying and thinking time")
        form.addRow(self.fields.cell("workload.keying_thinking", self.keying_check))
        self.reset_check = QCheckBox("Reset the database between steps (from a template)")
        form.addRow(self.fields.cell("workload.reset_between_steps", self.reset_check))
        self.build_combo = QComboBox()
        for mode in BUILD_MODES:
            self.build_combo.addItem(BUILD_MODE_LABELS.get(mode, mode), mode)
        add_row(form, "Build mode", self.fields.cell("workload.build", self.build_combo))

    def set_plan(self, plan: Plan) -> None:
        wl = plan.workload
        self.all_warehouses_check.setChecked(wl.all_warehouses)
        self.keying_check.setChecked(wl.keying_thinking)
        self.reset_check.setChecked(wl.reset_between_steps)
        self.build_combo.setCurrentIndex(max(0, self.build_combo.findData(wl.build)))

    def fill(self, data: dict[str, Any]) -> None:
        wl = data["workload"]
        wl["all_warehouses"] = self.all_warehouses_check.isChecked()
        wl["keying_thinking"] = self.keying_check.isChecked()
        wl["reset_between_steps"] = self.reset_check.isChecked()
        wl["build"] = self.build_combo.currentData()
