"""The database placement section of the Storage page: where PostgreSQL goes on the new
volume (a tablespace, the whole data directory, or nowhere), how the app reaches and controls
the server there, and the buttons that move it and move it back."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFormLayout, QGroupBox, QHBoxLayout, QPushButton, QVBoxLayout

from bench_gui.core.storage import DatabaseSpec
from bench_gui.gui.pages.storage.fields import combo, edit, words
from bench_gui.gui.widgets.page_parts import form_label

PLACEMENTS = (
    ("tablespace", "Tablespace on the volume (non-invasive)"),
    ("datadir", "Whole data directory (stop, copy, restart)"),
    ("none", "Leave the database where it is"),
)


class DatabaseForm(QGroupBox):
    """The ``database`` part of a layout, and Move / Restore (``move_button``,
    ``restore_button``, for the page to connect).

    Signals:
        changed(): any field was edited.
    """

    changed = Signal()

    def __init__(self) -> None:
        super().__init__("Database on the volume")
        changed = self.changed.emit
        self.placement_combo = combo(PLACEMENTS, changed)
        self.db_user_edit = edit(changed, "postgres", "postgres")
        self.databases_edit = edit(changed, "tpcc", "tpcc")
        self.tablespace_edit = edit(changed, "bench", "bench")
        self.wal_edit = edit(changed, "empty: WAL stays with the data (e.g. /mnt/wal/pg_wal)")
        self.control_edit = edit(
            changed, "pg_ctl, systemctl:UNIT or pg_ctlcluster:16/main", "pg_ctl"
        )
        self.bin_edit = edit(changed, "directory of psql and pg_ctl (empty: PATH)")
        self.conninfo_edit = edit(changed, "empty: the local socket, database postgres")
        self.move_button = QPushButton("Move the database")
        self.move_button.setProperty("role", "primary")
        self.restore_button = QPushButton("Restore original location")

        layout = QVBoxLayout(self)
        layout.setSpacing(8)
        form = QFormLayout()
        form.setHorizontalSpacing(12)
        form.setVerticalSpacing(6)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        for text, widget in (
            ("Placement", self.placement_combo),
            ("OS user", self.db_user_edit),
            ("Databases", self.databases_edit),
            ("Tablespace", self.tablespace_edit),
            ("WAL directory", self.wal_edit),
            ("Server control", self.control_edit),
            ("Binaries", self.bin_edit),
            ("Connection", self.conninfo_edit),
        ):
            form.addRow(form_label(text, top=True), widget)
        layout.addLayout(form)
        # One button a row: side by side they would widen the column past a 1280 px screen.
        for button in (self.move_button, self.restore_button):
            row = QHBoxLayout()
            row.addWidget(button)
            row.addStretch(1)
            layout.addLayout(row)

    def data(self) -> dict[str, Any]:
        """The ``database`` table of a layout document."""
        return {
            "placement": self.placement_combo.currentData(),
            "os_user": self.db_user_edit.text().strip(),
            "databases": words(self.databases_edit.text()),
            "tablespace": self.tablespace_edit.text().strip(),
            "wal_directory": self.wal_edit.text().strip(),
            "control": self.control_edit.text().strip() or "pg_ctl",
            "bin_dir": self.bin_edit.text().strip(),
            "conninfo": self.conninfo_edit.text().strip(),
        }

    def show_spec(self, db: DatabaseSpec) -> None:
        self.placement_combo.setCurrentIndex(max(0, self.placement_combo.findData(db.placement)))
        self.db_user_edit.setText(db.os_user)
        self.databases_edit.setText(", ".join(db.databases))
        self.tablespace_edit.setText(db.tablespace)
        self.wal_edit.setText(db.wal_directory)
        self.control_edit.setText(db.control)
        self.bin_edit.setText(db.bin_dir)
        self.conninfo_edit.setText(db.conninfo)
