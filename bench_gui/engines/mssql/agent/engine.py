"""The agent's SQL Server engine: the parts of :mod:`bench_gui.engines.mssql.agent` behind the
engine
interface (:class:`bench_gui.agent.engines.AgentEngine`).

- connection: pyodbc with Microsoft's ODBC Driver 18 (or 17) or FreeTDS. The desktop plugin
  either names the driver (a finished string) or leaves it to this host: then the string is
  neutral (``SERVER``, ``PORT``, ``UID``, ``Encrypt``, ``TrustServerCertificate``...) and is
  built here for the first SQL Server driver installed (:func:`resolve_conninfo`), once, so
  the users' processes connect with the same one. The password never is in it
  (:mod:`.connection`);
- schema, procedures and load: :mod:`.schema`, :mod:`.procedures`, :mod:`.loader`;
- the users: :mod:`.vu` (HammerDB's mix against the procedures);
- TPM from ``Batch Requests/sec``, NOPM from district: :mod:`.counters`;
- consistency conditions 1-4: :mod:`.checks`; the settings snapshot: ``sys.configurations``
  and the database's options (:mod:`.settings`);
- no template: SQL Server has no cheap copy of a database that this project could check
  (database snapshots and RESTORE are outside what the T-SQL parser in the tests can verify
  and no server runs here), so ``reset_between_steps`` runs every step on the same data and
  the sweep says so, as on MariaDB.

Verified against a live server: **no**. Every statement here is parsed by sqlglot's T-SQL
dialect in ``tests/engines/mssql/agent``; the integration tests run when ``BENCH_GUI_TEST_MSSQL``
names a server.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from bench_gui.agent.counters import CounterReader
from bench_gui.agent.engines import CheckResult, ServerIdentity
from bench_gui.agent.odbc_engine import OdbcEngine
from bench_gui.engines.mssql.agent import procedures, schema
from bench_gui.engines.mssql.shared.connect import (
    FREETDS_DRIVER,
    MS_DRIVER,
    connect,
    installed_driver,
    resolve_conninfo,
)
from bench_gui.engines.mssql.shared.names import quote_name
from bench_gui.engines.mssql.shared.settings import CONFIGURATIONS_SQL
from bench_gui.wire.engine_errors import EngineError
from bench_gui.wire.odbc import parse
from bench_gui.wire.setting_units import setting_record
from bench_gui.wire.tpcc_tables import ITEMS, ROWS_PER_WAREHOUSE, TABLES

# A facts query the server cannot answer in this time is cancelled by the driver.
FACTS_TIMEOUT_S: Final = 600
# Tables counted exactly while the sum of their sizes stays under this (else the metadata).
EXACT_BUDGET_BYTES: Final = 2 * 1024**3
PAGE_BYTES: Final = 8192

SERVER_SQL: Final = (
    "SELECT CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(128)),"
    " CAST(SERVERPROPERTY('Edition') AS nvarchar(128)), @@VERSION,"
    " CAST(SERVERPROPERTY('InstanceDefaultDataPath') AS nvarchar(4000))"
)
IDENTITY_SQL: Final = (
    "SELECT CAST(SERVERPROPERTY('MachineName') AS nvarchar(128)), @@SERVERNAME,"
    " CAST(SERVERPROPERTY('InstanceDefaultDataPath') AS nvarchar(4000))"
)
DATABASE_OPTIONS_SQL: Final = (
    "SELECT recovery_model_desc, target_recovery_time_in_seconds,"
    " snapshot_isolation_state_desc, CAST(is_read_committed_snapshot_on AS int)"
    " FROM sys.databases WHERE name = ?"
)
PROCEDURES_PRESENT_SQL: Final = (
    "SELECT p.name FROM sys.procedures AS p WHERE p.schema_id = SCHEMA_ID(N'dbo')"
    " AND p.name IN (" + ", ".join(f"N'{name}'" for name in procedures.ALL_PROCEDURES) + ")"
)
INDEXES_PRESENT_SQL: Final = (
    "SELECT i.name FROM sys.indexes AS i JOIN sys.tables AS t ON t.object_id = i.object_id"
    " WHERE t.schema_id = SCHEMA_ID(N'dbo') AND i.name IS NOT NULL"
)
WAREHOUSE_RANGE_SQL: Final = "SELECT COUNT(*), MIN(w_id), MAX(w_id) FROM dbo.warehouse"
DISTRICT_COUNT_SQL: Final = "SELECT COUNT(*) FROM dbo.district"
ITEM_COUNT_SQL: Final = "SELECT COUNT(*) FROM dbo.item"
# The highest warehouse of each big table: a warehouse's rows commit with its warehouse row.
HIGHEST_WAREHOUSE_SQL: Final[dict[str, str]] = {
    "stock": "SELECT MAX(s_w_id) FROM dbo.stock",
    "customer": "SELECT MAX(c_w_id) FROM dbo.customer",
    "orders": "SELECT MAX(o_w_id) FROM dbo.orders",
}
STOCK_OF_WAREHOUSE_SQL: Final = "SELECT COUNT(*) FROM dbo.stock WHERE s_w_id = ?"
# Per table of ours: rows as the metadata keeps them, and the pages in use (data + indexes).
TABLE_SIZES_SQL: Final = (
    "SELECT t.name, SUM(CASE WHEN p.index_id IN (0, 1) THEN p.row_count ELSE 0 END),"
    " SUM(CASE WHEN p.index_id IN (0, 1) THEN p.used_page_count ELSE 0 END),"
    " SUM(p.used_page_count) FROM sys.dm_db_partition_stats AS p"
    " JOIN sys.tables AS t ON t.object_id = p.object_id"
    " WHERE t.schema_id = SCHEMA_ID(N'dbo') GROUP BY t.name"
)
COUNT_SQL: Final[dict[str, str]] = {
    table: f"SELECT COUNT_BIG(*) FROM dbo.{table}" for table in TABLES
}


def drop_database_sql(name: str) -> tuple[str, str, str]:
    """(exists query, take every session off it, DROP DATABASE): the second rolls back
    whatever another session was doing there, so it runs only when confirmed (see
    :meth:`MssqlEngine.drop_database`)."""
    exists_sql, _create = schema.database_sql(name)
    quoted = quote_name(name)
    return (
        exists_sql,
        f"ALTER DATABASE {quoted} SET SINGLE_USER WITH ROLLBACK IMMEDIATE",
        f"DROP DATABASE IF EXISTS {quoted}",
    )


def other_sessions_sql(name: str) -> str:
    """The sessions other than this one on database ``name``: id, login, host, program."""
    literal = name.replace("'", "''")
    return (
        "SELECT session_id, login_name, host_name, program_name FROM sys.dm_exec_sessions"
        f" WHERE database_id = DB_ID(N'{literal}') AND session_id <> @@SPID"
        " ORDER BY session_id"
    )


def sessions_text(rows: list[Any], limit: int = 5) -> str:
    """Other sessions as a reader names them: ``session 53 (login sa from app01, SSMS)``."""
    said = []
    for sid, login, host, program in rows[:limit]:
        where = f" from {host}" if host else ""
        what = f", {str(program).strip()}" if program and str(program).strip() else ""
        said.append(f"session {sid} (login {login}{where}{what})")
    more = f" and {len(rows) - limit} more" if len(rows) > limit else ""
    return ", ".join(said) + more


def all_statements(database: str = "tpcc") -> list[str]:
    """Every statement of this module's own (for the syntax tests; the modules it composes
    have theirs)."""
    return [
        SERVER_SQL,
        IDENTITY_SQL,
        DATABASE_OPTIONS_SQL,
        PROCEDURES_PRESENT_SQL,
        INDEXES_PRESENT_SQL,
        WAREHOUSE_RANGE_SQL,
        DISTRICT_COUNT_SQL,
        ITEM_COUNT_SQL,
        *HIGHEST_WAREHOUSE_SQL.values(),
        STOCK_OF_WAREHOUSE_SQL,
        TABLE_SIZES_SQL,
        *COUNT_SQL.values(),
        *drop_database_sql(database),
        other_sessions_sql(database),
    ]


def _one(cursor: Any, sql: str, *params: Any) -> Any:
    cursor.execute(sql, *params)
    row = cursor.fetchone()
    while cursor.nextset():
        pass
    return row


def _all(cursor: Any, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    cursor.execute(sql, *params)
    rows = [tuple(r) for r in cursor.fetchall()]
    while cursor.nextset():
        pass
    return rows


def _message(exc: BaseException) -> str:
    args: tuple[Any, ...] = tuple(getattr(exc, "args", ()))
    text = (str(args[1]) if len(args) > 1 else str(exc)).strip()
    while text.startswith("[") and "]" in text:
        text = text[text.find("]") + 1 :].strip()
    return text or type(exc).__name__


def version_number(version: str) -> int:
    """``14.0.3456.2`` -> 14_003_456 (major x 1,000,000 + minor x 100,000 + build): ordered as
    the versions are; 0 when the text is not a version."""
    parts = version.split(".")
    try:
        return int(parts[0]) * 1_000_000 + int(parts[1]) * 100_000 + int(parts[2])
    except (IndexError, ValueError):
        return 0


def configuration_records(rows: list[tuple[Any, ...]]) -> dict[str, dict[str, Any]]:
    """sys.configurations rows (:data:`CONFIGURATIONS_SQL`) as setting records: the value in
    use, the configured one beside it when RECONFIGURE has not run yet; memory in bytes."""
    out: dict[str, dict[str, Any]] = {}
    for name, value, in_use, _low, _high, dynamic, advanced in rows:
        unit = (
            "MB" if str(name).endswith("(MB)") else ("kB" if str(name).endswith("(KB)") else None)
        )
        record = setting_record(
            str(int(in_use)), unit, vartype="integer", source="sys.configurations"
        )
        if int(value) != int(in_use):
            record["pending"] = str(int(value))
        record["dynamic"] = bool(dynamic)
        record["advanced"] = bool(advanced)
        out[str(name)] = record
    return out


def database_records(row: tuple[Any, ...] | None) -> dict[str, dict[str, Any]]:
    """The benchmark database's options (:data:`DATABASE_OPTIONS_SQL`) as setting records."""
    if row is None:
        return {}
    recovery, target_s, snapshot, rcsi = row
    return {
        "database recovery model": setting_record(str(recovery), None, source="database"),
        "database target recovery time": setting_record(
            str(int(target_s or 0)), "s", source="database"
        ),
        "database snapshot isolation": setting_record(str(snapshot), None, source="database"),
        "database read committed snapshot": setting_record(
            "on" if rcsi else "off", None, vartype="bool", source="database"
        ),
    }


