"""The MariaDB/MySQL tab's proposal form: the InnoDB rules' inputs (the machine, the planned
users, a dedicated or shared server, the durability), which default to the server's machine
and the plan once connected."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QGridLayout, QGroupBox, QLabel, QLineEdit, QSpinBox

from bench_gui.core.tuning.innodb import (
    DURABILITIES,
    DURABILITY_LABELS,
    SERVER_ROLE_LABELS,
    SERVER_ROLES,
    DbVersion,
    InnoDbProposal,
    calculate,
)
from bench_gui.core.tuning.pgtune import (
    STORAGE_LABELS,
    STORAGE_TYPES,
    TuneInputError,
    format_bytes,
    parse_size,
)
from bench_gui.gui.widgets.page_parts import ErrorLine, compact_combo, form_label
from bench_gui.remote.pg_tuner import HostFacts, TuningError
from bench_gui.services.tuning import Inputs, innodb_input


class InnoDbForm(QGroupBox):
    """The inputs of the InnoDB rules.

    Signals:
        changed(): an input changed: the proposal is to be rebuilt.
    """

    changed = Signal()

    def __init__(self) -> None:
        super().__init__("Proposal: the InnoDB rules")
        self._filling = False
        grid = QGridLayout(self)
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(8)
        self.ram_edit = QLineEdit()
        self.ram_edit.setPlaceholderText("128GiB")
        # Only a new text: losing the focus (to the Apply button) is not an edit.
        self._ram_text = ""
        self.ram_edit.editingFinished.connect(self._ram_edited)
        self.cpus_spin = QSpinBox()
        self.cpus_spin.setRange(0, 9999)
        self.cpus_spin.setSpecialValueText("unknown")
        self.cpus_spin.valueChanged.connect(self._inputs_changed)
        self.users_spin = QSpinBox()
        self.users_spin.setRange(0, 100000)
        self.users_spin.setSpecialValueText("leave alone")
        self.users_spin.valueChanged.connect(self._inputs_changed)
        self.storage_combo = self._combo(STORAGE_TYPES, STORAGE_LABELS)
        self.server_combo = self._combo(SERVER_ROLES, SERVER_ROLE_LABELS)
        self.durability_combo = self._combo(DURABILITIES, DURABILITY_LABELS)
        fields = (
            ("RAM", self.ram_edit, "CPUs", self.cpus_spin),
            ("Planned users", self.users_spin, "Storage", self.storage_combo),
            ("Server", self.server_combo, "Durability", self.durability_combo),
        )
        for row, (left, left_field, right, right_field) in enumerate(fields):
            grid.addWidget(form_label(left), row, 0)
            grid.addWidget(left_field, row, 1)
            grid.addWidget(form_label(right), row, 2)
            grid.addWidget(right_field, row, 3)
        self.inputs_error = ErrorLine()
        grid.addWidget(self.inputs_error, 3, 0, 1, 4)
        self.proposal_note = QLabel("")
        self.proposal_note.setObjectName("fieldHint")
        self.proposal_note.setWordWrap(True)
        grid.addWidget(self.proposal_note, 4, 0, 1, 4)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)

    def _combo(self, keys: tuple[str, ...], labels: dict[str, str]) -> QComboBox:
        combo = QComboBox()
        for key in keys:
            combo.addItem(labels[key], key)
        combo.currentIndexChanged.connect(self._inputs_changed)
        return compact_combo(combo, 14)

    def _ram_edited(self) -> None:
        if self.ram_edit.text() != self._ram_text:
            self._ram_text = self.ram_edit.text()
            self._inputs_changed()

    def _inputs_changed(self) -> None:
        if not self._filling:
            self.changed.emit()

    def build_proposal(self, version: DbVersion | None, flavour: str) -> InnoDbProposal | None:
        """The proposal of the inputs shown (None, with the reason, if they are not valid)."""
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
            return None
        inputs = Inputs(
            ram_bytes=ram,
            cpus=self.cpus_spin.value() or None,
            connections=self.users_spin.value() or None,
            storage=str(self.storage_combo.currentData()),
            server=str(self.server_combo.currentData()),
            durability=str(self.durability_combo.currentData()),
        )
        try:
            return calculate(innodb_input(inputs, None, version, flavour))
        except (TuneInputError, TuningError) as exc:
            self.inputs_error.show_error(str(exc))
            return None

    def show_notes(self, proposal: InnoDbProposal) -> None:
        notes = list(proposal.warnings) + [f"Left out: {n}" for n in proposal.notes]
        self.proposal_note.setText("\n".join(notes))

    def use_machine(self, machine: HostFacts, planned_users: int | None) -> None:
        """The server machine's RAM, CPUs and storage and the plan's users (quietly)."""
        self._filling = True
        if machine.ram_bytes:
            self.ram_edit.setText(format_bytes(machine.ram_bytes).replace(" ", ""))
            self._ram_text = self.ram_edit.text()
        if machine.cpus:
            self.cpus_spin.setValue(int(machine.cpus))
        if machine.storage in STORAGE_TYPES:
            self.storage_combo.setCurrentIndex(STORAGE_TYPES.index(machine.storage))
        if planned_users:
            self.users_spin.setValue(planned_users)
        self._filling = False
