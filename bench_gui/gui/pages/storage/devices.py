"""The block devices of the Storage page: what the scan found, what uses each device and the
evidence for it, and a tick for every device a layout may be built on."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGroupBox, QLabel, QProgressBar, QTableWidgetItem, QVBoxLayout

from bench_gui.gui.pages.storage.evidence import (
    BAD_COLOR,
    MUTED_COLOR,
    OK_COLOR,
    evidence_html,
    short_reasons,
)
from bench_gui.gui.widgets.format import human_bytes
from bench_gui.gui.widgets.page_parts import FitTable, fit_rows
from bench_gui.services.storage import BlockDevice, Discovery

DEVICE_COLUMNS = ("", "Device", "Type", "Size", "Media", "Model", "Serial", "Firmware", "Use")
# Device types a layout may be built on (the others are shown, greyed, without a tick).
CANDIDATE_TYPES = ("disk", "loop", "part")


class DevicesPanel(QGroupBox):
    """The scanned devices of a target, one row each, ticked when the layout uses them.

    Signals:
        ticked(str, bool): the user ticked (True) or unticked a device, by its path.
    """

    ticked = Signal(str, bool)

    def __init__(self) -> None:
        super().__init__("Block devices")
        self.discovery: Discovery | None = None
        self._filling = False
        layout = QVBoxLayout(self)
        layout.setSpacing(8)
        self.hint = QLabel(
            "Scan the target to list its disks. Tick the devices the layout is built on: a"
            " device in use (mounted, root or boot, swap, RAID/LVM/ZFS/LUKS member, held, or"
            " busy) is refused, with the evidence."
        )
        self.hint.setObjectName("muted")
        self.hint.setWordWrap(True)
        layout.addWidget(self.hint)
        self.scan_busy = QProgressBar()
        self.scan_busy.setRange(0, 0)
        self.scan_busy.setTextVisible(False)
        self.scan_busy.setMaximumHeight(8)
        self.scan_busy.hide()
        layout.addWidget(self.scan_busy)
        self.table = FitTable(DEVICE_COLUMNS)
        self.table.itemChanged.connect(self._on_item_changed)
        self.table.itemSelectionChanged.connect(self._show_evidence)
        fit_rows(self.table, 3, 3)
        layout.addWidget(self.table)
        self.evidence_label = QLabel("")
        self.evidence_label.setWordWrap(True)
        self.evidence_label.setTextFormat(Qt.TextFormat.RichText)
        self.evidence_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.evidence_label.hide()
        layout.addWidget(self.evidence_label)

    def device(self, path: str) -> BlockDevice | None:
        """The scanned device at ``path`` (None before a scan, or if it was not found)."""
        return self.discovery.find(path) if self.discovery else None

    def show_devices(self, disc: Discovery | None, ticked: set[str]) -> None:
        """Fill the table from a discovery (None empties it), ``ticked`` devices ticked."""
        self.discovery = disc
        self._filling = True
        self.table.setRowCount(0)
        for device in disc.devices if disc else []:
            self._add_row(device, device.path in ticked)
        self._filling = False
        fit_rows(self.table, 3, 12)
        if disc is not None:
            self.setTitle(f"Block devices on {disc.host}")
            free = sum(1 for d in disc.candidates() if not d.in_use)
            self.hint.setText(
                f"{len(disc.candidates())} disks and partitions, {free} free. Tick the devices"
                " the layout is built on; select a row to see the evidence of its use."
            )
        else:
            self.setTitle("Block devices")
        self._show_evidence()

    def _add_row(self, device: BlockDevice, ticked: bool) -> None:
        table = self.table
        row = table.rowCount()
        table.insertRow(row)
        tick = QTableWidgetItem("")
        candidate = device.type in CANDIDATE_TYPES
        if candidate:
            tick.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled)
            tick.setCheckState(Qt.CheckState.Checked if ticked else Qt.CheckState.Unchecked)
        else:
            tick.setFlags(Qt.ItemFlag.ItemIsEnabled)
        tick.setData(Qt.ItemDataRole.UserRole, device.path)
        table.setItem(row, 0, tick)
        name = device.path if device.type != "part" else f"  └ {device.path}"
        media = "—" if device.rotational is None else ("HDD" if device.rotational else "SSD")
        if device.transport:
            media += f" · {device.transport.upper()}"
        cells = [
            name,
            device.type,
            human_bytes(device.size_bytes),
            media,
            device.model or "—",
            device.serial or "—",
            device.firmware or "—",
        ]
        muted = QColor(MUTED_COLOR)
        for col, text in enumerate(cells, start=1):
            item = QTableWidgetItem(text)
            if not candidate:
                item.setForeground(muted)
            table.setItem(row, col, item)
        use = QTableWidgetItem("In use" if device.in_use else "Free")
        use.setForeground(QColor(BAD_COLOR if device.in_use else OK_COLOR))
        tip = "\n".join(f"• {e.text}  [{e.source}]" for e in device.evidence)
        use.setToolTip(tip or "No evidence of use")
        if device.in_use:
            use.setText("In use: " + ", ".join(short_reasons(device)))
        table.setItem(row, len(DEVICE_COLUMNS) - 1, use)

    def tick(self, path: str, on: bool = True) -> None:
        """Tick (or untick) a device row, as a click would."""
        for row in range(self.table.rowCount()):
            item = self.table.item(row, 0)
            if item is not None and item.data(Qt.ItemDataRole.UserRole) == path:
                item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
                return
        raise KeyError(path)

    def _on_item_changed(self, item: QTableWidgetItem) -> None:
        if self._filling or item.column() != 0:
            return
        path = str(item.data(Qt.ItemDataRole.UserRole) or "")
        if path:
            self.ticked.emit(path, item.checkState() == Qt.CheckState.Checked)

    def _show_evidence(self) -> None:
        rows = self.table.selectionModel().selectedRows() if self.discovery else []
        item = self.table.item(rows[0].row(), 0) if rows else None
        device = self.device(str(item.data(Qt.ItemDataRole.UserRole))) if item else None
        if device is None:
            self.evidence_label.hide()
            return
        self.evidence_label.setText(evidence_html(device))
        self.evidence_label.show()
