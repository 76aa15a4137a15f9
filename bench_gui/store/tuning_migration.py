"""Schema migration 5 of the session store: the tuning history in the numbered migrations, with
a kind per database engine.

Until now the ``tuning_history`` table was created on first use, outside the migrations, and
took only the kinds ``postgresql`` and ``os``, so MariaDB and MySQL applies were recorded as
``postgresql``. This migration creates the table where it never was, widens the kinds to
:data:`TUNING_KINDS` (``mariadb``, ``mysql``, ``mssql`` added) and gives the MariaDB/MySQL
entries recorded so far their real kind, read from their target key (``mariadb://...``,
``mysql://...``). The check on ``kind`` is named ``tuning_history_kind``, so that a later
migration can change it on PostgreSQL by its name.

The two backends widen the check differently (SQLite cannot change a constraint, PostgreSQL
can): SQLite copies the table into a new one and renames it, keeping every id and the
self-references (SQLite 3.26 and later rename those with the table); PostgreSQL drops and adds
the constraint, so ids and the identity sequence stay as they are.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Final

from bench_gui.store.dialect import DbConnection

TUNING_KINDS: Final = ("postgresql", "os", "mariadb", "mysql", "mssql")
_COLUMNS: Final = (
    "id, target_key, target_label, kind, action, created_at, profile, changes, snapshot,"
    " result, undoes, undone_by"
)


def table_ddl(name: str, kinds: tuple[str, ...], *, if_not_exists: bool = False) -> str:
    """The tuning history's table under ``name``, taking ``kinds``."""
    listed = ", ".join(f"'{k}'" for k in kinds)
    named = f"CONSTRAINT tuning_history_kind CHECK (kind IN ({listed}))"
    if not if_not_exists:  # the legacy table had an unnamed check
        check = named
    else:
        check = f"CHECK (kind IN ({listed}))"
    exists = "IF NOT EXISTS " if if_not_exists else ""
    return f"""CREATE TABLE {exists}{name} (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        target_key TEXT NOT NULL,
        target_label TEXT NOT NULL,
        kind TEXT NOT NULL {check},
        action TEXT NOT NULL CHECK (action IN ('apply', 'rollback')),
        created_at TEXT NOT NULL,
        profile TEXT NOT NULL DEFAULT '',
        changes TEXT NOT NULL DEFAULT '{{}}',
        snapshot TEXT,
        result TEXT NOT NULL DEFAULT '{{}}',
        undoes INTEGER REFERENCES {name} (id),
        undone_by INTEGER REFERENCES {name} (id)
    )"""


# The table as bench-gui created it on first use before this migration.
LEGACY_TABLE: Final = table_ddl("tuning_history", ("postgresql", "os"), if_not_exists=True)
INDEX: Final = (
    "CREATE INDEX IF NOT EXISTS tuning_history_by_target ON tuning_history (target_key, kind, id)"
)


def widen_kinds(conn: DbConnection) -> None:
    """Let ``kind`` take :data:`TUNING_KINDS` (see the module docstring for how)."""
    listed = ", ".join(f"'{k}'" for k in TUNING_KINDS)
    if isinstance(conn, sqlite3.Connection):
        conn.execute(table_ddl("tuning_history_v5", TUNING_KINDS))
        conn.execute(
            f"INSERT INTO tuning_history_v5 ({_COLUMNS}) SELECT {_COLUMNS} FROM tuning_history"
        )
        conn.execute("DROP TABLE tuning_history")
        conn.execute("ALTER TABLE tuning_history_v5 RENAME TO tuning_history")
    else:
        rows = conn.execute(
            "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint"
            " WHERE conrelid = 'tuning_history'::regclass AND contype = 'c'",
            (),
        ).fetchall()
        for name, definition in rows:
            if "kind" in str(definition):
                conn.execute(f'ALTER TABLE tuning_history DROP CONSTRAINT "{name}"', ())
        conn.execute(
            "ALTER TABLE tuning_history ADD CONSTRAINT tuning_history_kind"
            f" CHECK (kind IN ({listed}))",
            (),
        )
    conn.execute(INDEX, ())


# MariaDB and MySQL applies recorded before this migration, under kind 'postgresql'.
RELABEL: Final = tuple(
    f"UPDATE tuning_history SET kind = '{kind}'"
    f" WHERE kind = 'postgresql' AND substr(target_key, 1, {len(kind) + 3}) = '{kind}://'"
    for kind in ("mariadb", "mysql")
)

TUNING_MIGRATION: Final[tuple[str | Callable[[DbConnection], object], ...]] = (
    LEGACY_TABLE,
    widen_kinds,
    *RELABEL,
)
