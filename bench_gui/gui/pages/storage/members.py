"""The per-device settings of a layout: the erase method (from what the device supports),
the I/O scheduler and the read-ahead of every ticked device."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHeaderView,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
)

from bench_gui.core.storage import ERASE_METHODS, DeviceSpec
from bench_gui.gui.widgets.page_parts import fit_rows
from bench_gui.services.storage import BlockDevice

MEMBER_COLUMNS = ("Device", "Erase method", "I/O scheduler", "Read-ahead")
SCHEDULER_CHOICES = ("none", "mq-deadline", "kyber", "bfq")
KEEP = -1  # read-ahead: leave it as it is


def default_erase(device: BlockDevice | None) -> str:
    """The erase method a newly ticked device starts with: discard when it can."""
    methods = device.erase_methods if device else []
    if "discard" in methods:
        return "discard"
    return methods[0] if methods else "format-only"


class MemberTable(QTableWidget):
    """The ticked devices (``members``, by path, in the order ticked) and their settings.

    Signals:
        changed(): a setting of a device was changed in the table.
    """

    changed = Signal()

    def __init__(self) -> None:
        super().__init__(0, len(MEMBER_COLUMNS))
        self.members: dict[str, dict[str, Any]] = {}
        self.setHorizontalHeaderLabels(list(MEMBER_COLUMNS))
        self.verticalHeader().setVisible(False)
        self.setShowGrid(False)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.verticalHeader().setDefaultSectionSize(46)
        head = self.horizontalHeader()
        head.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.setColumnWidth(2, 210)
        self.setColumnWidth(3, 200)
        fit_rows(self, 1, 1)

    def add(self, path: str, device: BlockDevice | None) -> None:
        self.members.setdefault(
            path, {"erase": default_erase(device), "scheduler": "", "read_ahead": KEEP}
        )

    def remove(self, path: str) -> None:
        self.members.pop(path, None)

    def set_devices(self, devices: list[DeviceSpec]) -> None:
        """The devices of a layout opened from a file, with their settings."""
        self.members = {
            d.path: {
                "erase": d.erase,
                "scheduler": d.scheduler,
                "read_ahead": KEEP if d.read_ahead_kib is None else d.read_ahead_kib,
            }
            for d in devices
        }

    def entries(self) -> list[dict[str, Any]]:
        """The devices as a layout document lists them."""
        devices = []
        for path, settings in self.members.items():
            entry: dict[str, Any] = {"path": path, "erase": settings["erase"]}
            if settings.get("scheduler"):
                entry["scheduler"] = settings["scheduler"]
            if int(settings.get("read_ahead", KEEP)) >= 0:
                entry["read_ahead_kib"] = int(settings["read_ahead"])
            devices.append(entry)
        return devices

    def fill(self, find: Callable[[str], BlockDevice | None]) -> None:
        """One row per member; ``find(path)`` is the scanned device (or None), for its choices."""
        self.setRowCount(0)
        for path, settings in self.members.items():
            row = self.rowCount()
            self.insertRow(row)
            cell = QTableWidgetItem(path)
            cell.setTextAlignment(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft)
            self.setItem(row, 0, cell)
            device = find(path)
            self.setCellWidget(row, 1, self._erase_box(path, device, settings["erase"]))
            self.setCellWidget(row, 2, self._scheduler_box(path, device, settings["scheduler"]))
            self.setCellWidget(row, 3, self._read_ahead_box(path, device, settings["read_ahead"]))
        self.setVisible(bool(self.members))
        fit_rows(self, 1, 8)

    def _erase_box(self, path: str, device: BlockDevice | None, current: str) -> QComboBox:
        box = QComboBox()
        methods = device.erase_methods if device else list(ERASE_METHODS)
        for name in methods or ["format-only"]:
            method = ERASE_METHODS.get(name)
            box.addItem(method.label if method else name, name)
            box.setItemData(
                box.count() - 1, method.description if method else "", Qt.ItemDataRole.ToolTipRole
            )
        box.setCurrentIndex(max(0, box.findData(current)))
        box.currentIndexChanged.connect(
            lambda _i: self._member_changed(path, "erase", box.currentData())
        )
        return box

    def _scheduler_box(self, path: str, device: BlockDevice | None, current: str) -> QComboBox:
        box = QComboBox()
        offered = device.schedulers if device else list(SCHEDULER_CHOICES)
        box.addItem(f"keep ({device.scheduler})" if device and device.scheduler else "keep", "")
        for name in offered:
            box.addItem(name, name)
        box.setEnabled(bool(offered))
        box.setCurrentIndex(max(0, box.findData(current)))
        box.currentIndexChanged.connect(
            lambda _i: self._member_changed(path, "scheduler", box.currentData())
        )
        return box

    def _read_ahead_box(self, path: str, device: BlockDevice | None, current: Any) -> QSpinBox:
        spin = QSpinBox()
        spin.setRange(KEEP, 1 << 20)
        spin.setSingleStep(64)
        keep = (
            f"keep ({device.read_ahead_kib} KiB)"
            if device and device.read_ahead_kib is not None
            else "keep"
        )
        spin.setSpecialValueText(keep)
        spin.setSuffix(" KiB")
        spin.setValue(int(current))
        spin.valueChanged.connect(lambda v: self._member_changed(path, "read_ahead", v))
        return spin

    def _member_changed(self, path: str, key: str, value: Any) -> None:
        if path in self.members:
            self.members[path][key] = value
            self.changed.emit()
