"""The "Team store" dialog: the team's PostgreSQL URL, its TLS mode, a Test, the password.

The URL holds no password (it is refused there): the password goes into the OS keyring with
"Save password into keyring" and is read from there at each connection. Test connects in the
background (a server that does not answer must not freeze the window) and says how many
sessions the store holds, or why it could not be reached.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from bench_gui.gui.pages.sessions.team_settings import TeamSetting
from bench_gui.gui.tasks import Task, TaskRunner
from bench_gui.gui.widgets.page_parts import Banner, form_label, muted_label
from bench_gui.services.errors import SessionNotFound, StoreError

# libpq's TLS modes (bench_gui.store.team_store.SSL_MODES), "" first: the URL's or libpq's.
TLS_MODES = ("", "disable", "allow", "prefer", "require", "verify-ca", "verify-full")
TLS_DEFAULT_LABEL = "as the URL says (libpq: prefer)"


def _expected() -> tuple[type[BaseException], ...]:
    return (StoreError, SessionNotFound, ValueError)  # ValueError: TeamStoreError


def count_sessions(setting: TeamSetting) -> tuple[str, int]:
    """Connect to the team store (creating its tables when it is new) and count its runs;
    what Test shows. StoreError when it cannot be reached."""
    from bench_gui.services.sessions import SessionStore

    config = setting.config()
    with SessionStore(team=config) as team:
        return config.display, len(team.list_runs(None))


class TeamStoreDialog(QDialog):
    """Edits the team store setting; :meth:`setting` is the result once accepted (None: the
    app works on this computer's file only)."""

    def __init__(self, setting: TeamSetting | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Team store")
        self.setMinimumWidth(760)
        self.runner = TaskRunner(self, expected=_expected(), where="team store test")
        self.runner.busy_changed.connect(self._busy)
        layout = QVBoxLayout(self)
        layout.addWidget(
            muted_label(
                "Sessions recorded here are also sent to the team's PostgreSQL, and the"
                " Sessions page can show everyone's. Leave the URL empty to keep sessions on"
                " this computer only."
            )
        )
        grid = QGridLayout()
        self.url_edit = QLineEdit(setting.url if setting else "")
        self.url_edit.setPlaceholderText("postgresql://user@host:5432/bench_results")
        grid.addWidget(form_label("URL"), 0, 0)
        grid.addWidget(self.url_edit, 0, 1, 1, 2)
        self.tls_combo = QComboBox()
        for mode in TLS_MODES:
            self.tls_combo.addItem(mode or TLS_DEFAULT_LABEL, mode)
        mode = setting.sslmode if setting else ""
        self.tls_combo.setCurrentIndex(TLS_MODES.index(mode) if mode in TLS_MODES else 0)
        self.tls_combo.setToolTip("verify-full checks the server's certificate and name")
        grid.addWidget(form_label("TLS"), 1, 0)
        grid.addWidget(self.tls_combo, 1, 1, 1, 2)
        self.cert_edit = QLineEdit(setting.sslrootcert if setting else "")
        self.cert_edit.setPlaceholderText("CA certificate (for verify-ca / verify-full)")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        grid.addWidget(form_label("CA file"), 2, 0)
        grid.addWidget(self.cert_edit, 2, 1)
        grid.addWidget(browse, 2, 2)
        self.password_edit = QLineEdit()
        self.password_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.password_edit.setPlaceholderText("kept in the OS keyring, never in the settings")
        self.password_button = QPushButton("Save password into keyring")
        self.password_button.clicked.connect(self.save_password)
        grid.addWidget(form_label("Password"), 3, 0)
        grid.addWidget(self.password_edit, 3, 1)
        grid.addWidget(self.password_button, 3, 2)
        for button in (browse, self.password_button):
            button.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        grid.setColumnStretch(1, 1)
        layout.addLayout(grid)
        self.banner = Banner()
        layout.addWidget(self.banner)
        row = QHBoxLayout()
        self.test_button = QPushButton("Test")
        self.test_button.clicked.connect(self.test_connection)
        row.addWidget(self.test_button)
        row.addStretch(1)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        row.addWidget(self.buttons)
        layout.addLayout(row)
        self._result: TeamSetting | None = setting

    # ---- what the form says --------------------------------------------------------------

    def form_setting(self) -> TeamSetting | None:
        """The form as a setting (None: no URL), not yet checked."""
        url = self.url_edit.text().strip()
        if not url:
            return None
        mode = str(self.tls_combo.currentData() or "")
        return TeamSetting(url, mode, self.cert_edit.text().strip())

    def setting(self) -> TeamSetting | None:
        """What was saved (the setting the dialog opened with until then)."""
        return self._result

    def _checked(self) -> TeamSetting | None:
        """The form's setting if it can be used; else None and the banner says why."""
        setting = self.form_setting()
        if setting is None:
            self.banner.show_text("failed", "Give the team store's URL first.")
            return None
        try:
            setting.config()
        except ValueError as exc:  # TeamStoreError
            self.banner.show_text("failed", str(exc))
            return None
        return setting

    # ---- actions -------------------------------------------------------------------------

    def test_connection(self) -> Task | None:
        """Connect in the background; the banner says the outcome (None: nothing started)."""
        setting = self._checked()
        if setting is None:
            return None
        self.banner.show_text("stopped", f"Connecting to {setting.config().display}…")
        self.runner.start("test", lambda: count_sessions(setting), self._tested, self._failed)
        return self.runner.task

    def _tested(self, outcome: tuple[str, int]) -> None:
        where, count = outcome
        self.banner.show_text(
            "ok", f"Connected to {where}: {count} session{'s' if count != 1 else ''} stored there."
        )

    def _failed(self, _what: str, message: str, _details: str) -> None:
        self.banner.show_text("failed", f"Test failed: {message}")

    def save_password(self) -> bool:
        """Put the typed password into the OS keyring, under the store's user, host and
        database; the field is emptied."""
        setting = self._checked()
        if setting is None:
            return False
        password = self.password_edit.text()
        if not password:
            self.banner.show_text("failed", "Type the password first (an empty one is not kept).")
            return False
        from bench_gui.services.sessions import set_store_password

        config = setting.config()
        try:
            set_store_password(config, password)
        except ValueError as exc:  # TeamStoreError: no keyring, or it refused
            self.banner.show_text("failed", str(exc))
            return False
        self.password_edit.clear()
        self.banner.show_text("ok", f"Password of {config.display} saved in the OS keyring.")
        return True

    def accept(self) -> None:
        """Save: an empty URL means no team store; anything else must be usable."""
        if not self.url_edit.text().strip():
            self._result = None
            super().accept()
            return
        setting = self._checked()
        if setting is None:
            return
        self._result = setting
        super().accept()

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "CA certificate", "", "Certificates (*.crt *.pem);;All files (*)"
        )
        if path:
            self.cert_edit.setText(path)

    def _busy(self, busy: bool) -> None:
        self.test_button.setEnabled(not busy)

    def done(self, result: int) -> None:
        """Closed (saved or not): a Test still connecting is joined first."""
        self.runner.shutdown()
        super().done(result)
