"""The Workload page's ``[os]`` section: kernel knobs applied for the run (a preset and
``KEY = VALUE`` lines over it), on which host and for which data devices; rolled back when the
run ends."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QComboBox, QGroupBox, QLineEdit, QPlainTextEdit

from bench_gui.core.os_presets import BUILTIN_OS_PRESETS
from bench_gui.core.plan_model import Plan
from bench_gui.gui.widgets.plan_fields import PlanFields, add_row, styled_form
from bench_gui.workloads.base import DEFAULT_WORKLOAD, kit_for

# With several driver hosts none is the database host: the knobs' host must be named.
SEVERAL_HOSTS_PLACEHOLDER = "required with several driver hosts: the database server's target"
KNOBS_HINT = (
    "One KEY = VALUE a line, over the preset's: sysctls, read_ahead_kb, scheduler,"
    " transparent_hugepage. Applied as root before the run, rolled back after it."
)


def parse_knobs(text: str) -> dict[str, str]:
    """``KEY = VALUE`` lines (``#`` starts a comment) as a dict; the plan checks the values."""
    knobs: dict[str, str] = {}
    for line in text.splitlines():
        entry = line.split("#", 1)[0].strip()
        if entry:
            key, _sep, value = entry.partition("=")
            knobs[key.strip().strip('"')] = value.strip().strip('"')
    return knobs


class OsSection(QGroupBox):
    """The OS knobs of a plan (an empty section writes no ``os`` table)."""

    def __init__(self) -> None:
        super().__init__("OS knobs for the run")
        self.fields = PlanFields()
        form = styled_form(self)
        self.preset_combo = QComboBox()
        self.preset_combo.addItem("None", "")
        for name, preset in BUILTIN_OS_PRESETS.items():
            self.preset_combo.addItem(preset.title, name)
        add_row(form, "Preset", self.fields.cell("os.preset", self.preset_combo))
        self.knobs_edit = QPlainTextEdit()
        self.knobs_edit.setPlaceholderText("vm.dirty_ratio = 10\nread_ahead_kb = 4096")
        self.knobs_edit.setFixedHeight(72)
        add_row(form, "Knobs", self.fields.cell("os.knobs", self.knobs_edit, KNOBS_HINT))
        self.host_edit = QLineEdit()
        hint = "Empty: the driver host (name it with several); local, or an SSH target."
        add_row(form, "Host", self.fields.cell("os.host", self.host_edit, hint))
        self.data_dir_edit = QLineEdit()
        add_row(form, "Data directory", self.fields.cell("os.data_dir", self.data_dir_edit))
        self.devices_edit = QLineEdit()
        self.devices_edit.setPlaceholderText("nvme0n1, nvme1n1 (default: the data directory's)")
        add_row(form, "Data devices", self.fields.cell("os.devices", self.devices_edit))
        self._kind = DEFAULT_WORKLOAD
        self._several_hosts = False
        self.set_workload_kind(self._kind)

    def set_workload_kind(self, kind: str) -> None:
        """Placeholders that speak of the kind's own host and data (its kit's words: a
        random-read study has no database, only the host fio runs on and its file's disk)."""
        self._kind = kind
        kit = kit_for(kind)
        host = f"{kit.host_noun} (the driver host)"
        self.host_edit.setPlaceholderText(
            SEVERAL_HOSTS_PLACEHOLDER if self._several_hosts else host
        )
        self.data_dir_edit.setPlaceholderText(kit.data_dir_words)

    def set_several_hosts(self, several: bool) -> None:
        """The run is on several driver hosts: the host field says it must be filled."""
        self._several_hosts = several
        self.set_workload_kind(self._kind)

    def set_plan(self, plan: Plan) -> None:
        self.preset_combo.setCurrentIndex(max(0, self.preset_combo.findData(plan.os.preset)))
        self.knobs_edit.setPlainText("\n".join(f"{k} = {v}" for k, v in plan.os.knobs.items()))
        self.host_edit.setText(plan.os.host)
        self.data_dir_edit.setText(plan.os.data_dir)
        self.devices_edit.setText(", ".join(plan.os.devices))

    def fill(self, data: dict[str, Any]) -> None:
        """Write the ``os`` table, or none when every field is empty."""
        data.pop("os", None)
        section = {
            "preset": str(self.preset_combo.currentData() or ""),
            "knobs": parse_knobs(self.knobs_edit.toPlainText()),
            "host": self.host_edit.text().strip(),
            "data_dir": self.data_dir_edit.text().strip(),
            "devices": self.devices_edit.text(),
        }
        if any(section.values()):
            data["os"] = section
