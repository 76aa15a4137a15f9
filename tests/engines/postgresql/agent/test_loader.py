"""The loader: row counts and load rules of a 2-warehouse build, progress, stop."""

from __future__ import annotations

import subprocess
import sys
import threading
from typing import Any

import psycopg
import pytest

from bench_gui.agent import tpcc_data, tpcc_rand
from bench_gui.engines.postgresql.agent import loader, schema
from tests._fixtures.wait import wait_until

W = 2


def scalar(conn: psycopg.Connection, query: str) -> Any:
    row = conn.execute(query).fetchone()
    assert row is not None
    return row[0]


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ("warehouse", W),
        ("district", 10 * W),
        ("customer", 30_000 * W),
        ("history", 30_000 * W),
        ("orders", 30_000 * W),
        ("new_order", 9_000 * W),
        ("item", 100_000),
        ("stock", 100_000 * W),
    ],
)
def test_row_counts_match_the_reference(
    build_conn: psycopg.Connection, table: str, expected: int
) -> None:
    assert scalar(build_conn, f"SELECT count(*) FROM {table}") == expected


def test_order_lines_match_the_orders(build_conn: psycopg.Connection) -> None:
    lines = scalar(build_conn, "SELECT count(*) FROM order_line")
    assert lines == scalar(build_conn, "SELECT sum(o_ol_cnt) FROM orders")
    assert 5 * 30_000 * W <= lines <= 15 * 30_000 * W
    assert abs(lines - 300_000 * W) < 0.02 * 300_000 * W  # 10 lines per order on average


def test_build_reports_stats_and_progress(tpcc_build: Any) -> None:
    stats = tpcc_build.stats
    assert stats["status"] == "ok"
    assert stats["warehouses"] == W
    assert stats["seconds"] > 0
    assert stats["rows"] >= 1_000_000
    stages = [e["stage"] for e in tpcc_build.events]
    order = ["tables", "items", "warehouses", "indexes", "routines", "analyze"]
    assert [s for s in order if s in stages] == order
    assert stages.index("warehouses") < stages.index("indexes")
    keys = {"task", "stage", "done", "total", "unit", "rate", "message"}
    assert all(set(e) == keys and e["task"] == "build" for e in tpcc_build.events)
    last_load = [e for e in tpcc_build.events if e["stage"] == "warehouses"][-1]
    assert (last_load["done"], last_load["total"], last_load["unit"]) == (W, W, "warehouses")
    assert last_load["rate"] > 0


def test_no_progress_rate_before_it_means_something(tpcc_build: Any) -> None:
    """A rate is rows over at least RATE_MIN_S seconds, so no rate can pass every row of the
    build over that time (the first line once read 73,614,501 rows/s: a queued burst of
    rows over a millisecond)."""
    ceiling = tpcc_build.stats["rows"] / tpcc_data.RATE_MIN_S
    rates = [e["rate"] for e in tpcc_build.events]
    assert all(0 <= r <= ceiling for r in rates), (max(rates), ceiling)
    assert tpcc_data.rows_per_second(73_614, 0.001) == 0.0
    assert tpcc_data.rows_per_second(500_000, 2.0) == 250_000


def test_schema_status_complete(build_conn: psycopg.Connection) -> None:
    status = schema.schema_status(build_conn)
    assert status.problems == []
    assert (status.state, status.warehouses) == ("complete", W)
    assert status.complete


def test_tables_are_logged_and_autovacuum_back_on(build_conn: psycopg.Connection) -> None:
    rows = build_conn.execute(
        "SELECT relname, relpersistence, reloptions FROM pg_class WHERE relname = ANY(%s)",
        (list(schema.TABLES),),
    ).fetchall()
    assert len(rows) == len(schema.TABLES)
    for name, persistence, options in rows:
        assert persistence == "p", name
        assert not any("autovacuum" in o for o in options or []), name


def test_district_and_warehouse_initial_values(build_conn: psycopg.Connection) -> None:
    assert build_conn.execute("SELECT DISTINCT d_next_o_id, d_ytd FROM district").fetchall() == [
        (3001, 30000)
    ]
    assert build_conn.execute("SELECT DISTINCT w_ytd FROM warehouse").fetchall() == [(300000,)]
    assert scalar(
        build_conn, "SELECT max(w_tax) <= 0.2 AND min(d_tax) >= 0 FROM warehouse, district"
    )