@dataclass
class SchemaStatus:
    """What a database holds of the TPROC-C schema: ``missing``, ``partial`` (see
    ``problems``) or ``complete``."""

    state: str
    warehouses: int = 0
    problems: list[str] = field(default_factory=list)


def schema_status(cursor: Any) -> SchemaStatus:
    """Inspect the schema cheaply: the catalog, small counts and clustered-key probes."""
    present = {str(r[0]) for r in _all(cursor, schema.TABLES_PRESENT_SQL)}
    routines = {str(r[0]).lower() for r in _all(cursor, PROCEDURES_PRESENT_SQL)}
    if not present and not routines:
        return SchemaStatus("missing", 0, ["no TPROC-C tables"])
    problems: list[str] = []
    missing = [t for t in TABLES if t not in present]
    if missing:
        problems.append("missing tables: " + ", ".join(missing))
    indexes = {str(r[0]).lower() for r in _all(cursor, INDEXES_PRESENT_SQL)}
    lost = [index.name for index in schema.INDEXES if index.name not in indexes]
    if lost:
        problems.append("missing indexes: " + ", ".join(lost))
    lost = [name for name in procedures.ALL_PROCEDURES if name not in routines]
    if lost:
        problems.append("missing procedures: " + ", ".join(lost))
    warehouses = 0
    if "warehouse" in present:
        count, low, high = _one(cursor, WAREHOUSE_RANGE_SQL)
        warehouses = int(count)
        if warehouses == 0:
            problems.append("table warehouse is empty")
        elif (low, high) != (1, warehouses):
            problems.append(
                f"warehouse ids run from {low} to {high} for {warehouses} warehouses,"
                f" expected 1 to {warehouses}"
            )
    if warehouses:
        problems += _count_problems(cursor, present, warehouses)
    return SchemaStatus("partial" if problems else "complete", warehouses, problems)


