"""Schema creation, status detection (missing / partial / complete) and removal."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from bench_gui.engines.postgresql.agent import loader, schema


@pytest.fixture
def empty_uri(tpcc_build: Any) -> str:
    name = "tpcc_agent_empty"
    with psycopg.connect(tpcc_build.admin_uri, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    return tpcc_build.uri_for(name)


def test_empty_database_is_missing(empty_uri: str) -> None:
    with psycopg.connect(empty_uri, autocommit=True) as conn:
        status = schema.schema_status(conn)
    assert (status.state, status.warehouses) == ("missing", 0)
    assert not status.complete


def test_tables_without_data_indexes_or_routines_are_partial(empty_uri: str) -> None:
    with psycopg.connect(empty_uri, autocommit=True) as conn:
        schema.create_tables(conn)
        status = schema.schema_status(conn)
        assert status.state == "partial"
        text = "\n".join(status.problems)
        assert "missing indexes: order_line_pkey, stock_pkey" in text
        assert "customer_i2" in text
        assert "orders_i2" in text
        assert "missing routines: neword(integer" in text
        assert "table warehouse is empty" in text

        schema.create_routines(conn)
        schema.create_indexes(empty_uri, 2)
        status = schema.schema_status(conn)
        assert status.problems == ["table warehouse is empty"]

        schema.drop_schema(conn)
        assert schema.schema_status(conn).state == "missing"


def test_items_only_is_partial(empty_uri: str) -> None:
    """What a loader that died right after the items leaves behind."""
    with psycopg.connect(empty_uri, autocommit=True) as conn:
        schema.create_tables(conn)
        loader.load_items(empty_uri)
        status = schema.schema_status(conn)
    assert status.state == "partial"
    assert "table warehouse is empty" in status.problems


def test_one_table_missing_is_partial(empty_uri: str) -> None:
    with psycopg.connect(empty_uri, autocommit=True) as conn:
        schema.create_tables(conn)
        conn.execute("DROP TABLE history")
        status = schema.schema_status(conn)
    assert status.state == "partial"
    assert "missing tables: history" in status.problems


def test_damaged_build_is_partial(work_conn: psycopg.Connection) -> None:
    assert schema.schema_status(work_conn).state == "complete"
    work_conn.execute("DELETE FROM stock WHERE s_w_id = 2 AND s_i_id > 50000")
    work_conn.execute("VACUUM ANALYZE stock")
    status = schema.schema_status(work_conn)
    assert status.state == "partial"
    assert status.warehouses == 2
    assert any(p.startswith("table stock has about") for p in status.problems), status.problems

    work_conn.execute("DELETE FROM stock WHERE s_w_id = 2")
    status = schema.schema_status(work_conn)
    assert "table stock holds warehouses up to 1, expected 2" in status.problems

    work_conn.execute("DROP FUNCTION slev")
    work_conn.execute("DELETE FROM district WHERE d_w_id = 2 AND d_id = 10")
    status = schema.schema_status(work_conn)
    assert "missing routines: slev(integer, integer, integer)" in status.problems
    assert "table district has 19 rows for 2 warehouses, expected 20" in status.problems


def test_create_routines_is_repeatable(work_conn: psycopg.Connection) -> None:
    schema.create_routines(work_conn)
    schema.create_routines(work_conn)
    signatures = {
        row[0]
        for row in work_conn.execute(
            "SELECT p.oid::regprocedure::text FROM pg_proc p"
            " WHERE p.proname = ANY(%s) AND pg_function_is_visible(p.oid)",
            (list(schema.ROUTINES),),
        )
    }
    expected = {
        row[0]
        for s in schema.ROUTINE_SIGNATURES.values()
        for row in work_conn.execute("SELECT to_regprocedure(%s)::text", (s,))
    }
    assert None not in expected
    assert signatures == expected


def test_indexes_are_unique_where_required(build_conn: psycopg.Connection) -> None:
    rows = build_conn.execute(
        "SELECT c.relname, i.indisunique, i.indisprimary,"
        " pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
        " WHERE c.relname = ANY(%s)",
        ([ix.name for ix in schema.INDEXES],),
    ).fetchall()
    by_name = {name: (unique, primary, ddl) for name, unique, primary, ddl in rows}
    assert set(by_name) == {ix.name for ix in schema.INDEXES}
    assert all(unique for unique, _, _ in by_name.values())
    assert "(c_w_id, c_d_id, c_last, c_first, c_id)" in by_name["customer_i2"][2]
    assert "(o_w_id, o_d_id, o_c_id, o_id)" in by_name["orders_i2"][2]
    assert sum(primary for _, primary, _ in by_name.values()) == 8