def test_orders_follow_a_permutation_of_customers(build_conn: psycopg.Connection) -> None:
    rows = build_conn.execute(
        "SELECT count(DISTINCT o_c_id), min(o_c_id), max(o_c_id) FROM orders"
        " GROUP BY o_w_id, o_d_id"
    ).fetchall()
    assert rows == [(3000, 1, 3000)] * (10 * W)


def test_undelivered_orders_have_new_orders_and_no_carrier(
    build_conn: psycopg.Connection,
) -> None:
    assert build_conn.execute(
        "SELECT o_id > 2100, o_carrier_id IS NULL, count(*) FROM orders GROUP BY 1, 2 ORDER BY 1"
    ).fetchall() == [(False, False, 2100 * 10 * W), (True, True, 900 * 10 * W)]
    assert build_conn.execute(
        "SELECT min(no_o_id), max(no_o_id), count(*) FROM new_order GROUP BY no_w_id, no_d_id"
    ).fetchall() == [(2101, 3000, 900)] * (10 * W)
    assert build_conn.execute(
        "SELECT ol_o_id > 2100, ol_delivery_d IS NULL, ol_amount = 0, count(*) > 0"
        " FROM order_line GROUP BY 1, 2, 3 ORDER BY 1"
    ).fetchall() == [(False, False, True, True), (True, True, False, True)]
    assert (
        scalar(build_conn, "SELECT count(*) FROM order_line WHERE ol_supply_w_id <> ol_w_id") == 0
    )


def test_customer_last_names(build_conn: psycopg.Connection) -> None:
    rows = build_conn.execute(
        "SELECT c_id, c_last FROM customer WHERE c_w_id = 1 AND c_d_id = 1 AND c_id <= 1000"
    ).fetchall()
    assert all(last == tpcc_rand.last_name(c - 1) for c, last in rows)
    assert len(rows) == 1000
    names = set(tpcc_rand.LAST_NAMES)
    others = build_conn.execute("SELECT DISTINCT c_last FROM customer WHERE c_id > 1000").fetchall()
    assert {n for (n,) in others} <= names
    assert len(others) > 500  # NURand(255, 0, 999) reaches most of the 1000 names


def test_ten_percent_rules(build_conn: psycopg.Connection) -> None:
    bc = scalar(build_conn, "SELECT avg((c_credit = 'BC')::int) FROM customer")
    assert 0.08 < bc < 0.12
    original_items = scalar(build_conn, "SELECT avg((i_data LIKE '%ORIGINAL%')::int) FROM item")
    original_stock = scalar(build_conn, "SELECT avg((s_data LIKE '%ORIGINAL%')::int) FROM stock")
    assert 0.08 < original_items < 0.12
    assert 0.08 < original_stock < 0.12


def test_value_ranges(build_conn: psycopg.Connection) -> None:
    row = build_conn.execute(
        "SELECT min(s_quantity), max(s_quantity), min(length(s_data)), max(length(s_data)),"
        " min(length(s_dist_05)), max(length(s_dist_10)) FROM stock"
    ).fetchone()
    assert row == (10, 100, 26, 50, 24, 24)
    row = build_conn.execute(
        "SELECT min(i_price), max(i_price), min(i_im_id), max(i_im_id) FROM item"
    ).fetchone()
    assert row is not None
    assert row[0] >= 1
    assert row[1] <= 100
    assert row[2] >= 1
    assert row[3] <= 10_000
    row = build_conn.execute(
        "SELECT min(length(c_data)), max(length(c_data)), max(c_discount), min(c_balance),"
        " max(c_balance), min(c_middle), max(c_middle), min(length(c_first)),"
        " max(length(c_first)), bool_and(c_zip LIKE '____11111') FROM customer"
    ).fetchone()
    assert row is not None
    assert row[0] >= 300
    assert row[1] <= 500
    assert row[2] <= 0.5
    assert row[3:] == (-10, -10, "OE", "OE", 8, 16, True)
    assert scalar(build_conn, "SELECT count(DISTINCT o_ol_cnt) FROM orders") == 11


