"""The Targets page: SSH hosts the app works on, their test and their inventory.

Targets are kept in ``<data dir>/targets.toml`` through :mod:`bench_gui.remote.targets`, which
holds no secret: a password, key passphrase or sudo password typed here goes to the OS keyring
(:mod:`bench_gui.remote.secrets`) when the target is saved, and the fields are emptied.

"Test connection" and "Collect inventory" act on the target in the form, saved or not (so a
target can be tried before it is saved), in a :class:`~bench_gui.gui.remote_tasks.RemoteTask`:
the page never waits for the network. An unknown host key opens
:class:`~bench_gui.gui.dialogs.HostKeyDialog`; if the user accepts the fingerprint, the same
work is started again with ``accept_fingerprint``, which records the key in the app's
known-hosts file. A changed key is refused, with the warning, and never offered for acceptance.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from bench_gui.core.engine import EngineNotFound, get_engine
from bench_gui.core.plan import Plan
from bench_gui.gui.dialogs import HostKeyDialog
from bench_gui.gui.remote_tasks import (
    DatabaseCheck,
    RemoteTask,
    SecretsRequest,
    check_connection,
    inventory,
)
from bench_gui.gui.widgets.common import Banner, FitTable, fit_rows, scrolled, set_prop
from bench_gui.remote.errors import (
    ChangedHostKey,
    HostKeyError,
    SSHError,
    TargetError,
    UnknownHostKey,
)
from bench_gui.remote.hostkeys import APP_KNOWN_HOSTS
from bench_gui.remote.secrets import SECRET_KINDS, forget_target, get_secret, set_secret
from bench_gui.remote.ssh import TargetReport
from bench_gui.remote.targets import (
    AUTH_METHODS,
    SUDO_MODES,
    TARGETS_FILE,
    SSHTarget,
    add_target,
    load_targets,
    remove_target,
    target_from_dict,
)
from bench_gui.store.paths import data_dir

TARGET_COLUMNS = ("Name", "Host", "Port", "User", "Login", "Sudo")
AUTH_LABELS = {"agent": "ssh-agent", "key": "Key file", "password": "Password"}
SUDO_LABELS = {
    "none": "No sudo",
    "passwordless": "Passwordless sudo",
    "password": "sudo with a password",
}
SUDO_SHORT = {"none": "none", "passwordless": "passwordless", "password": "password"}
SECRET_LABELS = {
    "password": "login password",
    "passphrase": "key passphrase",
    "sudo_password": "sudo password",
}
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
OK_COLOR = "#42be65"
BAD_COLOR = "#ff6b74"
NEUTRAL_COLOR = "#93a0b8"
# The tables here hold many columns in half a page: a notch smaller than the theme's.
_COMPACT_TABLE = (
    "QTableWidget { font-size: 14px; } QTableWidget::item { padding: 4px 6px; }"
    " QHeaderView::section { font-size: 13px; padding: 6px 7px; }"
)
_FIELD_RE = re.compile(r"^target '.*?': (\w+) ")

PlanSource = Callable[[], Plan | None]


def human_bytes(value: Any) -> str:
    """``274877906944`` -> ``256 GiB`` (binary units, as lsblk and free print them)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return "—"
    size = float(value)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(size) < 1024 or unit == "PiB":
            if unit == "B":
                return f"{int(size)} B"
            text = f"{size:.1f}".rstrip("0").rstrip(".")
            return f"{text} {unit}"
        size /= 1024
    return f"{value} B"  # pragma: no cover - the loop always returns


def _cell(text: str, tooltip: str = "") -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    if tooltip:
        item.setToolTip(tooltip)
    return item


