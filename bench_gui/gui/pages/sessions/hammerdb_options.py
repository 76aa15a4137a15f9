"""What the HammerDB import asks before it reads a file.

HammerDB's job store and log carry local times without a zone, and jobs that follow each other
become one sweep unless asked otherwise; the command line has ``--utc-offset`` and ``--each`` for
that, and this dialog gives the same two choices after the file is picked.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from bench_gui.gui.widgets.page_parts import muted_label


@dataclass(frozen=True)
class ImportChoices:
    """``each``: one session per job; ``utc_offset_h``: None for this machine's zone."""

    each: bool = False
    utc_offset_h: float | None = None


def local_offset_h() -> float:
    """This machine's offset from UTC now, in hours."""
    offset = datetime.now().astimezone().utcoffset()
    return offset.total_seconds() / 3600 if offset else 0.0


class ImportOptionsDialog(QDialog):
    """Sweeps or one session per job, and the zone of the host HammerDB ran on."""

    def __init__(self, file_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Import HammerDB results")
        column = QVBoxLayout(self)
        column.addWidget(muted_label(f"Importing {file_name}"))
        form = QFormLayout()
        self.each_check = QCheckBox("One session per job (do not join jobs into sweeps)")
        self.each_check.setToolTip(
            "By default, jobs that follow each other with one configuration and a rising user"
            " count become one sweep."
        )
        form.addRow(self.each_check)
        self.local_radio = QRadioButton(f"This machine's zone (UTC{local_offset_h():+g} h)")
        self.offset_radio = QRadioButton("UTC offset of the HammerDB host:")
        self.local_radio.setChecked(True)
        self.offset_spin = QDoubleSpinBox()
        self.offset_spin.setRange(-14.0, 14.0)
        self.offset_spin.setSingleStep(0.5)
        self.offset_spin.setDecimals(2)
        self.offset_spin.setSuffix(" h")
        self.offset_spin.setValue(local_offset_h())
        self.offset_spin.setEnabled(False)
        self.offset_radio.toggled.connect(self.offset_spin.setEnabled)
        form.addRow("HammerDB's times are in", self.local_radio)
        form.addRow(self.offset_radio, self.offset_spin)
        column.addLayout(form)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText("Import")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        column.addWidget(buttons)

    def choices(self) -> ImportChoices:
        """What the user chose."""
        offset = self.offset_spin.value() if self.offset_radio.isChecked() else None
        return ImportChoices(each=self.each_check.isChecked(), utc_offset_h=offset)
