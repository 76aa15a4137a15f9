"""The Workload page: edit a run plan, build the schema, check it, start a sweep.

Validation is the plan model's own (:func:`bench_gui.core.plan.plan_from_dict`): the page turns
its fields into the plan's dictionary, and every :class:`PlanError` problem is shown next to the
field it names. Fields the page has no widget for (admin database, SSL mode, worker counts,
notes) are kept from the loaded plan, so loading and saving never loses them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from bench_gui.agent.protocol import Event
from bench_gui.core.plan import (
    BUILD_MODES,
    Plan,
    PlanError,
    load_plan,
    parse_vu_list,
    plan_from_dict,
)
from bench_gui.core.tuning_presets import BUILTIN_OS_PRESETS
from bench_gui.gui.widgets.power_options import PowerOptions

BUILD_MODE_LABELS = {
    "if_missing": "Build if missing",
    "always": "Always rebuild",
    "never": "Never build (use existing)",
}
VU_HINT = "One sweep step per user count: a list (8,16,24) or a range (8-64/8)."
TASK_LABELS = {"build": "Building schema", "check": "Checking consistency"}
THIS_MACHINE = "This machine"
DRIVER_HINT = (
    "Where the workload agent runs (SSH targets are added on the Targets page). Host and port"
    " below are as seen from it."
)


def _set_invalid(widget: QWidget, invalid: bool) -> None:
    if bool(widget.property("invalid")) != invalid:
        widget.setProperty("invalid", invalid)
        widget.style().unpolish(widget)
        widget.style().polish(widget)


def _duration_words(seconds: float) -> str:
    """``5 min 20 s``, ``1 h 04 min``, ``45 s`` (plus setup time between steps)."""
    total = int(round(seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02d} s" if secs else f"{minutes} min"
    return f"{secs} s"


def _human_count(value: float) -> str:
    return f"{value:,.0f}"


class WorkloadPage(QWidget):
    """Edits a :class:`Plan`; asks the main window to run actions on it.

    Signals:
        start_requested(object): a valid Plan to run as a sweep.
        build_requested(object): a valid Plan whose schema should be built.
        check_requested(object): a valid Plan whose database should be checked.
        cancel_requested(): stop the build or check in progress.
    """

    start_requested = Signal(object)
    build_requested = Signal(object)
    check_requested = Signal(object)
    cancel_requested = Signal()

    def __init__(self, plan: Plan | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._base = plan or Plan()
        self.plan_path: Path | None = None
        self.field_errors: dict[str, QLabel] = {}
        self._field_widgets: dict[str, QWidget] = {}
        self._busy: str | None = None
        self._driver_before_demo = ""
        self._build_ui()
        self.set_plan(self._base)

    # ---- construction --------------------------------------------------------------------

    def _field(self, name: str, widget: QWidget, hint: str = "") -> QWidget:
        """A form cell: the input, then a hint line and an error line (hidden when empty)."""
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(widget)
        if hint:
            hint_label = QLabel(hint)
            hint_label.setObjectName("fieldHint")
            hint_label.setWordWrap(True)
            layout.addWidget(hint_label)
            if name == "workload.virtual_users":
                self.vu_hint = hint_label
        error = QLabel("")
        error.setObjectName("fieldError")
        error.setWordWrap(True)
        error.hide()
        layout.addWidget(error)
        self.field_errors[name] = error
        self._field_widgets[name] = widget
        return box

    def _build_ui(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(20, 16, 20, 12)
        outer.setSpacing(10)

        title = QLabel("Workload")
        title.setObjectName("pageTitle")
        outer.addWidget(title)
        self.subtitle = QLabel("")
        self.subtitle.setObjectName("pageSubtitle")
        outer.addWidget(self.subtitle)

        self.general_error = QLabel("")
        self.general_error.setObjectName("fieldError")
        self.general_error.setWordWrap(True)
        self.general_error.hide()
        outer.addWidget(self.general_error)

        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        content = QWidget()
        grid = QGridLayout(content)
        grid.setContentsMargins(0, 0, 8, 0)
        grid.setHorizontalSpacing(18)
        grid.setVerticalSpacing(6)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        grid.addWidget(self._target_group(), 0, 0)
        grid.addWidget(self._workload_group(), 0, 1)
        grid.addWidget(self._options_group(), 1, 0)
        grid.addWidget(self._database_group(), 1, 1)
        self.power_options = PowerOptions()
        self.field_errors.update(self.power_options.field_errors)
        self._field_widgets.update(self.power_options.field_widgets)
        grid.addWidget(self.power_options, 2, 0, 1, 2)
        grid.addWidget(self._os_group(), 3, 0, 1, 2)
        grid.setRowStretch(4, 1)
        scroll.setWidget(content)
        outer.addWidget(scroll, 1)

        actions = QHBoxLayout()
        actions.setSpacing(12)
        self.load_button = QPushButton("Load plan…")
        self.load_button.clicked.connect(self._on_load_clicked)
        self.save_button = QPushButton("Save plan…")
        self.save_button.clicked.connect(self._on_save_clicked)
        actions.addWidget(self.load_button)
        actions.addWidget(self.save_button)
        actions.addStretch(1)
        self.start_button = QPushButton("Start sweep  ▶")
        self.start_button.setProperty("role", "primary")
        self.start_button.clicked.connect(self._on_start_clicked)
        actions.addWidget(self.start_button)
        outer.addLayout(actions)

    def _form(self, title: str) -> tuple[QGroupBox, QFormLayout]:
        group = QGroupBox(title)
        form = QFormLayout(group)
        form.setHorizontalSpacing(16)
        form.setVerticalSpacing(10)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        return group, form

    @staticmethod
    def _row(form: QFormLayout, text: str, field: QWidget) -> None:
        label = QLabel(text)
        label.setObjectName("formLabel")
        label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        form.addRow(label, field)

    def _target_group(self) -> QGroupBox:
        group, form = self._form("Target")
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
        self.demo_radio.toggled.connect(self._update_target_enabled)
        self._row(form, "Database", self._field("target.kind", kinds))

        self.driver_combo = QComboBox()
        self.driver_combo.addItem(THIS_MACHINE, "")
        self._row(form, "Driver host", self._field("driver.target", self.driver_combo, DRIVER_HINT))

        self.host_edit = QLineEdit()
        self.host_edit.setPlaceholderText("db.example.com")
        self._row(form, "Host", self._field("target.host", self.host_edit))
        self.port_spin = QSpinBox()
        self.port_spin.setRange(0, 65535)
        self._row(form, "Port", self._field("target.port", self.port_spin))
        self.user_edit = QLineEdit()
        self._row(form, "User", self._field("target.user", self.user_edit))
        self.database_edit = QLineEdit()
        self._row(form, "Database name", self._field("target.database", self.database_edit))
        self.password_env_edit = QLineEdit()
        self.password_env_edit.setPlaceholderText("PGPASSWORD")
        self._row(
            form,
            "Password from",
            self._field(
                "target.password_env",
                self.password_env_edit,
                "Name of an environment variable; the password itself is never stored.",
            ),
        )
        return group

    def _workload_group(self) -> QGroupBox:
        group, form = self._form("Workload")
        self.name_edit = QLineEdit()
        self._row(form, "Run name", self._field("name", self.name_edit))
        self.warehouses_spin = QSpinBox()
        # 0 is allowed in the box so the plan's own validation can say why it is wrong.
        self.warehouses_spin.setRange(0, 100_000)
        self._row(form, "Warehouses", self._field("workload.warehouses", self.warehouses_spin))
        self.vus_edit = QLineEdit()
        self.vus_edit.setPlaceholderText("8,16,24  or  8-64/8")
        self.vus_edit.textChanged.connect(self._check_vus)
        self._row(
            form,
            "Virtual users",
            self._field(
                "workload.virtual_users",
                self.vus_edit,
                VU_HINT,
            ),
        )
        self.rampup_spin = QDoubleSpinBox()
        self.rampup_spin.setRange(0, 86_400)
        self.rampup_spin.setDecimals(0)
        self.rampup_spin.setSuffix(" s")
        self.rampup_spin.valueChanged.connect(self._update_vu_hint)
        self._row(form, "Ramp-up", self._field("workload.rampup_s", self.rampup_spin))
        self.duration_spin = QDoubleSpinBox()
        self.duration_spin.setRange(0, 86_400)
        self.duration_spin.setDecimals(0)
        self.duration_spin.setSuffix(" s")
        self.duration_spin.valueChanged.connect(self._update_vu_hint)
        self._row(
            form,
            "Measured window",
            self._field("workload.duration_s", self.duration_spin, "Per step, after ramp-up."),
        )
        return group

    def _options_group(self) -> QGroupBox:
        group, form = self._form("Options")
        self.all_warehouses_check = QCheckBox("Use all warehouses")
        form.addRow(self._field("workload.all_warehouses", self.all_warehouses_check))
        self.keying_check = QCheckBox("Keying and thinking time")
        form.addRow(self._field("workload.keying_thinking", self.keying_check))
        self.reset_check = QCheckBox("Reset the database between steps (from a template)")
        form.addRow(self._field("workload.reset_between_steps", self.reset_check))
        self.build_combo = QComboBox()
        for mode in BUILD_MODES:
            self.build_combo.addItem(BUILD_MODE_LABELS.get(mode, mode), mode)
        self._row(form, "Build mode", self._field("workload.build", self.build_combo))
        return group

    def _database_group(self) -> QGroupBox:
        group = QGroupBox("Schema")
        layout = QVBoxLayout(group)
        layout.setSpacing(10)
        buttons = QHBoxLayout()
        self.build_button = QPushButton("Build schema")
        self.build_button.clicked.connect(lambda: self._request(self.build_requested))
        self.check_button = QPushButton("Check consistency")
        self.check_button.clicked.connect(lambda: self._request(self.check_requested))
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel_requested)
        self.cancel_button.setEnabled(False)
        buttons.addWidget(self.build_button)
        buttons.addWidget(self.check_button)
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        layout.addLayout(buttons)
        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.progress.setValue(0)
        self.progress.setFormat("%p%")
        layout.addWidget(self.progress)
        self.task_status = QLabel("Build the TPROC-C schema once per target, then run sweeps.")
        self.task_status.setObjectName("muted")
        self.task_status.setWordWrap(True)
        layout.addWidget(self.task_status)
        self.check_list = QListWidget()
        self.check_list.setMinimumHeight(110)
        self.check_list.hide()
        layout.addWidget(self.check_list, 1)
        return group

    def _os_group(self) -> QGroupBox:
        """The ``[os]`` section: kernel knobs applied for the run, rolled back at its end."""
        group, form = self._form("OS knobs for the run")
        self.os_preset_combo = QComboBox()
        self.os_preset_combo.addItem("None", "")
        for name, preset in BUILTIN_OS_PRESETS.items():
            self.os_preset_combo.addItem(preset.title, name)
        self._row(form, "Preset", self._field("os.preset", self.os_preset_combo))
        self.os_knobs_edit = QPlainTextEdit()
        self.os_knobs_edit.setPlaceholderText("vm.dirty_ratio = 10\nread_ahead_kb = 4096")
        self.os_knobs_edit.setFixedHeight(72)
        self._row(
            form,
            "Knobs",
            self._field(
                "os.knobs",
                self.os_knobs_edit,
                "One KEY = VALUE a line, over the preset's: sysctls, read_ahead_kb, scheduler,"
                " transparent_hugepage. Applied as root before the run, rolled back after it.",
            ),
        )
        self.os_host_edit = QLineEdit()
        self.os_host_edit.setPlaceholderText("the database host (the driver host)")
        self._row(
            form,
            "Host",
            self._field(
                "os.host", self.os_host_edit, "Empty: the driver host; local, or an SSH target."
            ),
        )
        self.os_data_dir_edit = QLineEdit()
        self.os_data_dir_edit.setPlaceholderText("the data directory, to find its disks")
        self._row(form, "Data directory", self._field("os.data_dir", self.os_data_dir_edit))
        self.os_devices_edit = QLineEdit()
        self.os_devices_edit.setPlaceholderText("nvme0n1, nvme1n1 (default: the data directory's)")
        self._row(form, "Data devices", self._field("os.devices", self.os_devices_edit))
        return group

    def _os_fields(self) -> dict[str, Any]:
        """The OS knobs fields as the plan's ``os`` table (empty: no section)."""
        knobs: dict[str, str] = {}
        for line in self.os_knobs_edit.toPlainText().splitlines():
            text = line.split("#", 1)[0].strip()
            if text:
                key, _sep, value = text.partition("=")
                knobs[key.strip().strip('"')] = value.strip().strip('"')
        section = {
            "preset": str(self.os_preset_combo.currentData() or ""),
            "knobs": knobs,
            "host": self.os_host_edit.text().strip(),
            "data_dir": self.os_data_dir_edit.text().strip(),
            "devices": self.os_devices_edit.text(),
        }
        return section if any(section.values()) else {}

    # ---- plan <-> fields -----------------------------------------------------------------

    def set_plan(self, plan: Plan) -> None:
        """Show a plan in the fields (and keep it as the base for fields without a widget)."""
        self._base = plan
        target, wl = plan.target, plan.workload
        self.name_edit.setText(plan.name)
        (self.pg_radio if target.kind == "postgresql" else self.demo_radio).setChecked(True)
        self.host_edit.setText(target.host)
        self.port_spin.setValue(target.port)
        self.user_edit.setText(target.user)
        self.database_edit.setText(target.database)
        self.password_env_edit.setText(target.password_env)
        self.warehouses_spin.setValue(wl.warehouses)
        self.vus_edit.setText(",".join(str(v) for v in wl.virtual_users))
        self.rampup_spin.setValue(wl.rampup_s)
        self.duration_spin.setValue(wl.duration_s)
        self.all_warehouses_check.setChecked(wl.all_warehouses)
        self.keying_check.setChecked(wl.keying_thinking)
        self.reset_check.setChecked(wl.reset_between_steps)
        index = self.build_combo.findData(wl.build)
        self.build_combo.setCurrentIndex(max(0, index))
        self._driver_before_demo = ""
        self._select_driver(plan.driver.target)
        self.power_options.set_plan(plan)
        index = self.os_preset_combo.findData(plan.os.preset)
        self.os_preset_combo.setCurrentIndex(max(0, index))
        self.os_knobs_edit.setPlainText("\n".join(f"{k} = {v}" for k, v in plan.os.knobs.items()))
        self.os_host_edit.setText(plan.os.host)
        self.os_data_dir_edit.setText(plan.os.data_dir)
        self.os_devices_edit.setText(", ".join(plan.os.devices))
        self._update_target_enabled()
        self.clear_errors()
        self._update_subtitle()

    def plan_data(self) -> dict[str, Any]:
        """The fields as a plan dictionary (not validated)."""
        data = self._base.to_dict()
        data["name"] = self.name_edit.text().strip()
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
        wl = data["workload"]
        wl["warehouses"] = self.warehouses_spin.value()
        wl["virtual_users"] = self.vus_edit.text()
        wl["rampup_s"] = self.rampup_spin.value()
        wl["duration_s"] = self.duration_spin.value()
        wl["all_warehouses"] = self.all_warehouses_check.isChecked()
        wl["keying_thinking"] = self.keying_check.isChecked()
        wl["reset_between_steps"] = self.reset_check.isChecked()
        wl["build"] = self.build_combo.currentData()
        self.power_options.fill(data)
        data.pop("os", None)
        section = self._os_fields()
        if section:
            data["os"] = section
        return data

    def current_plan(self) -> Plan | None:
        """The plan in the fields if it is valid (no error shown), else None."""
        try:
            return plan_from_dict(self.plan_data())
        except PlanError:
            return None

    def set_driver_targets(self, names: list[str]) -> None:
        """The saved SSH targets the agent can run on; the current choice is kept."""
        current = str(self.driver_combo.currentData() or "")
        self.driver_combo.blockSignals(True)
        self.driver_combo.clear()
        self.driver_combo.addItem(THIS_MACHINE, "")
        for name in names:
            self.driver_combo.addItem(name, name)
        self.driver_combo.blockSignals(False)
        self._select_driver(current)

    def _select_driver(self, name: str) -> None:
        index = self.driver_combo.findData(name)
        if index < 0:
            # A plan naming a target this machine has not saved: kept, and marked as such.
            self.driver_combo.addItem(f"{name} (not saved)", name)
            index = self.driver_combo.count() - 1
        self.driver_combo.setCurrentIndex(index)

    def validated_plan(self) -> Plan | None:
        """The plan in the fields, or None with every problem shown next to its field."""
        self.clear_errors()
        try:
            plan = plan_from_dict(self.plan_data())
        except PlanError as exc:
            self.show_problems(exc.problems)
            return None
        return plan

    def clear_errors(self) -> None:
        for name, label in self.field_errors.items():
            label.clear()
            label.hide()
            _set_invalid(self._field_widgets[name], False)
        self.general_error.clear()
        self.general_error.hide()

    def show_problems(self, problems: list[tuple[str, str]]) -> None:
        """Show (field, reason) pairs: next to the field, or on top for fields without one."""
        general: list[str] = []
        for name, reason in problems:
            if name.startswith("os.knobs."):  # one knob of the knobs box: shown under it
                name, reason = "os.knobs", f"{name.removeprefix('os.knobs.')}: {reason}"
            label = self.field_errors.get(name)
            if label is None:
                general.append(f"{name}: {reason}")
                continue
            text = reason if not label.text() else f"{label.text()}; {reason}"
            label.setText(text)
            label.show()
            _set_invalid(self._field_widgets[name], True)
        if general:
            self.general_error.setText("\n".join(general))
            self.general_error.show()

    def field_error(self, name: str) -> str:
        """The error shown for a field ('' if none)."""
        label = self.field_errors[name]
        return label.text() if label.isVisibleTo(self) else ""

    def _check_vus(self, text: str) -> None:
        label = self.field_errors["workload.virtual_users"]
        try:
            parse_vu_list(text)
        except ValueError as exc:
            label.setText(f"Virtual users {exc}" if str(exc) == "is empty" else str(exc))
            label.show()
            _set_invalid(self.vus_edit, True)
        else:
            label.clear()
            label.hide()
            _set_invalid(self.vus_edit, False)
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
        self.vu_hint.setText(f"{steps}: {shown} users  ·  about {_duration_words(total)}")

    def _update_target_enabled(self) -> None:
        server = self.pg_radio.isChecked()
        for widget in (self.host_edit, self.port_spin, self.user_edit, self.password_env_edit):
            widget.setEnabled(server)
        # The embedded demo runs on this machine only: the choice is kept for a server target.
        self.driver_combo.setEnabled(server)
        if not server and self.driver_combo.currentIndex() != 0:
            self._driver_before_demo = str(self.driver_combo.currentData() or "")
            self.driver_combo.setCurrentIndex(0)
        elif server and self._driver_before_demo:
            self._select_driver(self._driver_before_demo)
            self._driver_before_demo = ""

    def _update_subtitle(self) -> None:
        where = f"Plan file: {self.plan_path}" if self.plan_path else "Unsaved plan"
        self.subtitle.setText(f"TPROC-C sweep plan  ·  {where}")

    # ---- files ---------------------------------------------------------------------------

    def load_plan_file(self, path: Path) -> bool:
        """Load a TOML plan into the fields; problems are shown and the fields are kept."""
        try:
            plan = load_plan(Path(path))
        except PlanError as exc:
            self.clear_errors()
            lines = "\n".join(f"• {name}: {reason}" for name, reason in exc.problems)
            self.general_error.setText(f"Cannot load {path}:\n{lines}")
            self.general_error.show()
            return False
        self.plan_path = Path(path)
        self.set_plan(plan)
        return True

    def save_plan_file(self, path: Path) -> bool:
        """Validate the fields and write them as a TOML plan; False (errors shown) if invalid."""
        plan = self.validated_plan()
        if plan is None:
            return False
        try:
            plan.save(Path(path))
        except OSError as exc:
            self.general_error.setText(f"Cannot save {path}: {exc.strerror or exc}")
            self.general_error.show()
            return False
        self._base = plan
        self.plan_path = Path(path)
        self._update_subtitle()
        return True

    def _dialog_dir(self) -> str:
        return str(self.plan_path.parent) if self.plan_path else str(Path.home())

    def _on_load_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Load plan", self._dialog_dir(), "Plans (*.toml);;All files (*)"
        )
        if path:
            self.load_plan_file(Path(path))

    def _on_save_clicked(self) -> None:
        if self.validated_plan() is None:
            return
        start = (
            str(self.plan_path) if self.plan_path else str(Path(self._dialog_dir()) / "plan.toml")
        )
        path, _ = QFileDialog.getSaveFileName(self, "Save plan", start, "Plans (*.toml)")
        if path:
            if not path.endswith(".toml"):
                path += ".toml"
            self.save_plan_file(Path(path))

    # ---- actions -------------------------------------------------------------------------

    def _request(self, signal: Any) -> None:
        if self._busy:
            return
        plan = self.validated_plan()
        if plan is not None:
            signal.emit(plan)

    def _on_start_clicked(self) -> None:
        self._request(self.start_requested)

    def set_busy(self, action: str | None) -> None:
        """Disable the actions while a run, build or check is going on (``None``: idle)."""
        self._busy = action
        idle = action is None
        for button in (self.build_button, self.check_button, self.start_button):
            button.setEnabled(idle)
        self.load_button.setEnabled(idle)
        self.cancel_button.setEnabled(action in TASK_LABELS)
        if action in TASK_LABELS:
            self.progress.setRange(0, 0)  # busy until the first progress event
            self.task_status.setText(f"{TASK_LABELS[action]}…")
            if action == "check":
                self.check_list.clear()
                self.check_list.show()

    def task_event(self, event: Event) -> None:
        """A build or check event: progress, a log line, the check summary."""
        if event.kind == "progress":
            total = event.get("total")
            done = event.get("done")
            unit = str(event.get("unit") or "")
            parts = [str(event.get("stage") or event.get("task") or "")]
            if isinstance(total, int | float) and total > 0 and isinstance(done, int | float):
                self.progress.setRange(0, 1000)
                self.progress.setValue(int(1000 * min(1.0, done / total)))
                parts.append(f"{_human_count(done)} of {_human_count(total)} {unit}".strip())
            rate = event.get("rate")
            if isinstance(rate, int | float) and rate > 0:
                parts.append(f"{_human_count(rate)} {unit}/s".strip())
            message = event.get("message")
            if message:
                parts.append(str(message))
            self.task_status.setText("  ·  ".join(p for p in parts if p))
        elif event.kind == "log":
            message = str(event.get("message") or "")
            if message:
                self.task_status.setText(message)
        elif event.kind == "error":
            self.task_status.setText(f"Error: {event.get('message')}")
        elif event.kind == "summary":
            checks = event.get("checks")
            if isinstance(checks, list):
                self.show_checks(checks)

    def show_checks(self, checks: list[dict[str, Any]]) -> None:
        self.check_list.clear()
        self.check_list.show()
        for check in checks:
            ok = bool(check.get("ok"))
            detail = str(check.get("detail") or "")
            text = f"{'✔' if ok else '✘'}  {check.get('name', '?')}"
            if detail:
                text += f" — {detail}"
            item = QListWidgetItem(text)
            item.setForeground(QColor("#42be65" if ok else "#ff6b74"))
            self.check_list.addItem(item)

    def task_finished(self, action: str, status: str) -> None:
        self.progress.setRange(0, 1000)
        if status == "ok":
            self.progress.setValue(1000)
        label = TASK_LABELS.get(action, action)
        outcome = {"ok": "done", "stopped": "cancelled"}.get(status, status)
        if action == "check" and self.check_list.count():
            failed = sum(
                1 for i in range(self.check_list.count()) if "✘" in self.check_list.item(i).text()
            )
            outcome = "all checks passed" if not failed else f"{failed} check(s) failed"
        self.task_status.setText(f"{label}: {outcome}.")

    def task_failed(self, action: str, message: str) -> None:
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.task_status.setText(f"{TASK_LABELS.get(action, action)} failed: {message}")
