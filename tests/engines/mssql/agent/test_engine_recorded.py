"""Recorded statements: every statement :class:`MssqlEngine` sends, through the T-SQL parser.

No SQL Server runs here. Each test below drives a real engine method on a recording
connection (tests/engines/mssql/agent/recording.py: a test seam that writes down the SQL text and
answers with scripted rows) and then parses every text that was sent. What this proves: the
statements are T-SQL that sqlglot reads (the only syntax check available without a server),
and the engine reads well-formed answers as documented. What it cannot prove: how a server
answers. That is the integration tests' job (test_live_engine.py, BENCH_GUI_TEST_MSSQL).
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from bench_gui.engines.mssql.agent import counters, engine, loader, procedures, schema
from bench_gui.engines.mssql.agent.engine import MssqlEngine
from bench_gui.wire.engine_errors import EngineError
from tests.engines.mssql.agent.recording import Log, RecordingConnection
from tests.engines.mssql.agent.sent_check import CONFIG_ROWS, check_sent, complete_database
from tests.engines.mssql.agent.tsql_check import TsqlError

CONNINFO = "DRIVER={ODBC Driver 18 for SQL Server};SERVER=tcp:db1,1433;UID=sa;Encrypt=yes"


class RecordedEngine(MssqlEngine):
    """The engine with its two connections replaced by recording ones (one shared log)."""

    def __init__(self, log: Log, answer: Any = complete_database) -> None:
        super().__init__(CONNINFO + ";DATABASE=master", CONNINFO + ";DATABASE=master", "tpcc")
        self.log = log
        self.answer = answer
        self.databases: list[str] = []

    def _admin(self) -> Any:
        self.databases.append("admin")
        return RecordingConnection(self.answer, self.log)

    def _db(self) -> Any:
        self.databases.append("db")
        return RecordingConnection(self.answer, self.log)


@pytest.fixture
def log() -> Log:
    return Log()


def _parse_all(log: Log) -> list[str]:
    texts = log.texts()
    assert texts, "nothing was sent"
    for text in texts:
        check_sent(text)
    assert log.opened == log.closed, "a connection was left open"
    return texts


def test_recorded_facts_and_schema_status_statements_parse(log: Log) -> None:
    eng = RecordedEngine(log)
    info = eng.server_info()
    assert info["server"].startswith("Microsoft SQL Server 2017 (RTM-CU31)")
    assert info["server"].endswith("(Developer Edition (64-bit))")
    assert info["server_version_num"] == 14_003_456
    assert info["data_directory"] == "/var/opt/mssql/data/"
    maxdop = info["settings"]["max degree of parallelism"]
    assert (maxdop["value"], maxdop["pending"]) == (0, "1")  # configured, not yet in use
    assert info["settings"]["max server memory (MB)"]["value_unit"] == "B"
    assert info["settings"]["database recovery model"]["value"] == "SIMPLE"
    assert info["settings"]["database target recovery time"]["value"] == 60
    assert len([k for k in info["settings"] if not k.startswith("database ")]) == len(CONFIG_ROWS)
    ident = eng.identity()
    assert ident.keys == ("sqlserver|machine=db1|instance=DB1|data=/var/opt/mssql/data/",)
    status = eng.schema_status()
    assert (status.state, status.warehouses, status.problems) == ("complete", 1, [])
    assert eng.database_exists()
    assert eng.data_paths() == []  # db1 is not this host
    _parse_all(log)


def test_recorded_database_lifecycle_statements_parse(log: Log) -> None:
    eng = RecordedEngine(log)
    eng.create_database()  # the scripted server says it exists: nothing created
    eng.drop_database("tpcc")
    texts = _parse_all(log)
    # Nobody else on it: dropped without ending anyone (no SINGLE_USER ... ROLLBACK IMMEDIATE).
    assert texts[-2:] == [engine.other_sessions_sql("tpcc"), "DROP DATABASE IF EXISTS [tpcc]"]
    assert not any("SINGLE_USER" in t for t in texts)
    assert set(eng.databases) == {"admin"}


def test_recorded_drop_of_a_database_in_use_asks_first(log: Log) -> None:
    """Issue 26: SINGLE_USER WITH ROLLBACK IMMEDIATE ended other sessions without asking."""

    def in_use(sql: str, params: Any) -> Any:
        if sql == engine.other_sessions_sql("tpcc"):
            return [[(53, "app", "app01", "OrderService"), (61, "dba", "ws7", "SSMS")]]
        return complete_database(sql, params)

    eng = RecordedEngine(log, in_use)
    with pytest.raises(EngineError) as refused:
        eng.drop_database("tpcc")
    said = str(refused.value)
    assert "database 'tpcc' is in use by 2 other session(s)" in said
    assert "session 53 (login app from app01, OrderService)" in said
    assert "drop_ends_sessions = true" in said
    assert "nothing was dropped" in said
    assert not any(t.startswith(("ALTER DATABASE", "DROP DATABASE")) for t in log.texts())
    confirmed = RecordedEngine(log, in_use)
    confirmed.ends_sessions = True  # the plan's [workload] drop_ends_sessions = true
    confirmed.drop_database("tpcc")
    assert log.texts()[-2:] == [
        "ALTER DATABASE [tpcc] SET SINGLE_USER WITH ROLLBACK IMMEDIATE",
        "DROP DATABASE IF EXISTS [tpcc]",
    ]
    _parse_all(log)


def test_recorded_missing_database_is_created(log: Log) -> None:
    def empty_server(sql: str, params: Any) -> Any:
        return [[(None,)]] if sql.startswith("SELECT DB_ID(") else complete_database(sql, params)

    eng = RecordedEngine(log, empty_server)
    assert not eng.database_exists()
    eng.create_database()
    eng.drop_database("tpcc")  # absent: nothing dropped
    texts = _parse_all(log)
    assert "CREATE DATABASE [tpcc]" in texts
    assert not any(t.startswith("DROP DATABASE") for t in texts)


def test_recorded_checks_counters_and_facts_statements_parse(log: Log) -> None:
    eng = RecordedEngine(log)
    results = eng.consistency_checks()
    assert [r.ok for r in results] == [True] * 4
    assert all("READ COMMITTED" in r.detail for r in results)  # the script allows no snapshot
    monitor = RecordingConnection(complete_database, log)
    snap = counters.read_counters(monitor)
    monitor.close()
    assert (snap.new_orders, snap.transactions) == (30_010, 123_456)
    said: list[dict[str, Any]] = []
    facts = eng.schema_facts(lambda kind, **data: said.append(data), threading.Event(), "now")
    assert facts["table_rows"]["order_line"] == 300_000
    assert facts["table_rows"]["warehouse"] == 1
    assert set(facts["table_rows_method"].values()) == {"exact"}
    assert facts["database_size_bytes"] == sum(a for _r, _d, a in _sizes()) * 8192
    assert said[0]["level"] == "info"
    stop = threading.Event()
    stop.set()
    after = eng.after_run_facts(lambda kind, **data: None, stop)
    assert set(after) == {"database_size_bytes"}  # stopped on request: the size only
    _parse_all(log)


def _sizes() -> list[tuple[int, int, int]]:
    from tests.engines.mssql.agent.sent_check import SIZES

    return list(SIZES.values())


def test_recorded_big_tables_are_estimated_past_the_budget(log: Log) -> None:
    def big(sql: str, params: Any) -> Any:
        if sql == engine.TABLE_SIZES_SQL:
            return [[("stock", 10_000_000, 400_000, 401_000), ("item", 100_000, 1_000, 1_002)]]
        return complete_database(sql, params)

    conn = RecordingConnection(big, log)
    facts = engine.table_facts(conn.cursor(), rows=True)
    conn.close()
    assert facts["table_rows"] == {"item": 100_000, "stock": 10_000_000}
    assert facts["table_rows_method"] == {"item": "exact", "stock": "estimate"}
    assert engine.COUNT_SQL["stock"] not in log.texts()


def test_recorded_build_statements_parse(log: Log, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real one-warehouse build (every row generated) on recording connections."""
    monkeypatch.setattr(
        loader, "connect", lambda *a, **k: RecordingConnection(complete_database, log)
    )
    eng = RecordedEngine(log)
    progress: list[dict[str, Any]] = []
    stats = eng.build(1, 1, progress.append, None)
    assert stats["status"] == "ok"
    texts = _parse_all(log)
    assert [t for t in texts if t.startswith("CREATE TABLE")] == [
        schema.TABLE_DDL[t] for t in schema.TABLES
    ]
    assert [t for t in texts if t.startswith("CREATE OR ALTER PROCEDURE")] == [
        procedures.create_any_sql(p) for p in procedures.ALL_PROCEDURES
    ]
    rows = {s.sql.split()[2]: 0 for s in log.sent if s.many}
    for sent in log.sent:
        if sent.many:
            rows[sent.sql.split()[2]] += sent.many
    assert rows["dbo.stock"] == 100_000
    assert (rows["dbo.item"], rows["dbo.customer"], rows["dbo.district"]) == (100_000, 30_000, 10)
    assert stats["rows"] == sum(rows.values())
    assert progress[-1]["message"] == "build complete"
    # Issue 26: a warehouse is committed in parts of at most COMMIT_ROWS (+ one batch) rows,
    # the warehouse row in the last: a real server's lock memory and log are not exhausted.
    per_commit: list[int] = []
    start = 0
    for point in log.commit_points:
        per_commit.append(sum(s.many for s in log.sent[start:point]))
        start = point
    assert per_commit[0] == 100_000  # the items, in one transaction as before
    warehouse = per_commit[1:]
    assert len(warehouse) >= rows["dbo.order_line"] // loader.COMMIT_ROWS
    assert max(warehouse) < loader.COMMIT_ROWS + loader.BATCH_ROWS
    assert sum(warehouse) == stats["rows"] - 100_000
    last = [s.sql for s in log.sent[: log.commit_points[-1]] if s.many][-1]
    assert last.startswith("INSERT INTO dbo.warehouse")


