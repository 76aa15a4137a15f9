"""The session store's schema: its tables, the ordered migrations that build them, the run statuses.

One list of migrations serves both backends (a SQLite file, a team's PostgreSQL): the store
(:class:`~bench_gui.store.sessions.SessionStore`) runs the ones a database has not had yet when
it opens it. Kept apart from the code that reads and writes the tables, so the history of the
schema reads in one place; each later migration's statements are in the module of what it adds.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Final

from bench_gui.store.annotations import EXTRAS_MIGRATION
from bench_gui.store.dialect import DbConnection
from bench_gui.store.settings_migration import SETTINGS_MIGRATION
from bench_gui.store.team_edits import EDITS_MIGRATION
from bench_gui.store.team_roles import add_pushed_by
from bench_gui.store.tuning_migration import TUNING_MIGRATION

RUN_STATUSES: Final = ("running", "complete", "incomplete", "failed")
FINAL_STATUSES: Final = ("complete", "incomplete", "failed")

# One step of a migration: an SQL statement, or a function given the connection (a rewrite of
# stored JSON that SQL cannot express), run inside the migration's transaction.
MigrationStep = str | Callable[[DbConnection], object]


def fill_run_uuids(conn: DbConnection) -> int:
    """Give every run without one a UUID: its name in every store it is copied to."""
    rows = conn.execute("SELECT id FROM runs WHERE uuid IS NULL ORDER BY id").fetchall()
    for row in rows:
        conn.execute("UPDATE runs SET uuid = ? WHERE id = ?", (str(uuid.uuid4()), row[0]))
    return len(rows)


# Migration 4: who recorded a session, on which machine; a UUID that names it in every store
# (the local file, the team's PostgreSQL); which sessions were pushed to which team store.
TEAM_MIGRATION: Final[tuple[MigrationStep, ...]] = (
    "ALTER TABLE runs ADD COLUMN uuid TEXT",
    "ALTER TABLE runs ADD COLUMN author TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE runs ADD COLUMN host TEXT NOT NULL DEFAULT ''",
    fill_run_uuids,
    "CREATE UNIQUE INDEX runs_by_uuid ON runs (uuid)",
    "CREATE INDEX runs_by_author ON runs (author)",
    # This store's copy of a run is in the team store ``store`` (its key: user@host:port/db),
    # pushed from here or pulled from there.
    """CREATE TABLE run_pushes (
        run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        store TEXT NOT NULL,
        pushed_at TEXT NOT NULL,
        PRIMARY KEY (run_id, store)
    )""",
)

# Migration 7: the UUID of the session a copy was made from (an import of a session the store
# has already): the same measurement, so never a repeat of it. Empty for an original. And the
# database role that wrote a session, a note, a replaced note (bench_gui.store.team_roles).
ORIGIN_MIGRATION: Final[tuple[MigrationStep, ...]] = (
    "ALTER TABLE runs ADD COLUMN origin TEXT NOT NULL DEFAULT ''",
    add_pushed_by,
)

# Ordered schema migrations; migration N (1-based) brings the schema version (SQLite's PRAGMA
# user_version, PostgreSQL's schema_version table) from N-1 to N. They run on both backends:
# write them in the SQL both share (bench_gui.store.dialect). Append only: never edit a
# migration that has shipped.
MIGRATIONS: Final[tuple[tuple[MigrationStep, ...], ...]] = (
    (
        # AUTOINCREMENT: ids are shown to users (``sessions show ID``), so a deleted run's id
        # must never come back as another run.
        """CREATE TABLE runs (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            kind TEXT NOT NULL DEFAULT 'run',
            name TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'running'
                CHECK (status IN ('running', 'complete', 'incomplete', 'failed')),
            created_at TEXT NOT NULL,
            finished_at TEXT,
            engine TEXT NOT NULL,
            app_version TEXT NOT NULL,
            plan TEXT NOT NULL,
            plan_toml TEXT NOT NULL,
            target TEXT NOT NULL,
            server_version TEXT,
            settings TEXT NOT NULL DEFAULT '{}',
            inventory TEXT,
            agent TEXT NOT NULL DEFAULT '{}',
            message TEXT NOT NULL DEFAULT ''
        )""",
        "CREATE INDEX runs_by_kind ON runs (kind, created_at)",
        # Every event seen, by sequence number: the idempotency key for replays after a
        # reconnect. ``data`` keeps the payload of events that have no table of their own.
        """CREATE TABLE events (
            run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            kind TEXT NOT NULL,
            t REAL NOT NULL,
            data TEXT,
            PRIMARY KEY (run_id, seq)
        ) WITHOUT ROWID""",
        """CREATE TABLE samples (
            run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            t REAL NOT NULL,
            step INTEGER,
            vus INTEGER,
            phase TEXT,
            elapsed REAL,
            nopm_driver REAL,
            tpm_driver REAL,
            nopm_db REAL,
            tpm_db REAL,
            counts TEXT NOT NULL DEFAULT '{}',
            errors TEXT NOT NULL DEFAULT '{}',
            latency_ms TEXT NOT NULL DEFAULT '{}',
            extra TEXT NOT NULL DEFAULT '{}',
            PRIMARY KEY (run_id, seq)
        )""",
        """CREATE TABLE steps (
            run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            step INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            t REAL NOT NULL,
            vus INTEGER NOT NULL,
            nopm REAL,
            tpm REAL,
            nopm_driver REAL,
            window_s REAL,
            complete INTEGER NOT NULL,
            latency TEXT NOT NULL DEFAULT '{}',
            counts TEXT NOT NULL DEFAULT '{}',
            errors TEXT NOT NULL DEFAULT '{}',
            summary TEXT NOT NULL DEFAULT '{}',
            PRIMARY KEY (run_id, step)
        )""",
        """CREATE TABLE histograms (
            run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            step INTEGER NOT NULL,
            tx TEXT NOT NULL,
            hdr TEXT NOT NULL,
            PRIMARY KEY (run_id, step, tx)
        )""",
        # seq is NULL for lines the desktop side adds itself (add_log).
        """CREATE TABLE run_log (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            seq INTEGER,
            t REAL NOT NULL,
            level TEXT NOT NULL,
            message TEXT NOT NULL
        )""",
        "CREATE INDEX run_log_by_run ON run_log (run_id, id)",
    ),
    # 2: tags, notes, device and power prices, hand-entered arrays (bench_gui.store.annotations).
    EXTRAS_MIGRATION,
    # 3: settings in real units (old "163848kB" texts rewritten), storage described by the user
    # (bench_gui.store.settings_migration).
    SETTINGS_MIGRATION,
    # 4: author, host, UUID, pushed marks (the team store, issue 18).
    TEAM_MIGRATION,
    # 5: the tuning history, with a kind per engine (bench_gui.store.tuning_migration).
    TUNING_MIGRATION,
    # 6: edits of pushed sessions queued for the team store, the history of notes
    # (bench_gui.store.team_edits).
    EDITS_MIGRATION,
    # 7: the session a copy was made from (issue 28), the role that pushed (issue 32).
    ORIGIN_MIGRATION,
)
SCHEMA_VERSION: Final = len(MIGRATIONS)
