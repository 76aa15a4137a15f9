"""TPROC-C's section of the Workload page (the kit's ``plan_form``): all warehouses, keying
and thinking time, a reset between steps, when the schema is built, and whose transactions
run (the profile)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QCheckBox, QComboBox, QGroupBox

from bench_gui.core.plan_model import BUILD_MODES, PROFILES, Plan
from bench_gui.gui.widgets.plan_fields import PlanFields, add_row, styled_form

BUILD_MODE_LABELS = {
    "if_missing": "Build if missing",
    "always": "Always rebuild",
    "never": "Never build (use existing)",
}

# The transaction profiles, as the form names them (docs/profiles.md).
PROFILE_LABELS = {
    "spec": "Spec (TPC-C as written)",
    "hammerdb": "HammerDB 6.0's transactions (to compare with HammerDB)",
}


class OptionsSection(QGroupBox):
    """How the sweep runs: all warehouses, keying and thinking time, a reset between steps,
    when the schema is built, and whose transactions run (the profile)."""

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
        self.profile_combo = QComboBox()
        for profile in PROFILES:
            self.profile_combo.addItem(PROFILE_LABELS.get(profile, profile), profile)
        add_row(form, "Transactions", self.fields.cell("workload.profile", self.profile_combo))

    def set_plan(self, plan: Plan) -> None:
        wl = plan.workload
        self.profile_combo.setCurrentIndex(max(0, self.profile_combo.findData(wl.profile)))
        self.all_warehouses_check.setChecked(wl.all_warehouses)
        self.keying_check.setChecked(wl.keying_thinking)
        self.reset_check.setChecked(wl.reset_between_steps)
        self.build_combo.setCurrentIndex(max(0, self.build_combo.findData(wl.build)))

    def problems(self) -> list[tuple[str, str]]:
        """Nothing the plan's own checks do not see (the kit form's contract)."""
        return []

    def fill(self, data: dict[str, Any]) -> None:
        wl = data["workload"]
        wl["all_warehouses"] = self.all_warehouses_check.isChecked()
        wl["keying_thinking"] = self.keying_check.isChecked()
        wl["reset_between_steps"] = self.reset_check.isChecked()
        wl["build"] = self.build_combo.currentData()
        wl["profile"] = self.profile_combo.currentData()