def _count_problems(cursor: Any, present: set[str], w: int) -> list[str]:
    problems: list[str] = []
    if "district" in present:
        (n,) = _one(cursor, DISTRICT_COUNT_SQL)
        if n != 10 * w:
            problems.append(f"table district has {n} rows for {w} warehouses, expected {10 * w}")
    if "item" in present:
        (n,) = _one(cursor, ITEM_COUNT_SQL)
        if n != ITEMS:
            problems.append(f"table item has {n} rows, expected {ITEMS}")
    for table, sql in HIGHEST_WAREHOUSE_SQL.items():
        if table in present:
            (high,) = _one(cursor, sql)
            if high != w:
                problems.append(f"table {table} holds warehouses up to {high}, expected {w}")
    if "stock" in present:
        (n,) = _one(cursor, STOCK_OF_WAREHOUSE_SQL, w)
        if n != ROWS_PER_WAREHOUSE["stock"]:
            problems.append(f"warehouse {w} has {n} stock rows, expected 100000")
    return problems


class MssqlEngine(OdbcEngine):
    """SQL Server through pyodbc (Microsoft's ODBC Driver 18/17 or FreeTDS)."""

    name = "mssql"
    no_template = "SQL Server keeps no template here: steps run on the same data"
    # Whether drop_database may end other sessions on the database (confirmed by the plan).
    ends_sessions = False

    def __init__(self, conninfo: str, admin_conninfo: str, database: str) -> None:
        try:
            quote_name(database)
        except ValueError as exc:
            raise EngineError(f"database: {exc}") from exc
        self.database = database
        driver = None
        if "DRIVER" not in parse(conninfo) and "DSN" not in parse(conninfo):
            driver = installed_driver()
        self.conninfo = resolve_conninfo(conninfo, database, driver)
        self.admin_conninfo = resolve_conninfo(admin_conninfo, None, driver)
        self._info = None

    @property
    def worker_main(self) -> Callable[[Any, Any, Any, Any], None]:
        from bench_gui.engines.mssql.agent.vu import worker_main

        return worker_main

    def _admin(self) -> Any:
        return connect(self.admin_conninfo)

    def _db(self) -> Any:
        return connect(self.conninfo)

    # -- facts -------------------------------------------------------------------------------
    def server_info(self) -> dict[str, Any]:
        """Version, the default data directory and the settings snapshot: every row of
        sys.configurations and the benchmark database's options (when it exists)."""
        conn = self._admin()
        try:
            cur = conn.cursor()
            version, edition, banner, data_path = _one(cur, SERVER_SQL)
            settings = configuration_records(_all(cur, CONFIGURATIONS_SQL))
            settings.update(database_records(_one(cur, DATABASE_OPTIONS_SQL, self.database)))
        finally:
            conn.close()
        first = str(banner or "").splitlines()[0].strip() if banner else ""
        self._info = {
            "server": f"{first or 'SQL Server ' + str(version)} ({edition})",
            "server_version_num": version_number(str(version or "")),
            "data_directory": str(data_path) if data_path else None,
            "settings": settings,
        }
        return self._info

    def identity(self) -> ServerIdentity:
        machine, instance, data_path = self.on_admin(lambda c: _one(c.cursor(), IDENTITY_SQL))
        return ServerIdentity(
            (f"sqlserver|machine={machine}|instance={instance}|data={data_path}",),
            f"the SQL Server instance {instance} on {machine}, data in {data_path}",
        )

    def _server_is_local(self) -> bool:
        from bench_gui.agent.hostmetrics import is_local_host

        server = parse(self.conninfo).get("SERVER", "")
        host = server.removeprefix("tcp:").split(",")[0].split("\\")[0]
        return bool(host) and is_local_host(host)

    # -- databases ---------------------------------------------------------------------------
    def database_exists(self, name: str | None = None) -> bool:
        exists_sql, _create = schema.database_sql(name or self.database)
        row = self.on_admin(lambda conn: _one(conn.cursor(), exists_sql))
        return row is not None and row[0] is not None

    def create_database(self) -> None:
        import pyodbc

        from bench_gui.engines.mssql.agent.loader import ensure_database

        conn = self._admin()
        try:
            ensure_database(conn, self.database)
        except pyodbc.Error as exc:
            raise EngineError(
                f"the login may not create database {self.database!r}: {_message(exc)}"
            ) from exc
        finally:
            conn.close()

    def drop_database(self, name: str) -> None:
        """Drop ``name`` if it exists. Other sessions on it are ended (SINGLE_USER WITH
        ROLLBACK IMMEDIATE: their open work rolled back) only when :attr:`ends_sessions`
        confirms it (the plan's ``drop_ends_sessions``); otherwise the drop is refused,
        naming them, and nothing changes."""
        import pyodbc

        exists_sql, single, drop = drop_database_sql(name)
        conn = self._admin()
        try:
            cur = conn.cursor()
            row = _one(cur, exists_sql)
            if row is None or row[0] is None:
                return
            cur.execute(other_sessions_sql(name))
            others = [tuple(r) for r in cur.fetchall()]
            if others and not self.ends_sessions:
                raise EngineError(
                    f"database {name!r} is in use by {len(others)} other session(s):"
                    f" {sessions_text(others)}. Dropping it would end them and roll back their"
                    " work: close them, or confirm with [workload] drop_ends_sessions = true;"
                    " nothing was dropped"
                )
            if others:
                cur.execute(single)
            cur.execute(drop)
        except pyodbc.Error as exc:
            raise EngineError(f"cannot drop database {name!r}: {_message(exc)}") from exc
        finally:
            conn.close()

    # -- the schema --------------------------------------------------------------------------
    def schema_status(self) -> SchemaStatus:
        return self.on_db(lambda conn: schema_status(conn.cursor()))

    def install_routines(self) -> None:
        """(Re)create both profiles' procedures on a loaded schema (one built before the
        hammerdb profile's existed lacks them)."""

        def create(conn: Any) -> None:
            cursor = conn.cursor()
            for name in procedures.ALL_PROCEDURES:
                cursor.execute(procedures.create_any_sql(name))

        self.on_db(create)

    def build(
        self,
        warehouses: int,
        workers: int,
        progress: Callable[[dict[str, Any]], None],
        stop: threading.Event | None,
    ) -> dict[str, Any]:
        """Tables, rows, indexes, procedures, statistics (:func:`.loader.build`)."""
        import pyodbc

        from bench_gui.engines.mssql.agent.loader import BuildError, build

        try:
            return build(self.conninfo, warehouses, workers, progress, stop)
        except BuildError as exc:
            raise EngineError(str(exc)) from exc
        except pyodbc.Error as exc:
            raise EngineError(f"the build failed: {_message(exc)}") from exc

    def consistency_checks(self) -> list[CheckResult]:
        from bench_gui.engines.mssql.agent.checks import consistency_checks

        return self.on_db(consistency_checks)

    def counter_reader(self) -> CounterReader:
        from bench_gui.engines.mssql.agent.counters import MssqlCounterReader

        return MssqlCounterReader(self.conninfo)

    def _measure_facts(self, *, rows: bool) -> dict[str, Any]:
        """The database's size (pages in use) and each table's rows: counted exactly while
        the tables counted stay under :data:`EXACT_BUDGET_BYTES`, else the row count the
        metadata keeps. Never raises: a problem goes into ``schema_facts_error``."""
        out: dict[str, Any] = {}
        try:
            import pyodbc

            try:
                conn = self._db()
                try:
                    conn.timeout = FACTS_TIMEOUT_S
                    out.update(table_facts(conn.cursor(), rows=rows))
                finally:
                    conn.close()
            except pyodbc.Error as exc:
                out["schema_facts_error"] = _message(exc)
        except (EngineError, ImportError) as exc:
            out["schema_facts_error"] = str(exc)
        return out


