"""The SQL Server tab's proposal form: seed 003's settings or a preset file of the user's, and
the server's RAM that max server memory is derived from (read through the server once
connected, or typed in)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QGridLayout, QGroupBox, QLabel, QLineEdit

from bench_gui.engines.mssql.proposal import MssqlProposal, load_mssql_preset, seed_003_proposal
from bench_gui.engines.mssql.tuner import PROFILE
from bench_gui.engines.mssql.tuning import SMALLEST_MB
from bench_gui.engines.tuning_terms import PresetError, format_bytes, parse_size
from bench_gui.gui.widgets.page_parts import ErrorLine, compact_combo, form_label
from bench_gui.remote.db_tuner import HostFacts

PRESET_FILE = "file"
PROFILE_LABELS = {PROFILE: "Seed 003 (SQL Server 2017, Micron 9300)", PRESET_FILE: "A preset file"}


class MssqlForm(QGroupBox):
    """The preset to diff, and the RAM for max server memory.

    Signals:
        changed(): an input changed: the proposal is to be rebuilt.
    """

    changed = Signal()

    def __init__(self) -> None:
        super().__init__("Proposal: a SQL Server preset")
        self._filling = False
        grid = QGridLayout(self)
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(8)
        self.profile_combo = QComboBox()
        for key, label in PROFILE_LABELS.items():
            self.profile_combo.addItem(label, key)
        compact_combo(self.profile_combo, 24)
        self.profile_combo.currentIndexChanged.connect(self._profile_changed)
        self.file_edit = QLineEdit()
        self.file_edit.setPlaceholderText('/path/to/preset.toml (engine = "mssql")')
        self.file_edit.setEnabled(False)
        self.ram_edit = QLineEdit()
        self.ram_edit.setPlaceholderText("384GiB")
        self.ram_edit.setToolTip(
            "The server's memory: max server memory is RAM minus max(4 GiB, 10%). Empty:"
            " max server memory is left alone."
        )
        # Only a new text: losing the focus (to the Apply button) is not an edit.
        self._texts = {self.file_edit: "", self.ram_edit: ""}
        for edit in self._texts:
            edit.editingFinished.connect(lambda e=edit: self._edited(e))
        grid.addWidget(form_label("Preset"), 0, 0)
        grid.addWidget(self.profile_combo, 0, 1)
        grid.addWidget(form_label("RAM"), 0, 2)
        grid.addWidget(self.ram_edit, 0, 3)
        grid.addWidget(form_label("File"), 1, 0)
        grid.addWidget(self.file_edit, 1, 1, 1, 3)
        self.inputs_error = ErrorLine()
        grid.addWidget(self.inputs_error, 2, 0, 1, 4)
        self.proposal_note = QLabel("")
        self.proposal_note.setObjectName("fieldHint")
        self.proposal_note.setWordWrap(True)
        grid.addWidget(self.proposal_note, 3, 0, 1, 4)
        grid.setColumnStretch(1, 2)
        grid.setColumnStretch(3, 1)

    @property
    def profile(self) -> str:
        return str(self.profile_combo.currentData())

    def _profile_changed(self) -> None:
        self.file_edit.setEnabled(self.profile == PRESET_FILE)
        self.ram_edit.setEnabled(self.profile == PROFILE)
        if not self._filling:
            self.changed.emit()

    def _edited(self, edit: QLineEdit) -> None:
        if edit.text() != self._texts[edit]:
            self._texts[edit] = edit.text()
            if not self._filling:
                self.changed.emit()

    def build_proposal(self, version: str) -> MssqlProposal | None:
        """The proposal of the inputs shown (None, with the reason, if they are not valid)."""
        self.inputs_error.clear_error()
        if self.profile == PRESET_FILE:
            text = self.file_edit.text().strip()
            if not text:
                self.proposal_note.setText('Give a preset file\'s path (engine = "mssql").')
                return None
            try:
                proposal = load_mssql_preset(Path(text).expanduser())
            except PresetError as exc:
                self.inputs_error.show_error(str(exc))
                return None
            proposal.version = version
            return proposal
        ram_mb = None
        if self.ram_edit.text().strip():
            try:
                ram_mb = parse_size(self.ram_edit.text()) // 1024**2
            except ValueError as exc:
                self.inputs_error.show_error(f"RAM: {exc}")
                return None
            if ram_mb < SMALLEST_MB:
                self.inputs_error.show_error(
                    f"RAM: {ram_mb} MB is less than the {SMALLEST_MB} MB the seed's rule"
                    " assumes; leave it empty to keep max server memory as it is"
                )
                return None
        return seed_003_proposal(ram_mb, version)

    def show_notes(self, proposal: MssqlProposal) -> None:
        self.proposal_note.setText("\n".join(f"• {n}" for n in proposal.notes))

    def use_machine(self, machine: HostFacts) -> None:
        """The server's RAM as read through it (quietly), when none was typed."""
        if machine.ram_bytes and not self.ram_edit.text().strip():
            if machine.ram_bytes // 1024**2 < SMALLEST_MB:
                return
            self._filling = True
            self.ram_edit.setText(format_bytes(machine.ram_bytes).replace(" ", ""))
            self._texts[self.ram_edit] = self.ram_edit.text()
            self._filling = False
