"""The Workload page's power and host-metrics section: meter, its options, idle baseline, devices.

The fields of each meter kind come from its options (:data:`bench_gui.core.power.METER_OPTIONS`
for the first-party meters), so a meter's form and its validation never disagree; the plan's
own validation names the field of every problem (``power.options.host``...), and the page
shows it next to that field. A BMC password is never a plan field: **Password…** puts it in
the OS keyring through the meter's plugin. **Test reading** reads the meter once from this
machine, in a background task (a BMC can take seconds), and shows the watts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from bench_gui.core.plan_model import Monitor, Plan, Power
from bench_gui.core.power import (
    METER_KINDS,
    METER_LABELS,
    METER_OPTIONS,
    SCOPE_CPU,
    OptionSpec,
    default_options,
    get_meter_kind,
)
from bench_gui.gui.tasks import TaskRunner
from bench_gui.gui.widgets.plan_fields import PlanFields, add_row, style_form
from bench_gui.wire.power_math import MeterError
from bench_gui.workloads.base import DEFAULT_WORKLOAD, kit_for, kits

# What a meter that cannot be read raises (anything else is a bug, for the error notifier).
READING_ERRORS = (MeterError, LookupError, ValueError, OSError)
SCOPE_NOTES = {
    "none": "No power is measured. Host metrics (CPU, memory, disks) are sampled anyway.",
    "ipmi": "System power from the BMC (DCMI). Readings the BMC marks deactivated are rejected.",
    "redfish": "System power from the BMC over HTTPS: EnvironmentMetrics, else the legacy"
    " Power resource.",
    "rapl": "CPU package (+ DRAM) power from the RAPL counters of the database host:"
    " not wall power.",
    "csv": "A power log another program writes on the agent's host (time and watts columns).",
}

# Whose RAPL counters SCOPE_NOTES names: a workload kit's host_noun replaces it (the agent's host
# runs fio itself in a random-read study).
RAPL_HOST = "the database host"


class PowerOptions(QGroupBox):
    """Power meter and host metrics of a plan.

    ``fields`` holds the input and error line of every plan field (``power.meter``,
    ``power.options.host``, ``monitor.devices``...), for the page to show validation problems
    where they belong.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Power and host metrics", parent)
        self.fields = PlanFields()
        self.option_widgets: dict[str, dict[str, QWidget]] = {}
        self._workload_kind = DEFAULT_WORKLOAD
        self.reader = TaskRunner(self, expected=READING_ERRORS, where="the meter's test reading")

        outer = QHBoxLayout(self)
        outer.setSpacing(24)
        left = QFormLayout()
        style_form(left)
        self.meter_combo = QComboBox()
        for kind in METER_KINDS:
            self.meter_combo.addItem(METER_LABELS.get(kind, kind), kind)
        self.meter_combo.currentIndexChanged.connect(self._meter_changed)
        add_row(left, "Power meter", self.fields.cell("power.meter", self.meter_combo))
        self.scope_note = QLabel("")
        self.scope_note.setObjectName("fieldHint")
        self.scope_note.setWordWrap(True)
        left.addRow("", self.scope_note)

        # One options page per meter kind; only the chosen one is shown (hidden pages take no
        # room, unlike a stacked widget's, which is as tall as its tallest page).
        self.stack = QWidget()
        pages = QVBoxLayout(self.stack)
        pages.setContentsMargins(0, 0, 0, 0)
        self.pages: list[QWidget] = []
        for kind in METER_KINDS:
            options_page = self._options_page(kind)
            self.pages.append(options_page)
            pages.addWidget(options_page)
        left.addRow(self.stack)

        buttons = QHBoxLayout()
        buttons.setSpacing(10)
        self.password_button = QPushButton("Password…")
        self.password_button.setToolTip("Store the BMC password in the OS keyring")
        self.password_button.clicked.connect(self.ask_password)
        self.test_button = QPushButton("Test reading")
        self.test_button.setToolTip("Read the meter once from this machine")
        self.test_button.clicked.connect(self.test_reading)
        buttons.addWidget(self.password_button)
        buttons.addWidget(self.test_button)
        buttons.addStretch(1)
        left.addRow("", buttons)
        self.reading_label = QLabel("")
        self.reading_label.setObjectName("muted")
        self.reading_label.setWordWrap(True)
        left.addRow("", self.reading_label)
        outer.addLayout(left, 3)

        right = QFormLayout()
        style_form(right)
        self.idle_spin = QDoubleSpinBox()
        self.idle_spin.setRange(0, 3600)
        self.idle_spin.setDecimals(0)
        self.idle_spin.setSuffix(" s")
        add_row(
            right,
            "Idle baseline",
            self.fields.cell("power.idle_s", self.idle_spin, "Power with no load, before step 1."),
        )
        self.interval_spin = QDoubleSpinBox()
        self.interval_spin.setRange(0, 10)
        self.interval_spin.setDecimals(1)
        self.interval_spin.setSingleStep(0.5)
        self.interval_spin.setSuffix(" s")
        add_row(right, "Reading every", self.fields.cell("power.interval_s", self.interval_spin))
        self.monitor_check = QCheckBox("Sample CPU, memory and disks every second")
        right.addRow("", self.fields.cell("monitor.enabled", self.monitor_check))
        self.devices_edit = QLineEdit()
        first = kit_for(self._workload_kind)
        self.devices_edit.setPlaceholderText(first.devices_words)
        add_row(
            right,
            "Block devices",
            self.fields.cell("monitor.devices", self.devices_edit, first.devices_hint),
        )
        self.monitor_check.toggled.connect(self.devices_edit.setEnabled)
        outer.addLayout(right, 2)
        self._meter_changed()

    # ---- construction --------------------------------------------------------------------

    def _options_page(self, kind: str) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        form.setContentsMargins(0, 0, 0, 0)
        style_form(form)
        widgets: dict[str, QWidget] = {}
        for spec in METER_OPTIONS.get(kind, ()):
            widget = self._option_widget(spec)
            widgets[spec.name] = widget
            name = f"power.options.{spec.name}"
            if spec.type == "bool":
                form.addRow("", self.fields.cell(name, widget, spec.help))
            else:
                add_row(form, spec.label, self.fields.cell(name, widget, spec.help))
        self.option_widgets[kind] = widgets
        return page

    @staticmethod
    def _option_widget(spec: OptionSpec) -> QWidget:
        if spec.type == "bool":
            box = QCheckBox(spec.label)
            box.setChecked(bool(spec.default))
            return box
        if spec.type == "choice":
            combo = QComboBox()
            for choice in spec.choices:
                combo.addItem(choice, choice)
            return combo
        if spec.type == "int":
            spin = QSpinBox()
            spin.setRange(int(max(spec.low, -(2**31))), int(min(spec.high, 2**31 - 1)))
            return spin
        if spec.type == "float":
            dspin = QDoubleSpinBox()
            dspin.setRange(0.0, 1e6)
            dspin.setDecimals(1)
            return dspin
        edit = QLineEdit()
        if spec.default:
            edit.setPlaceholderText(str(spec.default))
        return edit

    # ---- plan <-> fields -----------------------------------------------------------------

    @property
    def meter(self) -> str:
        return str(self.meter_combo.currentData() or "none")

    def set_plan(self, plan: Plan) -> None:
        power, monitor = plan.power, plan.monitor
        index = self.meter_combo.findData(power.meter)
        if index < 0:  # a third-party meter: listed so that saving keeps it
            self.meter_combo.addItem(power.meter, power.meter)
            index = self.meter_combo.count() - 1
        self.meter_combo.setCurrentIndex(index)
        for kind in self.option_widgets:
            values = {**default_options(kind), **(power.options if kind == power.meter else {})}
            self._set_options(kind, values)
        self.idle_spin.setValue(power.idle_s)
        self.interval_spin.setValue(power.interval_s)
        self.monitor_check.setChecked(monitor.enabled)
        self.devices_edit.setText(", ".join(monitor.devices))
        self.devices_edit.setEnabled(monitor.enabled)
        self.reading_label.clear()

    def _set_options(self, kind: str, values: Mapping[str, Any]) -> None:
        for name, widget in self.option_widgets[kind].items():
            value = values.get(name)
            if isinstance(widget, QCheckBox):
                widget.setChecked(bool(value))
            elif isinstance(widget, QComboBox):
                widget.setCurrentIndex(max(0, widget.findData(value)))
            elif isinstance(widget, QSpinBox):
                widget.setValue(int(value) if isinstance(value, int | float) else 0)
            elif isinstance(widget, QDoubleSpinBox):
                widget.setValue(float(value) if isinstance(value, int | float) else 0.0)
            elif isinstance(widget, QLineEdit):
                widget.setText("" if value is None else str(value))

    def options(self, kind: str | None = None) -> dict[str, Any]:
        """The option fields of a meter kind (default: the chosen one) as plan values."""
        kind = kind or self.meter
        values: dict[str, Any] = {}
        for name, widget in self.option_widgets.get(kind, {}).items():
            if isinstance(widget, QCheckBox):
                values[name] = widget.isChecked()
            elif isinstance(widget, QComboBox):
                values[name] = widget.currentData()
            elif isinstance(widget, QSpinBox | QDoubleSpinBox):
                values[name] = widget.value()
            elif isinstance(widget, QLineEdit):
                values[name] = widget.text().strip()
        return values

    def fill(self, data: dict[str, Any]) -> None:
        """Write the fields into a plan dictionary (``power`` and ``monitor``)."""
        meter = self.meter
        power = data.setdefault("power", {})
        power["meter"] = meter
        if meter in self.option_widgets:
            power["options"] = self.options(meter) if meter != "none" else {}
        power["idle_s"] = self.idle_spin.value()
        power["interval_s"] = self.interval_spin.value()
        monitor = data.setdefault("monitor", {})
        monitor["enabled"] = self.monitor_check.isChecked()
        monitor["devices"] = [
            d for d in self.devices_edit.text().replace(",", " ").split() if d.strip()
        ]

    def plan_power(self) -> Power:
        return Power(self.meter, self.options(), self.idle_spin.value(), self.interval_spin.value())

    def plan_monitor(self) -> Monitor:
        data: dict[str, Any] = {}
        self.fill(data)
        return Monitor(**data["monitor"])

    # ---- behaviour -----------------------------------------------------------------------

    def set_workload_kind(self, kind: str) -> None:
        """Words for the kind's own host and data (a study has a data file, not a database)."""
        self._workload_kind = kind if kind in {k.name for k in kits()} else DEFAULT_WORKLOAD
        kit = kit_for(self._workload_kind)
        self.devices_edit.setPlaceholderText(kit.devices_words)
        self.fields.hints["monitor.devices"].setText(kit.devices_hint)
        self._meter_changed()

    def _meter_changed(self) -> None:
        meter = self.meter
        index = METER_KINDS.index(meter) if meter in METER_KINDS else 0
        for i, options_page in enumerate(self.pages):
            options_page.setVisible(i == index)
        self.stack.setVisible(meter != "none" and meter in METER_KINDS)
        note = SCOPE_NOTES.get(meter, "A meter from a plugin.")
        host = kit_for(self._workload_kind).host_noun
        self.scope_note.setText(note.replace(RAPL_HOST, host))
        self.scope_note.setProperty("scope", "cpu" if meter == "rapl" else "")
        has_meter = meter != "none"
        self.idle_spin.setEnabled(has_meter)
        self.interval_spin.setEnabled(has_meter)
        self.password_button.setVisible(meter in ("ipmi", "redfish"))
        self.test_button.setEnabled(has_meter)
        self.reading_label.clear()

    def ask_password(self) -> None:
        """Ask for the BMC password and keep it in the OS keyring (never in the plan)."""
        options = self.options()
        user, host = str(options.get("user") or ""), str(options.get("host") or "")
        if not user or not host:
            self.reading_label.setText("Give the BMC address and user first.")
            return
        password, ok = QInputDialog.getText(
            self,
            "BMC password",
            f"Password of {user}@{host} (kept in the OS keyring):",
            QLineEdit.EchoMode.Password,
        )
        if ok and password:
            self.store_password(password)

    def store_password(self, password: str) -> bool:
        options = self.options()
        try:
            kind = get_meter_kind(self.meter)
            store = getattr(kind, "store_password", None)
            if store is None:
                raise ValueError(f"the {self.meter} meter keeps no password")
            store(options, password)
        except (LookupError, ValueError) as exc:
            self.reading_label.setText(str(exc))
            return False
        self.reading_label.setText(
            f"Password of {options.get('user')}@{options.get('host')} stored in the OS keyring."
        )
        return True

    def test_reading(self) -> None:
        """Read the meter once from this machine, in a background task."""
        meter, options = self.meter, self.options()
        self.test_button.setEnabled(False)
        self.reading_label.setText("Reading…")

        def read() -> str:
            kind = get_meter_kind(meter)
            reader = kind.open(options)
            try:
                reading = reader.read()
            finally:
                close = getattr(reader, "close", None)
                if close is not None:
                    close()
            if reading is None:
                return "The meter gave no reading."
            what = "CPU package + DRAM" if kind.scope == SCOPE_CPU else "system"
            return f"{reading.watts:,.1f} W ({what}, read from this machine)"

        def failed(_what: str, message: str, _details: str) -> None:
            self._show_reading(f"No reading: {message}")

        self.reader.start("reading", read, self._show_reading, failed)

    def _show_reading(self, text: str) -> None:
        self.reading_label.setText(text)
        self.test_button.setEnabled(self.meter != "none")
