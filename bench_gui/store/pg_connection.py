"""A PostgreSQL connection that the session store uses as it uses an sqlite3 one.

:class:`PgConnection` wraps a psycopg connection (autocommit: the store issues its own BEGIN
and COMMIT, as it does on SQLite) and offers the few methods the store calls: ``execute`` and
``executemany`` with ``?`` placeholders (rewritten by :mod:`bench_gui.store.dialect`), cursors
with ``rowcount`` and ``lastrowid``, and rows read by position or by column name, like
``sqlite3.Row``. Errors stay psycopg's; the store names them (:func:`pg_reason`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

import psycopg
from psycopg import pq

from bench_gui.store.dialect import POSTGRES


class Row(tuple[Any, ...]):
    """A row by position (``row[0]``, unpacking) or by column name (``row["name"]``)."""

    _names: dict[str, int]

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            try:
                return tuple.__getitem__(self, self._names[key])
            except KeyError:
                raise IndexError(f"no column named {key!r}") from None
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self._names)


def _row_factory(cursor: psycopg.Cursor[Any]) -> Any:
    names = {column.name: i for i, column in enumerate(cursor.description or ())}
    row_type = type("Row", (Row,), {"_names": names})

    def make(values: Sequence[Any]) -> Row:
        return row_type(values)  # type: ignore[no-any-return]

    return make


class PgCursor:
    """The result of one statement: rows, the rows changed, the id an INSERT generated."""

    def __init__(self, cursor: psycopg.Cursor[Any], returns_id: bool) -> None:
        self._cursor = cursor
        self._lastrowid: int | None = None
        self._rows: list[Any] | None = None
        if returns_id and cursor.description is not None:
            self._rows = cursor.fetchall()
            if len(self._rows) == 1:
                self._lastrowid = int(self._rows[0][0])

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    @property
    def lastrowid(self) -> int | None:
        return self._lastrowid

    def fetchone(self) -> Any:
        if self._rows is not None:
            return self._rows.pop(0) if self._rows else None
        return self._cursor.fetchone() if self._cursor.description is not None else None

    def fetchall(self) -> list[Any]:
        if self._rows is not None:
            rows, self._rows = self._rows, []
            return rows
        return self._cursor.fetchall() if self._cursor.description is not None else []

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())


class PgConnection:
    """The store's view of one psycopg connection (one per thread, as on SQLite)."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.raw = conn

    @classmethod
    def connect(cls, conninfo: str) -> PgConnection:
        return cls(psycopg.connect(conninfo, autocommit=True, row_factory=_row_factory))

    @property
    def lost(self) -> bool:
        """The server closed the connection (restart, terminated backend, network cut)."""
        return bool(self.raw.closed or self.raw.broken)

    @property
    def in_transaction(self) -> bool:
        return self.raw.info.transaction_status != pq.TransactionStatus.IDLE

    def execute(self, sql: str, parameters: Any = (), /) -> PgCursor:
        text = POSTGRES.sql(sql)
        returns_id = text.rstrip().upper().endswith("RETURNING ID") and "RETURNING" not in sql
        cursor = self.raw.cursor()
        cursor.execute(text, tuple(parameters))
        return PgCursor(cursor, returns_id)

    def executemany(self, sql: str, parameters: Any, /) -> PgCursor:
        cursor = self.raw.cursor()
        rows = [tuple(p) for p in parameters]
        if rows:
            cursor.executemany(POSTGRES.sql(sql, returning_id=False), rows)
        return PgCursor(cursor, False)

    def close(self) -> None:
        self.raw.close()


# SQLSTATE classes -> what a user can act on.
_CLASSES = {
    "08": "the team store cannot be reached",
    "28": "the team store refused the login (user or password)",
    "3D": "the team store's database does not exist",
    "42": "the team store's schema does not match this bench-gui",
    "53": "the team store's server is out of resources (disk, memory or connections)",
    "57": "the team store's server is shutting down or cancelled the statement",
}


def _tls_hint(text: str, ca_file: str | None) -> str | None:
    """What a refused TLS connection means, from libpq's message (it has no SQLSTATE)."""
    lowered = text.lower()
    if "does not match host name" in lowered:
        match = re.search(r'does not match host name "([^"]*)"', text)
        host = match.group(1) if match else "given"
        return (
            f"the team store's TLS certificate is not for the host name {host}: connect by"
            " a name the certificate lists"
        )
    if "certificate verify failed" in lowered:
        ca = f" ({ca_file})" if ca_file else " (sslrootcert, else ~/.postgresql/root.crt)"
        return f"the team store's TLS certificate is not signed by the CA given{ca}"
    if "root certificate file" in lowered:
        return "the CA certificate to check the team store by cannot be read"
    if "server does not support ssl" in lowered:
        return "the team store's server does not offer TLS, which the TLS mode requires"
    if "no encryption" in lowered:
        return "the team store's server takes only TLS connections: set a TLS mode"
    return None


# What a refused privilege means here (SQLSTATE 42501, inside class 42).
PERMISSION_DENIED = (
    "permission denied: this login's role may not do this in the team store (a reader may"
    " list, pull and compare; pushing and editing need the writer role, bench_writer;"
    " upgrading its schema for a new bench-gui needs the owner's login; see"
    " `bench-gui store init`)"
)


def pg_reason(exc: psycopg.Error, ca_file: str | None = None) -> str:
    """A psycopg error as a sentence: what it means, then PostgreSQL's own first line.
    ``ca_file``: the CA certificate the connection was checked by, named when it refused."""
    state = getattr(exc, "sqlstate", None) or ""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if not state and isinstance(exc, psycopg.OperationalError):
        state = "08"
    hint = _tls_hint(str(exc), ca_file) if state[:2] in ("08", "28") else None
    if state == "42501":
        hint = PERMISSION_DENIED
    hint = hint or _CLASSES.get(state[:2])
    return f"{hint} ({text})" if hint else text
