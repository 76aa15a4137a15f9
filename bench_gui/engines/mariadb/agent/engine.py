"""The agent's MariaDB/MySQL engine (pyodbc): server facts, the counters as HammerDB reads
them, database lifecycle, and the parts of :class:`bench_gui.agent.engines.AgentEngine`.

- TPM source: ``Com_commit + Com_rollback`` from ``SHOW GLOBAL STATUS`` (every procedure
  ends in a COMMIT or, for the New-Order rollback and errors, a ROLLBACK);
- NOPM source: ``SUM(d_next_o_id)`` from district, as on PostgreSQL;
- settings: the InnoDB and server variables that decide OLTP throughput (:data:`SETTINGS`),
  each with where its value came from (MariaDB's ``GLOBAL_VALUE_ORIGIN`` and
  ``DEFAULT_VALUE``, MySQL's ``performance_schema.variables_info``), so a report can tell a
  default from a value someone set;
- no template: there is no cheap copy of a database (no CREATE DATABASE ... TEMPLATE), so
  ``reset_between_steps`` runs every step on the same data and the sweep says so.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Final

from bench_gui.agent.counters import CounterReader
from bench_gui.agent.engines import CheckResult, ServerIdentity, Snapshot
from bench_gui.agent.odbc_engine import OdbcEngine
from bench_gui.engines.mariadb.shared import odbc
from bench_gui.wire import odbc as wire_odbc
from bench_gui.wire.engine_errors import EngineError
from bench_gui.wire.setting_units import setting_record
from bench_gui.wire.tpcc_tables import TABLES

# Variables kept with every run: (name, unit) with "B" for sizes in bytes.
SETTINGS: Final[tuple[tuple[str, str | None], ...]] = (
    ("innodb_buffer_pool_size", "B"),
    ("innodb_buffer_pool_instances", None),
    ("innodb_log_file_size", "B"),
    ("innodb_log_buffer_size", "B"),
    ("innodb_flush_log_at_trx_commit", None),
    ("innodb_flush_method", None),
    ("innodb_io_capacity", None),
    ("innodb_io_capacity_max", None),
    ("innodb_doublewrite", None),
    ("innodb_adaptive_hash_index", None),
    ("innodb_read_io_threads", None),
    ("innodb_write_io_threads", None),
    ("innodb_purge_threads", None),
    ("innodb_lru_scan_depth", None),
    ("innodb_max_dirty_pages_pct", None),
    ("innodb_change_buffering", None),
    ("innodb_file_per_table", None),
    ("innodb_thread_concurrency", None),
    ("max_connections", None),
    ("table_open_cache", None),
    ("thread_handling", None),
    ("thread_cache_size", None),
    ("transaction_isolation", None),
    ("tx_isolation", None),
    ("log_bin", None),
    ("sync_binlog", None),
    ("binlog_format", None),
    ("performance_schema", None),
    ("query_cache_type", None),
    ("query_cache_size", "B"),
    ("character_set_server", None),
)
# A counter or facts query the server cannot answer in this time is cancelled by the server.
STATEMENT_TIMEOUT_S: Final = 10
FACTS_TIMEOUT_S: Final = 600
# Tables whose data is counted exactly while the sum of their sizes stays under this.
EXACT_BUDGET_BYTES: Final = 2 * 1024**3


def _timeout_sql(flavour: str, seconds: int) -> str:
    if flavour == "mysql":
        return f"SET SESSION max_execution_time = {seconds * 1000}"
    return f"SET SESSION max_statement_time = {seconds}"


def _vartype(text: str) -> str:
    """PostgreSQL's name for the type a variable's text has (see setting_units)."""
    if text.lstrip("-").isdigit():
        return "integer"
    return "bool" if text.upper() in ("ON", "OFF") else "string"


def _text(value: str) -> str:
    """ON/OFF as PostgreSQL spells a bool (what typed_value reads), anything else as is."""
    return value.lower() if value.upper() in ("ON", "OFF") else value


# Where a variable's value came from, as the stored records say it (PostgreSQL's words where
# they mean the same: "default" is the engine's own value; "auto" is sized by the server).
ORIGINS: Final = {
    "COMPILE-TIME": "default",  # MariaDB
    "AUTO": "auto",
    "CONFIG": "configuration file",
    "COMMAND-LINE": "command line",
    "SQL": "SET GLOBAL",
    "COMPILED": "default",  # MySQL
    "GLOBAL": "configuration file",
    "SERVER": "configuration file",
    "EXPLICIT": "configuration file",
    "EXTRA": "configuration file",
    "USER": "configuration file",
    "LOGIN": "configuration file",
    "COMMAND_LINE": "command line",
    "PERSISTED": "SET PERSIST",
    "DYNAMIC": "SET GLOBAL",
}


def variable_origins(cursor: Any, flavour: str, names: list[str]) -> dict[str, tuple[str, Any]]:
    """name -> (source, the engine's default value or None) for ``names``; {} when the server
    cannot say (an old release, no access to performance_schema)."""
    listed = ", ".join(f"'{name.upper()}'" for name in names)
    try:
        if flavour == "mysql":
            rows = _rows(
                cursor,
                "SELECT LOWER(VARIABLE_NAME), VARIABLE_SOURCE, NULL"
                f" FROM performance_schema.variables_info WHERE UPPER(VARIABLE_NAME) IN ({listed})",
            )
        else:
            rows = _rows(
                cursor,
                "SELECT LOWER(VARIABLE_NAME), GLOBAL_VALUE_ORIGIN, DEFAULT_VALUE"
                f" FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME IN ({listed})",
            )
    except odbc.pyodbc_module(flavour).Error:
        return {}
    return {
        str(name): (ORIGINS.get(str(origin).upper(), str(origin).lower()), default)
        for name, origin, default in rows
    }


def _rows(cursor: Any, query: str, *params: Any) -> list[Any]:
    cursor.execute(query, *params)
    rows = cursor.fetchall()
    while cursor.nextset():
        pass
    return list(rows)


def read_counters(cursor: Any) -> Snapshot:
    """One reading of the measuring counters on ``cursor``, timed at the read's midpoint."""
    before = time.monotonic()
    (orders,) = _rows(cursor, "SELECT SUM(d_next_o_id) FROM district")[0]
    status = _rows(
        cursor, "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_commit', 'Com_rollback')"
    )
    after = time.monotonic()
    return Snapshot(
        t=(before + after) / 2,
        new_orders=int(orders or 0),
        transactions=sum(int(value) for _name, value in status),
    )


class MyCounterReader(CounterReader):
    """:class:`~bench_gui.agent.counters.CounterReader` on a pyodbc connection."""

    def __init__(self, conninfo: str, flavour: str) -> None:
        self.flavour = flavour
        self.errors = (odbc.pyodbc_module(self.flavour).Error,)
        super().__init__(conninfo)

    def _open(self) -> Any:
        conn = odbc.connect(self.conninfo, self.flavour)
        conn.cursor().execute(_timeout_sql(self.flavour, STATEMENT_TIMEOUT_S))
        return conn

    def _read(self, conn: Any) -> Snapshot:
        return read_counters(conn.cursor())


class MyEngine(OdbcEngine):
    """MariaDB or MySQL (``flavour``) through pyodbc."""

    name = "mariadb"
    flavour = "mariadb"

    def __init__(self, conninfo: str, admin_conninfo: str, database: str) -> None:
        # The ODBC driver is chosen here once (a string with neither DRIVER nor DSN gets this
        # host's Connector/ODBC), so the users' processes connect with the same one.
        self.conninfo = self._with_driver(wire_odbc.with_database(conninfo, database))
        self.admin_conninfo = self._with_driver(wire_odbc.with_database(admin_conninfo, None))
        self.database = database
        self.no_template = f"{self.flavour} keeps no template: steps run on the same data"
        self._info = None

    def _with_driver(self, conninfo: str) -> str:
        params = wire_odbc.parse(conninfo)
        if "DRIVER" in params or "DSN" in params:
            return conninfo
        return wire_odbc.build({"DRIVER": odbc.installed_driver(self.flavour), **params})

    @property
    def worker_main(self) -> Callable[[Any, Any, Any, Any], None]:
        from bench_gui.engines.mariadb.agent.vu import worker_main

        return worker_main

    def _admin(self) -> Any:
        return odbc.connect(self.admin_conninfo, self.flavour, what="server")

    def _db(self) -> Any:
        return odbc.connect(self.conninfo, self.flavour)

    # -- facts -------------------------------------------------------------------------------
    def server_info(self) -> dict[str, Any]:
        """Version, data directory and the settings of :data:`SETTINGS` (those the server
        has), each a record like PostgreSQL's (sizes in bytes)."""
        conn = self._admin()
        try:
            cur = conn.cursor()
            version, comment, datadir = _rows(
                cur, "SELECT VERSION(), @@version_comment, @@datadir"
            )[0]
            names = ", ".join(f"'{name}'" for name, _unit in SETTINGS)
            values = dict(_rows(cur, f"SHOW GLOBAL VARIABLES WHERE Variable_name IN ({names})"))
            origins = variable_origins(cur, self.flavour, [name for name, _unit in SETTINGS])
        finally:
            conn.close()
        settings = {}
        for name, unit in SETTINGS:
            if name not in values:
                continue
            source, default = origins.get(name, (None, None))
            settings[name] = setting_record(
                _text(values[name]),
                unit,
                vartype=_vartype(values[name]),
                source=source,
                boot_val=None if default is None else _text(str(default)),
            )
        digits = str(version).split("-")[0].split(".")
        try:
            number = int(digits[0]) * 10000 + int(digits[1]) * 100 + int(digits[2])
        except (IndexError, ValueError):
            number = 0
        self._info = {
            "server": f"{version} ({comment})" if comment else str(version),
            "server_version_num": number,
            "data_directory": str(datadir) if datadir else None,
            "settings": settings,
        }
        return self._info

    def identity(self) -> ServerIdentity:
        query = "SELECT @@hostname, @@port, @@datadir"
        host, port, datadir = self.on_admin(lambda conn: _rows(conn.cursor(), query)[0])
        return ServerIdentity(
            (f"mysqld|host={host}|port={port}|datadir={datadir}",),
            f"the {self.flavour} server on {host}, port {port}, data in {datadir}",
        )

    def _server_is_local(self) -> bool:
        from bench_gui.agent.hostmetrics import is_local_host

        params = wire_odbc.parse(self.conninfo)
        return is_local_host(params.get("SERVER", params.get("HOST", "localhost")))

    # -- databases ---------------------------------------------------------------------------
    def database_exists(self, name: str | None = None) -> bool:
        query = "SELECT 1 FROM information_schema.schemata WHERE schema_name = ?"
        return bool(self.on_admin(lambda conn: _rows(conn.cursor(), query, name or self.database)))

    def create_database(self) -> None:
        pyodbc = odbc.pyodbc_module(self.flavour)
        conn = self._admin()
        try:
            conn.cursor().execute(f"CREATE DATABASE IF NOT EXISTS `{self.database}`")
        except pyodbc.Error as exc:
            raise EngineError(
                f"the user may not create database {self.database!r}: {wire_odbc.message(exc)}"
            ) from exc
        finally:
            conn.close()

    def drop_database(self, name: str) -> None:
        self.on_admin(lambda conn: conn.cursor().execute(f"DROP DATABASE IF EXISTS `{name}`"))

    # -- the schema --------------------------------------------------------------------------
    def schema_status(self) -> Any:
        from bench_gui.engines.mariadb.agent.schema import schema_status

        return self.on_db(lambda conn: schema_status(conn.cursor()))

    def install_routines(self) -> None:
        """(Re)create both profiles' procedures on a loaded schema (one built before the
        hammerdb profile's existed lacks them)."""
        from bench_gui.engines.mariadb.agent.procedures import create_procedures

        self.on_db(lambda conn: create_procedures(conn.cursor()))

    def build(
        self,
        warehouses: int,
        workers: int,
        progress: Callable[[dict[str, Any]], None],
        stop: threading.Event | None,
    ) -> dict[str, Any]:
        from bench_gui.engines.mariadb.agent.loader import build

        return build(self.conninfo, self.flavour, warehouses, workers, progress, stop)

    def consistency_checks(self) -> list[CheckResult]:
        from bench_gui.engines.mariadb.agent.check import consistency_checks

        return self.on_db(consistency_checks)

    def counter_reader(self) -> CounterReader:
        return MyCounterReader(self.conninfo, self.flavour)

    def _measure_facts(self, *, rows: bool) -> dict[str, Any]:
        """The database's size (data and indexes) and each table's rows: counted exactly
        while the tables counted stay under :data:`EXACT_BUDGET_BYTES`, else InnoDB's
        estimate. Never raises: a problem goes into ``schema_facts_error``."""
        pyodbc = odbc.pyodbc_module(self.flavour)
        out: dict[str, Any] = {}
        try:
            conn = self._db()
            try:
                cur = conn.cursor()
                cur.execute(_timeout_sql(self.flavour, FACTS_TIMEOUT_S))
                tables = _rows(
                    cur,
                    "SELECT LOWER(table_name), data_length + index_length, data_length,"
                    " table_rows FROM information_schema.tables"
                    " WHERE table_schema = DATABASE()",
                )
                out["database_size_bytes"] = int(sum(int(t[1] or 0) for t in tables))
                if rows:
                    counted, methods, spent = {}, {}, 0
                    for name, _size, data, estimate in sorted(tables, key=lambda t: t[2] or 0):
                        if name not in TABLES:
                            continue
                        if spent + int(data or 0) <= EXACT_BUDGET_BYTES:
                            spent += int(data or 0)
                            counted[name] = int(_rows(cur, f"SELECT COUNT(*) FROM {name}")[0][0])
                            methods[name] = "exact"
                        else:
                            counted[name] = int(estimate or 0)
                            methods[name] = "estimate"
                    order = {t: i for i, t in enumerate(TABLES)}
                    out["table_rows"] = dict(sorted(counted.items(), key=lambda kv: order[kv[0]]))
                    out["table_rows_method"] = {t: methods[t] for t in out["table_rows"]}
            finally:
                conn.close()
        except (EngineError, pyodbc.Error) as exc:
            out["schema_facts_error"] = (
                wire_odbc.message(exc) if isinstance(exc, pyodbc.Error) else str(exc)
            )
        return out


class MariaDbEngine(MyEngine):
    name = "mariadb"
    flavour = "mariadb"


class MySqlEngine(MyEngine):
    name = "mysql"
    flavour = "mysql"


__all__ = ["SETTINGS", "MariaDbEngine", "MyCounterReader", "MyEngine", "MySqlEngine"]
