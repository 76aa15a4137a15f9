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
:class:`StoreError` that names the file and the reason (:mod:`bench_gui.store.errors`). A failed
write rolls back only its own transaction: what was committed before stays.

Two backends: the same store runs on a team's PostgreSQL (``SessionStore(team=...)``, see
:mod:`bench_gui.store.team_store`), with the same migrations; :mod:`bench_gui.store.dialect`
holds what the two spell differently. There, too, a thread has its own connection, readers see
one snapshot, and writers take one lock (an advisory lock of the database), so two desktops
writing at once serialise as two processes on one SQLite file do.

This module holds the store's core (connections, transactions, migrating, the whole run as
JSON); the rest is in modules named for what they hold, mixed into :class:`SessionStore`:
:mod:`~bench_gui.store.run_rows` (the runs: create, finish, list, filter),
:mod:`~bench_gui.store.run_stream` (events, samples, steps, histograms, logs),
:mod:`~bench_gui.store.power_import` (a meter's log for a stored session) and
:mod:`~bench_gui.store.annotations` (tags, notes, prices), over
:mod:`~bench_gui.store.store_core` (what they use of the core). The schema and its migrations
are in :mod:`~bench_gui.store.schema`, the errors in :mod:`~bench_gui.store.errors`, the
row values in :mod:`~bench_gui.store.row_values`; this module names them all for its importers.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from bench_gui.store.annotations import SessionExtras
from bench_gui.store.dialect import POSTGRES, SQLITE, DbConnection, Dialect
from bench_gui.store.errors import SessionNotFound, StoreError, _reason, db_errors
from bench_gui.store.paths import data_dir, default_sessions_path
from bench_gui.store.power_import import StepPowerImport
from bench_gui.store.row_values import _iso
from bench_gui.store.run_claims import RunClaims
from bench_gui.store.run_rows import STALE_MESSAGE, RunRows, target_summary
from bench_gui.store.run_stream import DONE_STATUSES, RunStream
from bench_gui.store.schema import (
    FINAL_STATUSES,
    MIGRATIONS,
    RUN_STATUSES,
    SCHEMA_VERSION,
    TEAM_MIGRATION,
    MigrationStep,
    fill_run_uuids,
)
from bench_gui.wire.protocol import Event

if TYPE_CHECKING:  # psycopg is loaded only by a team store: a local file never needs it
    from bench_gui.store.team_store import TeamStoreConfig

__all__ = [
    "BUSY_TIMEOUT_S",
    "DONE_STATUSES",
    "FINAL_STATUSES",
    "MIGRATIONS",
    "RUN_STATUSES",
    "SCHEMA_VERSION",
    "STALE_MESSAGE",
    "TEAM_MIGRATION",
    "MigrationStep",
    "SessionNotFound",
    "SessionStore",
    "StoreError",
    "_iso",
    "db_errors",
    "fill_run_uuids",
    "target_summary",
]

BUSY_TIMEOUT_S: Final = 10.0


class SessionStore(RunRows, RunStream, StepPowerImport, SessionExtras):
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

    def _rows(self, run_id: int, sql: str, params: tuple[Any, ...]) -> list[Any]:
        """Rows of one run, or SessionNotFound: an empty list must mean "nothing yet"."""
        with self._snapshot() as conn:
            self._require(conn, run_id)
            return conn.execute(sql, params).fetchall()

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
                {
                    "seq": row["seq"],
                    "kind": row["kind"],
                    "t": row["t"],
                    "data": self._json(row[3], run_id, f"event {row['seq']}'s data"),
                }
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
