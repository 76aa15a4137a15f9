"""The Storage page: the target's disks, a layout over them, its plan, and the database on it.

Left: the block devices of the chosen target ("This machine" or a saved SSH target) with what
uses each one and the evidence for it, then the layout editor (array, filesystem, mount, and per
device the erase method the device supports, its scheduler and read-ahead). Right: the plan as
the exact commands (a dry run, checked against the last scan: a device in use is refused here
already, with its evidence), the confirmation (the device names, typed), Apply and Tear down
with a live log and progress, and the database placement with its undo.

All remote work runs in a :class:`~bench_gui.gui.remote_tasks.RemoteTask` (one at a time): the
page never waits for a disk or the network. Log lines and progress come from the worker thread
through queued signals of a small relay object; the page is only touched in the GUI thread.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from bench_gui.core.storage import (
    ERASE_METHODS,
    Layout,
    LayoutError,
    build_plan,
    build_teardown,
    layout_from_dict,
    load_layout,
    normalize_device,
)
from bench_gui.gui.dialogs import HostKeyDialog
from bench_gui.gui.pages.targets import human_bytes
from bench_gui.gui.remote_tasks import RemoteTask
from bench_gui.gui.widgets.common import Banner, FitTable, fit_rows, scrolled
from bench_gui.remote.errors import HostKeyError, SSHError, UnknownHostKey
from bench_gui.remote.hostkeys import APP_KNOWN_HOSTS
from bench_gui.remote.localhost import LOCAL_TARGET
from bench_gui.remote.storage import (
    BlockDevice,
    Discovery,
    Progress,
    Refusal,
    StepFailed,
    StorageError,
    StorageRefused,
    apply_layout,
    check_layout,
    describe_line,
    discover,
    open_runner,
    teardown_layout,
)
from bench_gui.remote.targets import TARGETS_FILE, load_targets
from bench_gui.store.paths import data_dir

DEVICE_COLUMNS = ("", "Device", "Type", "Size", "Media", "Model", "Serial", "Firmware", "Use")
MEMBER_COLUMNS = ("Device", "Erase method", "I/O scheduler", "Read-ahead")
LEVELS = (("single", "Single device"), ("0", "RAID 0"), ("1", "RAID 1"), ("10", "RAID 10"))
BACKENDS = (("mdadm", "mdadm (md array)"), ("btrfs", "btrfs multi-device"))
FILESYSTEMS = (("xfs", "XFS"), ("ext4", "ext4"), ("btrfs", "btrfs"))
PLACEMENTS = (
    ("tablespace", "Tablespace on the volume (non-invasive)"),
    ("datadir", "Whole data directory (stop, copy, restart)"),
    ("none", "Leave the database where it is"),
)
CHUNKS = (64, 128, 256, 512, 1024)
KEEP = "keep"
OK_COLOR = "#42be65"
BAD_COLOR = "#ff6b74"
MUTED_COLOR = "#93a0b8"
SCHEDULER_CHOICES = ("", "none", "mq-deadline", "kyber", "bfq")
# Check boxes inside the device table, drawn like the theme's QCheckBox.
_PAGE_STYLE = """
QTableView::indicator { width: 16px; height: 16px; border: 2px solid #4a5570;
                        border-radius: 4px; background: #1a1f29; }
QTableView::indicator:checked { background: #33b1ff; border-color: #33b1ff; }
QTableView::indicator:disabled { border-color: #2a3140; background: #161a22; }
"""


def _mono() -> QFont:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setPointSize(10)
    return font


class _Relay(QObject):
    """Carries a worker's log lines and progress to the GUI thread (queued signals)."""

    line = Signal(str)
    progress = Signal(object)


class StoragePage(QWidget):
    """Block devices, a layout, its plan, apply/teardown and database placement.

    Signals:
        status(str): a short line for the window's status bar.
        layout_applied(dict): the description of a layout just built (for sessions).
    """

    status = Signal(str)
    layout_applied = Signal(dict)

    def __init__(self, folder: Path | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.folder = folder if folder is not None else data_dir()
        self.state_dir = self.folder / "storage"
        self.discovery: Discovery | None = None
        self.task: RemoteTask | None = None
        self.cancel_event: threading.Event | None = None
        self.host_key_dialog: HostKeyDialog | None = None
        self.current_layout: Layout | None = None
        self.layout_problems: list[tuple[str, str]] = []
        self.refusals: list[Refusal] = []
        self.relay = _Relay(self)
        self.relay.line.connect(self.append_log)
        self.relay.progress.connect(self._on_progress)
        self._closing = False
        self._filling = False
        self._members: dict[str, dict[str, Any]] = {}  # per-device settings, by path
        self.setStyleSheet(_PAGE_STYLE)
        self._build_ui()
        self.reload_targets()
        self._refresh()

    # ---- construction --------------------------------------------------------------------

    def _build_ui(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(20, 16, 20, 12)
        outer.setSpacing(10)

        header = QHBoxLayout()
        titles = QVBoxLayout()
        titles.setSpacing(0)
        title = QLabel("Storage")
        title.setObjectName("pageTitle")
        titles.addWidget(title)
        self.subtitle = QLabel(
            "Erase, RAID, filesystem and mount on the target's disks — then the database on them."
        )
        self.subtitle.setObjectName("pageSubtitle")
        titles.addWidget(self.subtitle)
        header.addLayout(titles, 1)
        target_label = QLabel("Target")
        target_label.setObjectName("formLabel")
        header.addWidget(target_label, 0, Qt.AlignmentFlag.AlignBottom)
        self.target_combo = QComboBox()
        self.target_combo.setMinimumWidth(240)
        self.target_combo.currentIndexChanged.connect(self._on_target_changed)
        header.addWidget(self.target_combo, 0, Qt.AlignmentFlag.AlignBottom)
        self.scan_button = QPushButton("Scan devices")
        self.scan_button.setProperty("role", "primary")
        self.scan_button.clicked.connect(self.scan)
        header.addWidget(self.scan_button, 0, Qt.AlignmentFlag.AlignBottom)
        outer.addLayout(header)

        self.banner = Banner()
        outer.addWidget(self.banner)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(scrolled(self._left_column()))
        splitter.addWidget(scrolled(self._right_column()))
        splitter.setStretchFactor(0, 11)
        splitter.setStretchFactor(1, 9)
        splitter.setSizes([930, 770])
        outer.addWidget(splitter, 1)

    def _left_column(self) -> QWidget:
        column = QWidget()
        layout = QVBoxLayout(column)
        layout.setContentsMargins(0, 0, 8, 0)
        layout.setSpacing(6)
        layout.addWidget(self._devices_group())
        layout.addWidget(self._layout_group())
        layout.addStretch(1)
        return column

    def _right_column(self) -> QWidget:
        column = QWidget()
        layout = QVBoxLayout(column)
        layout.setContentsMargins(8, 0, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(self._plan_group())
        layout.addWidget(self._run_group())
        layout.addWidget(self._database_group())
        layout.addStretch(1)
        return column

    def _devices_group(self) -> QGroupBox:
        self.devices_group = QGroupBox("Block devices")
        layout = QVBoxLayout(self.devices_group)
        layout.setSpacing(8)
        self.devices_hint = QLabel(
            "Scan the target to list its disks. Tick the devices the layout is built on: a"
            " device in use (mounted, root or boot, swap, RAID/LVM/ZFS/LUKS member, held, or"
            " busy) is refused, with the evidence."
        )
        self.devices_hint.setObjectName("muted")
        self.devices_hint.setWordWrap(True)
        layout.addWidget(self.devices_hint)
        self.scan_busy = QProgressBar()
        self.scan_busy.setRange(0, 0)
        self.scan_busy.setTextVisible(False)
        self.scan_busy.setMaximumHeight(8)
        self.scan_busy.hide()
        layout.addWidget(self.scan_busy)
        self.device_table = FitTable(DEVICE_COLUMNS)
        self.device_table.itemChanged.connect(self._on_device_ticked)
        self.device_table.itemSelectionChanged.connect(self._show_evidence)
        fit_rows(self.device_table, 3, 3)
        layout.addWidget(self.device_table)
        self.evidence_label = QLabel("")
        self.evidence_label.setWordWrap(True)
        self.evidence_label.setTextFormat(Qt.TextFormat.RichText)
        self.evidence_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.evidence_label.hide()
        layout.addWidget(self.evidence_label)
        return self.devices_group

    def _combo(self, items: tuple[tuple[str, str], ...]) -> QComboBox:
        combo = QComboBox()
        for value, label in items:
            combo.addItem(label, value)
        combo.currentIndexChanged.connect(self._refresh)
        return combo

    def _edit(self, placeholder: str = "", text: str = "") -> QLineEdit:
        edit = QLineEdit(text)
        edit.setPlaceholderText(placeholder)
        edit.textChanged.connect(self._refresh)
        return edit

    def _form_label(self, text: str) -> QLabel:
        label = QLabel(text)
        label.setObjectName("formLabel")
        label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        return label

    def _layout_group(self) -> QGroupBox:
        group = QGroupBox("Layout")
        layout = QVBoxLayout(group)
        layout.setSpacing(10)
        grid = QGridLayout()
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(8)
        self.name_edit = self._edit("bench volume", "bench volume")
        self.level_combo = self._combo(LEVELS)
        self.backend_combo = self._combo(BACKENDS)
        self.chunk_combo = QComboBox()
        for kib in CHUNKS:
            self.chunk_combo.addItem(f"{kib} KiB chunk", kib)
        self.chunk_combo.setCurrentIndex(CHUNKS.index(512))
        self.chunk_combo.currentIndexChanged.connect(self._refresh)
        self.md_edit = self._edit("/dev/md0", "/dev/md0")
        self.resync_combo = self._combo(
            (("wait", "Wait for the initial resync"), ("skip", "Skip it (after a full discard)"))
        )
        self.fs_combo = self._combo(FILESYSTEMS)
        self.align_check = QCheckBox("Stripe alignment")
        self.align_check.setChecked(True)
        self.align_check.toggled.connect(self._refresh)
        self.label_edit = self._edit("label (optional)")
        self.point_edit = self._edit("/mnt/bench", "/mnt/bench")
        self.options_edit = self._edit("noatime", "noatime")
        self.owner_edit = self._edit("postgres", "postgres")

        rows: list[tuple[str, list[QWidget]]] = [
            ("Name", [self.name_edit]),
            ("Array", [self.level_combo, self.backend_combo]),
            ("RAID", [self.chunk_combo, self.md_edit, self.resync_combo]),
            ("Filesystem", [self.fs_combo, self.label_edit, self.align_check]),
            ("Mount point", [self.point_edit]),
            ("Mount options", [self.options_edit]),
            ("Owner", [self.owner_edit]),
        ]
        for row, (text, widgets) in enumerate(rows):
            grid.addWidget(self._form_label(text), row, 0)
            line = QHBoxLayout()
            line.setSpacing(8)
            for widget in widgets:
                line.addWidget(widget, 1)
            grid.addLayout(line, row, 1)
        grid.setColumnStretch(1, 1)
        layout.addLayout(grid)

        members_title = QLabel(
            "Per device: erase method (from what the device supports), I/O scheduler and read-ahead"
        )
        members_title.setObjectName("fieldHint")
        members_title.setWordWrap(True)
        layout.addWidget(members_title)
        self.member_table = QTableWidget(0, len(MEMBER_COLUMNS))
        self.member_table.setHorizontalHeaderLabels(list(MEMBER_COLUMNS))
        self.member_table.verticalHeader().setVisible(False)
        self.member_table.setShowGrid(False)
        self.member_table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.member_table.verticalHeader().setDefaultSectionSize(46)
        head = self.member_table.horizontalHeader()
        head.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.member_table.setColumnWidth(2, 210)
        self.member_table.setColumnWidth(3, 200)
        fit_rows(self.member_table, 1, 1)
        layout.addWidget(self.member_table)
        self.no_members = QLabel("No device ticked yet.")
        self.no_members.setObjectName("muted")
        layout.addWidget(self.no_members)

        self.layout_errors = QLabel("")
        self.layout_errors.setObjectName("fieldError")
        self.layout_errors.setWordWrap(True)
        self.layout_errors.hide()
        layout.addWidget(self.layout_errors)

        buttons = QHBoxLayout()
        self.open_button = QPushButton("Open layout…")
        self.open_button.clicked.connect(self._on_open)
        self.save_button = QPushButton("Save layout…")
        self.save_button.clicked.connect(self._on_save)
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.save_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        return group

    def _plan_group(self) -> QGroupBox:
        group = QGroupBox("Plan — dry run")
        layout = QVBoxLayout(group)
        layout.setSpacing(8)
        mode = QHBoxLayout()
        self.plan_mode = QComboBox()
        self.plan_mode.addItem("Build the layout", "apply")
        self.plan_mode.addItem("Tear it down", "teardown")
        self.plan_mode.currentIndexChanged.connect(self._refresh)
        mode.addWidget(self._form_label("Show"))
        mode.addWidget(self.plan_mode, 1)
        layout.addLayout(mode)
        self.plan_text = QPlainTextEdit()
        self.plan_text.setReadOnly(True)
        self.plan_text.setFont(_mono())
        self.plan_text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.plan_text.setMinimumHeight(300)
        layout.addWidget(self.plan_text)
        self.check_label = QLabel("")
        self.check_label.setWordWrap(True)
        self.check_label.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.check_label)
        return group

    def _run_group(self) -> QGroupBox:
        group = QGroupBox("Run")
        layout = QVBoxLayout(group)
        layout.setSpacing(8)
        self.confirm_hint = QLabel("")
        self.confirm_hint.setObjectName("fieldHint")
        self.confirm_hint.setWordWrap(True)
        layout.addWidget(self.confirm_hint)
        self.confirm_edit = QLineEdit()
        self.confirm_edit.setPlaceholderText("type the device names to confirm")
        self.confirm_edit.textChanged.connect(self._update_buttons)
        layout.addWidget(self.confirm_edit)
        buttons = QHBoxLayout()
        self.apply_button = QPushButton("Apply layout")
        self.apply_button.setProperty("role", "danger")
        self.apply_button.clicked.connect(self.apply)
        self.teardown_button = QPushButton("Tear down")
        self.teardown_button.setProperty("role", "danger")
        self.teardown_button.clicked.connect(self.teardown)
        self.cancel_button = QPushButton("Stop after this step")
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.setEnabled(False)
        buttons.addWidget(self.apply_button)
        buttons.addWidget(self.teardown_button)
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        layout.addLayout(buttons)
        self.step_label = QLabel("")
        self.step_label.setObjectName("muted")
        layout.addWidget(self.step_label)
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setTextVisible(False)
        self.progress_bar.setMaximumHeight(10)
        self.progress_bar.hide()
        layout.addWidget(self.progress_bar)
        self.log_view = QPlainTextEdit()
        self.log_view.setReadOnly(True)
        self.log_view.setFont(_mono())
        self.log_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.log_view.setMinimumHeight(200)
        self.log_view.setPlaceholderText("The live log of a run appears here.")
        layout.addWidget(self.log_view)
        return group

    def _database_group(self) -> QGroupBox:
        group = QGroupBox("Database on the volume")
        layout = QVBoxLayout(group)
        layout.setSpacing(8)
        form = QFormLayout()
        form.setHorizontalSpacing(12)
        form.setVerticalSpacing(6)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.placement_combo = self._combo(PLACEMENTS)
        self.db_user_edit = self._edit("postgres", "postgres")
        self.databases_edit = self._edit("tpcc", "tpcc")
        self.tablespace_edit = self._edit("bench", "bench")
        self.wal_edit = self._edit("empty: WAL stays with the data (e.g. /mnt/wal/pg_wal)")
        self.control_edit = self._edit("pg_ctl, systemctl:UNIT or pg_ctlcluster:16/main", "pg_ctl")
        self.bin_edit = self._edit("directory of psql and pg_ctl (empty: PATH)")
        self.conninfo_edit = self._edit("empty: the local socket, database postgres")
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
            form.addRow(self._form_label(text), widget)
        layout.addLayout(form)
        buttons = QHBoxLayout()
        self.move_button = QPushButton("Move the database")
        self.move_button.setProperty("role", "primary")
        self.move_button.clicked.connect(self.move_database)
        self.restore_button = QPushButton("Restore original location")
        self.restore_button.clicked.connect(self.restore_database)
        buttons.addWidget(self.move_button)
        buttons.addWidget(self.restore_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        return group

    # ---- targets and devices -------------------------------------------------------------

    def reload_targets(self) -> None:
        current = self.target_name()
        self.target_combo.blockSignals(True)
        self.target_combo.clear()
        self.target_combo.addItem("This machine (local)", LOCAL_TARGET)
        try:
            names = sorted(load_targets(self.folder / TARGETS_FILE))
        except SSHError:
            names = []
        for name in names:
            self.target_combo.addItem(name, name)
        index = self.target_combo.findData(current)
        self.target_combo.setCurrentIndex(max(0, index))
        self.target_combo.blockSignals(False)

    def target_name(self) -> str:
        return str(self.target_combo.currentData() or LOCAL_TARGET)

    def set_target(self, name: str) -> None:
        index = self.target_combo.findData(name)
        if index < 0:
            self.target_combo.addItem(name, name)
            index = self.target_combo.count() - 1
        self.target_combo.setCurrentIndex(index)

    def _on_target_changed(self) -> None:
        self.discovery = None
        self._members.clear()
        self.show_devices(None)
        self._refresh()

    def show_devices(self, disc: Discovery | None) -> None:
        """Fill the device table from a discovery (None empties it)."""
        self.discovery = disc
        table = self.device_table
        self._filling = True
        table.setRowCount(0)
        devices = disc.devices if disc else []
        bad = QColor(BAD_COLOR)
        muted = QColor(MUTED_COLOR)
        for device in devices:
            row = table.rowCount()
            table.insertRow(row)
            tick = QTableWidgetItem("")
            candidate = device.type in ("disk", "loop", "part")
            if candidate:
                tick.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled)
                checked = device.path in self._members
                tick.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
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
            for col, text in enumerate(cells, start=1):
                table.setItem(row, col, QTableWidgetItem(text))
            use = QTableWidgetItem("In use" if device.in_use else "Free")
            use.setForeground(bad if device.in_use else QColor(OK_COLOR))
            tip = "\n".join(f"• {e.text}  [{e.source}]" for e in device.evidence)
            use.setToolTip(tip or "No evidence of use")
            if device.in_use:
                use.setText("In use: " + ", ".join(_short_reasons(device)))
            table.setItem(row, len(DEVICE_COLUMNS) - 1, use)
            if not candidate:
                for col in range(1, len(DEVICE_COLUMNS) - 1):
                    item = table.item(row, col)
                    if item is not None:
                        item.setForeground(muted)
        self._filling = False
        fit_rows(table, 3, 12)
        if disc is not None:
            self.devices_group.setTitle(f"Block devices on {disc.host}")
            free = sum(1 for d in disc.candidates() if not d.in_use)
            self.devices_hint.setText(
                f"{len(disc.candidates())} disks and partitions, {free} free. Tick the devices"
                " the layout is built on; select a row to see the evidence of its use."
            )
        else:
            self.devices_group.setTitle("Block devices")
        self._show_evidence()
        self._refresh()

    def _on_device_ticked(self, item: QTableWidgetItem) -> None:
        if self._filling or item.column() != 0:
            return
        path = str(item.data(Qt.ItemDataRole.UserRole) or "")
        if not path:
            return
        if item.checkState() == Qt.CheckState.Checked:
            device = self.discovery.find(path) if self.discovery else None
            methods = device.erase_methods if device else []
            erase = (
                "discard" if "discard" in methods else (methods[0] if methods else "format-only")
            )
            self._members.setdefault(path, {"erase": erase, "scheduler": "", "read_ahead": -1})
        else:
            self._members.pop(path, None)
        self._fill_members()
        self._refresh()

    def tick(self, path: str, on: bool = True) -> None:
        """Tick (or untick) a device row, as a click would."""
        for row in range(self.device_table.rowCount()):
            item = self.device_table.item(row, 0)
            if item is not None and item.data(Qt.ItemDataRole.UserRole) == path:
                item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
                return
        raise KeyError(path)

    def _show_evidence(self) -> None:
        rows = self.device_table.selectionModel().selectedRows() if self.discovery else []
        if not rows or self.discovery is None:
            self.evidence_label.hide()
            return
        item = self.device_table.item(rows[0].row(), 0)
        device = self.discovery.find(str(item.data(Qt.ItemDataRole.UserRole))) if item else None
        if device is None:
            self.evidence_label.hide()
            return
        self.evidence_label.setText(_evidence_html(device))
        self.evidence_label.show()

    def _fill_members(self) -> None:
        table = self.member_table
        table.setRowCount(0)
        for path, settings in self._members.items():
            row = table.rowCount()
            table.insertRow(row)
            cell = QTableWidgetItem(path)
            cell.setTextAlignment(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft)
            table.setItem(row, 0, cell)
            device = self.discovery.find(path) if self.discovery else None
            erase = QComboBox()
            methods = device.erase_methods if device else list(ERASE_METHODS)
            for name in methods or ["format-only"]:
                erase.addItem(ERASE_METHODS[name].label if name in ERASE_METHODS else name, name)
                erase.setItemData(
                    erase.count() - 1,
                    ERASE_METHODS[name].description if name in ERASE_METHODS else "",
                    Qt.ItemDataRole.ToolTipRole,
                )
            erase.setCurrentIndex(max(0, erase.findData(settings["erase"])))
            erase.currentIndexChanged.connect(
                lambda _i, p=path, c=erase: self._member_changed(p, "erase", c.currentData())
            )
            table.setCellWidget(row, 1, erase)
            sched = QComboBox()
            offered = device.schedulers if device else list(SCHEDULER_CHOICES[1:])
            sched.addItem(
                f"keep ({device.scheduler})" if device and device.scheduler else "keep", ""
            )
            for name in offered:
                sched.addItem(name, name)
            sched.setEnabled(bool(offered))
            sched.setCurrentIndex(max(0, sched.findData(settings["scheduler"])))
            sched.currentIndexChanged.connect(
                lambda _i, p=path, c=sched: self._member_changed(p, "scheduler", c.currentData())
            )
            table.setCellWidget(row, 2, sched)
            ra = QSpinBox()
            ra.setRange(-1, 1 << 20)
            ra.setSingleStep(64)
            current = (
                f"keep ({device.read_ahead_kib} KiB)"
                if device and device.read_ahead_kib is not None
                else "keep"
            )
            ra.setSpecialValueText(current)
            ra.setSuffix(" KiB")
            ra.setValue(int(settings["read_ahead"]))
            ra.valueChanged.connect(lambda v, p=path: self._member_changed(p, "read_ahead", v))
            table.setCellWidget(row, 3, ra)
        table.setVisible(bool(self._members))
        self.no_members.setVisible(not self._members)
        fit_rows(table, 1, 8)

    def _member_changed(self, path: str, key: str, value: Any) -> None:
        if path in self._members:
            self._members[path][key] = value
            self._refresh()

    # ---- the layout ----------------------------------------------------------------------

    def layout_data(self) -> dict[str, Any]:
        """The form as a layout document (what Save writes)."""
        devices = []
        for path, settings in self._members.items():
            entry: dict[str, Any] = {"path": path, "erase": settings["erase"]}
            if settings.get("scheduler"):
                entry["scheduler"] = settings["scheduler"]
            if int(settings.get("read_ahead", -1)) >= 0:
                entry["read_ahead_kib"] = int(settings["read_ahead"])
            devices.append(entry)
        options = [o for o in self.options_edit.text().replace(" ", ",").split(",") if o]
        databases = [d for d in self.databases_edit.text().replace(" ", ",").split(",") if d]
        return {
            "name": self.name_edit.text().strip() or "bench volume",
            "target": self.target_name(),
            "devices": devices,
            "array": {
                "level": self.level_combo.currentData(),
                "backend": self.backend_combo.currentData(),
                "chunk_kib": self.chunk_combo.currentData(),
                "device": self.md_edit.text().strip() or "/dev/md0",
                "resync": self.resync_combo.currentData(),
            },
            "filesystem": {
                "type": self.fs_combo.currentData(),
                "label": self.label_edit.text().strip(),
                "stripe_align": self.align_check.isChecked(),
            },
            "mount": {
                "point": self.point_edit.text().strip(),
                "options": options,
                "owner": self.owner_edit.text().strip(),
            },
            "database": {
                "placement": self.placement_combo.currentData(),
                "os_user": self.db_user_edit.text().strip(),
                "databases": databases,
                "tablespace": self.tablespace_edit.text().strip(),
                "wal_directory": self.wal_edit.text().strip(),
                "control": self.control_edit.text().strip() or "pg_ctl",
                "bin_dir": self.bin_edit.text().strip(),
                "conninfo": self.conninfo_edit.text().strip(),
            },
        }

    def set_layout(self, layout: Layout) -> None:
        """Show a layout (opened from a file) in the form."""
        self._filling = True
        try:
            self.set_target(layout.target)
            self.name_edit.setText(layout.name)
            self._members = {
                d.path: {
                    "erase": d.erase,
                    "scheduler": d.scheduler,
                    "read_ahead": -1 if d.read_ahead_kib is None else d.read_ahead_kib,
                }
                for d in layout.devices
            }
            for combo, value in (
                (self.level_combo, layout.array.level),
                (self.backend_combo, layout.array.backend),
                (self.chunk_combo, layout.array.chunk_kib),
                (self.resync_combo, layout.array.resync),
                (self.fs_combo, layout.filesystem.type),
                (self.placement_combo, layout.database.placement),
            ):
                index = combo.findData(value)
                if index < 0 and combo is self.chunk_combo:
                    combo.addItem(f"{value} KiB chunk", value)
                    index = combo.count() - 1
                combo.setCurrentIndex(max(0, index))
            self.md_edit.setText(layout.array.device)
            self.label_edit.setText(layout.filesystem.label)
            self.align_check.setChecked(layout.filesystem.stripe_align)
            self.point_edit.setText(layout.mount.point)
            self.options_edit.setText(",".join(layout.mount.options))
            self.owner_edit.setText(layout.mount.owner)
            db = layout.database
            self.db_user_edit.setText(db.os_user)
            self.databases_edit.setText(", ".join(db.databases))
            self.tablespace_edit.setText(db.tablespace)
            self.wal_edit.setText(db.wal_directory)
            self.control_edit.setText(db.control)
            self.bin_edit.setText(db.bin_dir)
            self.conninfo_edit.setText(db.conninfo)
        finally:
            self._filling = False
        if self.discovery is not None:
            self.show_devices(self.discovery)
        self._fill_members()
        self._refresh()

    def _refresh(self) -> None:
        """Validate the form, show the plan and the checks, enable what can run."""
        if self._filling or not hasattr(self, "apply_button"):
            return
        md = (
            self.level_combo.currentData() != "single"
            and self.backend_combo.currentData() == "mdadm"
        )
        array = self.level_combo.currentData() != "single"
        self.backend_combo.setEnabled(array)
        for widget in (self.chunk_combo, self.md_edit, self.resync_combo):
            widget.setEnabled(md)
        self.align_check.setEnabled(md)
        try:
            layout = layout_from_dict(self.layout_data())
        except LayoutError as exc:
            self.current_layout = None
            self.layout_problems = exc.problems
        else:
            self.current_layout = layout
            self.layout_problems = []
        if self.layout_problems:
            lines = [f"{name}: {reason}" for name, reason in self.layout_problems]
            self.layout_errors.setText("\n".join(lines))
            self.layout_errors.show()
        else:
            self.layout_errors.hide()
        self._show_plan()
        self._update_buttons()

    def _show_plan(self) -> None:
        layout = self.current_layout
        self.refusals = []
        if layout is None:
            lines = [
                "# No plan yet: tick the devices to build on."
                if not self._members
                else "# No plan yet: the layout has errors."
            ]
            lines += [
                f"#   {name}: {reason}"
                for name, reason in self.layout_problems
                if self._members or name != "devices"
            ]
            self.plan_text.setPlainText("\n".join(lines))
            self.check_label.setText("")
            self.confirm_hint.setText("")
            return
        teardown = self.plan_mode.currentData() == "teardown"
        plan = build_teardown(layout) if teardown else build_plan(layout)
        lines = [f"# {plan.action} of {layout.name!r} on {layout.target}: nothing runs yet", ""]
        for i, step in enumerate(plan.steps, 1):
            lines.append(f"# {i}. {step.title}")
            lines.append(step.display())
        if plan.notes:
            lines.append("")
            lines += [f"# note: {n}" for n in plan.notes]
        self.plan_text.setPlainText("\n".join(lines))
        names = ", ".join(plan.confirm_devices)
        self.confirm_hint.setText(
            f"To run it, type every device it destroys: {names} (short names such as sdb work too)."
        )
        if self.discovery is None:
            self.check_label.setText(
                f"<span style='color:{MUTED_COLOR}'>Scan the target to check the devices"
                " before running.</span>"
            )
            return
        self.refusals = check_layout(layout, self.discovery, plan.action)
        if not self.refusals:
            self.check_label.setText(
                f"<span style='color:{OK_COLOR}'>✓ Checked against the scan of"
                f" {self.discovery.host}: no device is in use. The devices are checked again,"
                " with an exclusive open, right before the first command.</span>"
            )
        else:
            self.check_label.setText(_refusals_html(self.refusals, self.discovery.host))

    def confirmed(self) -> bool:
        if self.current_layout is None:
            return False
        typed = {
            normalize_device(p)
            for p in self.confirm_edit.text().replace(",", " ").split()
            if p.strip()
        }
        return typed == set(self.current_layout.device_paths)

    def _update_buttons(self) -> None:
        idle = self.task is None
        ready = idle and self.current_layout is not None and self.confirmed() and not self.refusals
        teardown = self.plan_mode.currentData() == "teardown"
        self.apply_button.setEnabled(ready and not teardown)
        self.teardown_button.setEnabled(ready and teardown)
        self.scan_button.setEnabled(idle)
        self.target_combo.setEnabled(idle)
        self.cancel_button.setEnabled(not idle and self.cancel_event is not None)
        has_db = (
            idle
            and self.current_layout is not None
            and self.current_layout.database.placement != "none"
        )
        self.move_button.setEnabled(has_db)
        self.restore_button.setEnabled(idle and self.current_layout is not None)

    # ---- files ---------------------------------------------------------------------------

    def _on_open(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a storage layout", "", "Layouts (*.toml)")
        if path:
            self.open_layout(Path(path))

    def open_layout(self, path: Path) -> bool:
        try:
            layout = load_layout(path)
        except LayoutError as exc:
            self.banner.show_text(
                "failed", f"{path.name}: " + "; ".join(f"{n}: {r}" for n, r in exc.problems)
            )
            return False
        self.set_layout(layout)
        self.banner.show_text("ok", f"Opened {path}.")
        return True

    def _on_save(self) -> None:
        if self.current_layout is None:
            self.banner.show_text("failed", "The layout has errors: fix them before saving.")
            return
        path, _ = QFileDialog.getSaveFileName(
            self, "Save the storage layout", "layout.toml", "Layouts (*.toml)"
        )
        if path:
            self.current_layout.save(Path(path))
            self.banner.show_text("ok", f"Saved {path}.")

    # ---- running -------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self.task is not None

    def _start(self, kind: str, body: Any, context: dict[str, Any]) -> bool:
        if self.task is not None:
            self.status.emit("Storage: another task is still running.")
            return False
        task = RemoteTask(kind, body, context, self)
        task.done.connect(self._on_task_done)
        self.task = task
        self._update_buttons()
        task.start()
        return True

    def _runner_factory(self, accept: str | None) -> Any:
        target = self.target_name()
        folder = self.folder

        def make() -> Any:
            return open_runner(
                target,
                targets_file=folder / TARGETS_FILE,
                known_hosts=folder / APP_KNOWN_HOSTS,
                accept_fingerprint=accept,
            )

        return make

    def scan(self, accept: str | None = None) -> bool:
        """Discover the target's devices (in a worker)."""
        make = self._runner_factory(accept if isinstance(accept, str) else None)

        def body() -> Discovery:
            runner = make()
            try:
                return discover(runner)
            finally:
                runner.close()

        started = self._start("scan", body, {"target": self.target_name()})
        if started:
            self.scan_busy.show()
            self.status.emit(f"Scanning the devices of {self.target_name()}…")
        return started

    def _run_layout(self, kind: str, accept: str | None = None) -> bool:
        layout = self.current_layout
        if layout is None or not self.confirmed():
            return False
        confirm = [p for p in self.confirm_edit.text().replace(",", " ").split() if p]
        make = self._runner_factory(accept)
        cancel = threading.Event()
        relay = self.relay
        state = self.state_dir
        fn = apply_layout if kind == "apply" else teardown_layout

        def body() -> Any:
            runner = make()
            try:
                return fn(
                    runner,
                    layout,
                    confirm,
                    on_log=relay.line.emit,
                    on_progress=relay.progress.emit,
                    cancel=cancel,
                    state_dir=state,
                )
            finally:
                runner.close()

        self.cancel_event = cancel
        if not self._start(kind, body, {"target": layout.target, "layout": layout}):
            self.cancel_event = None
            return False
        self.banner.hide()
        self.log_view.clear()
        self.progress_bar.setValue(0)
        self.progress_bar.show()
        what = "Building" if kind == "apply" else "Tearing down"
        self.step_label.setText(f"{what} {layout.name} on {layout.target}…")
        self.status.emit(f"Storage: {what.lower()} {layout.name}…")
        self._update_buttons()
        return True

    def apply(self) -> bool:
        return self._run_layout("apply")

    def teardown(self) -> bool:
        return self._run_layout("teardown")

    def cancel(self) -> None:
        if self.cancel_event is not None:
            self.cancel_event.set()
            self.step_label.setText("Stopping after the current step…")

    def _db_task(self, kind: str, accept: str | None = None) -> bool:
        layout = self.current_layout
        if layout is None:
            return False
        from bench_gui.remote.dbplace import place_database, restore_database

        make = self._runner_factory(accept)
        relay = self.relay
        state = self.state_dir

        def body() -> Any:
            runner = make()
            try:
                if kind == "db-move":
                    return place_database(runner, layout, on_log=relay.line.emit, state_dir=state)
                return restore_database(runner, layout, on_log=relay.line.emit, state_dir=state)
            finally:
                runner.close()

        if not self._start(kind, body, {"target": layout.target, "layout": layout}):
            return False
        self.banner.hide()
        self.log_view.clear()
        self.progress_bar.setRange(0, 0)
        self.progress_bar.show()
        text = "Moving the database to" if kind == "db-move" else "Restoring the database from"
        self.step_label.setText(f"{text} {layout.mount.point}…")
        return True

    def move_database(self) -> bool:
        return self._db_task("db-move")

    def restore_database(self) -> bool:
        return self._db_task("db-restore")

    def append_log(self, line: str) -> None:
        self.log_view.appendPlainText(line)
        bar = self.log_view.verticalScrollBar()
        bar.setValue(bar.maximum())

    def _on_progress(self, p: Progress) -> None:
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setValue(int(p.overall * 1000))
        if p.index < p.count:
            text = f"Step {p.index + 1} of {p.count}: {p.title}"
            if p.detail:
                text += f" — {p.detail}"
            self.step_label.setText(text)

    def _on_task_done(self) -> None:
        task = self.task
        if task is None:
            return
        task.wait()
        self.task = None
        self.cancel_event = None
        self.scan_busy.hide()
        self.progress_bar.setRange(0, 1000)
        if task.kind != "scan":
            self.progress_bar.setValue(1000 if task.error is None else self.progress_bar.value())
            self.progress_bar.setVisible(task.error is None)
        if task.cancelled or self._closing:
            self._update_buttons()
            return
        error = task.error
        if isinstance(error, UnknownHostKey):
            self._ask_host_key(task, error)
        elif isinstance(error, HostKeyError):
            self.banner.show_text("failed", f"Connection refused: {error}")
        elif error is not None:
            self._show_failure(task, error)
        else:
            self._show_success(task)
        self._update_buttons()

    def _show_failure(self, task: RemoteTask, error: BaseException) -> None:
        kind = task.kind
        if isinstance(error, StorageRefused):
            self.refusals = error.refusals
            self.check_label.setText(_refusals_html(error.refusals, error.host))
            self.banner.show_text(
                "failed",
                "Refused: nothing was changed. "
                + "; ".join(f"{r.device or r.field_name}: {r.reason}" for r in error.refusals),
            )
            self.append_log(str(error))
            self.step_label.setText("Refused before the first command.")
        elif isinstance(error, StepFailed):
            self.banner.show_text("failed", str(error))
            self.step_label.setText("Stopped at a failed step: see the log.")
        elif isinstance(error, (StorageError, SSHError)):
            self.banner.show_text("failed", str(error))
            self.step_label.setText("")
        else:
            self.banner.show_text("failed", f"{type(error).__name__}: {error}")
            self.append_log(task.error_details)
        self.status.emit(f"Storage: {kind} failed.")
        if kind in ("apply", "teardown") and not isinstance(error, StorageRefused):
            self.scan()

    def _show_success(self, task: RemoteTask) -> None:
        kind = task.kind
        result = task.result
        if kind == "scan":
            self.show_devices(result)
            self.status.emit(f"Storage: {len(result.devices)} block devices on {result.host}.")
            return
        if kind == "apply":
            description = result.description or {}
            text = "Built: " + describe_line(description)
            if result.resync:
                text += f" — {result.resync['text']}."
            self.banner.show_text("ok", text)
            self.step_label.setText("Done.")
            self.layout_applied.emit(description)
            self.plan_mode.setCurrentIndex(1)
            self.confirm_edit.clear()
        elif kind == "teardown":
            self.banner.show_text(
                "ok",
                f"Taken down: {task.context['layout'].name}; the devices"
                " hold no signature any more.",
            )
            self.step_label.setText("Done.")
            self.plan_mode.setCurrentIndex(0)
            self.confirm_edit.clear()
        else:
            messages = "; ".join(result.messages) or "done"
            self.banner.show_text("ok", messages)
            self.step_label.setText(f"Data directory: {result.data_directory}")
        self.status.emit(f"Storage: {kind} done.")
        if kind in ("apply", "teardown"):
            self.scan()

    def _ask_host_key(self, task: RemoteTask, error: UnknownHostKey) -> None:
        dialog = HostKeyDialog(error, self.target_name(), self.folder / APP_KNOWN_HOSTS, self)
        self.host_key_dialog = dialog

        def answered(_result: int) -> None:
            self.host_key_dialog = None
            dialog.deleteLater()
            fingerprint = dialog.accepted_fingerprint
            if fingerprint is None or self._closing:
                self.banner.show_text("stopped", f"The host key of {error.host} was not accepted.")
                return
            if task.kind == "scan":
                self.scan(fingerprint)
            elif task.kind in ("apply", "teardown"):
                self._run_layout(task.kind, fingerprint)
            else:
                self._db_task(task.kind, fingerprint)

        dialog.finished.connect(answered)
        dialog.open()

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        """Stop after the running step and join the task, if any."""
        self._closing = True
        if self.host_key_dialog is not None:
            self.host_key_dialog.reject()
        task = self.task
        if task is None:
            return True
        if self.cancel_event is not None:
            self.cancel_event.set()
        task.cancel()
        ended = task.wait(timeout_s)
        if ended:
            self.task = None
        return ended


_SHORT = {
    "mounted": "mounted",
    "root": "root",
    "boot": "boot",
    "swap": "swap",
    "member": "member",
    "btrfs": "btrfs member",
    "holders": "held",
    "busy": "busy",
    "readonly": "read-only",
    "empty": "empty",
    "not-disk": "not a disk",
    "pgdata": "database",
}


def _short_reasons(device: BlockDevice) -> list[str]:
    """The kinds of evidence against a device, in a word each (the table's Use column)."""
    return list(dict.fromkeys(_SHORT.get(e.kind, e.kind) for e in device.blocking))


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _evidence_html(device: BlockDevice) -> str:
    head = f"<b>{_esc(device.path)}</b>"
    if not device.evidence:
        return f"{head} — <span style='color:{OK_COLOR}'>no evidence of use</span>"
    rows = []
    for e in device.evidence:
        color = BAD_COLOR if e.blocking else MUTED_COLOR
        rows.append(
            f"<li><span style='color:{color}'>{_esc(e.text)}</span>"
            f" <span style='color:{MUTED_COLOR}'>— {_esc(e.source)}</span></li>"
        )
    return f"{head}<ul style='margin-top:2px'>{''.join(rows)}</ul>"


def _refusals_html(refusals: list[Refusal], host: str) -> str:
    rows = []
    for r in refusals:
        evidence = "".join(
            f"<br>&nbsp;&nbsp;• {_esc(e.text)} <span style='color:{MUTED_COLOR}'>"
            f"({_esc(e.source)})</span>"
            for e in r.evidence
        )
        rows.append(f"<li><b>{_esc(r.field_name)}</b>: {_esc(r.reason)}{evidence}</li>")
    where = f" on {_esc(host)}" if host else ""
    return (
        f"<span style='color:{BAD_COLOR}'><b>Refused{where}</b> — nothing will run:</span>"
        f"<ul style='margin-top:2px'>{''.join(rows)}</ul>"
    )


__all__ = ["StoragePage"]
