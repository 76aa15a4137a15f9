"""The target form of the Targets page: one SSH target's fields, their hints and errors.

The form only shows and reads: what a field holds becomes an
:class:`~bench_gui.remote.targets.SSHTarget` through
:func:`~bench_gui.remote.targets.target_from_dict`, whose first complaint is shown next to the
field it names. Secrets typed here are read by :meth:`TargetForm.typed_secrets` and never kept.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from bench_gui.gui.widgets.page_parts import ErrorLine, set_prop
from bench_gui.services.errors import TargetError
from bench_gui.services.hosts import (
    AUTH_METHODS,
    SECRET_KINDS,
    SUDO_MODES,
    SSHTarget,
    target_from_dict,
)

AUTH_LABELS = {"agent": "ssh-agent", "key": "Key file", "password": "Password"}
SUDO_LABELS = {
    "none": "No sudo",
    "passwordless": "Passwordless sudo",
    "password": "sudo with a password",
}
_FIELD_RE = re.compile(r"^target '.*?': (\w+) ")


def _secret_edit() -> QLineEdit:
    edit = QLineEdit()
    edit.setEchoMode(QLineEdit.EchoMode.Password)
    edit.setClearButtonEnabled(True)
    return edit


class TargetForm(QGroupBox):
    """The fields of one target, with Remove, Revert and Save buttons (the page connects them).

    ``secret_hints`` are the hint lines under the secret fields (stored in the keyring or not).
    """

    def __init__(self) -> None:
        super().__init__("New target")
        self.errors: dict[str, ErrorLine] = {}
        self.secret_hints: dict[str, QLabel] = {}
        self._inputs: dict[str, QWidget] = {}
        self._notes = ""
        self._build()

    # ---- construction --------------------------------------------------------------------

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
            self.secret_hints[name] = hint_label
        error = ErrorLine()
        cell.addWidget(error)
        self.errors[name] = error
        self._inputs[name] = widget
        return box

    def _row(self, text: str, name: str, widget: QWidget, hint: str = "") -> QWidget:
        field = self._field(name, widget, hint)
        label = QLabel(text)
        label.setObjectName("formLabel")
        label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        self.form.addRow(label, field)
        return field

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.setSpacing(10)
        self.form = QFormLayout()
        self.form.setHorizontalSpacing(16)
        self.form.setVerticalSpacing(8)
        self.form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)

        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("db-server-1")
        self._row("Name", "name", self.name_edit)
        self.host_edit = QLineEdit()
        self.host_edit.setPlaceholderText("db1.example.com, 10.0.0.12 or an ssh alias")
        self._row(
            "Host",
            "host",
            self.host_edit,
            "A host name, an address or an alias of ~/.ssh/config (its HostName, Port,"
            " User, IdentityFile and ProxyJump are used).",
        )
        self.port_spin = QSpinBox()
        self.port_spin.setRange(0, 65535)
        self.port_spin.setSpecialValueText("default (22 or ~/.ssh/config)")
        self._row("Port", "port", self.port_spin)
        self.user_edit = QLineEdit()
        self.user_edit.setPlaceholderText("from ~/.ssh/config, else your login name")
        self._row("User", "user", self.user_edit)

        self.auth_combo = QComboBox()
        for method in AUTH_METHODS:
            self.auth_combo.addItem(AUTH_LABELS.get(method, method), method)
        self.auth_combo.currentIndexChanged.connect(self._update_secret_rows)
        self._row("Log in with", "auth", self.auth_combo)

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
        self.key_field = self._row("Key file", "key_path", key_row)
        self._inputs["key_path"] = self.key_edit
        self.passphrase_edit = _secret_edit()
        self.passphrase_field = self._row("Key passphrase", "passphrase", self.passphrase_edit, " ")
        self.password_edit = _secret_edit()
        self.password_field = self._row("Password", "password", self.password_edit, " ")

        self.sudo_combo = QComboBox()
        for mode in SUDO_MODES:
            self.sudo_combo.addItem(SUDO_LABELS.get(mode, mode), mode)
        self.sudo_combo.currentIndexChanged.connect(self._update_secret_rows)
        self._row(
            "Root access",
            "sudo",
            self.sudo_combo,
            "Storage preparation and tuning need root; a root login needs no sudo.",
        )
        self.sudo_password_edit = _secret_edit()
        self.sudo_password_field = self._row(
            "Sudo password", "sudo_password", self.sudo_password_edit, " "
        )
        self.python_edit = QLineEdit()
        self.python_edit.setPlaceholderText("python3")
        self._row(
            "Remote Python",
            "python",
            self.python_edit,
            "The interpreter the agent runs with there.",
        )
        layout.addLayout(self.form)

        self.form_error = ErrorLine()
        layout.addWidget(self.form_error)

        buttons = QHBoxLayout()
        buttons.setSpacing(10)
        self.remove_button = QPushButton("Remove…")
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        self.revert_button = QPushButton("Revert")
        buttons.addWidget(self.revert_button)
        self.save_button = QPushButton("Save target")
        self.save_button.setProperty("role", "primary")
        buttons.addWidget(self.save_button)
        layout.addLayout(buttons)

    # ---- showing a target ----------------------------------------------------------------

    def show_target(self, target: SSHTarget, stored_secrets: Collection[str] = ()) -> None:
        """Fill the form with ``target``; ``stored_secrets``: the kinds its keyring holds."""
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
        self._update_secret_hints(stored_secrets)
        self._update_secret_rows()

    def _update_secret_hints(self, stored_secrets: Collection[str]) -> None:
        edits = {
            "password": self.password_edit,
            "passphrase": self.passphrase_edit,
            "sudo_password": self.sudo_password_edit,
        }
        for kind, hint in self.secret_hints.items():
            stored = kind in stored_secrets
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

    def _on_browse_key(self) -> None:
        start = self.key_edit.text().strip() or str(Path.home() / ".ssh")
        path, _ = QFileDialog.getOpenFileName(
            self, "Private key file", os.path.expanduser(start), "All files (*)"
        )
        if path:
            self.key_edit.setText(path)

    # ---- reading it ----------------------------------------------------------------------

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

    # ---- errors --------------------------------------------------------------------------

    def _show_target_error(self, exc: TargetError) -> None:
        text = str(exc)
        if text.startswith("target name"):
            field = "name"
        else:
            match = _FIELD_RE.match(text)
            field = match.group(1) if match else ""
        if field not in self.errors:
            self.form_error.show_error(text)
            return
        reason = text.split(": ", 1)[1] if ": " in text else text
        self.show_field_error(field, reason[0].upper() + reason[1:])

    def show_field_error(self, name: str, text: str) -> None:
        """``text`` under the field ``name``, which is marked invalid."""
        self.errors[name].show_error(text)
        set_prop(self._inputs[name], "invalid", True)

    def clear_errors(self) -> None:
        for name, line in self.errors.items():
            line.clear_error()
            set_prop(self._inputs[name], "invalid", False)
        self.form_error.clear_error()

    def field_error(self, name: str) -> str:
        line = self.errors[name]
        return line.text() if not line.isHidden() else ""
