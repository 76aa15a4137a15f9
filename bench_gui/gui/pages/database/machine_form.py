"""What the PostgreSQL and InnoDB proposal forms share: the machine's RAM and CPUs (typed, or
read from the server once connected), the four-column rows of inputs, the line for an input's
error and the line for the proposal's notes."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from bench_gui.engines.tuning_terms import STORAGE_TYPES, format_bytes, parse_size
from bench_gui.gui.widgets.page_parts import ErrorLine, form_label
from bench_gui.services.tuning_parts import Inputs
from bench_gui.services.tuning_view import HostFacts

Row = tuple[str, QWidget, str, QWidget]


class MachineForm(QGroupBox):
    """A proposal form whose inputs default to the server's machine.

    A subclass makes its ``storage_combo`` and its other inputs, then calls :meth:`place`.

    Signals:
        changed(): an input changed: the proposal is to be rebuilt.
    """

    changed = Signal()
    storage_combo: QComboBox

    def __init__(self, title: str) -> None:
        super().__init__(title)
        self._filling = False
        self.grid = QGridLayout(self)
        self.grid.setHorizontalSpacing(14)
        self.grid.setVerticalSpacing(8)
        self.ram_edit = QLineEdit()
        self.ram_edit.setPlaceholderText("128GiB")
        # Only a new text: losing the focus (to the Apply button) is not an edit.
        self._ram_text = ""
        self.ram_edit.editingFinished.connect(self._ram_edited)
        self.cpus_spin = QSpinBox()
        self.cpus_spin.setRange(0, 9999)
        self.cpus_spin.setSpecialValueText("unknown")
        self.cpus_spin.valueChanged.connect(self._inputs_changed)
        self.inputs_error = ErrorLine()
        self.proposal_note = QLabel("")
        self.proposal_note.setObjectName("fieldHint")
        self.proposal_note.setWordWrap(True)

    def place(self, fields: tuple[Row, ...], first_row: int = 0) -> None:
        """The inputs two to a row from ``first_row``, then the error and the notes lines."""
        grid = self.grid
        for row, (left, left_field, right, right_field) in enumerate(fields, start=first_row):
            grid.addWidget(form_label(left), row, 0)
            grid.addWidget(left_field, row, 1)
            grid.addWidget(form_label(right), row, 2)
            grid.addWidget(right_field, row, 3)
        after = first_row + len(fields)
        grid.addWidget(self.inputs_error, after, 0, 1, 4)
        grid.addWidget(self.proposal_note, after + 1, 0, 1, 4)
        # The left fields hold the longer choices ("Online transaction processing").
        grid.setColumnStretch(1, 3)
        grid.setColumnStretch(3, 2)

    def _ram_edited(self) -> None:
        if self.ram_edit.text() != self._ram_text:
            self._ram_text = self.ram_edit.text()
            self._inputs_changed()

    def _inputs_changed(self) -> None:
        if not self._filling:
            self.changed.emit()

    def read_ram(self) -> int | None:
        """The RAM typed, in bytes; None (with the reason shown) if it is empty or not valid."""
        self.inputs_error.clear_error()
        try:
            ram = parse_size(self.ram_edit.text()) if self.ram_edit.text().strip() else None
        except ValueError as exc:
            self.inputs_error.show_error(f"RAM: {exc}")
            return None
        if ram is None:
            self.proposal_note.setText(
                "Connect to read the server's RAM, CPUs and storage, or type them in."
            )
        return ram

    def machine_inputs(self, connections: int) -> Inputs | None:
        """The machine's inputs shown and the connections (0: the rules'); None if the RAM is
        empty or not valid (the reason shown)."""
        ram = self.read_ram()
        if ram is None:
            return None
        return Inputs(
            ram_bytes=ram,
            cpus=self.cpus_spin.value() or None,
            connections=connections or None,
            storage=str(self.storage_combo.currentData()),
        )

    def fill_machine(self, machine: HostFacts) -> None:
        """The machine's RAM, CPUs and storage into the inputs; call with ``_filling`` set."""
        if machine.ram_bytes:
            self.ram_edit.setText(format_bytes(machine.ram_bytes).replace(" ", ""))
            self._ram_text = self.ram_edit.text()
        if machine.cpus:
            self.cpus_spin.setValue(int(machine.cpus))
        if machine.storage in STORAGE_TYPES:
            self.storage_combo.setCurrentIndex(STORAGE_TYPES.index(machine.storage))
