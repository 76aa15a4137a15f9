"""The target fields only ODBC engines have (MariaDB, MySQL, SQL Server): the ODBC driver's
name or a DSN, TLS (SQL Server's Encrypt and TrustServerCertificate) and how the user
authenticates. Each kind shows only its own choices, as its engine kit's
:class:`~bench_gui.engines.base.TargetKind` says (``odbc``, ``authentication``, the driver's
name); TLS takes the plan's :data:`bench_gui.core.plan_model.TLS_MODES`.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from bench_gui.core.plan_model import ODBC_FIELDS, Target
from bench_gui.engines.base import TargetKind
from bench_gui.engines.registry import kit_for, target_kind, target_kinds
from bench_gui.gui.widgets.page_parts import compact_combo
from bench_gui.gui.widgets.plan_fields import PlanFields, add_row

# target.tls as MariaDB's and MySQL's Connector/ODBC offer it.
TLS_LABELS = (
    ("", "Driver default"),
    ("off", "Off"),
    ("on", "On, certificate not checked"),
    ("verify", "On, certificate verified"),
)
# SQL Server says Encrypt and TrustServerCertificate: "on" trusts any certificate, "verify"
# checks it.
ENCRYPT_LABELS = (("", "Driver default"), ("off", "No"), ("on", "Yes"))
AUTHENTICATION_LABELS = {
    "": "Driver default",
    "password": "User and password",
    "sql": "SQL Server login",
    "windows": "Windows / Kerberos (integrated)",
    "entra_password": "Microsoft Entra ID, password",
    "entra_integrated": "Microsoft Entra ID, integrated",
}
DSN_HINT = "A data source of odbc.ini on the driver host, instead of host and port."
TRUST_TEXT = "Trust the server certificate"


def odbc_kind(kind: str) -> TargetKind | None:
    """What the kit says of ``kind`` when it is reached through ODBC; None for any other."""
    spec = target_kind(kind)
    return spec if spec is not None and spec.odbc else None


def first_odbc_kind() -> str:
    """The kind the ODBC rows are set up for before a plan chooses one."""
    return next((t.name for t in target_kinds() if t.odbc), "")


class TlsChoice(QWidget):
    """``target.tls``: one choice for MariaDB and MySQL; Encrypt and a trust-the-certificate
    box for SQL Server."""

    def __init__(self) -> None:
        super().__init__()
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(6)
        self.combo = compact_combo(QComboBox(), 10)
        self.trust_check = QCheckBox(TRUST_TEXT)
        self.trust_check.setToolTip(
            "TrustServerCertificate=yes: any certificate is accepted (a lab server's"
            " self-signed one). Unticked: the certificate is checked against the driver"
            " host's trusted CAs."
        )
        column.addWidget(self.combo)
        column.addWidget(self.trust_check)
        self.combo.currentIndexChanged.connect(self._update_trust)
        self._encrypt = False
        self.set_kind(first_odbc_kind())

    def set_kind(self, kind: str) -> None:
        """Offer the kind's own choices, keeping the value."""
        value = self.value()
        self._encrypt = bool(kind) and kit_for(kind).tls_style == "encrypt"
        self.combo.blockSignals(True)
        self.combo.clear()
        for mode, label in ENCRYPT_LABELS if self._encrypt else TLS_LABELS:
            self.combo.addItem(label, mode)
        self.combo.blockSignals(False)
        self.trust_check.setVisible(self._encrypt)
        self.set_value(value)

    def value(self) -> str:
        mode = str(self.combo.currentData() or "")
        if self._encrypt and mode == "on" and not self.trust_check.isChecked():
            return "verify"
        return mode

    def set_value(self, value: str) -> None:
        if self._encrypt:
            self.trust_check.setChecked(value == "on")
            value = "on" if value == "verify" else value
        index = self.combo.findData(value)
        if index < 0:  # a value the plan will refuse: shown as it is, for the error line
            self.combo.addItem(value, value)
            index = self.combo.count() - 1
        self.combo.setCurrentIndex(index)
        self._update_trust()

    def _update_trust(self) -> None:
        self.trust_check.setEnabled(self.combo.currentData() == "on")


class OdbcFields:
    """The ODBC rows of the target form; shown only while an ODBC engine is chosen."""

    def __init__(self, form: QFormLayout, fields: PlanFields) -> None:
        self.form = form
        self.driver_edit = QLineEdit()
        self.dsn_edit = QLineEdit()
        self.dsn_edit.setPlaceholderText("none")
        self.tls = TlsChoice()
        self.auth_combo = compact_combo(QComboBox())
        self.cells = [
            fields.cell("target.odbc_driver", self.driver_edit, " "),
            fields.cell("target.dsn", self.dsn_edit, DSN_HINT),
            fields.cell("target.tls", self.tls),
            fields.cell("target.authentication", self.auth_combo),
        ]
        labels = ("ODBC driver", "DSN", "TLS", "Authentication")
        for text, cell in zip(labels, self.cells, strict=True):
            add_row(form, text, cell)
        self.tls_cell = self.cells[2]
        self.driver_hint = fields.hints["target.odbc_driver"]
        self._kind = ""
        self.set_kind(first_odbc_kind())

    def set_kind(self, kind: str) -> None:
        """Show the rows for an ODBC kind (with its choices), hide them for any other."""
        spec = odbc_kind(kind)
        for cell in self.cells:
            self.form.setRowVisible(cell, spec is not None)
        if spec is None or kind == self._kind:
            return
        self._kind = kind
        self.driver_edit.setPlaceholderText(spec.odbc_driver)
        self.driver_hint.setText(spec.odbc_driver_hint)
        self.tls.set_kind(kind)
        label = self.form.labelForField(self.tls_cell)
        if isinstance(label, QWidget) and hasattr(label, "setText"):
            label.setText("Encrypt" if kit_for(kind).tls_style == "encrypt" else "TLS")
        current = str(self.auth_combo.currentData() or "")
        modes = spec.authentication
        self.auth_combo.clear()
        for mode in modes:
            self.auth_combo.addItem(AUTHENTICATION_LABELS.get(mode, mode), mode)
        # Another engine's mode means nothing here: back to the driver's default.
        self._select_auth(current if current in modes else "")

    def _select_auth(self, mode: str) -> None:
        index = self.auth_combo.findData(mode)
        if index < 0 and mode:  # not one of this kind's: shown, for the plan to refuse
            self.auth_combo.addItem(mode, mode)
            index = self.auth_combo.count() - 1
        self.auth_combo.setCurrentIndex(max(0, index))

    def set_target(self, target: Target) -> None:
        self.set_kind(target.kind)
        self.driver_edit.setText(target.odbc_driver)
        self.dsn_edit.setText(target.dsn)
        self.tls.set_value(target.tls)
        self._select_auth(target.authentication)

    def fill(self, target: dict[str, Any], kind: str) -> None:
        """Write the ODBC fields for an ODBC kind; remove them for any other."""
        if odbc_kind(kind) is None:
            for key in ODBC_FIELDS:
                target.pop(key, None)
            return
        target["odbc_driver"] = self.driver_edit.text().strip()
        target["dsn"] = self.dsn_edit.text().strip()
        target["tls"] = self.tls.value()
        target["authentication"] = str(self.auth_combo.currentData() or "")