class TargetsPage(QWidget):
    """Saved SSH targets: list, form, test, inventory.

    ``folder`` is the data directory (default: :func:`bench_gui.store.paths.data_dir`);
    ``plan_source`` returns the current plan, whose database the connection test tries to
    reach from the target.

    Signals:
        targets_changed(list): the saved target names, after a save or a removal.
        status(str): a short line for the window's status bar.
    """

    targets_changed = Signal(list)
    status = Signal(str)

    def __init__(
        self,
        folder: Path | None = None,
        plan_source: PlanSource | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.folder = folder if folder is not None else data_dir()
        self.targets_path = self.folder / TARGETS_FILE
        self.known_hosts_path = self.folder / APP_KNOWN_HOSTS
        self.plan_source = plan_source
        self.targets: dict[str, SSHTarget] = {}
        self.editing: str | None = None  # the saved target shown in the form (None: new)
        self.task: RemoteTask | None = None
        self.host_key_dialog: HostKeyDialog | None = None
        self.confirm_box: QMessageBox | None = None
        self.report: TargetReport | None = None
        self.inventory_data: dict[str, Any] | None = None
        self.field_errors: dict[str, QLabel] = {}
        self._field_widgets: dict[str, QWidget] = {}
        self._secret_hints: dict[str, QLabel] = {}
        self._closing = False
        self._shown_name = ""
        self._notes = ""
        self._build_ui()
        self.reload()
        self.new_target()

    # ---- construction --------------------------------------------------------------------

    def _build_ui(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(20, 16, 20, 12)
        outer.setSpacing(10)

        header = QHBoxLayout()
        titles = QVBoxLayout()
        titles.setSpacing(0)
        title = QLabel("Targets")
        title.setObjectName("pageTitle")
        titles.addWidget(title)
        self.subtitle = QLabel("")
        self.subtitle.setObjectName("pageSubtitle")
        titles.addWidget(self.subtitle)
        header.addLayout(titles, 1)
        self.new_button = QPushButton("New target")
        self.new_button.clicked.connect(self.new_target)
        header.addWidget(self.new_button, 0, Qt.AlignmentFlag.AlignBottom)
        outer.addLayout(header)

        self.page_error = QLabel("")
        self.page_error.setObjectName("fieldError")
        self.page_error.setWordWrap(True)
        self.page_error.hide()
        outer.addWidget(self.page_error)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(scrolled(self._left_column()))
        splitter.addWidget(scrolled(self._right_column()))
        splitter.setStretchFactor(0, 4)
        splitter.setStretchFactor(1, 6)
        splitter.setSizes([680, 1040])
        outer.addWidget(splitter, 1)

    def _left_column(self) -> QWidget:
        column = QWidget()
        layout = QVBoxLayout(column)
        layout.setContentsMargins(0, 0, 8, 0)
        layout.setSpacing(6)

        saved = QGroupBox("Saved targets")
        saved_layout = QVBoxLayout(saved)
        self.table = FitTable(TARGET_COLUMNS, 1)
        self.table.setStyleSheet(_COMPACT_TABLE)
        self.table.setMinimumHeight(170)
        self.table.setSizeAdjustPolicy(QAbstractItemView.SizeAdjustPolicy.AdjustToContents)
        self.table.itemSelectionChanged.connect(self._on_selection)
        saved_layout.addWidget(self.table)
        self.empty_label = QLabel(
            "No target yet. Fill in the form below and save it: a host name, an address or an"
            " alias of ~/.ssh/config."
        )
        self.empty_label.setObjectName("muted")
        self.empty_label.setWordWrap(True)
        saved_layout.addWidget(self.empty_label)
        layout.addWidget(saved)

        layout.addWidget(self._form_group())
        layout.addStretch(1)
        return column

    def _field(self, name: str, widget: QWidget, hint: str = "") -> QWidget:
        """A form cell: the input, a hint line and an error line (hidden while empty)."""
        box = QWidget()
        cell = QVBoxLayout(box)
        cell.setContentsMargins(0, 0, 0, 0)
        cell.setSpacing(2)
        cell.addWidget(widget)
        hint_label = QLabel(hint)
        hint_label.setObjectName("fieldHint")
        hint_label.setWordWrap(True)
        hint_label.setVisible(bool(hint))
        cell.addWidget(hint_label)
        if name in SECRET_KINDS:
            self._secret_hints[name] = hint_label
        error = QLabel("")
        error.setObjectName("fieldError")
        error.setWordWrap(True)
        error.hide()
        cell.addWidget(error)
        self.field_errors[name] = error
        self._field_widgets[name] = widget
        return box

    def _row(self, text: str, field: QWidget) -> None:
        label = QLabel(text)
        label.setObjectName("formLabel")
        label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        self.form.addRow(label, field)

    def _secret_edit(self) -> QLineEdit:
        edit = QLineEdit()
        edit.setEchoMode(QLineEdit.EchoMode.Password)
        edit.setClearButtonEnabled(True)
        return edit

    def _form_group(self) -> QGroupBox:
        self.form_group = QGroupBox("New target")
        layout = QVBoxLayout(self.form_group)
        layout.setSpacing(10)
        self.form = QFormLayout()
        self.form.setHorizontalSpacing(16)
        self.form.setVerticalSpacing(8)
        self.form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)

        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("db-server-1")
        self._row("Name", self._field("name", self.name_edit))
        self.host_edit = QLineEdit()
        self.host_edit.setPlaceholderText("db1.example.com, 10.0.0.12 or an ssh alias")
        self._row(
            "Host",
            self._field(
                "host",
                self.host_edit,
                "A host name, an address or an alias of ~/.ssh/config (its HostName, Port,"
                " User, IdentityFile and ProxyJump are used).",
            ),
        )
        self.port_spin = QSpinBox()
        self.port_spin.setRange(0, 65535)
        self.port_spin.setSpecialValueText("default (22 or ~/.ssh/config)")
        self._row("Port", self._field("port", self.port_spin))
        self.user_edit = QLineEdit()
        self.user_edit.setPlaceholderText("from ~/.ssh/config, else your login name")
        self._row("User", self._field("user", self.user_edit))

        self.auth_combo = QComboBox()
        for method in AUTH_METHODS:
            self.auth_combo.addItem(AUTH_LABELS.get(method, method), method)
        self.auth_combo.currentIndexChanged.connect(self._update_secret_rows)
        self._row("Log in with", self._field("auth", self.auth_combo))

        key_row = QWidget()
        key_layout = QHBoxLayout(key_row)
        key_layout.setContentsMargins(0, 0, 0, 0)
        key_layout.setSpacing(8)
        self.key_edit = QLineEdit()
        self.key_edit.setPlaceholderText("~/.ssh/id_ed25519 (empty: ~/.ssh/config or defaults)")
        key_layout.addWidget(self.key_edit, 1)
        self.key_browse = QPushButton("Browse…")
        self.key_browse.clicked.connect(self._on_browse_key)
        key_layout.addWidget(self.key_browse)
        self.key_field = self._field("key_path", key_row)
        self._field_widgets["key_path"] = self.key_edit
        self._row("Key file", self.key_field)
        self.passphrase_edit = self._secret_edit()
        self.passphrase_field = self._field("passphrase", self.passphrase_edit, " ")
        self._row("Key passphrase", self.passphrase_field)
        self.password_edit = self._secret_edit()
        self.password_field = self._field("password", self.password_edit, " ")
        self._row("Password", self.password_field)

        self.sudo_combo = QComboBox()
        for mode in SUDO_MODES:
            self.sudo_combo.addItem(SUDO_LABELS.get(mode, mode), mode)
        self.sudo_combo.currentIndexChanged.connect(self._update_secret_rows)
        self._row(
            "Root access",
            self._field(
                "sudo",
                self.sudo_combo,
                "Storage preparation and tuning need root; a root login needs no sudo.",
            ),
        )
        self.sudo_password_edit = self._secret_edit()
        self.sudo_password_field = self._field("sudo_password", self.sudo_password_edit, " ")
        self._row("Sudo password", self.sudo_password_field)
        self.python_edit = QLineEdit()
        self.python_edit.setPlaceholderText("python3")
        self._row(
            "Remote Python",
            self._field("python", self.python_edit, "The interpreter the agent runs with there."),
        )
        layout.addLayout(self.form)

        self.form_error = QLabel("")
        self.form_error.setObjectName("fieldError")
        self.form_error.setWordWrap(True)
        self.form_error.hide()
        layout.addWidget(self.form_error)

        buttons = QHBoxLayout()
        buttons.setSpacing(10)
        self.remove_button = QPushButton("Remove…")
        self.remove_button.clicked.connect(self.ask_remove)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        self.revert_button = QPushButton("Revert")
        self.revert_button.clicked.connect(self._on_revert)
        buttons.addWidget(self.revert_button)
        self.save_button = QPushButton("Save target")
        self.save_button.setProperty("role", "primary")
        self.save_button.clicked.connect(self.save)
        buttons.addWidget(self.save_button)
        layout.addLayout(buttons)
        return self.form_group

    def _right_column(self) -> QWidget:
        column = QWidget()
        layout = QVBoxLayout(column)
        layout.setContentsMargins(8, 0, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(self._test_group())
        layout.addWidget(self._inventory_group(), 1)
        return column

    def _action_header(self, text: str, button: QPushButton) -> QHBoxLayout:
        row = QHBoxLayout()
        row.setSpacing(12)
        label = QLabel(text)
        label.setObjectName("muted")
        label.setWordWrap(True)
        row.addWidget(label, 1)
        row.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
        return row

    @staticmethod
    def _placeholder(text: str) -> QLabel:
        label = QLabel(text)
        label.setObjectName("muted")
        label.setWordWrap(True)
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        label.setMinimumHeight(60)
        return label

    @staticmethod
    def _busy_bar() -> QProgressBar:
        bar = QProgressBar()
        bar.setRange(0, 0)
        bar.setTextVisible(False)
        bar.setMaximumHeight(8)
        bar.setMinimumHeight(8)
        bar.setStyleSheet("QProgressBar { min-height: 6px; border-radius: 3px; }")
        bar.hide()
        return bar

    def _test_group(self) -> QGroupBox:
        group = QGroupBox("Connection test")
        layout = QVBoxLayout(group)
        layout.setSpacing(8)
        self.test_button = QPushButton("Test connection")
        self.test_button.clicked.connect(self.test_connection)
        layout.addLayout(
            self._action_header(
                "Logs in, then checks the remote Python, root access and whether the current"
                " plan's database answers from that host.",
                self.test_button,
            )
        )
        self.test_busy = self._busy_bar()
        layout.addWidget(self.test_busy)
        self.test_banner = Banner()
        layout.addWidget(self.test_banner)
        self.checks_box = QWidget()
        self.checks_layout = QVBoxLayout(self.checks_box)
        self.checks_layout.setContentsMargins(4, 2, 4, 2)
        self.checks_layout.setSpacing(6)
        layout.addWidget(self.checks_box)
        self.test_placeholder = self._placeholder(
            "Not tested yet. The test uses the form as it is: try a target before saving it."
        )
        layout.addWidget(self.test_placeholder)
        self.check_rows: list[tuple[bool | None, str]] = []
        return group

    def _inventory_group(self) -> QGroupBox:
        group = QGroupBox("Inventory")
        layout = QVBoxLayout(group)
        layout.setSpacing(8)
        self.inventory_button = QPushButton("Collect inventory")
        self.inventory_button.clicked.connect(self.collect_inventory)
        layout.addLayout(
            self._action_header(
                "CPU, memory, kernel and distribution, block devices and filesystems of the"
                " host, as stored with every session run on it.",
                self.inventory_button,
            )
        )
        self.inventory_busy = self._busy_bar()
        layout.addWidget(self.inventory_busy)
        self.inventory_banner = Banner()
        layout.addWidget(self.inventory_banner)

        self.inventory_placeholder = self._placeholder(
            "No inventory yet. “Collect inventory” reads it from the host in the form."
        )
        layout.addWidget(self.inventory_placeholder, 1)

        self.inventory_body = QWidget()
        body = QVBoxLayout(self.inventory_body)
        body.setContentsMargins(0, 0, 0, 0)
        body.setSpacing(8)
        self.summary = QWidget()
        grid = QGridLayout(self.summary)
        grid.setContentsMargins(4, 2, 4, 2)
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(6)
        self.summary_values: dict[str, QLabel] = {}
        keys = (("Host", "OS"), ("CPU", "Kernel"), ("Memory", "Collected"))
        top = Qt.AlignmentFlag.AlignTop
        for row, pair in enumerate(keys):
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
        body.addWidget(self.summary)

        self.devices_title = QLabel("Block devices")
        self.devices_title.setObjectName("sectionTitle")
        body.addWidget(self.devices_title)
        self.devices_table = FitTable(BLOCK_COLUMNS, len(BLOCK_COLUMNS) - 1)
        self.devices_table.setStyleSheet(_COMPACT_TABLE)
        fit_rows(self.devices_table, 2, 8)
        body.addWidget(self.devices_table)
        self.fs_title = QLabel("Filesystems")
        self.fs_title.setObjectName("sectionTitle")
        body.addWidget(self.fs_title)
        self.fs_table = FitTable(FS_COLUMNS, 1)
        self.fs_table.setStyleSheet(_COMPACT_TABLE)
        self.fs_table.setMinimumHeight(150)
        body.addWidget(self.fs_table, 1)
        self.inventory_notes = QLabel("")
        self.inventory_notes.setObjectName("fieldHint")
        self.inventory_notes.setWordWrap(True)
        self.inventory_notes.setTextFormat(Qt.TextFormat.PlainText)
        self.inventory_notes.hide()
        body.addWidget(self.inventory_notes)
        self.inventory_body.hide()
        layout.addWidget(self.inventory_body, 1)
        return group

    # ---- the list ------------------------------------------------------------------------

    def target_names(self) -> list[str]:
        return sorted(self.targets)

    def reload(self) -> None:
        """Read targets.toml again and show it (a broken file is reported, never rewritten)."""
        try:
            self.targets = load_targets(self.targets_path)
        except TargetError as exc:
            self.targets = {}
            self._page_error(f"Cannot use the saved targets: {exc}")
        else:
            self._page_error("")
        self._fill_table()

    def _fill_table(self) -> None:
        self.table.blockSignals(True)
        self.table.setRowCount(0)
        for name in self.target_names():
            target = self.targets[name]
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
                item = _cell(text, f"{name}: {where}")
                item.setData(Qt.ItemDataRole.UserRole, name)
                self.table.setItem(row, col, item)
        self.table.blockSignals(False)
        self.table.fit_columns()
        count = len(self.targets)
        self.empty_label.setVisible(count == 0)
        self.table.setVisible(count > 0)
        noun = "1 target" if count == 1 else f"{count} targets"
        self.subtitle.setText(
            f"SSH hosts for the agent and the database  ·  {noun} in {self.targets_path}"
        )
        self._select_row(self.editing)

    def _select_row(self, name: str | None) -> None:
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
        if item is not None and item.text() in self.targets:
            self.edit_target(item.text())

    def select_target(self, name: str) -> None:
        """Select a saved target in the list and show it in the form."""
        self._select_row(name)
        self.edit_target(name)

    # ---- the form ------------------------------------------------------------------------

    def new_target(self) -> None:
        """An empty form for a new target."""
        self.editing = None
        self._select_row(None)
        self._show_target(SSHTarget(name="", host=""))
        self.form_group.setTitle("New target")
        self.remove_button.setEnabled(False)
        self.name_edit.setFocus()

    def edit_target(self, name: str) -> None:
        target = self.targets[name]
        self.editing = name
        self._show_target(target)
        self.form_group.setTitle(f"Target “{name}”")
        self.remove_button.setEnabled(True)

    def clear_results(self) -> None:
        """Forget the test and inventory shown (another target is in the form)."""
        if self.busy:
            return
        self.report = None
        self._clear_checks()
        self.test_banner.clear()
        self.test_placeholder.show()
        self.inventory_data = None
        self.inventory_banner.clear()
        self.inventory_body.hide()
        self.inventory_placeholder.show()

    def _show_target(self, target: SSHTarget) -> None:
        if target.name != self._shown_name:
            self.clear_results()
        self._shown_name = target.name
        self._notes = target.notes
        self.name_edit.setText(target.name)
        self.host_edit.setText(target.host)
        self.port_spin.setValue(target.port or 0)
        self.user_edit.setText(target.user or "")
        self.auth_combo.setCurrentIndex(max(0, self.auth_combo.findData(target.auth)))
        self.key_edit.setText(target.key_path or "")
        self.sudo_combo.setCurrentIndex(max(0, self.sudo_combo.findData(target.sudo)))
        self.python_edit.setText(target.python if target.python != "python3" else "")
        for edit in (self.password_edit, self.passphrase_edit, self.sudo_password_edit):
            edit.clear()
        self.clear_errors()
        self._update_secret_hints()
        self._update_secret_rows()

    def _secret_stored(self, kind: str) -> bool:
        if self.editing is None:
            return False
        try:
            return bool(get_secret(self.editing, kind))
        except SSHError:
            return False

    def _update_secret_hints(self) -> None:
        edits = {
            "password": self.password_edit,
            "passphrase": self.passphrase_edit,
            "sudo_password": self.sudo_password_edit,
        }
        for kind, hint in self._secret_hints.items():
            stored = self._secret_stored(kind)
            if stored:
                hint.setText("✔ Stored in the OS keyring. Leave empty to keep it.")
            else:
                hint.setText("Kept in the OS keyring, never in targets.toml.")
            hint.show()
            edit = edits[kind]
            if stored:
                edit.setPlaceholderText("•••••••• stored")
            elif kind == "passphrase":
                edit.setPlaceholderText("only for an encrypted key")
            else:
                edit.setPlaceholderText("")

    def _update_secret_rows(self) -> None:
        auth = self.auth_combo.currentData()
        sudo = self.sudo_combo.currentData()
        self.form.setRowVisible(self.key_field, auth == "key")
        self.form.setRowVisible(self.passphrase_field, auth == "key")
        self.form.setRowVisible(self.password_field, auth == "password")
        self.form.setRowVisible(self.sudo_password_field, sudo == "password")

    def form_data(self) -> dict[str, Any]:
        """The form as a target table (not validated; no secret in it)."""
        data: dict[str, Any] = {
            "host": self.host_edit.text().strip(),
            "auth": self.auth_combo.currentData(),
            "sudo": self.sudo_combo.currentData(),
            "python": self.python_edit.text().strip() or "python3",
        }
        if self.port_spin.value():
            data["port"] = self.port_spin.value()
        if self.user_edit.text().strip():
            data["user"] = self.user_edit.text().strip()
        if self.key_edit.text().strip():
            data["key_path"] = self.key_edit.text().strip()
        if self._notes:
            data["notes"] = self._notes
        return data

    def typed_secrets(self) -> dict[str, str]:
        """Secrets typed in the form that apply to its login and sudo modes."""
        auth = self.auth_combo.currentData()
        sudo = self.sudo_combo.currentData()
        out: dict[str, str] = {}
        if auth == "password" and self.password_edit.text():
            out["password"] = self.password_edit.text()
        if auth == "key" and self.passphrase_edit.text():
            out["passphrase"] = self.passphrase_edit.text()
        if sudo == "password" and self.sudo_password_edit.text():
            out["sudo_password"] = self.sudo_password_edit.text()
        return out

    def form_target(self) -> SSHTarget | None:
        """The target in the form, or None with the problem shown next to its field."""
        self.clear_errors()
        try:
            return target_from_dict(self.name_edit.text().strip(), self.form_data())
        except TargetError as exc:
            self._show_target_error(exc)
            return None

    def _show_target_error(self, exc: TargetError) -> None:
        text = str(exc)
        if text.startswith("target name"):
            field = "name"
        else:
            match = _FIELD_RE.match(text)
            field = match.group(1) if match else ""
        label = self.field_errors.get(field)
        if label is None:
            self.form_error.setText(text)
            self.form_error.show()
            return
        reason = text.split(": ", 1)[1] if ": " in text else text
        label.setText(reason[0].upper() + reason[1:])
        label.show()
        set_prop(self._field_widgets[field], "invalid", True)

    def clear_errors(self) -> None:
        for name, label in self.field_errors.items():
            label.clear()
            label.hide()
            set_prop(self._field_widgets[name], "invalid", False)
        self.form_error.clear()
        self.form_error.hide()

    def field_error(self, name: str) -> str:
        label = self.field_errors[name]
        return label.text() if not label.isHidden() else ""

    def _on_revert(self) -> None:
        if self.editing is not None and self.editing in self.targets:
            self.edit_target(self.editing)
        else:
            self.new_target()

    def _on_browse_key(self) -> None:
        start = self.key_edit.text().strip() or str(Path.home() / ".ssh")
        path, _ = QFileDialog.getOpenFileName(
            self, "Private key file", os.path.expanduser(start), "All files (*)"
        )
        if path:
            self.key_edit.setText(path)

    # ---- save and remove -----------------------------------------------------------------

    def save(self) -> bool:
        """Save the form: the target to targets.toml, its typed secrets to the keyring."""
        target = self.form_target()
        if target is None:
            return False
        old = self.editing
        renamed = old is not None and old != target.name
        try:
            existing = load_targets(self.targets_path)
            if target.name in existing and (old is None or renamed):
                self.field_errors["name"].setText(
                    f"A target named {target.name!r} exists already: choose another name"
                )
                self.field_errors["name"].show()
                set_prop(self.name_edit, "invalid", True)
                return False
            typed = self.typed_secrets()
            if renamed and old is not None:
                # Secrets are filed under the target's name: they move with it.
                for kind in SECRET_KINDS:
                    value = get_secret(old, kind)
                    if value and kind not in typed:
                        set_secret(target.name, kind, value)
            for kind, value in typed.items():
                set_secret(target.name, kind, value)
            add_target(target, self.targets_path, replace=not renamed and old is not None)
            if renamed and old is not None:
                remove_target(old, self.targets_path)
                forget_target(old)
        except SSHError as exc:
            self.form_error.setText(f"Not saved: {exc}")
            self.form_error.show()
            return False
        self.editing = target.name
        self._shown_name = target.name  # a test made before saving stays on show
        self.reload()
        self.edit_target(target.name)
        stored = ", ".join(SECRET_LABELS[k] for k in typed)
        note = f" ({stored} in the OS keyring)" if stored else ""
        self.status.emit(f"Target {target.name!r} saved{note}.")
        self.targets_changed.emit(self.target_names())
        return True

    def ask_remove(self) -> None:
        """Ask before removing the target in the form (the answer arrives in a slot)."""
        name = self.editing
        if name is None:
            return
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("Remove target")
        box.setText(f"Remove the target “{name}”?")
        box.setInformativeText(
            "Its entry in targets.toml and its password, key passphrase and sudo password in"
            " the OS keyring are deleted. Nothing changes on the host itself, and stored"
            " sessions are kept."
        )
        self.confirm_remove_button = box.addButton("Remove", QMessageBox.ButtonRole.DestructiveRole)
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(cancel)
        box.setEscapeButton(cancel)
        box.buttonClicked.connect(lambda button: self._on_remove_answer(name, button))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.confirm_box = box
        box.open()

    def _on_remove_answer(self, name: str, button: Any) -> None:
        self.confirm_box = None
        if button is self.confirm_remove_button:
            self.remove(name)

    def remove(self, name: str) -> bool:
        """Remove a saved target and forget its secrets (no question asked)."""
        try:
            remove_target(name, self.targets_path)
            forgotten = forget_target(name)
        except SSHError as exc:
            self.form_error.setText(f"Not removed: {exc}")
            self.form_error.show()
            return False
        self.editing = None
        self.reload()
        self.new_target()
        also = f"; {len(forgotten)} secret(s) forgotten" if forgotten else ""
        self.status.emit(f"Target {name!r} removed{also}.")
        self.targets_changed.emit(self.target_names())
        return True

    # ---- remote work ---------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self.task is not None

    def _secrets_request(self) -> SecretsRequest:
        typed = tuple(sorted(self.typed_secrets().items()))
        return SecretsRequest(typed=typed, stored_as=self.editing or "")

    def _database_check(self) -> tuple[DatabaseCheck | None, str]:
        """The current plan's database as the test should reach it, or why it is skipped."""
        plan = self.plan_source() if self.plan_source is not None else None
        if plan is None:
            return None, "no valid plan on the Workload page"
        target = plan.target
        if target.kind == "demo":
            return None, "the current plan uses the embedded demo, which runs on this machine"
        try:
            engine = get_engine(target.kind)
        except EngineNotFound as exc:
            return None, str(exc)
        password = os.environ.get(target.password_env) if target.password_env else None
        # The maintenance database: it exists before the benchmark's schema is built.
        conninfo = engine.conninfo(target, target.admin_database or target.database)
        return DatabaseCheck(conninfo, password), ""

    def test_connection(self) -> bool:
        """Test the target in the form (in a thread); False if the form is not valid."""
        target = self.form_target()
        if target is None or self.busy:
            return False
        database, skipped = self._database_check()
        self.report = None
        self._clear_checks()
        self.test_banner.clear()
        self.test_placeholder.hide()
        context = {"target": target, "secrets": self._secrets_request(), "db": database}
        context["skipped"] = skipped
        self._start("test", context)
        return True

    def collect_inventory(self) -> bool:
        """Collect the inventory of the target in the form (in a thread)."""
        target = self.form_target()
        if target is None or self.busy:
            return False
        self.inventory_banner.clear()
        context = {"target": target, "secrets": self._secrets_request()}
        self._start("inventory", context)
        return True

    def _start(self, kind: str, context: dict[str, Any], accept: str | None = None) -> None:
        target: SSHTarget = context["target"]
        known_hosts = self.known_hosts_path
        secrets: SecretsRequest = context["secrets"]
        body: Callable[[], Any]
        if kind == "test":
            database = context["db"]

            def body() -> Any:
                return check_connection(target, known_hosts, secrets, database, accept)

        else:

            def body() -> Any:
                return inventory(target, known_hosts, secrets, accept)

        task = RemoteTask(kind, body, context)
        task.done.connect(self._on_task_done)
        self.task = task
        self._set_busy(kind)
        where = target.host + (f":{target.port}" if target.port else "")
        verb = "Testing" if kind == "test" else "Collecting the inventory of"
        self._busy_banner(kind).show_text("", f"{verb} {target.name} ({where})…")
        self.status.emit(f"{verb} {target.name}…")
        task.start()

    def _busy_banner(self, kind: str) -> Banner:
        return self.test_banner if kind == "test" else self.inventory_banner

    def _set_busy(self, kind: str | None) -> None:
        idle = kind is None
        self.test_button.setEnabled(idle)
        self.inventory_button.setEnabled(idle)
        self.test_busy.setVisible(kind == "test")
        self.inventory_busy.setVisible(kind == "inventory")

    def _on_task_done(self) -> None:
        task = self.task
        if task is None:
            return
        task.wait()  # the thread is returning: its last act was this signal
        self.task = None
        self._set_busy(None)
        if task.cancelled or self._closing:
            return
        banner = self._busy_banner(task.kind)
        target: SSHTarget = task.context["target"]
        if isinstance(task.error, UnknownHostKey):
            banner.show_text(
                "stopped", f"Waiting for you to check the host key of {task.error.host}…"
            )
            self._ask_host_key(task, task.error)
            return
        if isinstance(task.error, HostKeyError):
            self._refuse_host_key(task, task.error)
            return
        if task.error is not None:
            message = (
                str(task.error)
                if isinstance(task.error, SSHError)
                else f"{type(task.error).__name__}: {task.error}"
            )
            what = "Test" if task.kind == "test" else "Inventory"
            banner.show_text("failed", f"{what} of {target.name} failed: {message}")
            self.status.emit(f"{what} of {target.name} failed.")
            return
        if task.kind == "test":
            self.show_report(task.result, task.context.get("skipped", ""))
        else:
            self.show_inventory(task.result, target.name)

    def _ask_host_key(self, task: RemoteTask, error: UnknownHostKey) -> None:
        dialog = HostKeyDialog(error, task.context["target"].name, self.known_hosts_path, self)
        self.host_key_dialog = dialog
        dialog.finished.connect(lambda _result: self._on_host_key_answer(task, dialog))
        dialog.open()

    def _on_host_key_answer(self, task: RemoteTask, dialog: HostKeyDialog) -> None:
        self.host_key_dialog = None
        dialog.deleteLater()
        banner = self._busy_banner(task.kind)
        fingerprint = dialog.accepted_fingerprint
        if fingerprint is None or self._closing:
            host = getattr(dialog.error, "host", "the host")
            banner.show_text(
                "stopped",
                f"The host key of {host} was not accepted: nothing was recorded and no"
                " password or key was offered to it.",
            )
            self.status.emit("Host key not accepted.")
            return
        if self.busy:
            banner.show_text("stopped", "Another test is running: try again when it ends.")
            return
        self._start(task.kind, task.context, accept=fingerprint)

    def _refuse_host_key(self, task: RemoteTask, error: HostKeyError) -> None:
        target: SSHTarget = task.context["target"]
        banner = self._busy_banner(task.kind)
        if isinstance(error, ChangedHostKey):
            banner.show_text("failed", f"Connection refused — {error}")
        else:
            banner.show_text("failed", f"Connection refused: {error}")
        self.status.emit(f"The host key of {target.name} was refused.")
        dialog = HostKeyDialog(error, target.name, self.known_hosts_path, self)
        self.host_key_dialog = dialog
        dialog.finished.connect(lambda _result: self._forget_dialog(dialog))
        dialog.open()

    def _forget_dialog(self, dialog: HostKeyDialog) -> None:
        if self.host_key_dialog is dialog:
            self.host_key_dialog = None
        dialog.deleteLater()

    # ---- results -------------------------------------------------------------------------

    def _clear_checks(self) -> None:
        self.check_rows = []
        while self.checks_layout.count():
            item = self.checks_layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.hide()  # at once: deleteLater waits for the event loop
                widget.deleteLater()

    def _add_check(self, ok: bool | None, text: str) -> None:
        self.check_rows.append((ok, text))
        row = QWidget()
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        line.setSpacing(10)
        mark = QLabel("✔" if ok else ("✘" if ok is False else "–"))
        color = OK_COLOR if ok else (BAD_COLOR if ok is False else NEUTRAL_COLOR)
        mark.setStyleSheet(f"color: {color}; font-size: 18px; font-weight: 700;")
        mark.setFixedWidth(22)
        mark.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignHCenter)
        line.addWidget(mark)
        label = QLabel(text)
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        if ok is None:
            label.setObjectName("muted")
        line.addWidget(label, 1)
        self.checks_layout.addWidget(row)

    def show_report(self, report: TargetReport, skipped: str = "") -> None:
        """Show a test report: one line per check with its mark, and a summary banner."""
        self.report = report
        self._clear_checks()
        self.test_placeholder.hide()
        if not report.connected:
            # The one problem is why it failed: shown once, in the banner.
            reason = report.problems[0] if report.problems else "unknown reason"
            self.test_banner.show_text("failed", f"Cannot connect to {report.target}: {reason}")
            self.status.emit(f"Cannot connect to {report.target}.")
            return
        for line in report.lines:
            if line.startswith("ok: "):
                self._add_check(True, line.removeprefix("ok: "))
            elif line.startswith("PROBLEM: "):
                self._add_check(False, line.removeprefix("PROBLEM: "))
            else:
                self._add_check(None, line)
        if report.database_ok is None:
            self._add_check(None, f"Database not checked: {skipped or 'no database given'}")
        if report.problems:
            count = len(report.problems)
            noun = "problem" if count == 1 else "problems"
            self.test_banner.show_text(
                "stopped", f"Connected to {report.login}, with {count} {noun} (see below)."
            )
            self.status.emit(f"{report.target}: connected, {count} {noun}.")
        else:
            self.test_banner.show_text(
                "ok", f"Connected to {report.login}: everything a benchmark needs works."
            )
            self.status.emit(f"{report.target}: all checks passed.")

    def show_inventory(self, data: dict[str, Any], name: str = "") -> None:
        """Show a collected inventory: summary, block devices, filesystems, notes."""
        self.inventory_data = data
        cpu = data.get("cpu") or {}
        memory = data.get("memory") or {}
        kernel = data.get("kernel") or {}
        osr = data.get("os") or {}
        host = data.get("hostname") or data.get("host") or "?"
        self.summary_values["Host"].setText(f"{host}  ({name})" if name else str(host))
        counts = [
            f"{cpu[k]} {word if cpu[k] == 1 else word + 's'}"
            for k, word in (("sockets", "socket"), ("cores", "core"), ("threads", "thread"))
            if cpu.get(k)
        ]
        model = cpu.get("model") or "unknown CPU"
        cpu_text = f"{model}\n{', '.join(counts)}" if counts else str(model)
        self.summary_values["CPU"].setText(cpu_text)
        total = memory.get("total_bytes")
        available = memory.get("available_bytes")
        mem_text = human_bytes(total)
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
        self.inventory_placeholder.hide()
        self.inventory_body.show()

        self.devices_table.setRowCount(0)
        for device, depth in self._flatten(data.get("block_devices") or []):
            self._add_device(device, depth)
        self.devices_title.setText(f"Block devices ({self.devices_table.rowCount()})")
        fit_rows(self.devices_table, 2, 8)
        self.devices_table.fit_columns()
        self.fs_table.setRowCount(0)
        for fs in data.get("filesystems") or []:
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
                item = _cell(str(text), fs.get("options") or "")
                if col >= 3:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                self.fs_table.setItem(row, col, item)
        self.fs_title.setText(f"Filesystems ({self.fs_table.rowCount()})")
        self.fs_table.fit_columns()
        notes = data.get("notes") or []
        self.inventory_notes.setText("Notes: " + "; ".join(str(n) for n in notes))
        self.inventory_notes.setVisible(bool(notes))
        self.inventory_banner.show_text(
            "ok", f"Inventory of {name or host} collected from {data.get('host') or host}."
        )
        self.status.emit(f"Inventory of {name or host} collected.")

    @staticmethod
    def _flatten(devices: list[Any], depth: int = 0) -> list[tuple[dict[str, Any], int]]:
        out: list[tuple[dict[str, Any], int]] = []
        for device in devices:
            if not isinstance(device, dict):
                continue
            out.append((device, depth))
            out.extend(TargetsPage._flatten(device.get("children") or [], depth + 1))
        return out

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
            item = _cell(str(text), f"{path}: {kind}" if col == 0 and kind else "")
            if col == 3:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.devices_table.setItem(row, col, item)

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

    # ---- messages and shutdown -----------------------------------------------------------

    def _page_error(self, text: str) -> None:
        self.page_error.setText(text)
        self.page_error.setVisible(bool(text))

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        """Cancel and join the remote task, if any; close the page's dialogs."""
        self._closing = True
        for dialog in (self.host_key_dialog, self.confirm_box):
            if dialog is not None:
                dialog.reject()
        task = self.task
        if task is None:
            return True
        task.cancel()
        ended = task.wait(timeout_s)
        if ended:
            self.task = None
            self._set_busy(None)
        return ended
