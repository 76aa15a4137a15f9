"""Dialogs shared by the pages: the host-key question (and refusal), and the one flow around it.

:class:`HostKeyDialog` is what the GUI shows for a :class:`~bench_gui.remote.errors.HostKeyError`:

- an **unknown** key (:class:`~bench_gui.remote.errors.UnknownHostKey`) is shown with the host,
  the key type and its SHA256 fingerprint, how to check it on the server and what accepting
  means; the user chooses *Accept* or *Reject*. Reject is the default button, so Enter or Esc
  never trusts a key, and nothing is ever accepted without a click;
- a **changed** (or revoked) key is a refusal: the warning says why, and there is no way to
  accept it here (the user has to edit the known-hosts file, on purpose).

The dialog is opened with :meth:`QDialog.open` (window-modal, the event loop keeps running);
the caller reads :attr:`HostKeyDialog.accepted_fingerprint` when ``finished`` is emitted.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from bench_gui.services.errors import ChangedHostKey, HostKeyError, UnknownHostKey

# The server's public key file for each key type, for the "how to check" line.
_HOST_KEY_FILES = {"ED25519": "ed25519", "RSA": "rsa", "ECDSA": "ecdsa"}

_STYLE = """
QLabel#dialogTitle { font-size: 21px; font-weight: 700; color: #ffffff; }
QLabel#fingerprint {
    font-family: "DejaVu Sans Mono", "Menlo", "Consolas", monospace;
    font-size: 17px; font-weight: 600; color: #ffffff;
}
QLabel#mono {
    font-family: "DejaVu Sans Mono", "Menlo", "Consolas", monospace; color: #e8ecf3;
}
QLabel#keyLabel { color: #93a0b8; }
QFrame#hostKeyWarning {
    background-color: #3a1217; border: 1px solid #fa4d56; border-radius: 8px;
}
QFrame#hostKeyWarning QLabel { background-color: transparent; color: #ffd7da; }
QFrame#hostKeyNote {
    background-color: #14202e; border: 1px solid #27415c; border-radius: 8px;
}
QFrame#hostKeyNote QLabel { background-color: transparent; }
"""


def _label(text: str, name: str = "", selectable: bool = False, rich: bool = False) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    if name:
        label.setObjectName(name)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class HostKeyDialog(QDialog):
    """Asks about an unknown host key, or explains why a changed one is refused.

    ``accepted_fingerprint`` is the fingerprint the user accepted, or None (rejected, closed,
    or a refusal). ``accept_button`` is None for a refusal.
    """

    def __init__(
        self,
        error: HostKeyError,
        target_name: str = "",
        known_hosts: Path | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.error = error
        self.target_name = target_name
        self.known_hosts = known_hosts
        self.accepted_fingerprint: str | None = None
        self.accept_button: QPushButton | None = None
        self.is_refusal = not isinstance(error, UnknownHostKey)
        self.setObjectName("hostKeyDialog")
        self.setStyleSheet(_STYLE)
        self.setModal(True)
        self.setMinimumWidth(760)
        self._build()

    # ---- construction --------------------------------------------------------------------

    def _header(self, icon: QStyle.StandardPixmap, title: str) -> QHBoxLayout:
        row = QHBoxLayout()
        row.setSpacing(14)
        pixmap = QLabel()
        pixmap.setPixmap(self.style().standardIcon(icon).pixmap(40, 40))
        pixmap.setAlignment(Qt.AlignmentFlag.AlignTop)
        row.addWidget(pixmap)
        heading = _label(title, "dialogTitle")
        row.addWidget(heading, 1)
        return row

    def _details(self, rows: list[tuple[str, str, str]]) -> QFrame:
        card = QFrame()
        card.setObjectName("card")
        grid = QGridLayout(card)
        grid.setContentsMargins(16, 12, 16, 12)
        grid.setHorizontalSpacing(18)
        grid.setVerticalSpacing(8)
        for i, (key, value, style) in enumerate(rows):
            name = _label(key, "keyLabel")
            name.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            grid.addWidget(name, i, 0)
            grid.addWidget(_label(value, style, selectable=True), i, 1)
        grid.setColumnStretch(1, 1)
        return card

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 22, 24, 18)
        layout.setSpacing(14)
        if isinstance(self.error, UnknownHostKey):
            self._build_unknown(layout, self.error)
        else:
            self._build_refusal(layout, self.error)

    def _build_unknown(self, layout: QVBoxLayout, error: UnknownHostKey) -> None:
        self.setWindowTitle("Unknown host key")
        layout.addLayout(
            self._header(
                QStyle.StandardPixmap.SP_MessageBoxQuestion,
                f"bench-gui does not know the host key of {error.host}",
            )
        )
        layout.addWidget(
            _label(
                "No known-hosts file has a key for this host yet (neither ~/.ssh/known_hosts"
                " nor the app's own). Before anything is sent to it, make sure it is the"
                " machine you mean to reach."
            )
        )
        rows = []
        if self.target_name:
            rows.append(("Target", self.target_name, ""))
        rows += [
            ("Host", error.host, "mono"),
            ("Key type", error.key_type, ""),
            ("Fingerprint", error.fingerprint_sha256, "fingerprint"),
        ]
        layout.addWidget(self._details(rows))

        key_file = _HOST_KEY_FILES.get(error.key_type.upper(), "*")
        how = QFrame()
        how.setObjectName("hostKeyNote")
        how_layout = QVBoxLayout(how)
        how_layout.setContentsMargins(14, 10, 14, 10)
        how_layout.setSpacing(6)
        how_layout.addWidget(
            _label(
                "<b>Check it.</b> On the server, at its console or over a connection you already"
                " trust, run<br>"
                f"<code>&nbsp;&nbsp;ssh-keygen -lf /etc/ssh/ssh_host_{key_file}_key.pub</code><br>"
                "It must print the same SHA256 fingerprint.",
                rich=True,
            )
        )
        where = html.escape(
            str(self.known_hosts) if self.known_hosts else "the app's known-hosts file"
        )
        how_layout.addWidget(
            _label(
                f"<b>Accepting</b> records this key in {where} and trusts it for every later"
                " connection to this host and port. If the host ever presents another key,"
                " bench-gui refuses to connect and says why."
                " <b>Rejecting</b> records nothing; no password or key is offered to the host.",
                rich=True,
            )
        )
        layout.addWidget(how)

        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.reject_button = QPushButton("Reject")
        self.reject_button.clicked.connect(self.reject)
        self.accept_button = QPushButton("Accept key and connect")
        self.accept_button.setProperty("role", "primary")
        self.accept_button.setAutoDefault(False)
        self.accept_button.clicked.connect(self._on_accept)
        # Enter rejects: trusting a key always takes a deliberate click.
        self.reject_button.setAutoDefault(True)
        self.reject_button.setDefault(True)
        buttons.addWidget(self.reject_button)
        buttons.addWidget(self.accept_button)
        layout.addLayout(buttons)
        self.reject_button.setFocus()

    def _build_refusal(self, layout: QVBoxLayout, error: HostKeyError) -> None:
        if isinstance(error, ChangedHostKey):
            self.setWindowTitle("Host key changed — connection refused")
            title = f"The host key of {error.host} has CHANGED: connection refused"
        else:
            self.setWindowTitle("Host key refused")
            title = "The host key was refused"
        layout.addLayout(self._header(QStyle.StandardPixmap.SP_MessageBoxCritical, title))
        if isinstance(error, ChangedHostKey):
            rows = []
            if self.target_name:
                rows.append(("Target", self.target_name, ""))
            rows += [
                ("Host", error.host, "mono"),
                ("Presented now", f"{error.key_type}  {error.fingerprint_sha256}", "fingerprint"),
                ("Recorded", f"{error.known_type}  {error.known_fingerprint}", "fingerprint"),
                ("Recorded in", f"{error.known_file}, line {error.known_line}", "mono"),
            ]
            layout.addWidget(self._details(rows))
        warning = QFrame()
        warning.setObjectName("hostKeyWarning")
        warning_layout = QVBoxLayout(warning)
        warning_layout.setContentsMargins(14, 10, 14, 10)
        self.warning_label = _label(str(error), selectable=True)
        warning_layout.addWidget(self.warning_label)
        layout.addWidget(warning)

        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.reject_button = QPushButton("Close")
        self.reject_button.setDefault(True)
        self.reject_button.clicked.connect(self.reject)
        buttons.addWidget(self.reject_button)
        layout.addLayout(buttons)

    # ---- outcome -------------------------------------------------------------------------

    def _on_accept(self) -> None:
        if isinstance(self.error, UnknownHostKey):
            self.accepted_fingerprint = self.error.fingerprint_sha256
            self.accept()


class HostKeyPrompt:
    """The one host-key flow of the pages: ask about an unknown key, show a refusal.

    A page keeps one prompt. :meth:`ask` opens the question window-modally and calls
    ``answered`` with the accepted fingerprint, or None when the key was rejected, the dialog
    closed, or the page is closing (so a retry never happens behind a closed window).
    :meth:`refuse` shows why a changed or revoked key is refused; there is nothing to answer.
    ``dialog`` is the open dialog, for tests and for closing the page.
    """

    def __init__(self, parent: QWidget, known_hosts: Path | None = None) -> None:
        self.parent = parent
        self.known_hosts = known_hosts
        self.dialog: HostKeyDialog | None = None
        self.closing = False

    def ask(
        self, error: UnknownHostKey, target_name: str, answered: Callable[[str | None], None]
    ) -> HostKeyDialog:
        dialog = self._open(error, target_name)

        def finished(_result: int) -> None:
            self._forget(dialog)
            answered(None if self.closing else dialog.accepted_fingerprint)

        dialog.finished.connect(finished)
        dialog.open()
        return dialog

    def refuse(self, error: HostKeyError, target_name: str) -> HostKeyDialog:
        dialog = self._open(error, target_name)
        dialog.finished.connect(lambda _result: self._forget(dialog))
        dialog.open()
        return dialog

    def close(self) -> None:
        """The page is closing: close an open dialog; its answer is dropped."""
        self.closing = True
        if self.dialog is not None:
            self.dialog.reject()

    def _open(self, error: HostKeyError, target_name: str) -> HostKeyDialog:
        if self.dialog is not None:
            self.dialog.reject()
        dialog = HostKeyDialog(error, target_name, self.known_hosts, self.parent)
        self.dialog = dialog
        return dialog

    def _forget(self, dialog: HostKeyDialog) -> None:
        if self.dialog is dialog:
            self.dialog = None
        dialog.deleteLater()


def not_accepted_text(host: str) -> str:
    """What a page says when the user did not accept a host key."""
    return (
        f"The host key of {host} was not accepted: nothing was recorded and no password or key"
        " was offered to it."
    )
