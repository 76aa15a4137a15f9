"""The test schema measured on a real TPROC-C database (issue 14, seed 000's Table 8): exact
counts within the budget, ANALYZE estimates past it, each table saying which; the size; a stop
or a silent server recorded as a problem, never raised; the fields the event check keeps."""

from __future__ import annotations

import threading
from typing import Any

import psycopg
import pytest

from bench_gui.core.events import check_event
from bench_gui.engines.postgresql.agent import schema_facts
from bench_gui.engines.postgresql.agent.schema_facts import SchemaFacts, measure, record
from bench_gui.wire.engine_errors import EngineError
from bench_gui.wire.protocol import Event
from bench_gui.wire.tpcc_tables import ITEMS, ROWS_PER_WAREHOUSE, TABLES
from tests._fixtures.pg import PgServer, TpccBuild
from tests._fixtures.wait import wait_until

from .conftest import WAREHOUSES

pytestmark = pytest.mark.integration


def counted(conn: psycopg.Connection) -> dict[str, int]:
    out = {}
    for table in TABLES:
        row = conn.execute(f"SELECT count(*) FROM {table}").fetchone()
        assert row is not None
        out[table] = int(row[0])
    return out


def heap_bytes(conn: psycopg.Connection) -> dict[str, int]:
    rows = conn.execute(
        "SELECT relname, pg_relation_size(oid) FROM pg_class WHERE relname = ANY(%s)"
        " AND relkind = 'r'",
        (list(TABLES),),
    ).fetchall()
    return {name: int(size) for name, size in rows}


def test_a_small_database_is_counted_exactly(build_conn: psycopg.Connection) -> None:
    facts = measure(build_conn)
    assert list(facts.table_rows) == list(TABLES)  # in the schema's order
    assert facts.methods == dict.fromkeys(TABLES, "exact")
    assert facts.table_rows == counted(build_conn)
    # The build's fixed counts, as a check independent of count(*).
    for table, per_warehouse in ROWS_PER_WAREHOUSE.items():
        if table != "order_line":  # 5 to 15 lines per order
            assert facts.table_rows[table] == per_warehouse * WAREHOUSES, table
    assert facts.table_rows["item"] == ITEMS
    size = build_conn.execute("SELECT pg_database_size(current_database())").fetchone()
    assert size is not None
    assert facts.database_size_bytes == size[0]
    assert facts.database_size_bytes > sum(heap_bytes(build_conn).values())
    assert facts.problems == []
    fields = facts.fields()
    assert fields == {
        "database_size_bytes": size[0],
        "table_rows": facts.table_rows,
        "table_rows_method": facts.methods,
    }


def test_tables_past_the_budget_get_estimates_after_analyze(work_conn: psycopg.Connection) -> None:
    heaps = heap_bytes(work_conn)
    by_size = sorted(heaps, key=lambda t: (heaps[t], t))
    big = by_size[-2:]  # stock and order_line
    budget = sum(heaps[t] for t in by_size[:-2])
    facts = measure(work_conn, exact_budget_bytes=budget)
    exact = counted(work_conn)
    assert {t for t, m in facts.methods.items() if m == "estimate"} == set(big)
    for table in by_size[:-2]:
        assert facts.methods[table] == "exact"
        assert facts.table_rows[table] == exact[table]
    for table in big:
        # ANALYZE of a table this small reads every page: its estimate is within 1%.
        assert facts.table_rows[table] == pytest.approx(exact[table], rel=0.01)
    everything = measure(work_conn, exact_budget_bytes=0)
    assert everything.methods == dict.fromkeys(TABLES, "estimate")
    assert everything.fields()["table_rows_method"] == dict.fromkeys(TABLES, "estimate")


def test_size_only(build_conn: psycopg.Connection) -> None:
    facts = measure(build_conn, rows=False)
    assert facts.database_size_bytes
    assert facts.database_size_bytes > 0
    assert facts.table_rows == {}
    assert set(facts.fields()) == {"database_size_bytes"}


def test_a_missing_table_is_named_and_the_rest_counted(work_conn: psycopg.Connection) -> None:
    work_conn.execute("ALTER TABLE history RENAME TO history_away")
    try:
        facts = measure(work_conn)
    finally:
        work_conn.execute("ALTER TABLE history_away RENAME TO history")
    assert "history" not in facts.table_rows
    assert set(facts.table_rows) == set(TABLES) - {"history"}
    assert facts.fields()["schema_facts_error"] == "tables missing: history"


def test_a_database_without_the_schema(pg_server: PgServer) -> None:
    pg_server.psql("DROP DATABASE IF EXISTS facts_empty; CREATE DATABASE facts_empty;")
    try:
        with (
            psycopg.connect(pg_server.uri("facts_empty"), autocommit=True) as conn,
            pytest.raises(EngineError, match="no TPROC-C tables"),
        ):
            measure(conn)
        facts = record(pg_server.uri("facts_empty"))
        assert facts.fields() == {
            "schema_facts_error": "no TPROC-C tables in the database: nothing to count"
        }
    finally:
        pg_server.drop("facts_empty")


