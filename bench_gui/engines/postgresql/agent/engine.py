"""The agent's PostgreSQL engine: server facts, the measuring monitor, and database lifecycle.

The first implementation of :class:`bench_gui.agent.engines.AgentEngine`: the schema, the
load and the checks are :mod:`.schema`, :mod:`.loader` and :mod:`.check`, the users
:mod:`.vu` (non-blocking libpq), the counters :mod:`.counters`, the connection :mod:`.connection`.

The monitor reads exactly what HammerDB reads at the edges of the measured window:
``sum(d_next_o_id)`` from district (every committed New-Order increments it once) and
``sum(xact_commit + xact_rollback)`` from ``pg_stat_database``.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg import sql

from bench_gui.agent.engines import CheckResult, ServerIdentity, Snapshot
from bench_gui.engines.postgresql.agent import template
from bench_gui.engines.postgresql.agent.connection import connect
from bench_gui.engines.postgresql.agent.counters import read_counters
from bench_gui.engines.postgresql.shared.liveness import server_away, with_liveness
from bench_gui.wire.engine_errors import EngineError
from bench_gui.wire.setting_units import setting_record

# The raw setting with its unit (16384 of 8kB), the text SHOW prints (128MB), where it was set
# and the engine's own default (boot_val): see bench_gui.wire.setting_units.
# How long a reset or a template copy goes on trying a server that refused or lost its
# connection (a restart, a failover).
RECONNECT_S = 600.0
SETTINGS_SQL = (
    "SELECT name, setting, unit, source, boot_val, vartype, current_setting(name)"
    " FROM pg_settings"
    " WHERE source NOT IN ('default', 'override', 'client', 'session') ORDER BY name"
)


class PgEngine:
    """PostgreSQL as the agent drives it."""

    name = "postgresql"
    supports_template = True
    # One non-blocking process multiplexes its users (pg.vu): with 4 users on a 2-CPU machine
    # one process instead of two spent 50 instead of 65 µs of CPU per transaction, since one
    # wake-up then often serves several finished transactions.
    users_per_process = 8

    def __init__(self, conninfo: str, admin_conninfo: str, database: str) -> None:
        # Every connection of the run (loader, templates, the users) is opened from these.
        self.conninfo = with_liveness(conninfo)
        self.admin_conninfo = with_liveness(admin_conninfo)
        self.database = database
        self.template = f"{database}_template"
        self._monitor: psycopg.Connection[Any] | None = None
        # The tablespace the database was in when it was dropped to be rebuilt: a database the
        # storage placement put on a volume under test is built there again, not on the
        # server's default volume (a plain CREATE DATABASE lands in pg_default).
        self._tablespace: str | None = None

    @property
    def worker_main(self) -> Callable[[Any, Any, Any, Any], None]:
        from bench_gui.engines.postgresql.agent.vu import worker_main

        return worker_main

    # -- facts -------------------------------------------------------------------------------
    def server_info(self) -> dict[str, Any]:
        """Version and non-default settings: stored with every run for provenance.

        Each setting is a record with its value in real units and PostgreSQL's own text
        (:func:`~bench_gui.wire.setting_units.setting_record`), never the number and the
        unit joined ("163848kB" was 16384 x 8kB).
        """
        with connect(self.admin_conninfo, what="server") as conn:
            version = conn.execute("SELECT version()").fetchone()
            rows = conn.execute(SETTINGS_SQL).fetchall()
            num = conn.execute("SHOW server_version_num").fetchone()
            data_dir = None
            try:
                data_dir = conn.execute("SHOW data_directory").fetchone()
            except psycopg.Error:
                pass  # needs pg_read_all_settings; optional
        settings = {
            name: setting_record(
                setting, unit, display=shown, source=source, boot_val=boot, vartype=vartype
            )
            for name, setting, unit, source, boot, vartype, shown in rows
        }
        return {
            "server": version[0] if version else "",
            "server_version_num": int(num[0]) if num else 0,
            "data_directory": data_dir[0] if data_dir else None,
            "settings": settings,
        }

    def identity(self) -> ServerIdentity:
        from bench_gui.engines.postgresql.agent.identity import server_identity

        with connect(self.admin_conninfo, what="server") as conn:
            return server_identity(conn)

    def data_paths(self) -> list[str]:
        """The data directory, WAL and tablespaces, when the server runs on this host."""
        from psycopg.conninfo import conninfo_to_dict

        from bench_gui.agent.hostmetrics import is_local_host, postgres_paths

        host = str(conninfo_to_dict(self.conninfo).get("host") or "")
        data_dir = self.server_info().get("data_directory")
        if data_dir and is_local_host(host) and os.path.isdir(str(data_dir)):
            return postgres_paths(str(data_dir))
        return []

    # -- the schema --------------------------------------------------------------------------
    def schema_status(self) -> Any:
        from bench_gui.engines.postgresql.agent.schema import schema_status

        with connect(self.conninfo) as conn:
            return schema_status(conn)

    def install_routines(self) -> None:
        """(Re)create both profiles' routines on a loaded schema (one built before the
        hammerdb profile's existed lacks them), in its template copy too when there is one (a
        reset between steps copies the template)."""
        from psycopg.conninfo import make_conninfo

        from bench_gui.engines.postgresql.agent.schema import create_routines

        with connect(self.conninfo) as conn:
            create_routines(conn)
        if self.database_exists(self.template):
            with connect(make_conninfo(self.conninfo, dbname=self.template)) as conn:
                create_routines(conn)

    def build(
        self,
        warehouses: int,
        workers: int,
        progress: Callable[[dict[str, Any]], None],
        stop: threading.Event | None,
    ) -> dict[str, Any]:
        from bench_gui.engines.postgresql.agent.loader import build

        return build(self.conninfo, warehouses, workers, progress, stop)

    def consistency_checks(self) -> list[CheckResult]:
        from bench_gui.engines.postgresql.agent.check import consistency_checks

        with connect(self.conninfo) as conn:
            return consistency_checks(conn)

    def schema_facts(
        self, emit: Callable[..., Any], stop: threading.Event, when: str
    ) -> dict[str, Any]:
        from bench_gui.engines.postgresql.agent import schema_facts

        return schema_facts.step_fields(self.conninfo, emit, stop, when)

    def after_run_facts(self, emit: Callable[..., Any], stop: threading.Event) -> dict[str, Any]:
        from bench_gui.engines.postgresql.agent import schema_facts

        return schema_facts.after_run_fields(self.conninfo, emit, stop)

    def counter_reader(self) -> Any:
        from bench_gui.engines.postgresql.agent.counters import CounterReader

        return CounterReader(self.conninfo)

    def server_probe(self) -> Any:
        """Whether the server answers, read as the counters are (the admin connection: the
        test database may be gone while it is reset)."""
        from bench_gui.engines.postgresql.agent.counters import ServerProbe

        return ServerProbe(self.admin_conninfo)

    def database_exists(self, name: str | None = None) -> bool:
        with connect(self.admin_conninfo, what="server") as conn:
            row = conn.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", (name or self.database,)
            ).fetchone()
        return row is not None

    def create_database(self) -> None:
        statement = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(self.database))
        if self._tablespace:
            statement = sql.SQL("{} TABLESPACE {}").format(
                statement, sql.Identifier(self._tablespace)
            )
        with connect(self.admin_conninfo, what="server") as conn:
            try:
                conn.execute(statement)
            except psycopg.errors.DuplicateDatabase:
                pass
            except psycopg.errors.InsufficientPrivilege as exc:
                raise EngineError(
                    f"the user may not create database {self.database!r}: {exc}"
                ) from exc

    def drop_database(self, name: str) -> None:
        with connect(self.admin_conninfo, what="server") as conn:
            if name == self.database:
                row = conn.execute(
                    "SELECT t.spcname FROM pg_database d JOIN pg_tablespace t"
                    " ON t.oid = d.dattablespace WHERE d.datname = %s",
                    (name,),
                ).fetchone()
                if row is not None:
                    self._tablespace = None if row[0] == "pg_default" else str(row[0])
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )

    # -- templates: every step starts from the same data --------------------------------------
    def make_template(self) -> None:
        """Copy the freshly built database to the template (CREATE DATABASE ... TEMPLATE)."""
        self._retry(
            lambda: template.make_template(self.admin_conninfo, self.database, self.template)
        )

    def reset_from_template(self) -> None:
        self.close_monitor()
        self._retry(
            lambda: template.reset_from_template(self.admin_conninfo, self.database, self.template)
        )

    @staticmethod
    def _retry(
        action: Callable[[], None], seconds: float = 30.0, reconnect_s: float = RECONNECT_S
    ) -> None:
        """Sessions of the previous step take a moment to go away after their users stop, and
        a server that restarted or dropped the connection is tried again (after 1 s) for
        ``reconnect_s``: the run's own watch (:mod:`bench_gui.agent.between_steps`) ends it
        sooner if the server stays away past the plan's stall limit."""
        started = time.monotonic()
        while True:
            try:
                action()
                return
            except template.TemplateError as exc:
                if "session" not in str(exc) or time.monotonic() > started + seconds:
                    raise EngineError(str(exc)) from exc
                time.sleep(0.2)
            except psycopg.errors.LockNotAvailable as exc:
                raise EngineError(
                    f"the template's copy waited {template.LOCK_TIMEOUT_S:g} s for a lock"
                    f" another session holds: {str(exc).strip()}"
                ) from exc
            except psycopg.OperationalError as exc:
                if not server_away(exc) or time.monotonic() > started + reconnect_s:
                    lines = str(exc).strip().splitlines()
                    text = lines[0] if lines else type(exc).__name__
                    raise EngineError(f"the template could not be copied: {text}") from exc
                time.sleep(1.0)

    # -- the monitor ------------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        if self._monitor is None or self._monitor.closed:
            self._monitor = connect(self.conninfo)
        return read_counters(self._monitor)

    def close_monitor(self) -> None:
        if self._monitor is not None:
            self._monitor.close()
            self._monitor = None


__all__ = ["PgEngine"]