def table_facts(cursor: Any, *, rows: bool) -> dict[str, Any]:
    """``database_size_bytes`` and (``rows``) ``table_rows`` with ``table_rows_method``."""
    sizes = _all(cursor, TABLE_SIZES_SQL)
    out: dict[str, Any] = {
        "database_size_bytes": int(sum(int(r[3] or 0) for r in sizes)) * PAGE_BYTES
    }
    if not rows:
        return out
    counted: dict[str, int] = {}
    methods: dict[str, str] = {}
    spent = 0
    for name, estimate, data_pages, _pages in sorted(sizes, key=lambda r: int(r[2] or 0)):
        table = str(name).lower()
        if table not in COUNT_SQL:
            continue
        data = int(data_pages or 0) * PAGE_BYTES
        if spent + data <= EXACT_BUDGET_BYTES:
            spent += data
            counted[table] = int(_one(cursor, COUNT_SQL[table])[0])
            methods[table] = "exact"
        else:
            counted[table] = int(estimate or 0)
            methods[table] = "estimate"
    order = {t: i for i, t in enumerate(TABLES)}
    out["table_rows"] = dict(sorted(counted.items(), key=lambda kv: order[kv[0]]))
    out["table_rows_method"] = {t: methods[t] for t in out["table_rows"]}
    return out


__all__ = [
    "MS_DRIVER",
    "FREETDS_DRIVER",
    "MssqlEngine",
    "SchemaStatus",
    "all_statements",
    "schema_status",
    "table_facts",
]
