"""The OS knobs tab's table: each knob's value on the host and the one for the run (typed or a
preset's), the choices it takes and whether the kernel has it; and the preset picker."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from bench_gui.core.os_presets import BUILTIN_OS_PRESETS
from bench_gui.gui.pages.database.common import GREEN, MUTED, RED, TEXT, YELLOW, cell
from bench_gui.gui.widgets.page_parts import form_label
from bench_gui.services.tuning_view import Knob, expand_changes

BY_HAND = "By hand (edit the “For the run” column)"
OS_COLUMNS = ("Knob", "Current", "For the run", "Choices", "Status")
OS_KEY, OS_CURRENT, OS_WANTED, OS_CHOICES, OS_STATUS = range(5)


class OsKnobTable(QTableWidget):
    """The knobs read from a host (``knobs``, in order); "For the run" is editable where the
    kernel has the knob, and a value that differs from the host's is shown bold.

    Signals:
        edited(): a value for the run was typed.
    """

    edited = Signal()

    def __init__(self) -> None:
        super().__init__(0, len(OS_COLUMNS))
        self.knobs: dict[str, Knob] = {}
        self._filling = False
        self.setHorizontalHeaderLabels(list(OS_COLUMNS))
        self.verticalHeader().setVisible(False)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.AnyKeyPressed
        )
        self.setWordWrap(False)
        head = self.horizontalHeader()
        head.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(OS_STATUS, QHeaderView.ResizeMode.Stretch)
        self.itemChanged.connect(self._item_changed)
        self.setMinimumHeight(240)

    def show_knobs(self, knobs: dict[str, Knob], values: dict[str, str]) -> None:
        """``knobs`` with ``values`` (key -> value) in "For the run"."""
        self.knobs = dict(knobs)
        self._filling = True
        self.setRowCount(len(self.knobs))
        for i, knob in enumerate(self.knobs.values()):
            self.setItem(i, OS_KEY, cell(knob.key))
            self.setItem(i, OS_CURRENT, cell(knob.value if knob.value is not None else "—"))
            wanted = QTableWidgetItem(values.get(knob.key, ""))
            flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
            if knob.available:
                flags |= Qt.ItemFlag.ItemIsEditable
            wanted.setFlags(flags)
            self.setItem(i, OS_WANTED, wanted)
            self.setItem(i, OS_CHOICES, cell(" ".join(knob.choices)))
            if knob.status == "ok":
                status, colour = "ok", GREEN
            elif knob.status == "missing":
                status, colour = f"not on this kernel — {knob.note}", MUTED
            else:
                status, colour = f"unreadable — {knob.note}", RED
            status_item = cell(status)
            status_item.setToolTip(status)
            status_item.setForeground(QColor(colour))
            self.setItem(i, OS_STATUS, status_item)
            if not knob.available:
                for col in (OS_KEY, OS_CURRENT):
                    self._item(i, col).setForeground(QColor(MUTED))
        self._filling = False
        self.mark_changes()

    def set_wanted(self, key: str, value: str) -> None:
        """Type a value in the "For the run" column (as a user would)."""
        self._item(list(self.knobs).index(key), OS_WANTED).setText(value)

    def wanted(self) -> dict[str, str]:
        """The "For the run" column: knob -> value, empty cells left out."""
        out: dict[str, str] = {}
        for i, key in enumerate(self.knobs):
            text = self._item(i, OS_WANTED).text().strip()
            if text:
                out[key] = text
        return out

    def changes(self) -> dict[str, str]:
        """The diff: knobs the host has whose value for the run differs from the current."""
        return {
            key: value
            for key, value in self.wanted().items()
            if self.knobs[key].available and self.knobs[key].value != value
        }

    def lacking(self) -> list[str]:
        """Knobs with a value for the run that this kernel does not have."""
        return [k for k in self.wanted() if not self.knobs[k].available]

    def mark_changes(self) -> None:
        changes = self.changes()
        self._filling = True
        for i, key in enumerate(self.knobs):
            item = self._item(i, OS_WANTED)
            item.setForeground(QColor(YELLOW if key in changes else TEXT))
            font = item.font()
            font.setBold(key in changes)
            item.setFont(font)
        self._filling = False

    def _item(self, row: int, col: int) -> QTableWidgetItem:
        item = self.item(row, col)
        assert item is not None
        return item

    def _item_changed(self, item: QTableWidgetItem) -> None:
        if not self._filling and item.column() == OS_WANTED:
            self.mark_changes()
            self.edited.emit()


class OsPresetPicker(QWidget):
    """A built-in OS preset (or none: by hand) and where it comes from.

    Signals:
        changed(): another preset was chosen.
    """

    changed = Signal()

    def __init__(self) -> None:
        super().__init__()
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(form_label("Preset"))
        self.combo = QComboBox()
        self.combo.addItem(BY_HAND, "")
        for name, preset in BUILTIN_OS_PRESETS.items():
            self.combo.addItem(preset.title, name)
        self.combo.currentIndexChanged.connect(self._changed)
        row.addWidget(self.combo, 1)
        self.note = QLabel("")
        self.note.setObjectName("fieldHint")
        self.note.setWordWrap(True)
        row.addWidget(self.note, 2)

    def name(self) -> str:
        return str(self.combo.currentData() or "")

    def select(self, name: str) -> None:
        index = self.combo.findData(name)
        if index < 0:
            raise KeyError(name)
        self.combo.setCurrentIndex(index)

    def knobs(self) -> dict[str, str]:
        """The preset's knobs as it names them (``read_ahead_kb`` for every data device)."""
        name = self.name()
        return dict(BUILTIN_OS_PRESETS[name].knobs) if name else {}

    def expanded(self, devices: list[str]) -> dict[str, str]:
        """The preset's knobs for these devices (``block.DEV.read_ahead_kb``)."""
        return expand_changes(self.knobs(), devices)

    def _changed(self) -> None:
        preset = BUILTIN_OS_PRESETS.get(self.name())
        self.note.setText(" ".join([f"Source: {preset.source}.", *preset.notes]) if preset else "")
        self.changed.emit()
