"""Where a team's shared session store is and how to log in to it: a PostgreSQL URL, the
password from the OS keyring, TLS verified when asked.

The team store is the same :class:`~bench_gui.store.sessions.SessionStore` as the local file,
on PostgreSQL (same schema, same migrations: :mod:`bench_gui.store.dialect`). Why one class
rather than a separate team module: the store's SQL is nearly all portable, so a thin
connection adapter (:mod:`bench_gui.store.pg_connection`) makes every existing feature (tags,
notes, prices, comparisons reading sessions) work on both, and one migration history cannot
drift apart the way two copies of a schema would.

The URL never holds the password: it would end up in settings files, shell history and logs.
The password lives in the OS keyring under the service ``bench-gui`` and the name
``store:USER@HOST:PORT/DATABASE`` (:func:`set_store_password`). ``sslmode`` (``verify-full``
to check the server's certificate and name) and ``sslrootcert`` are passed to libpq as given,
from the URL's query or from :class:`TeamStoreConfig`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Final

import keyring
import keyring.errors
import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

SERVICE: Final = "bench-gui"
SSL_MODES: Final = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")
CONNECT_TIMEOUT_S: Final = 10


class TeamStoreError(ValueError):
    """A team store setting that cannot be used; the message says what is wrong."""


def _parse(url: str) -> dict[str, str]:
    text = url.strip()
    if not text.startswith(("postgresql://", "postgres://")):
        raise TeamStoreError(
            f"a team store is a PostgreSQL URL like postgresql://user@host/database, got {url!r}"
        )
    try:
        params = conninfo_to_dict(text)
    except psycopg.ProgrammingError as exc:
        raise TeamStoreError(f"the team store URL {url!r} cannot be read: {exc}") from None
    if params.get("password"):
        raise TeamStoreError(
            "the team store URL holds a password: leave it out and save the password in the OS"
            " keyring instead (bench-gui keeps no password in settings or command lines)"
        )
    return {k: str(v) for k, v in params.items() if v is not None}


@dataclass(frozen=True)
class TeamStoreConfig:
    """A team store: its URL (without password) and the TLS mode to use."""

    url: str
    sslmode: str | None = None  # None: the URL's, else libpq's default
    sslrootcert: str | None = None

    def __post_init__(self) -> None:
        params = _parse(self.url)
        mode = self.sslmode or params.get("sslmode")
        if mode is not None and mode not in SSL_MODES:
            raise TeamStoreError(f"sslmode must be one of {', '.join(SSL_MODES)}, got {mode!r}")

    @property
    def params(self) -> dict[str, str]:
        params = _parse(self.url)
        if self.sslmode:
            params["sslmode"] = self.sslmode
        if self.sslrootcert:
            params["sslrootcert"] = self.sslrootcert
        return params

    @property
    def key(self) -> str:
        """``USER@HOST:PORT/DATABASE``: the keyring entry's and the pushed marks' name."""
        p = self.params
        host = p.get("host") or p.get("hostaddr") or "localhost"
        return f"{p.get('user', '')}@{host}:{p.get('port', '5432')}/{p.get('dbname', '')}"

    @property
    def display(self) -> str:
        """The store as messages name it (no password, ever)."""
        return f"postgresql://{self.key}"

    @property
    def folder_name(self) -> str:
        """A file name for what this machine keeps about the store (its run claims)."""
        return "team-" + hashlib.sha256(self.key.encode()).hexdigest()[:16]

    def conninfo(self, password: str | None = None) -> str:
        """What libpq gets: the URL's parameters, the TLS mode, the keyring's password."""
        extra: dict[str, str | int] = {
            "application_name": "bench-gui",
            "connect_timeout": CONNECT_TIMEOUT_S,
        }
        secret = password if password is not None else get_store_password(self)
        if secret is not None:
            extra["password"] = secret
        return make_conninfo("", **{**self.params, **extra})


def _entry(config: TeamStoreConfig) -> str:
    return f"store:{config.key}"


def _keyring_error(action: str, exc: Exception) -> TeamStoreError:
    if isinstance(exc, keyring.errors.NoKeyringError):
        return TeamStoreError(
            f"cannot {action}: no OS keyring is available ({exc}); install and unlock one"
        )
    return TeamStoreError(f"cannot {action} in the OS keyring: {exc}")


def set_store_password(config: TeamStoreConfig, password: str) -> None:
    """Save (or replace) the team store's password in the OS keyring."""
    try:
        keyring.set_password(SERVICE, _entry(config), password)
    except keyring.errors.KeyringError as exc:
        raise _keyring_error(f"save the password of {config.display}", exc) from exc


def get_store_password(config: TeamStoreConfig) -> str | None:
    """The team store's password from the OS keyring, or None (trust or certificate logins)."""
    try:
        return keyring.get_password(SERVICE, _entry(config))
    except keyring.errors.NoKeyringError:
        return None  # no keyring at all: try without a password, the server says if it needs one
    except keyring.errors.KeyringError as exc:
        raise _keyring_error(f"read the password of {config.display}", exc) from exc


def delete_store_password(config: TeamStoreConfig) -> bool:
    """Forget the team store's password; False if none was saved."""
    try:
        keyring.delete_password(SERVICE, _entry(config))
    except keyring.errors.PasswordDeleteError:
        return False
    except keyring.errors.KeyringError as exc:
        raise _keyring_error(f"delete the password of {config.display}", exc) from exc
    return True
