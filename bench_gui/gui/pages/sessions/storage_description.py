"""The opened session's storage: what bench-gui built, and what the user says it was.

A session whose storage bench-gui did not build (a server prepared by hand, a cloud volume, a
HammerDB import) has no layout, and a report can only say "not recorded". Here the user enters
it once per session (devices, count, RAID level, filesystem, a note) through
:meth:`SessionStore.set_storage_description`; reports show it as described by the author,
never as measured. Both parts are labelled so that nobody takes one for the other.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from bench_gui.gui.widgets.page_parts import ErrorLine, form_label, min_text_height, muted_label
from bench_gui.services.errors import SessionNotFound, StoreError
from bench_gui.services.sessions import layout_summary, storage_layout

BUILT_TITLE = "Built by bench-gui"
ENTERED_TITLE = "Entered by you"
NOT_BUILT = (
    "bench-gui did not build this session's storage, so nothing about it was measured. Describe"
    " it under “Entered by you”: reports show it as described by the author."
)
NOTHING_ENTERED = "Nothing entered yet."
BUILT_AND_ENTERED = (
    "bench-gui built this storage; a description you enter is shown beside it, as yours."
)
RAID_CHOICES = (
    "",
    "RAID 0",
    "RAID 1",
    "RAID 5",
    "RAID 6",
    "RAID 10",
    "RAID 50",
    "RAID 60",
    "none",
    "jbod",
    "mirror",
    "raidz1",
    "raidz2",
    "raidz3",
)
FILESYSTEM_CHOICES = ("", "ext4", "xfs", "zfs", "btrfs", "ntfs", "raw device")
MAX_BUILT_LINES = 12  # a layout's facts shown here; the report has them all
READ_ERRORS = (StoreError, SessionNotFound)


def raid_field(level: str) -> str:
    """A stored RAID level as the form shows it (and as the store reads it back)."""
    return f"RAID {level}" if level.isdigit() else level


def _editable(choices: tuple[str, ...], placeholder: str) -> QComboBox:
    combo = QComboBox()
    combo.setEditable(True)
    combo.addItems(list(choices))
    combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
    line = combo.lineEdit()
    if line is not None:
        line.setPlaceholderText(placeholder)
    return combo


class StorageDescriptionPanel(QWidget):
    """The Storage tab of the opened session.

    Signals:
        changed(int): the description of this session was saved or removed.
    """

    changed = Signal(int)

    def __init__(self, store: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.run_id: int | None = None
        self.stored: dict[str, Any] | None = None
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 8, 0, 0)
        row.setSpacing(14)
        row.addWidget(self._built_box(), 2)
        row.addWidget(self._entered_box(), 3)
        self.forget()

    def _built_box(self) -> QGroupBox:
        self.built_box = QGroupBox(BUILT_TITLE)
        column = QVBoxLayout(self.built_box)
        self.built_label = muted_label("")
        self.built_label.setTextFormat(Qt.TextFormat.PlainText)
        column.addWidget(self.built_label)
        self.built_form = QFormLayout()
        column.addLayout(self.built_form)
        column.addStretch(1)
        return self.built_box

    def _entered_box(self) -> QGroupBox:
        self.entered_box = QGroupBox(ENTERED_TITLE)
        column = QVBoxLayout(self.entered_box)
        self.entered_label = QLabel("")
        self.entered_label.setWordWrap(True)
        self.entered_label.setTextFormat(Qt.TextFormat.PlainText)
        column.addWidget(self.entered_label)
        # Two fields a row: the form and its buttons stay within a 768 px screen.
        grid = QGridLayout()
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(8)
        self.devices_edit = QLineEdit()
        self.devices_edit.setPlaceholderText("Device model, e.g. Seagate Exos X18 16TB")
        self.count_spin = QSpinBox()
        self.count_spin.setRange(0, 9999)
        self.count_spin.setSpecialValueText("not given")
        self.raid_combo = _editable(RAID_CHOICES, "RAID 10, none, raidz2…")
        self.fs_combo = _editable(FILESYSTEM_CHOICES, "ext4, xfs…")
        self.note_edit = QPlainTextEdit()
        self.note_edit.setPlaceholderText("Controller, cache, volume type, anything worth saying…")
        min_text_height(self.note_edit, 56)
        self.note_edit.setMaximumHeight(90)  # the Save button stays in view
        grid.addWidget(form_label("Devices"), 0, 0)
        grid.addWidget(self.devices_edit, 0, 1)
        grid.addWidget(form_label("How many"), 0, 2)
        grid.addWidget(self.count_spin, 0, 3)
        grid.addWidget(form_label("RAID level"), 1, 0)
        grid.addWidget(self.raid_combo, 1, 1)
        grid.addWidget(form_label("Filesystem"), 1, 2)
        grid.addWidget(self.fs_combo, 1, 3)
        grid.addWidget(form_label("Note", top=True), 2, 0)
        grid.addWidget(self.note_edit, 2, 1, 1, 3)
        grid.setColumnStretch(1, 3)
        grid.setColumnStretch(3, 2)
        column.addLayout(grid)
        self.error_label = ErrorLine()
        column.addWidget(self.error_label)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.clear_button = QPushButton("Remove")
        self.clear_button.setToolTip("Remove what you entered about this session's storage")
        self.clear_button.clicked.connect(self.clear_description)
        buttons.addWidget(self.clear_button)
        self.save_button = QPushButton("Save description")
        self.save_button.setProperty("role", "primary")
        self.save_button.clicked.connect(self.save)
        buttons.addWidget(self.save_button)
        column.addLayout(buttons)
        column.addStretch(1)
        return self.entered_box

    # ---- showing -------------------------------------------------------------------------

    def _fields(self) -> tuple[QWidget, ...]:
        return (
            self.devices_edit,
            self.count_spin,
            self.raid_combo,
            self.fs_combo,
            self.note_edit,
            self.save_button,
        )

    def forget(self) -> None:
        """No session open."""
        self.run_id = None
        self.stored = None
        self._show_built(None)
        self.built_label.setText("Open a session to see its storage.")
        self._fill(None)
        self.entered_label.setText("")
        for widget in (*self._fields(), self.clear_button):
            widget.setEnabled(False)

    def show_session(self, run_id: int) -> bool:
        """Show session ``run_id``'s storage; False (said in the panel) if it cannot be read."""
        self.error_label.clear_error()
        try:
            layout = storage_layout(self.store.get_run(run_id))
            stored = self.store.storage_description(run_id)
        except READ_ERRORS as exc:
            self.forget()
            self.error_label.show_error(f"Cannot read the storage of session {run_id}: {exc}")
            return False
        self.run_id = run_id
        self._show_built(layout)
        self._fill(stored)
        for widget in self._fields():
            widget.setEnabled(True)
        return True

    def _show_built(self, layout: dict[str, Any] | None) -> None:
        while self.built_form.rowCount():
            self.built_form.removeRow(0)
        if not layout:
            self.built_label.setText(NOT_BUILT)
            return
        self.built_label.setText(BUILT_AND_ENTERED)
        lines = list(layout_summary(layout).items())
        for key, value in lines[:MAX_BUILT_LINES]:
            # Mount options and serials are long words: let them break after a comma.
            text = QLabel(value.replace(",", ",\u200b"))
            text.setWordWrap(True)
            text.setMinimumWidth(40)
            text.setTextFormat(Qt.TextFormat.PlainText)
            text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.built_form.addRow(key.split("[")[0], text)
        if len(lines) > MAX_BUILT_LINES:
            more = len(lines) - MAX_BUILT_LINES
            self.built_form.addRow(muted_label(f"… and {more} more in the report"))

    def _fill(self, stored: dict[str, Any] | None) -> None:
        self.stored = stored
        found = stored or {}
        self.devices_edit.setText(str(found.get("devices") or ""))
        self.count_spin.setValue(int(found.get("count") or 0))
        self.raid_combo.setCurrentText(raid_field(str(found.get("raid") or "")))
        self.fs_combo.setCurrentText(str(found.get("filesystem") or ""))
        self.note_edit.setPlainText(str(found.get("note") or ""))
        self.clear_button.setEnabled(stored is not None)
        if stored is None:
            self.entered_label.setText(NOTHING_ENTERED)
        else:
            when = str(stored.get("updated_at") or "")[:16].replace("T", " ")
            self.entered_label.setText(
                f"Entered by you{f' ({when})' if when else ''}: {stored['text']}"
            )

    # ---- editing -------------------------------------------------------------------------

    def save(self) -> bool:
        """Store what the form says; False (the store's reason shown) on a bad field."""
        if self.run_id is None:
            return False
        run_id = self.run_id
        try:
            stored = self.store.set_storage_description(
                run_id,
                devices=self.devices_edit.text(),
                count=self.count_spin.value() or None,
                raid=self.raid_combo.currentText(),
                filesystem=self.fs_combo.currentText(),
                note=self.note_edit.toPlainText(),
            )
        except (*READ_ERRORS, ValueError) as exc:  # ValueError names the field that is wrong
            self.error_label.show_error(f"Not saved: {exc}")
            return False
        self.error_label.clear_error()
        self._fill(stored)
        self.changed.emit(run_id)
        return True

    def clear_description(self) -> bool:
        """Remove what the user entered; False if there was nothing or it cannot be removed."""
        if self.run_id is None:
            return False
        run_id = self.run_id
        try:
            removed = bool(self.store.clear_storage_description(run_id))
        except READ_ERRORS as exc:
            self.error_label.show_error(f"Not removed: {exc}")
            return False
        self.error_label.clear_error()
        self._fill(None)
        if removed:
            self.changed.emit(run_id)
        return removed