def test_recorded_build_failure_is_an_engine_error(
    log: Log, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pyodbc

    def refuses(sql: str, params: Any) -> Any:
        if sql.startswith("CREATE TABLE dbo.warehouse"):
            raise pyodbc.ProgrammingError("42S01", "There is already an object named 'warehouse'")
        return complete_database(sql, params)

    monkeypatch.setattr(loader, "connect", lambda *a, **k: RecordingConnection(refuses, log))
    with pytest.raises(EngineError, match="the build failed: There is already an object"):
        RecordedEngine(log).build(1, 1, lambda _p: None, None)


def test_a_statement_the_parser_rejects_fails_the_recorded_check() -> None:
    """The recorded check can fail: a broken statement, a broken call escape."""
    with pytest.raises(TsqlError):
        check_sent("SELECT COUNT(*) FRO dbo.warehouse")
    with pytest.raises(TsqlError, match="one marker per parameter"):
        check_sent("{CALL dbo.slev (?, ?)}")
    with pytest.raises(TsqlError, match="unknown procedure"):
        check_sent("{CALL dbo.newrod (?)}")
    with pytest.raises(TsqlError):
        check_sent(procedures.create_sql("slev").replace("COMMIT TRANSACTION;", "COMMIT TRAN"))


def test_the_engines_own_statements_all_parse() -> None:
    for text in engine.all_statements("tpcc"):
        check_sent(text)
