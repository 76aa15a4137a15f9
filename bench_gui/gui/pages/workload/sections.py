"""The Workload page's plan sections: the workload's kind and its sweep (the target is
:mod:`.target_section`; each workload's own section is its kit's ``plan_form``: TPROC-C's
options :mod:`bench_gui.workloads.tproc_c.plan_form`, the random-read study
:mod:`bench_gui.workloads.random_read.plan_form`).

Each section shows its part of a :class:`Plan` (``set_plan``) and writes it back into the
plan's dictionary (``fill``); ``fields`` holds its inputs and error lines by plan field name.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QGroupBox,
    QLineEdit,
    QSpinBox,
)

from bench_gui.core.plan_checks import parse_vu_list
from bench_gui.core.plan_model import Plan
from bench_gui.gui.widgets.page_parts import compact_combo
from bench_gui.gui.widgets.plan_fields import PlanFields, add_row, styled_form
from bench_gui.workloads.base import DEFAULT_WORKLOAD, kit_for, kits

VU_HINT = "One sweep step per user count: a list (8,16,24) or a range (8-64/8)."


def default_name(kind: str) -> str:
    """A new plan's run name for a workload kind (its kit's, else a plan's own)."""
    return kit_for(kind).default_name or Plan().name


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


def seconds_spin() -> QDoubleSpinBox:
    spin = QDoubleSpinBox()
    spin.setRange(0, 86_400)
    spin.setDecimals(0)
    spin.setSuffix(" s")
    return spin


class SweepSection(QGroupBox):
    """The run's name, the workload's kind, and TPROC-C's sweep: the warehouses, the user
    counts of the sweep and each step's timing; the hint under the users says how many steps
    they make and how long the sweep takes.

    Signals:
        kind_changed(str): the user chose another workload kind.
    """

    kind_changed = Signal(str)

    def __init__(self) -> None:
        super().__init__("Workload")
        self.fields = PlanFields()
        self.form = form = styled_form(self)
        self.name_edit = QLineEdit()
        add_row(form, "Run name", self.fields.cell("name", self.name_edit))
        self.kind_combo = compact_combo(QComboBox())
        for kit in kits():
            self.kind_combo.addItem(kit.choice_label or kit.label, kit.name)
        self.kind_combo.currentIndexChanged.connect(self._kind_chosen)
        add_row(form, "Kind", self.fields.cell("workload.kind", self.kind_combo))
        self._shown_kind = DEFAULT_WORKLOAD
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
        self.rampup_spin = seconds_spin()
        self.rampup_spin.valueChanged.connect(self._update_vu_hint)
        add_row(form, "Ramp-up", self.fields.cell("workload.rampup_s", self.rampup_spin))
        self.duration_spin = seconds_spin()
        self.duration_spin.valueChanged.connect(self._update_vu_hint)
        add_row(
            form,
            "Measured window",
            self.fields.cell("workload.duration_s", self.duration_spin, "Per step, after ramp-up."),
        )
        # The sweep's rows, by their [workload] field: shown for a kind whose kit owns them.
        self.sweep_rows = {
            "warehouses": self.warehouses_spin,
            "virtual_users": self.vus_edit,
            "rampup_s": self.rampup_spin,
            "duration_s": self.duration_spin,
        }

    @property
    def workload_kind(self) -> str:
        return str(self.kind_combo.currentData() or DEFAULT_WORKLOAD)

    def _kind_chosen(self) -> None:
        """The run name follows the kind while it is the other kind's default name."""
        kind = self.workload_kind
        if self.name_edit.text().strip() in ("", default_name(self._shown_kind)):
            self.name_edit.setText(default_name(kind))
        self.show_kind(kind)
        self.kind_changed.emit(kind)

    def show_kind(self, kind: str) -> None:
        """The sweep's rows that the kind's kit owns (TPROC-C's: warehouses, users...)."""
        self._shown_kind = kind
        owned = set(kit_for(kind).face("plan_fields"))
        for field, widget in self.sweep_rows.items():
            cell = widget.parentWidget()  # the field's cell: the input, its hint and error
            if cell is not None:
                self.form.setRowVisible(cell, field in owned)

    def set_plan(self, plan: Plan) -> None:
        wl = plan.workload
        self.name_edit.setText(plan.name)
        self.kind_combo.blockSignals(True)
        self.kind_combo.setCurrentIndex(max(0, self.kind_combo.findData(wl.kind)))
        self.kind_combo.blockSignals(False)
        self.show_kind(wl.kind)
        self.warehouses_spin.setValue(wl.warehouses)
        self.vus_edit.setText(",".join(str(v) for v in wl.virtual_users))
        self.rampup_spin.setValue(wl.rampup_s)
        self.duration_spin.setValue(wl.duration_s)

    def fill(self, data: dict[str, Any]) -> None:
        """The name, and the sweep's fields the kind owns (the page writes the kind)."""
        data["name"] = self.name_edit.text().strip()
        owned = set(kit_for(self.workload_kind).face("plan_fields"))
        values = {
            "warehouses": self.warehouses_spin.value(),
            "virtual_users": self.vus_edit.text(),
            "rampup_s": self.rampup_spin.value(),
            "duration_s": self.duration_spin.value(),
        }
        data["workload"].update({k: v for k, v in values.items() if k in owned})

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
        about = duration_words(total).replace(" ", "\u00a0")  # never split across lines
        self.vu_hint.setText(f"{steps}: {shown} users  ·  about\u00a0{about}")
