"""The session store's errors, and what a user can act on in a database failure.

Every SQLite failure (full disk, read-only file, not a database...) surfaces as a
:class:`StoreError` that names the file and the reason; psycopg's do the same for a team
store. Apart from the store itself so that every part of it raises the same errors.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Final


def db_errors() -> tuple[type[Exception], ...]:
    """The database errors the store turns into StoreError: sqlite3's, and psycopg's once a
    team store has loaded it (it is never imported for a local file)."""
    psycopg = sys.modules.get("psycopg")
    return (sqlite3.Error,) if psycopg is None else (sqlite3.Error, psycopg.Error)


# SQLite result codes -> what a user can act on.
_REASONS: Final = {
    "SQLITE_FULL": "the disk is full (or the database reached its size limit)",
    "SQLITE_READONLY": "the file or its folder is read-only",
    "SQLITE_PERM": "permission denied",
    "SQLITE_CANTOPEN": "the file cannot be opened (missing folder or no permission)",
    "SQLITE_NOTADB": "the file is not a SQLite database",
    "SQLITE_CORRUPT": "the database file is damaged",
    "SQLITE_IOERR": "a disk I/O error occurred",
    "SQLITE_BUSY": "another program keeps the database locked",
    "SQLITE_LOCKED": "another program keeps the database locked",
}


class StoreError(Exception):
    """The session database cannot be opened, read or written; the message names file and why."""

    def __init__(self, path: Path | str, action: str, reason: str) -> None:
        self.path = path
        self.action = action
        self.reason = reason
        super().__init__(f"session store {path}: cannot {action}: {reason}")


class SessionNotFound(KeyError):
    """No session with this id (deleted, or never existed)."""

    def __init__(self, run_id: int) -> None:
        self.run_id = run_id
        super().__init__(run_id)

    def __str__(self) -> str:
        # KeyError's own __str__ would print just the repr of the id.
        return f"no session with id {self.run_id}"


def _reason(exc: Exception, ca_file: str | None = None) -> str:
    psycopg = sys.modules.get("psycopg")
    if psycopg is not None and isinstance(exc, psycopg.Error):
        from bench_gui.store.pg_connection import pg_reason

        return pg_reason(exc, ca_file)
    name = getattr(exc, "sqlite_errorname", "") or ""
    base = "_".join(name.split("_")[:2])  # SQLITE_IOERR_WRITE -> SQLITE_IOERR
    hint = _REASONS.get(base)
    return f"{hint} ({exc})" if hint else str(exc)
