"""The PostgreSQL tab's proposal form: the profile (PgTune or a preset) and the PgTune
calculator's inputs, which default to the server's machine once connected."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtWidgets import QComboBox, QSpinBox

from bench_gui.engines.postgresql.pgtune import (
    DB_TYPE_LABELS,
    DB_TYPES,
    EDITIONS,
    PgVersion,
    Proposal,
)
from bench_gui.engines.postgresql.presets import Preset
from bench_gui.engines.postgresql.tuning import resolve_profile
from bench_gui.engines.tuning_terms import (
    STORAGE_LABELS,
    STORAGE_TYPES,
    PresetError,
    TuneInputError,
)
from bench_gui.gui.pages.database.machine_form import MachineForm
from bench_gui.gui.widgets.page_parts import compact_combo, form_label
from bench_gui.remote.db_tuner import HostFacts
from bench_gui.store.user_presets import all_presets

PGTUNE = "pgtune"
PGTUNE_LABEL = "PgTune (calculated)"


class ProposalForm(MachineForm):
    """Which settings to propose: PgTune from the inputs shown, or a preset.

    Signals:
        changed(): the profile or (for PgTune) an input changed: the proposal is to be rebuilt.
    """

    def __init__(self) -> None:
        super().__init__("Proposal")
        self.presets: dict[str, Preset] = {}
        self.profile_combo = QComboBox()
        self.profile_combo.currentIndexChanged.connect(self._profile_changed)
        self.grid.addWidget(form_label("Profile"), 0, 0)
        self.grid.addWidget(self.profile_combo, 0, 1, 1, 3)

        self.connections_spin = QSpinBox()
        self.connections_spin.setRange(0, 262143)
        self.connections_spin.setSpecialValueText("by type")
        self.connections_spin.valueChanged.connect(self._inputs_changed)
        self.storage_combo = QComboBox()
        for key in STORAGE_TYPES:
            self.storage_combo.addItem(STORAGE_LABELS[key], key)
        self.storage_combo.currentIndexChanged.connect(self._inputs_changed)
        self.type_combo = QComboBox()
        for key in DB_TYPES:
            self.type_combo.addItem(DB_TYPE_LABELS[key], key)
        self.type_combo.setCurrentIndex(DB_TYPES.index("oltp"))
        self.type_combo.currentIndexChanged.connect(self._inputs_changed)
        self.edition_combo = QComboBox()
        for key in EDITIONS:
            text = "Current PgTune" if key == "current" else "Classic PgTune (the briefs' era)"
            self.edition_combo.addItem(text, key)
        self.edition_combo.currentIndexChanged.connect(self._inputs_changed)

        fields = (
            ("RAM", self.ram_edit, "CPUs", self.cpus_spin),
            ("Connections", self.connections_spin, "Storage", self.storage_combo),
            ("Workload", self.type_combo, "Rules", self.edition_combo),
        )
        compact_combo(self.profile_combo, 24)
        for combo in (self.storage_combo, self.type_combo, self.edition_combo):
            compact_combo(combo, 12)
        self.place(fields, first_row=1)
        self.fill_profiles()

    # ---- profiles ------------------------------------------------------------------------

    def fill_profiles(self, select: str | None = None) -> None:
        """PgTune and every preset (built-in and the user's); ``select`` chosen if given."""
        current = select or self.profile_combo.currentData() or PGTUNE
        self._filling = True
        self.profile_combo.clear()
        self.profile_combo.addItem(PGTUNE_LABEL, PGTUNE)
        self.presets = all_presets()
        for name, preset in self.presets.items():
            kind = "" if preset.builtin else "  (yours)"
            self.profile_combo.addItem(f"{preset.title}{kind}", name)
        index = self.profile_combo.findData(current)
        self.profile_combo.setCurrentIndex(max(0, index))
        self._filling = False

    def profile(self) -> str:
        return str(self.profile_combo.currentData() or PGTUNE)

    def select_profile(self, name: str) -> None:
        index = self.profile_combo.findData(name)
        if index < 0:
            raise KeyError(name)
        self.profile_combo.setCurrentIndex(index)

    def _profile_changed(self) -> None:
        pgtune = self.profile() == PGTUNE
        for widget in (
            self.ram_edit,
            self.cpus_spin,
            self.connections_spin,
            self.storage_combo,
            self.type_combo,
            self.edition_combo,
        ):
            widget.setEnabled(pgtune)
        if not self._filling:
            self.changed.emit()

    def _inputs_changed(self) -> None:
        if not self._filling and self.profile() == PGTUNE:
            self.changed.emit()

    # ---- the proposal --------------------------------------------------------------------

    def build_proposal(self, version: PgVersion) -> Proposal | None:
        """The proposal of the profile and inputs shown (None, with the reason, if invalid)."""
        if self.profile() != PGTUNE:
            self.inputs_error.clear_error()
            return resolve_profile(self.profile(), version)
        machine = self.machine_inputs(self.connections_spin.value())
        if machine is None:
            return None
        inputs = replace(
            machine,
            db_type=str(self.type_combo.currentData()),
            version=str(version),
            edition=str(self.edition_combo.currentData()),
        )
        try:
            return resolve_profile(PGTUNE, version, inputs)
        except (TuneInputError, PresetError) as exc:
            self.inputs_error.show_error(str(exc))
            return None

    def show_notes(self, proposal: Proposal) -> None:
        """The proposal's warnings, what it left out, and where a preset comes from."""
        notes = list(proposal.warnings) + [f"Left out: {n}" for n in proposal.notes]
        preset = self.presets.get(self.profile())
        if preset is not None:
            about = " ".join(p for p in (preset.description, f"Source: {preset.source}.") if p)
            notes.insert(0, about if preset.source else preset.description)
        self.proposal_note.setText("\n".join(notes))

    def use_machine(self, machine: HostFacts) -> None:
        """The server machine's RAM, CPUs and storage as the calculator's inputs (quietly)."""
        self._filling = True
        self.fill_machine(machine)
        self._filling = False