def _empty_db(tpcc_build: Any, name: str) -> str:
    with psycopg.connect(tpcc_build.admin_uri, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    return tpcc_build.uri_for(name)


def test_stopped_build_leaves_a_partial_schema(tpcc_build: Any) -> None:
    uri = _empty_db(tpcc_build, "tpcc_agent_stopped")
    stop = threading.Event()
    events: list[dict[str, Any]] = []

    def progress(event: dict[str, Any]) -> None:
        events.append(event)
        if event["stage"] == "warehouses" and event["done"] >= 1:
            stop.set()

    stats = loader.build(uri, 2, 1, progress, stop)
    assert stats["status"] == "stopped"
    assert "indexes" not in {e["stage"] for e in events}
    with psycopg.connect(uri, autocommit=True) as conn:
        status = schema.schema_status(conn)
        assert status.state == "partial"
        assert status.warehouses == 1
        assert any("missing indexes" in p for p in status.problems)
        assert any("missing routines" in p for p in status.problems)
        assert any("autovacuum" in p for p in status.problems)
        # the warehouse in flight was rolled back: only complete warehouses remain
        assert scalar(conn, "SELECT count(*) FROM stock") == 100_000
        assert scalar(conn, "SELECT count(*) FROM customer") == 30_000
        schema.drop_schema(conn)
        assert schema.schema_status(conn).state == "missing"


def test_killed_build_is_partial_and_leaves_no_loader_behind(tpcc_build: Any) -> None:
    """The agent killed mid-load: its worker processes notice, roll back and go away."""
    uri = _empty_db(tpcc_build, "tpcc_agent_killed")
    code = (
        "from bench_gui.engines.postgresql.agent import loader\n"
        "if __name__ == '__main__':\n"
        f"    loader.build({uri!r}, 2, 1, lambda e: print(e['stage'], flush=True))\n"
    )
    loaders = (
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
        f" AND application_name = '{schema.APP_NAME}'"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.strip() == "warehouses":
                break
        # Killed mid-load: once a worker is loading a warehouse, not before it connected.
        with psycopg.connect(uri, autocommit=True) as conn:
            wait_until(
                lambda: scalar(conn, loaders + " AND state = 'active'"), 30, "a warehouse load"
            )
    finally:
        proc.kill()
        proc.wait()
    with psycopg.connect(uri, autocommit=True) as conn:
        wait_until(lambda: scalar(conn, loaders) == 0, 30, "the loader sessions to go away")
        status = schema.schema_status(conn)
        assert status.state == "partial"
        assert any("missing indexes" in p for p in status.problems)
        assert scalar(conn, "SELECT count(*) FROM stock") == 100_000 * status.warehouses


def test_build_refuses_an_existing_schema(tpcc_build: Any) -> None:
    with pytest.raises(psycopg.errors.DuplicateTable):
        loader.build(tpcc_build.uri, 1, 1, lambda e: None)


def test_worker_error_is_reported(tpcc_build: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    uri = _empty_db(tpcc_build, "tpcc_agent_broken")
    create_tables = schema.create_tables

    def broken_tables(conn: psycopg.Connection) -> None:
        create_tables(conn)
        conn.execute("ALTER TABLE stock ADD CONSTRAINT no_stock CHECK (s_quantity < 0)")

    monkeypatch.setattr(schema, "create_tables", broken_tables)
    with pytest.raises(loader.BuildError, match="warehouse 1: CheckViolation: .*no_stock") as info:
        loader.build(uri, 1, 1, lambda e: None)
    assert "Traceback" in info.value.details


def test_datagen_rows_have_the_table_columns() -> None:
    gen = tpcc_data.DataGen(seed=1, timestamp="2024-01-01 00:00:00")
    columns = {
        "stock": 17,
        "customer": 21,
        "history": 8,
        "orders": 8,
        "new_order": 3,
        "order_line": 10,
        "item": 5,
        "district": 11,
        "warehouse": 9,
    }
    orders, new_order, lines = gen.orders(1, 1)
    texts = {
        "stock": gen.stock(1, 1, 100),
        "customer": gen.customer(1, 1),
        "history": gen.history(1, 1),
        "orders": orders,
        "new_order": new_order,
        "order_line": lines,
        "item": gen.item(1, 100),
        "district": gen.district(1),
        "warehouse": gen.warehouse(1),
    }
    for table, text in texts.items():
        rows = text.splitlines()
        assert rows, table
        assert {row.count("\t") + 1 for row in rows} == {columns[table]}, table
