"""The MariaDB/MySQL tab's proposal form: the InnoDB rules' inputs (the machine, the planned
users, a dedicated or shared server, the durability), which default to the server's machine
and the plan once connected."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtWidgets import QComboBox, QSpinBox

from bench_gui.engines.mariadb.innodb import (
    DURABILITIES,
    DURABILITY_LABELS,
    SERVER_ROLE_LABELS,
    SERVER_ROLES,
    DbVersion,
    InnoDbProposal,
    calculate,
)
from bench_gui.engines.mariadb.tuning import innodb_input
from bench_gui.engines.tuning_terms import STORAGE_LABELS, STORAGE_TYPES, TuneInputError
from bench_gui.gui.pages.database.machine_form import MachineForm
from bench_gui.gui.widgets.page_parts import compact_combo
from bench_gui.remote.db_tuner import HostFacts, TuningError


class InnoDbForm(MachineForm):
    """The inputs of the InnoDB rules.

    Signals:
        changed(): an input changed: the proposal is to be rebuilt.
    """

    def __init__(self) -> None:
        super().__init__("Proposal: the InnoDB rules")
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
        self.place(fields)

    def _combo(self, keys: tuple[str, ...], labels: dict[str, str]) -> QComboBox:
        combo = QComboBox()
        for key in keys:
            combo.addItem(labels[key], key)
        combo.currentIndexChanged.connect(self._inputs_changed)
        return compact_combo(combo, 14)

    def build_proposal(self, version: DbVersion | None, flavour: str) -> InnoDbProposal | None:
        """The proposal of the inputs shown (None, with the reason, if they are not valid)."""
        machine = self.machine_inputs(self.users_spin.value())
        if machine is None:
            return None
        inputs = replace(
            machine,
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
        self.fill_machine(machine)
        if planned_users:
            self.users_spin.setValue(planned_users)
        self._filling = False
