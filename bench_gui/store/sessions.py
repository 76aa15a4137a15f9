"""The session store: every run with its samples, step results, histograms and log, in SQLite.

SQLite because a session database is one file in the user's data directory, needs no server,
and commits atomically: the runner stores each event as it arrives, so a crash of the app loses
at most the event being written, and a run can be re-attached and continued later.

Threading: **one connection per thread**. The runner writes from a worker thread while the GUI
reads from its own thread; with WAL, a reader never waits for the writer's commit (and the
writer never waits for a slow report query), which one shared connection behind a lock could not
give. Each thread opens its connection on first use; :meth:`SessionStore.close` closes them all,
and the connection of a thread that has ended is closed when another thread opens one. Two
writers (say the runner and a rename from the GUI) serialise on SQLite's write lock, waiting up
to :data:`BUSY_TIMEOUT_S`.

Errors: every SQLite failure (full disk, read-only file, not a database...) surfaces as a
:class:`StoreError` that names the file and the reason. A failed write rolls back only its own
transaction: what was committed before stays.

Two backends: the same store runs on a team's PostgreSQL (``SessionStore(team=...)``, see
:mod:`bench_gui.store.team_store`), with the same migrations; :mod:`bench_gui.store.dialect`
holds what the two spell differently. There, too, a thread has its own connection, readers see
one snapshot, and writers take one lock (an advisory lock of the database), so two desktops
writing at once serialise as two processes on one SQLite file do.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import threading
import uuid
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from bench_gui import __version__
from bench_gui.agent.protocol import Event
from bench_gui.core.crosscheck import nopm_doubt
from bench_gui.core.power import (
    DEFAULT_IDLE_S,
    IMPORT_LABEL_PREFIX,
    POWER_FIELDS,
    PowerImport,
    PowerLogError,
    PowerReading,
    StepPower,
    idle_from_log,
    import_label,
    step_power_from_log,
)
from bench_gui.store.annotations import EXTRAS_MIGRATION, SessionExtras, storable_text
from bench_gui.store.dialect import POSTGRES, SQLITE, DbConnection, Dialect
from bench_gui.store.paths import data_dir, default_sessions_path
from bench_gui.store.recorder import current_author, current_host
from bench_gui.store.records import LogLine, RunDetail, RunInfo, Sample, StepResult
from bench_gui.store.run_claims import RunClaims
from bench_gui.store.settings_migration import SETTINGS_MIGRATION
from bench_gui.store.team_edits import EDITS_MIGRATION
from bench_gui.store.tuning_migration import TUNING_MIGRATION

if TYPE_CHECKING:  # psycopg is loaded only by a team store: a local file never needs it
    from bench_gui.store.team_store import TeamStoreConfig

RUN_STATUSES: Final = ("running", "complete", "incomplete", "failed")
FINAL_STATUSES: Final = ("complete", "incomplete", "failed")
# The agent's ``done`` status -> the session status. Anything else: "incomplete" (never claim a
# success the agent did not report, never throw away what was measured).
DONE_STATUSES: Final = {"ok": "complete", "stopped": "incomplete", "failed": "failed"}
BUSY_TIMEOUT_S: Final = 10.0
STALE_MESSAGE: Final = "bench-gui stopped while this run was going on"

# One step of a migration: an SQL statement, or a function given the connection (a rewrite of
# stored JSON that SQL cannot express), run inside the migration's transaction.
MigrationStep = str | Callable[[DbConnection], object]


def db_errors() -> tuple[type[Exception], ...]:
    """The database errors the store turns into StoreError: sqlite3's, and psycopg's once a
    team store has loaded it (it is never imported for a local file)."""
    psycopg = sys.modules.get("psycopg")
    return (sqlite3.Error,) if psycopg is None else (sqlite3.Error, psycopg.Error)


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
)
SCHEMA_VERSION: Final = len(MIGRATIONS)

# Sample fields with a column of their own; the rest of the event goes to ``extra``.
_SAMPLE_COLUMNS: Final = frozenset(
    {"step", "vus", "phase", "elapsed", "nopm_driver", "tpm_driver", "nopm_db", "tpm_db"}
    | {"counts", "errors", "latency_ms"}
)

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


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).isoformat(timespec="milliseconds")


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), default=str)


def _loads(text: str | None, default: Any) -> Any:
    return default if text is None else json.loads(text)


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _int(value: Any, default: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    return int(value)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _reason(exc: Exception, ca_file: str | None = None) -> str:
    psycopg = sys.modules.get("psycopg")
    if psycopg is not None and isinstance(exc, psycopg.Error):
        from bench_gui.store.pg_connection import pg_reason

        return pg_reason(exc, ca_file)
    name = getattr(exc, "sqlite_errorname", "") or ""
    base = "_".join(name.split("_")[:2])  # SQLITE_IOERR_WRITE -> SQLITE_IOERR
    hint = _REASONS.get(base)
    return f"{hint} ({exc})" if hint else str(exc)


def _column(row: Any, name: str) -> Any:
    """A column that only newer schemas have (None in a store still being migrated)."""
    names: list[str] = row.keys()  # a Row's own ``in`` looks at its values
    return row[name] if name in names else None


def target_summary(target: dict[str, Any]) -> str:
    """A short label for a target: what the session list shows."""
    kind = str(target.get("kind") or "")
    if kind == "demo":
        return "embedded demo"
    if kind == "random_read":
        machine = str(target.get("host") or "local")
        where = "this machine" if machine == "local" else machine
        return f"fio on {where}: {target.get('file') or 'no file'}"
    host = target.get("host")
    if not host:
        return kind or "unknown target"
    text = f"{host}:{target['port']}" if target.get("port") else str(host)
    if target.get("user"):
        text = f"{target['user']}@{text}"
    if target.get("database"):
        text = f"{text}/{target['database']}"
    return text


def _power_import_message(
    source: str,
    figures: Sequence[StepPower],
    previous: dict[int, float | None],
    idle_w: float | None,
    idle_note: str,
    kept_original: bool,
) -> str:
    """The session-log line of a power import: what each step now says, and said before."""
    replaced = any(previous.get(f.step) is not None for f in figures)
    parts = []
    for f in figures:
        text = f"step {f.step + 1} ({f.vus} VU) "
        before = previous.get(f.step)
        if before is not None:
            text += f"{before:.1f} W -> "
        text += f"{f.figures.watts:.1f} W"
        if f.figures.mw_per_nopm is not None:
            text += f", {f.figures.mw_per_nopm:.3f} mW/NOPM"
        parts.append(text)
    verb = "replaced" if replaced else "imported"
    text = f"power figures {verb} from {source}: " + "; ".join(parts)
    text += f"; idle {idle_w:.1f} W" if idle_w is not None else f" ({idle_note})"
    if kept_original:
        text += " (the meter's own figures are kept as power_original in each step)"
    return text


class SessionStore(SessionExtras):
    """Runs and everything measured during them, in one SQLite file (or a team's PostgreSQL).

    ``team``: open the team store it names instead of a file; ``path`` is then not used.
    """

    def __init__(self, path: Path | None = None, *, team: TeamStoreConfig | None = None) -> None:
        self._team = team
        self._dialect: Dialect = SQLITE if team is None else POSTGRES
        self._conninfo = "" if team is None else team.conninfo()
        if team is None:
            self._path = Path(path) if path is not None else default_sessions_path()
        else:
            # Nothing of the store is on this disk; only the claims of the runs it writes.
            self._path = data_dir() / team.folder_name
        self._where: Path | str = self._path if team is None else team.display
        self._lock = threading.Lock()
        self._local = threading.local()
        self._conns: list[tuple[threading.Thread, DbConnection]] = []
        self._closed = False
        # Which runs a live process is writing (this one's: those it created or re-attached).
        self.claims = RunClaims(self._path.with_name(self._path.name + ".live"))
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(self._where, "create its folder", exc.strerror or str(exc)) from exc
        try:
            self._migrate()
        except BaseException:
            self.close()
            raise
        self._handlers: dict[str, Callable[[DbConnection, int, Event], None]] = {
            "sample": self._on_sample,
            "step": self._on_step,
            "hello": self._on_hello,
            "log": self._on_log,
            "error": self._on_error,
            "done": self._on_done,
            "progress": self._on_progress,
        }

    # -- connections and transactions ---------------------------------------------------------

    @property
    def path(self) -> Path:
        """The SQLite file (for a team store: where this machine keeps its run claims)."""
        return self._path

    @property
    def where(self) -> str:
        """The store as messages name it: the file, or the team store's URL (no password)."""
        return str(self._where)

    @property
    def team(self) -> TeamStoreConfig | None:
        """The team store this is, or None for a local file."""
        return self._team

    @property
    def dialect(self) -> Dialect:
        return self._dialect

    def __repr__(self) -> str:
        return f"SessionStore({self.where!r})"

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close every thread's connection; call it once the worker threads are done."""
        self.claims.release_all()
        with self._lock:
            self._closed = True
            conns, self._conns = self._conns, []
        for _thread, conn in conns:
            try:
                conn.close()
            except db_errors():
                pass

    def _error(self, action: str, exc: Exception) -> StoreError:
        ca_file = None if self._team is None else self._team.params.get("sslrootcert")
        return StoreError(self._where, action, _reason(exc, ca_file))

    def _open(self) -> DbConnection:
        if self._team is not None:
            from bench_gui.store.pg_connection import PgConnection

            try:
                return PgConnection.connect(self._conninfo)
            except db_errors() as exc:
                raise self._error("open it", exc) from exc
        try:
            # check_same_thread=False only so close() may close it from another thread; each
            # connection is otherwise used by the thread that opened it.
            conn = sqlite3.connect(
                self._path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
            )
        except db_errors() as exc:
            raise self._error("open it", exc) from exc
        try:
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA foreign_keys = ON")
            # WAL: readers and the writer do not block each other. Persistent in the file;
            # filesystems without WAL support keep their journal mode.
            conn.execute("PRAGMA journal_mode = WAL")
            # FULL: a commit survives a power cut too, at one fsync a second while sampling.
            conn.execute("PRAGMA synchronous = FULL")
        except db_errors() as exc:
            conn.close()
            raise self._error("open it", exc) from exc
        return conn

    def _conn(self) -> DbConnection:
        if self._closed:
            raise StoreError(self._where, "use it", "the store is closed")
        conn: DbConnection | None = getattr(self._local, "conn", None)
        if conn is not None:
            lost = bool(getattr(conn, "lost", False)) and not self._local.depth
            if not lost:
                return conn
            # A team store's server restarted or dropped us between transactions: the
            # connection is dead, so this thread opens a new one (nothing was pending).
        with self._lock:
            if self._closed:
                raise StoreError(self._where, "use it", "the store is closed")
            alive = []
            for thread, other in self._conns:
                if thread.is_alive() and other is not conn:
                    alive.append((thread, other))
                else:
                    other.close()  # its thread has ended (or it is lost): nobody can use it
            conn = self._open()
            alive.append((threading.current_thread(), conn))
            self._conns = alive
        self._local.conn = conn
        self._local.depth = 0
        return conn

    @contextmanager
    def _txn(self, begin: tuple[str, ...], action: str) -> Iterator[DbConnection]:
        conn = self._conn()
        if self._local.depth:
            # Nested: join the outer transaction, which commits or rolls back everything.
            self._local.depth += 1
            try:
                yield conn
            finally:
                self._local.depth -= 1
            return
        try:
            conn.execute(begin[0])
        except db_errors() as exc:
            raise self._error(action, exc) from exc
        self._local.depth = 1
        try:
            for statement in begin[1:]:  # a PostgreSQL writer's lock
                conn.execute(statement, ())
            yield conn
        except BaseException as exc:
            self._local.depth = 0
            if conn.in_transaction:
                try:
                    conn.execute("ROLLBACK")
                except db_errors():
                    pass
            if isinstance(exc, db_errors()):
                raise self._error(action, exc) from exc
            raise
        self._local.depth = 0
        try:
            conn.execute("COMMIT")
        except db_errors() as exc:
            if conn.in_transaction:
                try:
                    conn.execute("ROLLBACK")
                except db_errors():
                    pass
            raise self._error(action, exc) from exc

    def transaction(self) -> AbstractContextManager[DbConnection]:
        """A write transaction on this thread's connection (BEGIN IMMEDIATE ... COMMIT).

        Store methods called inside it join it, so several changes commit together or not at
        all. IMMEDIATE takes the write lock up front: a second writer waits for it instead of
        failing halfway through.
        """
        return self._txn(self._dialect.begin_write(), "write to it")

    def _snapshot(self) -> AbstractContextManager[DbConnection]:
        """A read transaction: several queries see one consistent state while a worker writes."""
        return self._txn(self._dialect.begin_read(), "read it")

    def _migrate(self) -> None:
        conn = self._conn()
        try:
            version = self._dialect.schema_version(conn)
        except db_errors() as exc:
            raise self._error("open it", exc) from exc
        if version > SCHEMA_VERSION:
            raise StoreError(
                self._where,
                "open it",
                f"it was written by a newer bench-gui (schema version {version}, this one "
                f"knows up to {SCHEMA_VERSION}); update bench-gui",
            )
        for number in range(version + 1, SCHEMA_VERSION + 1):
            with self._txn(self._dialect.begin_write(), f"upgrade it to schema version {number}"):
                self._dialect.prepare(conn)
                # Another process may have migrated while we waited for the write lock.
                if self._dialect.schema_version(conn) >= number:
                    continue
                for statement in MIGRATIONS[number - 1]:
                    if isinstance(statement, str):
                        conn.execute(statement, ())
                    else:
                        statement(conn)
                self._dialect.set_schema_version(conn, number)

    @staticmethod
    def _require(conn: DbConnection, run_id: int) -> None:
        if conn.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone() is None:
            raise SessionNotFound(run_id)

    # -- writing ------------------------------------------------------------------------------

    def create_run(
        self,
        name: str,
        plan: dict[str, Any],
        plan_toml: str,
        target: dict[str, Any],
        engine: str,
        kind: str = "run",
    ) -> int:
        """Record a new run, status "running", before its first event arrives; return its id.

        This process claims the run (:attr:`claims`) before anyone can see it: an app that
        starts meanwhile leaves it running. The run is named by a new UUID in every store, and
        carries who records it and on which machine (:mod:`bench_gui.store.recorder`)."""
        with self.transaction() as conn:
            cur = conn.execute(
                "INSERT INTO runs (kind, name, status, created_at, engine, app_version, plan,"
                " plan_toml, target, uuid, author, host)"
                " VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    kind,
                    name,
                    _now(),
                    engine,
                    __version__,
                    _dumps(plan),
                    plan_toml,
                    _dumps(target),
                    str(uuid.uuid4()),
                    current_author(),
                    current_host(),
                ),
            )
            assert cur.lastrowid is not None
            self.claims.claim(cur.lastrowid)
            return cur.lastrowid

    def set_server_info(
        self,
        run_id: int,
        version: str,
        settings: dict[str, Any],
        inventory: dict[str, Any] | None = None,
    ) -> None:
        """Record the server's version and settings; an inventory of None keeps the stored one.

        Settings are records (:mod:`bench_gui.agent.pg.setting_units`); text is kept as given.
        """
        with self.transaction() as conn:
            if inventory is None:
                cur = conn.execute(
                    "UPDATE runs SET server_version = ?, settings = ? WHERE id = ?",
                    (version, _dumps(settings), run_id),
                )
            else:
                cur = conn.execute(
                    "UPDATE runs SET server_version = ?, settings = ?, inventory = ? WHERE id = ?",
                    (version, _dumps(settings), _dumps(inventory), run_id),
                )
            if cur.rowcount == 0:
                raise SessionNotFound(run_id)

    def update_inventory(self, run_id: int, fields: dict[str, Any]) -> dict[str, Any]:
        """Add or replace top-level parts of a run's inventory (the database's placement, found
        once the agent said where its data directory is); return the inventory."""
        with self.transaction() as conn:
            row = conn.execute("SELECT inventory FROM runs WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                raise SessionNotFound(run_id)
            inventory = _dict(_loads(row[0], {}))
            inventory.update(fields)
            conn.execute("UPDATE runs SET inventory = ? WHERE id = ?", (_dumps(inventory), run_id))
        return inventory

    def add_event(self, run_id: int, event: Event) -> bool:
        """Store one event from the agent, committed at once; False if its seq was already stored.

        Replays after a reconnect are therefore harmless: an event is stored once, ever.
        """
        data = event.data
        own_table = event.kind in ("sample", "log", "error") or (
            event.kind == "step" and data.get("phase") == "end"
        )
        with self.transaction() as conn:
            self._require(conn, run_id)
            cur = conn.execute(
                "INSERT OR IGNORE INTO events (run_id, seq, kind, t, data) VALUES (?, ?, ?, ?, ?)",
                (run_id, event.seq, event.kind, event.t, None if own_table else _dumps(data)),
            )
            if cur.rowcount == 0:
                return False
            handler = self._handlers.get(event.kind)
            if handler is not None:
                handler(conn, run_id, event)
        return True

    def _on_sample(self, conn: DbConnection, run_id: int, event: Event) -> None:
        d = event.data
        extra = {k: v for k, v in d.items() if k not in _SAMPLE_COLUMNS}
        conn.execute(
            "INSERT INTO samples (run_id, seq, t, step, vus, phase, elapsed, nopm_driver,"
            " tpm_driver, nopm_db, tpm_db, counts, errors, latency_ms, extra)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run_id,
                event.seq,
                event.t,
                _int(d.get("step")),
                _int(d.get("vus")),
                str(d.get("phase") or ""),
                _num(d.get("elapsed")),
                _num(d.get("nopm_driver")),
                _num(d.get("tpm_driver")),
                _num(d.get("nopm_db")),
                _num(d.get("tpm_db")),
                _dumps(_dict(d.get("counts"))),
                _dumps(_dict(d.get("errors"))),
                _dumps(_dict(d.get("latency_ms"))),
                _dumps(extra),
            ),
        )

    def _on_step(self, conn: DbConnection, run_id: int, event: Event) -> None:
        if event.data.get("phase") != "end":
            return
        summary = _dict(event.data.get("summary"))
        step = _int(summary.get("step", event.data.get("step")))
        vus = _int(summary.get("vus", event.data.get("vus")))
        histograms = _dict(summary.get("histograms"))
        rest = {k: v for k, v in summary.items() if k != "histograms"}
        # A step reported twice (agent restarted the step): the later report wins, whole.
        conn.execute("DELETE FROM histograms WHERE run_id = ? AND step = ?", (run_id, step))
        conn.execute(
            "INSERT INTO steps (run_id, step, seq, t, vus, nopm, tpm, nopm_driver,"
            " window_s, complete, latency, counts, errors, summary)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (run_id, step) DO UPDATE SET seq = excluded.seq, t = excluded.t,"
            " vus = excluded.vus, nopm = excluded.nopm, tpm = excluded.tpm,"
            " nopm_driver = excluded.nopm_driver, window_s = excluded.window_s,"
            " complete = excluded.complete, latency = excluded.latency,"
            " counts = excluded.counts, errors = excluded.errors, summary = excluded.summary",
            (
                run_id,
                step,
                event.seq,
                event.t,
                vus,
                _num(summary.get("nopm")),
                _num(summary.get("tpm")),
                _num(summary.get("nopm_driver")),
                _num(summary.get("window_s")),
                1 if summary.get("complete", True) else 0,
                _dumps(_dict(summary.get("latency_ms"))),
                _dumps(_dict(summary.get("counts"))),
                _dumps(_dict(summary.get("errors"))),
                _dumps(rest),
            ),
        )
        conn.executemany(
            "INSERT INTO histograms (run_id, step, tx, hdr) VALUES (?, ?, ?, ?)",
            [(run_id, step, tx, hdr) for tx, hdr in histograms.items() if isinstance(hdr, str)],
        )

    def _on_hello(self, conn: DbConnection, run_id: int, event: Event) -> None:
        d = event.data
        # Records as the agent builds them; anything else kept as text (an older agent).
        settings = {
            str(k): v if isinstance(v, dict) else str(v)
            for k, v in _dict(d.get("settings")).items()
        }
        agent = {k: v for k, v in d.items() if k not in ("server", "settings")}
        server = d.get("server")
        conn.execute(
            "UPDATE runs SET server_version = ?, settings = ?, agent = ? WHERE id = ?",
            (None if server is None else str(server), _dumps(settings), _dumps(agent), run_id),
        )

    def _on_progress(self, conn: DbConnection, run_id: int, event: Event) -> None:
        """A random-read run's raw-IOPS result joins the run's record of the study
        (``agent["random_read"]["raw_iops"]``), where the session's other figures are."""
        record = event.data.get("raw_iops")
        if event.data.get("task") != "raw_iops" or not isinstance(record, dict):
            return
        row = conn.execute("SELECT agent FROM runs WHERE id = ?", (run_id,)).fetchone()
        agent = _dict(_loads(row[0] if row else None, {}))
        agent["random_read"] = {**_dict(agent.get("random_read")), "raw_iops": record}
        conn.execute("UPDATE runs SET agent = ? WHERE id = ?", (_dumps(agent), run_id))

    def _on_log(self, conn: DbConnection, run_id: int, event: Event) -> None:
        level = str(event.data.get("level") or "info")
        self._insert_log(conn, run_id, event.seq, event.t, level, str(event.get("message", "")))

    def _on_error(self, conn: DbConnection, run_id: int, event: Event) -> None:
        message = str(event.get("message", ""))
        if event.get("code"):
            message = f"{event.get('code')}: {message}"
        level = "fatal" if event.get("fatal") else "error"
        self._insert_log(conn, run_id, event.seq, event.t, level, message)

    def _on_done(self, conn: DbConnection, run_id: int, event: Event) -> None:
        status = DONE_STATUSES.get(str(event.get("status")), "incomplete")
        conn.execute(
            "UPDATE runs SET status = ?, finished_at = ?, message = ? WHERE id = ?",
            (status, _iso(event.t), str(event.get("message") or ""), run_id),
        )

    @staticmethod
    def _insert_log(
        conn: DbConnection, run_id: int, seq: int | None, t: float, level: str, message: str
    ) -> None:
        conn.execute(
            "INSERT INTO run_log (run_id, seq, t, level, message) VALUES (?, ?, ?, ?, ?)",
            (run_id, seq, t, level, message),
        )

    def add_log(self, run_id: int, level: str, message: str, t: float | None = None) -> None:
        """Add a desktop-side line to a run's log (commands run on the target, reconnects...)."""
        when = datetime.now(UTC).timestamp() if t is None else t
        with self.transaction() as conn:
            self._require(conn, run_id)
            self._insert_log(conn, run_id, None, when, level, message)

    def finish_run(self, run_id: int, status: str, message: str = "") -> None:
        """Close a run; "incomplete" keeps everything measured. An empty message keeps the
        one already recorded (for instance the agent's, from its ``done`` event)."""
        if status not in FINAL_STATUSES:
            raise ValueError(f"status must be one of {', '.join(FINAL_STATUSES)}, got {status!r}")
        with self.transaction() as conn:
            cur = conn.execute(
                "UPDATE runs SET status = ?, finished_at = ?,"
                " message = CASE WHEN ? = '' THEN message ELSE ? END WHERE id = ?",
                (status, _now(), message, message, run_id),
            )
            if cur.rowcount == 0:
                raise SessionNotFound(run_id)
        self.claims.release(run_id)

    def mark_stale_running(
        self,
        status: str = "incomplete",
        keep: Collection[int] = (),
        message: str = STALE_MESSAGE,
    ) -> list[int]:
        """On app start: close runs a crashed app left "running"; return their ids.

        ``keep`` lists runs to leave running (runs about to be re-attached); runs a live
        process is still writing (:attr:`claims`: a ``bench-gui run`` in a terminal, another
        window) are always left alone. A finished_at of the last event received is the best
        guess of when the app lost the run.
        """
        if status not in FINAL_STATUSES:
            raise ValueError(f"status must be one of {', '.join(FINAL_STATUSES)}, got {status!r}")
        marked: list[int] = []
        # On a team store, only this machine's runs: claims are seen on this machine only, and
        # a colleague's run that is still going on must never be closed from here.
        mine = " AND r.host = ?" if self._team is not None else ""
        with self.transaction() as conn:
            rows = conn.execute(
                "SELECT r.id, r.created_at, (SELECT MAX(t) FROM events e WHERE e.run_id = r.id)"
                f" FROM runs r WHERE r.status = 'running'{mine} ORDER BY r.id",
                (current_host(),) if mine else (),
            ).fetchall()
            for run_id, created_at, last_t in rows:
                if run_id in keep or self.claims.held(run_id):
                    continue
                finished = created_at if last_t is None else _iso(last_t)
                conn.execute(
                    "UPDATE runs SET status = ?, finished_at = ?, message = ? WHERE id = ?",
                    (status, finished, message, run_id),
                )
                marked.append(run_id)
        return marked

    def close_unfinished(self, run_id: int, message: str) -> bool:
        """Close a run whose agent never reported its end (not re-attached, driver host out of
        reach...) as "incomplete" with ``message``; False if the run is no longer open.

        Only "running" and "incomplete" runs change: a run that received its ``done`` meanwhile
        keeps its outcome, and one another live process is writing (:attr:`claims`) is left to
        it. As in :meth:`mark_stale_running`, finished_at is the time of the last event
        received; a run closed already keeps its finished_at.
        """
        if self.claims.held(run_id) and not self.claims.mine(run_id):
            return False
        with self.transaction() as conn:
            row = conn.execute(
                "SELECT r.status, r.created_at, r.finished_at,"
                " (SELECT MAX(t) FROM events e WHERE e.run_id = r.id) FROM runs r WHERE r.id = ?",
                (run_id,),
            ).fetchone()
            if row is None:
                raise SessionNotFound(run_id)
            status, created_at, finished_at, last_t = row
            if status not in ("running", "incomplete"):
                return False
            if status == "running" or finished_at is None:
                finished_at = created_at if last_t is None else _iso(last_t)
            conn.execute(
                "UPDATE runs SET status = 'incomplete', finished_at = ?, message = ? WHERE id = ?",
                (finished_at, message, run_id),
            )
        self.claims.release(run_id)
        return True

    def delete_run(self, run_id: int) -> None:
        """Delete a run and everything stored with it."""
        with self.transaction() as conn:
            if conn.execute("DELETE FROM runs WHERE id = ?", (run_id,)).rowcount == 0:
                raise SessionNotFound(run_id)

    def rename_run(self, run_id: int, name: str) -> None:
        """Rename a run; names are for people, the id stays the reference."""
        name = storable_text(name.strip(), "session name")
        if not name:
            raise ValueError("a session name cannot be empty")
        with self.transaction() as conn:
            cur = conn.execute("UPDATE runs SET name = ? WHERE id = ?", (name, run_id))
            if cur.rowcount == 0:
                raise SessionNotFound(run_id)

    # -- reading ------------------------------------------------------------------------------

    def _load_runs(self, where: str, params: tuple[Any, ...]) -> list[tuple[Any, RunInfo]]:
        with self._snapshot() as conn:
            rows = conn.execute(
                "SELECT r.*,"
                " (SELECT COUNT(*) FROM steps s WHERE s.run_id = r.id) AS n_steps,"
                " (SELECT COALESCE(MAX(CASE WHEN s.complete <> 0 THEN s.nopm END), MAX(s.nopm))"
                "  FROM steps s WHERE s.run_id = r.id) AS best_nopm"
                f" FROM runs r {where} ORDER BY r.created_at DESC, r.id DESC",
                params,
            ).fetchall()
            vus: dict[int, list[int]] = {}
            for run_id, n in conn.execute(
                f"SELECT run_id, vus FROM steps WHERE run_id IN (SELECT r.id FROM runs r {where})"
                " ORDER BY run_id, step",
                params,
            ):
                vus.setdefault(run_id, []).append(n)
        return [
            (
                row,
                RunInfo(
                    id=row["id"],
                    name=row["name"],
                    kind=row["kind"],
                    status=row["status"],
                    created_at=row["created_at"],
                    finished_at=row["finished_at"],
                    engine=row["engine"],
                    target_summary=target_summary(_loads(row["target"], {})),
                    steps=row["n_steps"],
                    best_nopm=row["best_nopm"],
                    vus=vus.get(row["id"], []),
                    uuid=_column(row, "uuid") or "",
                    author=_column(row, "author") or "",
                    host=_column(row, "host") or "",
                ),
            )
            for row in rows
        ]

    def list_runs(self, kind: str | None = "run") -> list[RunInfo]:
        """Runs of one kind (all kinds for None), newest first."""
        if kind is None:
            return [info for _row, info in self._load_runs("", ())]
        return [info for _row, info in self._load_runs("WHERE r.kind = ?", (kind,))]

    def filter_runs(
        self,
        *,
        author: str | None = None,
        tag: str | None = None,
        system: str | None = None,
        host: str | None = None,
        kind: str | None = "run",
    ) -> list[RunInfo]:
        """Runs recorded by ``author``, carrying ``tag``, of the tested ``system`` (a part of
        the target's label or the server's host name in its inventory) or recorded on ``host``;
        newest first, every condition given must hold (any case). The same on a team store."""
        clauses: list[str] = []
        params: list[Any] = []
        if kind is not None:
            clauses.append("r.kind = ?")
            params.append(kind)
        if author is not None:
            clauses.append("lower(r.author) = lower(?)")
            params.append(author.strip())
        if host is not None:
            clauses.append("lower(r.host) = lower(?)")
            params.append(host.strip())
        if tag is not None:
            clauses.append(
                "EXISTS (SELECT 1 FROM run_tags g"
                " WHERE g.run_id = r.id AND lower(g.tag) = lower(?))"
            )
            params.append(" ".join(tag.split()))
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        found = self._load_runs(where, tuple(params))
        if system is None:
            return [info for _row, info in found]
        needle = system.strip().lower()
        out = []
        for row, info in found:
            inventory = _dict(_loads(row["inventory"], {}))
            names = (info.target_summary, str(inventory.get("hostname") or ""))
            if any(needle in name.lower() for name in names):
                out.append(info)
        return out

    def get_run(self, run_id: int) -> RunDetail:
        """One run with its plan, target and server details (no bulk data)."""
        found = self._load_runs("WHERE r.id = ?", (run_id,))
        if not found:
            raise SessionNotFound(run_id)
        row, info = found[0]
        return RunDetail(
            **asdict(info),
            plan=_loads(row["plan"], {}),
            plan_toml=row["plan_toml"],
            target=_loads(row["target"], {}),
            server_version=row["server_version"],
            settings=_loads(row["settings"], {}),
            inventory=_loads(row["inventory"], None),
            agent=_loads(row["agent"], {}),
            app_version=row["app_version"],
            message=row["message"],
        )

    def _rows(self, run_id: int, sql: str, params: tuple[Any, ...]) -> list[Any]:
        """Rows of one run, or SessionNotFound: an empty list must mean "nothing yet"."""
        with self._snapshot() as conn:
            self._require(conn, run_id)
            return conn.execute(sql, params).fetchall()

    def last_seq(self, run_id: int) -> int:
        """The highest event seq stored for a run (0 if none): where to resume the stream."""
        rows = self._rows(run_id, "SELECT MAX(seq) FROM events WHERE run_id = ?", (run_id,))
        return int(rows[0][0] or 0)

    def samples(self, run_id: int, since_seq: int = 0) -> list[Sample]:
        """Samples in seq order; ``since_seq`` fetches only newer ones (live charts, re-attach)."""
        rows = self._rows(
            run_id,
            "SELECT * FROM samples WHERE run_id = ? AND seq > ? ORDER BY seq",
            (run_id, since_seq),
        )
        return [
            Sample(
                seq=row["seq"],
                t=row["t"],
                step=row["step"] or 0,
                vus=row["vus"] or 0,
                phase=row["phase"] or "",
                elapsed=row["elapsed"] or 0.0,
                nopm_driver=row["nopm_driver"],
                tpm_driver=row["tpm_driver"],
                nopm_db=row["nopm_db"],
                tpm_db=row["tpm_db"],
                counts=json.loads(row["counts"]),
                errors=json.loads(row["errors"]),
                latency_ms=json.loads(row["latency_ms"]),
                extra=json.loads(row["extra"]),
            )
            for row in rows
        ]

    def steps(self, run_id: int) -> list[StepResult]:
        """Step results in step order: the rows of the comparison tables."""
        rows = self._rows(run_id, "SELECT * FROM steps WHERE run_id = ? ORDER BY step", (run_id,))
        return [
            StepResult(
                step=row["step"],
                vus=row["vus"],
                nopm=row["nopm"],
                tpm=row["tpm"],
                nopm_driver=row["nopm_driver"],
                window_s=row["window_s"],
                complete=bool(row["complete"]),
                latency_ms=json.loads(row["latency"]),
                counts=json.loads(row["counts"]),
                errors=json.loads(row["errors"]),
                summary=json.loads(row["summary"]),
                seq=row["seq"],
                t=row["t"],
                nopm_flag=nopm_doubt(row["nopm"], row["nopm_driver"], row["window_s"], row["vus"]),
            )
            for row in rows
        ]

    def histograms(self, run_id: int, step: int) -> dict[str, str]:
        """{tx: base64 HDR histogram (microseconds)} of one step, for merging and percentiles."""
        rows = self._rows(
            run_id,
            "SELECT tx, hdr FROM histograms WHERE run_id = ? AND step = ? ORDER BY tx",
            (run_id, step),
        )
        return {row["tx"]: row["hdr"] for row in rows}

    def log(self, run_id: int) -> list[LogLine]:
        """The run's log in arrival order, agent and desktop lines interleaved."""
        rows = self._rows(
            run_id,
            "SELECT seq, t, level, message FROM run_log WHERE run_id = ? ORDER BY id",
            (run_id,),
        )
        return [LogLine(row["seq"], row["t"], row["level"], row["message"]) for row in rows]

    def import_power_log(
        self, run_id: int, readings: Sequence[PowerReading], source: str
    ) -> PowerImport:
        """Give a stored session's steps the power figures of a meter's log (issue 6).

        Each step gets average watts over exactly its measured window (``window_t0`` to
        ``window_t1``), mW per NOPM, J per new order, the energy and the meter label
        "CSV import: <source>"; the idle baseline comes from the log's readings before the run,
        when it covers them. Figures a meter measured during the run are kept in each step's
        ``power_original`` and the replacement is recorded in the session's log. A log that
        misses a window raises :class:`~bench_gui.core.power.PowerLogError` naming the step and
        the gap, and nothing changes; importing the same log again changes nothing either.
        """
        label = import_label(source)
        ordered = sorted(readings, key=lambda r: r.t)
        with self.transaction() as conn:
            self._require(conn, run_id)
            rows = conn.execute(
                "SELECT step, summary FROM steps WHERE run_id = ? ORDER BY step", (run_id,)
            ).fetchall()
            if not rows:
                raise PowerLogError(f"session {run_id} has no measured step to give power to")
            summaries = {row["step"]: json.loads(row["summary"]) for row in rows}
            figures, skipped = step_power_from_log(
                [{**summary, "step": step} for step, summary in summaries.items()], ordered
            )
            idle, idle_note = self._import_idle(conn, run_id, ordered)
            idle_w = idle[0] if idle else None
            previous: dict[int, float | None] = {}
            updates: list[tuple[int, dict[str, Any]]] = []
            for item in figures:
                old = summaries[item.step]
                previous[item.step] = _num(old.get("power_w"))
                new = dict(old)
                new.update(item.as_summary(label, idle_w))
                original = {k: old[k] for k in POWER_FIELDS if old.get(k) is not None}
                from_meter = not str(old.get("power_label") or "").startswith(IMPORT_LABEL_PREFIX)
                if original and from_meter and "power_original" not in old:
                    new["power_original"] = original
                stamp = {"file": source, "readings": len(ordered)}
                before = {k: v for k, v in _dict(old.get("power_import")).items() if k in stamp}
                if before != stamp or any(new.get(k) != old.get(k) for k in POWER_FIELDS):
                    new["power_import"] = {**stamp, "imported_at": _now()}
                    updates.append((item.step, new))
            message = ""
            if updates:
                kept = any("power_original" in summary for _step, summary in updates)
                message = _power_import_message(source, figures, previous, idle_w, idle_note, kept)
                conn.executemany(
                    "UPDATE steps SET summary = ? WHERE run_id = ? AND step = ?",
                    [(_dumps(summary), run_id, step) for step, summary in updates],
                )
                self._insert_log(conn, run_id, None, datetime.now(UTC).timestamp(), "info", message)
        return PowerImport(
            run_id=run_id,
            source=source,
            label=label,
            steps=figures,
            idle_w=idle_w,
            idle_window=(idle[1], idle[2]) if idle else None,
            idle_note=idle_note,
            skipped=skipped,
            previous_w=previous,
            changed=bool(updates),
            message=message,
        )

    @staticmethod
    def _import_idle(
        conn: DbConnection, run_id: int, readings: Sequence[PowerReading]
    ) -> tuple[tuple[float, float, float] | None, str]:
        """The idle baseline of an imported log: over the agent's own idle measurement when it
        made one, else over the plan's idle time (or DEFAULT_IDLE_S) before the run's first
        event, while the bench had put no load on the server yet."""
        # The JSON is read here, not with json_extract: the same query runs on PostgreSQL.
        progress = conn.execute(
            "SELECT t, data FROM events WHERE run_id = ? AND kind = 'progress' ORDER BY seq",
            (run_id,),
        ).fetchall()
        idle_rows = [
            (t, data.get("done"))
            for t, data in ((row[0], _dict(_loads(row[1], {}))) for row in progress)
            if data.get("task") == "idle"
        ]
        if idle_rows:
            done = _num(idle_rows[0][1]) or 0.0
            t0, t1 = float(idle_rows[0][0]) - done, float(idle_rows[-1][0])
            where = "the run's idle measurement"
        else:
            first = conn.execute("SELECT MIN(t) FROM events WHERE run_id = ?", (run_id,))
            start = first.fetchone()[0]
            if start is None:
                return None, "the session has no events to place an idle period before"
            plan = _loads(
                conn.execute("SELECT plan FROM runs WHERE id = ?", (run_id,)).fetchone()[0], {}
            )
            idle_s = _num(_dict(_dict(plan).get("power")).get("idle_s")) or DEFAULT_IDLE_S
            t0, t1 = float(start) - idle_s, float(start)
            where = f"the {idle_s:g} s before the run started"
        found = idle_from_log(readings, t0, t1)
        if found is None:
            return None, f"no idle baseline: the log does not cover {where}"
        return found, ""

    def run_to_json(self, run_id: int) -> dict[str, Any]:
        """Everything about a run as plain JSON data (``bench-gui sessions show ID --json``)."""
        with self._snapshot() as conn:
            detail = self.get_run(run_id)
            steps = []
            for step in self.steps(run_id):
                item = asdict(step)
                item["histograms"] = self.histograms(run_id, step.step)
                steps.append(item)
            events = [
                {"seq": row["seq"], "kind": row["kind"], "t": row["t"], "data": json.loads(row[3])}
                for row in conn.execute(
                    "SELECT seq, kind, t, data FROM events"
                    " WHERE run_id = ? AND data IS NOT NULL ORDER BY seq",
                    (run_id,),
                )
            ]
            return {
                "format": "bench-gui-session",
                "schema_version": SCHEMA_VERSION,
                "run": asdict(detail),
                "steps": steps,
                "samples": [asdict(s) for s in self.samples(run_id)],
                "log": [asdict(line) for line in self.log(run_id)],
                # Events with no table of their own (hello, progress, step start, summary, done).
                "events": events,
            }
