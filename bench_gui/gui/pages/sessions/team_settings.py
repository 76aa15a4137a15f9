"""The app's "Team store" setting: the URL of the team's PostgreSQL and its TLS options.

Kept in the app's own settings (:class:`QSettings`, the INI file in the user's configuration
folder where the Live page keeps its chart layout), under ``team_store/``. Never a password:
that lives in the OS keyring (:func:`bench_gui.store.team_store.set_store_password`). Reading
the setting loads nothing of PostgreSQL; :meth:`TeamSetting.config` does, when it is used.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings

if TYPE_CHECKING:
    from bench_gui.services.sessions import TeamStoreConfig

GROUP = "team_store"


def app_settings() -> QSettings:
    """The app's settings file (the same one as the Live page's chart layout)."""
    return QSettings(
        QSettings.Format.IniFormat, QSettings.Scope.UserScope, "bench-gui", "bench-gui"
    )


@dataclass(frozen=True)
class TeamSetting:
    """A team store as the user set it: URL without password, TLS mode ("" = the URL's or
    libpq's default) and the CA certificate file to check the server by."""

    url: str
    sslmode: str = ""
    sslrootcert: str = ""

    def config(self) -> TeamStoreConfig:
        """The store's connection setting; TeamStoreError says what is wrong with it."""
        from bench_gui.services.sessions import TeamStoreConfig

        return TeamStoreConfig(
            self.url.strip(), sslmode=self.sslmode or None, sslrootcert=self.sslrootcert or None
        )


def load_team_setting(settings: QSettings | None = None) -> TeamSetting | None:
    """The saved team store, or None when the app works on this computer's file only."""
    s = settings or app_settings()
    url = str(s.value(f"{GROUP}/url", "") or "").strip()
    if not url:
        return None
    return TeamSetting(
        url,
        str(s.value(f"{GROUP}/sslmode", "") or ""),
        str(s.value(f"{GROUP}/sslrootcert", "") or ""),
    )


def save_team_setting(setting: TeamSetting | None, settings: QSettings | None = None) -> None:
    """Keep ``setting`` (None: no team store any more) for the next start."""
    s = settings or app_settings()
    if setting is None or not setting.url.strip():
        s.remove(GROUP)
    else:
        s.setValue(f"{GROUP}/url", setting.url.strip())
        s.setValue(f"{GROUP}/sslmode", setting.sslmode)
        s.setValue(f"{GROUP}/sslrootcert", setting.sslrootcert)
    s.sync()