def test_bad_arguments_are_named(build_conn: psycopg.Connection, tpcc_build: TpccBuild) -> None:
    with pytest.raises(ValueError, match="exact_budget_bytes must be 0 or more, got -1"):
        measure(build_conn, exact_budget_bytes=-1)
    with pytest.raises(ValueError, match="limit_s must be more than 0, got 0"):
        record(tpcc_build.uri, limit_s=0)


def test_record_on_its_own_connection(tpcc_build: TpccBuild) -> None:
    facts = record(tpcc_build.uri)
    with psycopg.connect(tpcc_build.uri) as conn:
        assert facts.table_rows == counted(conn)
    assert facts.problems == []
    assert facts.seconds > 0
    text = facts.describe("before step 1")
    assert text.startswith("schema before step 1: database ")
    assert "9 tables counted exactly" in text


def test_an_unreachable_server_is_a_problem_not_an_exception(pg_server: PgServer) -> None:
    facts = record(pg_server.uri("no_such_database_here"))
    assert facts.table_rows == {}
    assert facts.database_size_bytes is None
    assert len(facts.problems) == 1
    assert "no_such_database_here" in facts.problems[0]


def _waiting_on_a_lock(uri: str) -> bool:
    with psycopg.connect(uri, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock'"
        ).fetchone()
    return bool(row and row[0])


def _measure_behind_a_lock(uri: str, **kwargs: Any) -> SchemaFacts:
    """record() while another session holds two of the tables locked; its result."""
    result: list[SchemaFacts] = []
    with psycopg.connect(uri) as holder:
        holder.execute("LOCK TABLE warehouse, district IN ACCESS EXCLUSIVE MODE")
        thread = threading.Thread(target=lambda: result.append(record(uri, **kwargs)))
        thread.start()
        try:
            stop = kwargs.get("stop")
            if stop is not None:
                wait_until(lambda: _waiting_on_a_lock(uri), what="the measurement to wait")
                stop.set()
            thread.join(30)
        finally:
            holder.rollback()
            thread.join(30)
    assert not thread.is_alive()
    return result[0]


def test_a_stop_cancels_the_measurement(work_uri: str) -> None:
    facts = _measure_behind_a_lock(work_uri, stop=threading.Event())
    assert facts.fields() == {"schema_facts_error": "stopped before the schema was measured"}


def test_a_server_that_takes_too_long_is_given_up(work_uri: str) -> None:
    facts = _measure_behind_a_lock(work_uri, limit_s=1.0)
    assert facts.table_rows == {}
    assert len(facts.problems) == 1
    assert (
        "statement timeout" in facts.problems[0]
        or "did not finish measuring the schema in 1 s" in facts.problems[0]
    )


def test_step_fields_says_it_in_the_log(tpcc_build: TpccBuild) -> None:
    said: list[tuple[str, dict[str, Any]]] = []
    fields = schema_facts.step_fields(
        tpcc_build.uri, lambda kind, **data: said.append((kind, data)), None, "before step 1"
    )
    assert set(fields) == {"database_size_bytes", "table_rows", "table_rows_method"}
    assert [(kind, data["level"]) for kind, data in said] == [("log", "info")]
    assert said[0][1]["message"].startswith("schema before step 1:")
    stopped = threading.Event()
    stopped.set()
    said.clear()
    after = schema_facts.after_run_fields(
        tpcc_build.uri, lambda kind, **data: said.append((kind, data)), stopped
    )
    assert set(after) == {"database_size_bytes"}  # stopped: the size only


def _checked_summary(summary: dict[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    event = Event("step", 7, 1.0, {"phase": "end", "step": 0, "vus": 1, "summary": summary})
    checked = check_event(event)
    return checked.event.data["summary"], checked.dropped


def test_the_event_check_keeps_good_facts_and_drops_bad_ones() -> None:
    good = {
        "database_size_bytes": 123_456_789,
        "table_rows": {"warehouse": 1, "order_line": 300_123},
        "table_rows_method": {"warehouse": "exact", "order_line": "estimate"},
    }
    kept, dropped = _checked_summary({**good, "after_run": dict(good)})
    assert dropped == ()
    assert kept["table_rows"] == good["table_rows"]
    assert kept["after_run"] == good
    bad = {
        "database_size_bytes": -5,
        "table_rows": {"warehouse": 1.5, "stock": 100_000},
        "table_rows_method": {"warehouse": "guess", "stock": "exact"},
        "schema_facts_error": 3,
    }
    kept, dropped = _checked_summary({**bad, "after_run": {"table_rows": {"item": -1}}})
    assert kept["table_rows"] == {"stock": 100_000}
    assert kept["table_rows_method"] == {"stock": "exact"}
    assert "database_size_bytes" not in kept
    assert "schema_facts_error" not in kept
    assert kept["after_run"] == {"table_rows": {}}
    assert len(dropped) == 5
    assert any("table_rows_method.warehouse: 'guess' is not one of exact" in d for d in dropped)
