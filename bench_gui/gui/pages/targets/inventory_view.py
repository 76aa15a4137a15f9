"""The inventory panel of the Targets page: a host's CPU, memory, OS and kernel, its block
devices (as a tree flattened into a table) and its filesystems, as
:func:`~bench_gui.remote.inventory.collect_inventory` returns them."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QGridLayout, QGroupBox, QLabel, QPushButton, QVBoxLayout, QWidget

from bench_gui.gui.pages.targets.parts import (
    COMPACT_TABLE,
    action_header,
    busy_bar,
    cell,
    placeholder,
)
from bench_gui.gui.widgets.format import human_bytes
from bench_gui.gui.widgets.page_parts import Banner, FitTable, fit_rows

BLOCK_COLUMNS = (
    "Device",
    "Model",
    "Serial",
    "Size",
    "Rotational",
    "Transport",
    "Firmware",
    "Mounted on",
)
FS_COLUMNS = ("Mount point", "Source", "Type", "Size", "Used", "Available")
SUMMARY_KEYS = (("Host", "OS"), ("CPU", "Kernel"), ("Memory", "Collected"))
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


def flatten(devices: list[Any], depth: int = 0) -> list[tuple[dict[str, Any], int]]:
    """A tree of block devices (``children``) as (device, depth) in display order."""
    out: list[tuple[dict[str, Any], int]] = []
    for device in devices:
        if not isinstance(device, dict):
            continue
        out.append((device, depth))
        out.extend(flatten(device.get("children") or [], depth + 1))
    return out


class InventoryPanel(QGroupBox):
    """Shows a collected inventory; ``data`` is the one on show (None: none yet).

    The page connects ``button``.

    Signals:
        status(str): a short line for the window's status bar.
    """

    status = Signal(str)

    def __init__(self) -> None:
        super().__init__("Inventory")
        self.data: dict[str, Any] | None = None
        layout = QVBoxLayout(self)
        layout.setSpacing(8)
        self.button = QPushButton("Collect inventory")
        layout.addLayout(
            action_header(
                "CPU, memory, kernel and distribution, block devices and filesystems of the"
                " host, as stored with every session run on it.",
                self.button,
            )
        )
        self.busy_bar = busy_bar()
        layout.addWidget(self.busy_bar)
        self.banner = Banner()
        layout.addWidget(self.banner)
        self.placeholder = placeholder(
            "No inventory yet. “Collect inventory” reads it from the host in the form."
        )
        layout.addWidget(self.placeholder, 1)
        self.body = self._body()
        self.body.hide()
        layout.addWidget(self.body, 1)

    def _body(self) -> QWidget:
        body = QWidget()
        column = QVBoxLayout(body)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(8)
        column.addWidget(self._summary())

        self.devices_title = QLabel("Block devices")
        self.devices_title.setObjectName("sectionTitle")
        column.addWidget(self.devices_title)
        self.devices_table = FitTable(BLOCK_COLUMNS, len(BLOCK_COLUMNS) - 1)
        self.devices_table.setStyleSheet(COMPACT_TABLE)
        fit_rows(self.devices_table, 2, 8)
        column.addWidget(self.devices_table)
        self.fs_title = QLabel("Filesystems")
        self.fs_title.setObjectName("sectionTitle")
        column.addWidget(self.fs_title)
        self.fs_table = FitTable(FS_COLUMNS, 1)
        self.fs_table.setStyleSheet(COMPACT_TABLE)
        self.fs_table.setMinimumHeight(150)
        column.addWidget(self.fs_table, 1)
        self.notes = QLabel("")
        self.notes.setObjectName("fieldHint")
        self.notes.setWordWrap(True)
        self.notes.setTextFormat(Qt.TextFormat.PlainText)
        self.notes.hide()
        column.addWidget(self.notes)
        return body

    def _summary(self) -> QWidget:
        summary = QWidget()
        grid = QGridLayout(summary)
        grid.setContentsMargins(4, 2, 4, 2)
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(6)
        self.summary_values: dict[str, QLabel] = {}
        top = Qt.AlignmentFlag.AlignTop
        for row, pair in enumerate(SUMMARY_KEYS):
            for col, key in enumerate(pair):
                name = QLabel(key)
                name.setObjectName("muted")
                name.setAlignment(Qt.AlignmentFlag.AlignRight | top)
                value = QLabel("—")
                value.setWordWrap(True)
                value.setAlignment(Qt.AlignmentFlag.AlignLeft | top)
                value.setTextFormat(Qt.TextFormat.PlainText)
                value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                grid.addWidget(name, row, col * 2, top)
                grid.addWidget(value, row, col * 2 + 1, top)
                self.summary_values[key] = value
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        return summary

    # ---- showing an inventory ------------------------------------------------------------

    def clear(self) -> None:
        """Back to "no inventory yet"."""
        self.data = None
        self.banner.clear()
        self.body.hide()
        self.placeholder.show()

    def show_inventory(self, data: dict[str, Any], name: str = "") -> None:
        """Show a collected inventory (of the target ``name``): summary, block devices,
        filesystems, notes."""
        self.data = data
        host = data.get("hostname") or data.get("host") or "?"
        self._fill_summary(data, host, name)
        self.placeholder.hide()
        self.body.show()

        self.devices_table.setRowCount(0)
        for device, depth in flatten(data.get("block_devices") or []):
            self._add_device(device, depth)
        self.devices_title.setText(f"Block devices ({self.devices_table.rowCount()})")
        fit_rows(self.devices_table, 2, 8)
        self.devices_table.fit_columns()
        self._fill_filesystems(data.get("filesystems") or [])
        notes = data.get("notes") or []
        self.notes.setText("Notes: " + "; ".join(str(n) for n in notes))
        self.notes.setVisible(bool(notes))
        self.banner.show_text(
            "ok", f"Inventory of {name or host} collected from {data.get('host') or host}."
        )
        self.status.emit(f"Inventory of {name or host} collected.")

    def _fill_summary(self, data: dict[str, Any], host: Any, name: str) -> None:
        cpu = data.get("cpu") or {}
        memory = data.get("memory") or {}
        kernel = data.get("kernel") or {}
        osr = data.get("os") or {}
        self.summary_values["Host"].setText(f"{host}  ({name})" if name else str(host))
        counts = [
            f"{cpu[k]} {word if cpu[k] == 1 else word + 's'}"
            for k, word in (("sockets", "socket"), ("cores", "core"), ("threads", "thread"))
            if cpu.get(k)
        ]
        model = cpu.get("model") or "unknown CPU"
        cpu_text = f"{model}\n{', '.join(counts)}" if counts else str(model)
        self.summary_values["CPU"].setText(cpu_text)
        available = memory.get("available_bytes")
        mem_text = human_bytes(memory.get("total_bytes"))
        if isinstance(available, int):
            mem_text += f" ({human_bytes(available)} available)"
        self.summary_values["Memory"].setText(mem_text)
        self.summary_values["OS"].setText(str(osr.get("pretty_name") or osr.get("id") or "—"))
        release = kernel.get("release") or "—"
        machine = kernel.get("machine")
        self.summary_values["Kernel"].setText(f"{release}" + (f" ({machine})" if machine else ""))
        self.summary_values["Collected"].setText(
            str(data.get("collected_at", "—")).replace("T", " ").replace("Z", " UTC")
        )

    def _add_device(self, device: dict[str, Any], depth: int) -> None:
        row = self.devices_table.rowCount()
        self.devices_table.insertRow(row)
        path = str(device.get("path") or device.get("name") or "?")
        name = ("    " * (depth - 1) + "└ " if depth else "") + path
        kind = str(device.get("type") or "")
        if kind and kind not in ("disk", "part"):
            name += f"  ({kind})"  # raid10, lvm, crypt, loop...
        rotational = device.get("rotational")
        values = (
            name,
            device.get("model") or "—",
            device.get("serial") or "—",
            human_bytes(device.get("size_bytes")),
            "—" if rotational is None else ("yes" if rotational else "no"),
            device.get("transport") or "—",
            device.get("firmware") or "—",
            ", ".join(device.get("mountpoints") or []),
        )
        for col, text in enumerate(values):
            item = cell(str(text), f"{path}: {kind}" if col == 0 and kind else "")
            if col == 3:
                item.setTextAlignment(_RIGHT)
            self.devices_table.setItem(row, col, item)

    def _fill_filesystems(self, filesystems: list[dict[str, Any]]) -> None:
        self.fs_table.setRowCount(0)
        for fs in filesystems:
            row = self.fs_table.rowCount()
            self.fs_table.insertRow(row)
            values = (
                fs.get("target") or "",
                fs.get("source") or "",
                fs.get("fstype") or "",
                human_bytes(fs.get("size_bytes")),
                human_bytes(fs.get("used_bytes")),
                human_bytes(fs.get("avail_bytes")),
            )
            for col, text in enumerate(values):
                item = cell(str(text), fs.get("options") or "")
                if col >= 3:
                    item.setTextAlignment(_RIGHT)
                self.fs_table.setItem(row, col, item)
        self.fs_title.setText(f"Filesystems ({self.fs_table.rowCount()})")
        self.fs_table.fit_columns()

    def device_rows(self) -> list[dict[str, str]]:
        """The block devices table as shown (column -> text), for tests and copy."""
        rows = []
        for r in range(self.devices_table.rowCount()):
            cells = {}
            for i, col in enumerate(BLOCK_COLUMNS):
                item = self.devices_table.item(r, i)
                cells[col] = item.text() if item is not None else ""
            rows.append(cells)
        return rows
