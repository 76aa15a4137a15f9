"""The saved targets of the Targets page: one row per target in ``targets.toml``."""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QGroupBox, QLabel, QVBoxLayout

from bench_gui.gui.pages.targets.form import AUTH_LABELS
from bench_gui.gui.pages.targets.parts import COMPACT_TABLE, cell
from bench_gui.gui.widgets.page_parts import FitTable
from bench_gui.services.hosts import SSHTarget

TARGET_COLUMNS = ("Name", "Host", "Port", "User", "Login", "Sudo")
SUDO_SHORT = {"none": "none", "passwordless": "passwordless", "password": "password"}


class TargetList(QGroupBox):
    """The saved targets, sorted by name; a click picks one.

    Signals:
        picked(str): the user selected the target of that name.
    """

    picked = Signal(str)

    def __init__(self) -> None:
        super().__init__("Saved targets")
        layout = QVBoxLayout(self)
        self.table = FitTable(TARGET_COLUMNS, 1)
        self.table.setStyleSheet(COMPACT_TABLE)
        self.table.setMinimumHeight(170)
        self.table.setSizeAdjustPolicy(QAbstractItemView.SizeAdjustPolicy.AdjustToContents)
        self.table.itemSelectionChanged.connect(self._on_selection)
        layout.addWidget(self.table)
        self.empty_label = QLabel(
            "No target yet. Fill in the form below and save it: a host name, an address or an"
            " alias of ~/.ssh/config."
        )
        self.empty_label.setObjectName("muted")
        self.empty_label.setWordWrap(True)
        layout.addWidget(self.empty_label)

    def show_targets(self, targets: Mapping[str, SSHTarget], selected: str | None) -> None:
        """One row per target, ``selected`` selected (without a ``picked`` signal)."""
        self.table.blockSignals(True)
        self.table.setRowCount(0)
        for name in sorted(targets):
            target = targets[name]
            row = self.table.rowCount()
            self.table.insertRow(row)
            values = (
                name,
                target.host,
                str(target.port) if target.port else "default",
                target.user or "default",
                AUTH_LABELS.get(target.auth, target.auth),
                SUDO_SHORT.get(target.sudo, target.sudo),
            )
            where = f"{target.user + '@' if target.user else ''}{target.host}"
            where += f":{target.port}" if target.port else ""
            for col, text in enumerate(values):
                item = cell(text, f"{name}: {where}")
                item.setData(Qt.ItemDataRole.UserRole, name)
                self.table.setItem(row, col, item)
        self.table.blockSignals(False)
        self.table.fit_columns()
        self.empty_label.setVisible(not targets)
        self.table.setVisible(bool(targets))
        self.select(selected)

    def select(self, name: str | None) -> None:
        """Select the row of ``name`` (None: no row), without a ``picked`` signal."""
        self.table.blockSignals(True)
        self.table.clearSelection()
        for row in range(self.table.rowCount()):
            item = self.table.item(row, 0)
            if name is not None and item is not None and item.text() == name:
                self.table.selectRow(row)
                break
        self.table.blockSignals(False)

    def _on_selection(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return
        item = self.table.item(rows[0].row(), 0)
        if item is not None:
            self.picked.emit(item.text())
