"""Plan fields in a form: the input, a hint line under it and an error line, found by the plan
field's name (``target.host``, ``power.options.host``), so that every problem a
:class:`~bench_gui.core.plan.PlanError` names is shown next to the field it is about.

The Workload page and its power section build their forms with these, so both look and
report alike.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QLabel, QVBoxLayout, QWidget

from bench_gui.gui.widgets.page_parts import ErrorLine, set_prop


def style_form(form: QFormLayout) -> None:
    """Labels right-aligned at the top of their field, fields as wide as the form."""
    form.setHorizontalSpacing(16)
    form.setVerticalSpacing(10)
    form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
    form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)


def styled_form(parent: QWidget) -> QFormLayout:
    """A form laid out on ``parent`` (a group box), styled as :func:`style_form` says."""
    form = QFormLayout(parent)
    style_form(form)
    return form


def add_row(form: QFormLayout, text: str, field: QWidget) -> None:
    """A form row whose label lines up with the field's first line."""
    label = QLabel(text)
    label.setObjectName("formLabel")
    label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
    form.addRow(label, field)


class PlanFields:
    """The inputs, hints and error lines of a form's plan fields, by plan field name."""

    def __init__(self) -> None:
        self.errors: dict[str, ErrorLine] = {}
        self.inputs: dict[str, QWidget] = {}
        self.hints: dict[str, QLabel] = {}

    def cell(self, name: str, widget: QWidget, hint: str = "") -> QWidget:
        """A form cell for plan field ``name``: the input, then a hint line (if any) and an
        error line (hidden while empty)."""
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
            self.hints[name] = hint_label
        error = ErrorLine()
        layout.addWidget(error)
        self.errors[name] = error
        self.inputs[name] = widget
        return box

    def include(self, other: PlanFields) -> None:
        """Take the fields of a section built on its own (they report through this set)."""
        self.errors.update(other.errors)
        self.inputs.update(other.inputs)
        self.hints.update(other.hints)

    def set_error(self, name: str, text: str) -> None:
        """One field's error ("" clears it); the input is marked invalid while it has one."""
        self.errors[name].show_error(text)
        widget = self.inputs[name]
        if bool(widget.property("invalid")) != bool(text):
            set_prop(widget, "invalid", bool(text))

    def clear(self) -> None:
        for name in self.errors:
            self.set_error(name, "")

    def add_problem(self, name: str, reason: str) -> bool:
        """Add a reason to a field's error; False when no field has that name."""
        error = self.errors.get(name)
        if error is None:
            return False
        text = error.text()
        self.set_error(name, reason if not text else f"{text}; {reason}")
        return True
