"""The Sessions page's team store bar: which store the list shows, whose sessions, the push.

With a team store set (the "Team store…" dialog, :mod:`.team_dialog`), the sessions recorded
on this computer are pushed to it in the background whenever the page is shown, at the app's
start and with "Push now" (:func:`bench_gui.store.team_sync.push`: each session once, however
often it runs). The switch shows this computer's file or the team store; the author filter
narrows either. When the team store cannot be reached, the local file keeps working and the
banner says that the sessions will be pushed later: nothing is lost, the next push sends them.

Leaving the page switches back to this computer's sessions: other pages open sessions on the
Sessions page by their local id (the Live page's "Open session").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from bench_gui.gui.pages.sessions.team_settings import (
    TeamSetting,
    load_team_setting,
    save_team_setting,
)
from bench_gui.gui.tasks import Task, TaskRunner
from bench_gui.gui.widgets.elided import ElidedLabel
from bench_gui.gui.widgets.page_parts import Banner, compact_combo
from bench_gui.services.errors import SessionNotFound, StoreError

if TYPE_CHECKING:
    from bench_gui.services.sessions import SessionStore, SyncResult

EVERYONE = "Everyone"
VIEW_LOCAL, VIEW_TEAM = 0, 1
# Errors the user can act on (ValueError: TeamStoreError, a bad setting or keyring).
EXPECTED = (StoreError, SessionNotFound, ValueError)
# Edits the setting: (current) -> (accepted?, new setting). Tests replace it.
SettingEditor = Callable[[TeamSetting | None], tuple[bool, TeamSetting | None]]


def push_to_team(
    local: SessionStore, setting: TeamSetting, opened: SessionStore | None
) -> tuple[SessionStore | None, SyncResult]:
    """Open the team store (unless ``opened``), push this computer's sessions and edits to it
    and bring the pushed and pulled sessions here up to date with colleagues' edits
    (:func:`~bench_gui.store.team_sync.sync`); the store (None when it could not be reached)
    and what was done. Runs in a worker thread."""
    from bench_gui.services.sessions import SessionStore, SyncResult, sync

    config = setting.config()
    team = opened
    if team is None:
        try:
            team = SessionStore(team=config)
        except StoreError as exc:
            return None, SyncResult(config.display, unreachable=exc.reason)
    try:
        return team, sync(local, team)
    except StoreError as exc:  # reached, then lost: what was pushed is marked, the rest waits
        return team, SyncResult(config.display, unreachable=exc.reason)


class TeamBar(QWidget):
    """Store switch, author filter, "Push now", "Team store…" and the team store's banner.

    Signals:
        view_changed(object): the store the list is to show now (local or team).
        author_changed(): the author filter changed.
        synced(object): a push ended (its :class:`SyncResult`).
    """

    view_changed = Signal(object)
    author_changed = Signal()
    synced = Signal(object)

    def __init__(self, local: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.local = local
        self.setting: TeamSetting | None = load_team_setting()
        self.team: SessionStore | None = None
        self.last_result: SyncResult | None = None
        self.edit_setting: SettingEditor = self._edit_in_dialog
        self._want_team = False
        self._again = False  # sync asked while a push ran: another once it ends
        self._stale: list[SessionStore] = []  # team stores replaced while a push ran on them
        self.runner = TaskRunner(self, expected=EXPECTED, where="team store push")
        self.runner.busy_changed.connect(self._busy)
        self._build()
        self._show_state()

    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(6)
        row = QHBoxLayout()
        row.setSpacing(8)
        row.addWidget(QLabel("Showing"))
        self.view_combo = compact_combo(QComboBox(), 12)
        self.view_combo.addItems(["This computer", "Team store"])
        self.view_combo.currentIndexChanged.connect(self._view_chosen)
        row.addWidget(self.view_combo)
        row.addWidget(QLabel("Author"))
        self.author_combo = compact_combo(QComboBox(), 10)
        self.author_combo.addItem(EVERYONE)
        self.author_combo.currentIndexChanged.connect(lambda _i: self.author_changed.emit())
        row.addWidget(self.author_combo)
        self.where_label = ElidedLabel()  # a long URL never widens the page
        self.where_label.setObjectName("muted")
        row.addWidget(self.where_label, 1)
        self.push_button = QPushButton("Push now")
        self.push_button.setToolTip("Send the sessions recorded here to the team store")
        self.push_button.clicked.connect(self.sync)
        row.addWidget(self.push_button)
        self.settings_button = QPushButton("Team store…")
        self.settings_button.setToolTip("The team's PostgreSQL: URL, TLS, password, test")
        self.settings_button.clicked.connect(self.open_settings)
        row.addWidget(self.settings_button)
        outer.addLayout(row)
        self.banner = Banner()
        outer.addWidget(self.banner)

    # ---- what is shown -------------------------------------------------------------------

    @property
    def showing_team(self) -> bool:
        return self.team is not None and self.view_combo.currentIndex() == VIEW_TEAM

    def shown_store(self) -> Any:
        """The store the list shows: the team store when chosen and open, else the file."""
        return self.team if self.showing_team else self.local

    def author(self) -> str | None:
        """The author the list is narrowed to, or None for everyone."""
        text = self.author_combo.currentText()
        return None if self.author_combo.currentIndex() <= 0 else text

    def set_authors(self, names: Iterable[str]) -> None:
        """The authors of the listed sessions, for the filter (the choice is kept if still
        there)."""
        chosen = self.author()
        found = sorted({n for n in names if n}, key=str.lower)
        self.author_combo.blockSignals(True)
        self.author_combo.clear()
        self.author_combo.addItem(EVERYONE)
        self.author_combo.addItems(found)
        index = self.author_combo.findText(chosen) if chosen else 0
        self.author_combo.setCurrentIndex(max(0, index))
        self.author_combo.blockSignals(False)
        if chosen and index < 0:
            self.author_changed.emit()

    def choose_author(self, name: str | None) -> bool:
        """Narrow the list to ``name``'s sessions (None: everyone's); False if not listed."""
        index = 0 if name is None else self.author_combo.findText(name)
        if index < 0:
            return False
        self.author_combo.setCurrentIndex(index)
        return True

    def where_text(self) -> str:
        if self.showing_team and self.team is not None:
            return f"team store {self.team.where}"
        return f"this computer: {self.local.where}"

    def _show_state(self) -> None:
        configured = self.setting is not None
        self.view_combo.setEnabled(configured)
        self.push_button.setEnabled(configured and self.runner.busy is None)
        self.where_label.setText(self.where_text())
        self.where_label.setToolTip(self.where_text())

    # ---- switching -----------------------------------------------------------------------

    def show_team(self, on: bool) -> None:
        """Show the team store (opened and pushed to first, in the background) or the file."""
        index = VIEW_TEAM if on else VIEW_LOCAL
        if self.view_combo.currentIndex() != index:
            self.view_combo.setCurrentIndex(index)  # -> _view_chosen
        else:
            self._view_chosen(index)

    def _view_chosen(self, index: int) -> None:
        self._want_team = index == VIEW_TEAM
        if self._want_team and self.team is None:
            started = self.setting is not None and self.sync()
            if not started and self.runner.busy is None:  # nothing will open it
                self._back_to_local()
            return  # shown when the push has opened it
        self._show_state()
        self.view_changed.emit(self.shown_store())

    def _back_to_local(self) -> None:
        self._want_team = False
        self.view_combo.blockSignals(True)
        self.view_combo.setCurrentIndex(VIEW_LOCAL)
        self.view_combo.blockSignals(False)
        self._show_state()
        self.view_changed.emit(self.local)

    def leave(self) -> None:
        """The page is left: back to this computer's sessions (see the module's note)."""
        if self.view_combo.currentIndex() != VIEW_LOCAL:
            self._back_to_local()

    # ---- push ----------------------------------------------------------------------------

    def sync(self) -> bool:
        """Push this computer's sessions to the team store in the background (opening it
        first); False when no team store is set, the setting is unusable (the banner says
        why) or a push is already running."""
        setting = self.setting
        if setting is None:
            return False
        if self.runner.busy is not None:
            self._again = True  # what was recorded or edited since it began: pushed after it
            return False
        try:
            setting.config()
        except ValueError as exc:  # TeamStoreError
            self.banner.show_text("failed", f"The team store setting cannot be used: {exc}")
            return False
        local, opened = self.local, self.team
        return self.runner.start(
            "push",
            lambda: push_to_team(local, setting, opened),
            lambda outcome: self._synced(setting, outcome),
            lambda _what, message, _details: self._failed(setting, message),
        )

    @property
    def task(self) -> Task | None:
        """The push running in the background, if any."""
        return self.runner.task

    def _outdated(self, setting: TeamSetting, team: SessionStore | None) -> bool:
        """The setting changed while a push ran: its outcome is dropped (the store it opened
        closed) and the new store is pushed to."""
        if setting == self.setting:
            return False
        for old in {id(s): s for s in (*self._stale, team) if s is not None}.values():
            old.close()
        self._stale.clear()
        if self.setting is not None:
            self.sync()
        return True

    def _synced(
        self, setting: TeamSetting, outcome: tuple[SessionStore | None, SyncResult]
    ) -> None:
        team, result = outcome
        if self._outdated(setting, team):
            return
        if team is not None and team is not self.team:
            if self.team is not None:
                self.team.close()
            self.team = team
        self.last_result = result
        if not result.reached:
            self.banner.show_text(
                "failed",
                f"Team store {result.store} not available: {result.unreachable}. The"
                " sessions recorded here stay on this computer and will be pushed later,"
                " when it can be reached.",
            )
            if self._want_team and self.team is None:
                self._back_to_local()
        else:
            count = len(result.copied)
            if count:
                self.banner.show_text(
                    "ok",
                    f"{count} session{'s' if count != 1 else ''} recorded here pushed to the"
                    " team store.",
                )
            else:
                self.banner.clear()
        self._show_state()
        if self._want_team and self.team is not None:
            self.view_changed.emit(self.team)
        self.synced.emit(result)
        self._sync_again()

    def _sync_again(self) -> None:
        if self._again:
            self._again = False
            self.sync()

    def _failed(self, setting: TeamSetting, message: str) -> None:
        if self._outdated(setting, None):
            return
        self.banner.show_text(
            "failed",
            f"Cannot push to the team store: {message}. The sessions recorded here are kept"
            " on this computer.",
        )
        if self._want_team and self.team is None:
            self._back_to_local()
        self._show_state()
        self._sync_again()

    def _busy(self, busy: bool) -> None:
        self.push_button.setEnabled(not busy and self.setting is not None)
        self.push_button.setText("Pushing…" if busy else "Push now")

    # ---- the setting ---------------------------------------------------------------------

    def open_settings(self) -> bool:
        """Edit the team store setting; True if it was changed (then saved and pushed to)."""
        accepted, setting = self.edit_setting(self.setting)
        if not accepted or setting == self.setting:
            return False
        self.apply_setting(setting)
        return True

    def apply_setting(self, setting: TeamSetting | None) -> None:
        """Keep ``setting`` in the app's settings and use it: the team store it replaces is
        closed, the list goes back to this computer's file, and the new one is pushed to."""
        save_team_setting(setting)
        self.setting = setting
        old, self.team = self.team, None
        self.last_result = None
        self.banner.clear()
        self._back_to_local()
        if self.runner.busy is not None:  # a push to the old store: ends, then the new one
            if old is not None:
                self._stale.append(old)
            return
        if old is not None:
            old.close()
        if setting is not None:
            self.sync()

    def _edit_in_dialog(self, current: TeamSetting | None) -> tuple[bool, TeamSetting | None]:
        from bench_gui.gui.pages.sessions.team_dialog import TeamStoreDialog

        dialog = TeamStoreDialog(current, self)
        accepted = dialog.exec() == TeamStoreDialog.DialogCode.Accepted
        setting = dialog.setting()
        dialog.deleteLater()
        return accepted, setting

    def close_store(self) -> None:
        """Close the team store (at the app's end, or when the setting changes)."""
        if self.team is not None:
            self.team.close()
            self.team = None
