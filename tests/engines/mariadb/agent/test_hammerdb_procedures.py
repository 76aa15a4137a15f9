"""The hammerdb profile's MariaDB procedures (HDB_*), called as its users call them: HammerDB
6.0's logic with its faults kept (docs/profiles.md), beside ours under their own names."""

from __future__ import annotations

from typing import Any

from bench_gui.agent.profiles import HammerDbParams
from bench_gui.engines.mariadb.agent.engine import read_counters
from bench_gui.engines.mariadb.agent.schema import schema_status
from bench_gui.engines.mariadb.agent.vu import (
    HAMMERDB_PROCEDURE,
    PROCEDURE,
    call_text,
    hammerdb_connect,
)
from tests._fixtures.mariadb import MariaDbServer
from tests._fixtures.odbc_calls import call, one


def test_both_profiles_procedures_exist_under_distinct_names(cursor: Any) -> None:
    status = schema_status(cursor)
    assert status.state == "complete", status.problems
    assert not set(HAMMERDB_PROCEDURE.values()) & set(PROCEDURE.values())
    params = HammerDbParams(1, seed=1)
    assert call_text("new_order", params.params("new_order", 1, 1), HAMMERDB_PROCEDURE).startswith(
        "CALL HDB_NEWORD(1,1,"
    )


def test_new_order_commits_and_updates_only_s_quantity(cursor: Any) -> None:
    before = one(cursor, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 6")
    counts = one(cursor, "SELECT SUM(s_order_cnt) + SUM(s_ytd) FROM stock WHERE s_w_id = 1")
    status, o_id = 1, 0
    while status == 1:  # 1 in 99 draws the rollback: call again
        status, o_id = call(cursor, "CALL HDB_NEWORD(1, 1, 6, 11, 8)")
    assert o_id >= before
    lines = f"FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 6 AND ol_o_id = {o_id}"
    assert one(cursor, f"SELECT COUNT(*) {lines}") == 8
    assert one(cursor, "SELECT SUM(s_order_cnt) + SUM(s_ytd) FROM stock WHERE s_w_id = 1") == (
        counts
    )


def test_the_rollback_is_real_on_mariadb(cursor: Any) -> None:
    """HammerDB's MariaDB New-Order does roll back (its NOT FOUND handler): the district and
    stock are as before, Com_rollback counts it, NOPM does not."""
    calls = 0
    while True:
        before = one(cursor, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 8")
        stock = one(cursor, "SELECT SUM(s_quantity) FROM stock WHERE s_w_id = 1")
        counters = read_counters(cursor)
        status, _ = call(cursor, "CALL HDB_NEWORD(1, 1, 8, 21, 15)")
        calls += 1
        if status == 1:
            break
        assert calls < 3000, "no rollback drawn in 3000 New-Orders"
    after = read_counters(cursor)
    assert one(cursor, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 8") == before
    assert one(cursor, "SELECT SUM(s_quantity) FROM stock WHERE s_w_id = 1") == stock
    assert after.new_orders == counters.new_orders
    assert after.transactions > counters.transactions


def test_payment_adds_the_amount_to_the_balance_as_hammerdb_does(cursor: Any) -> None:
    where = "c_w_id = 1 AND c_d_id = 3 AND c_id = 9"
    balance = one(cursor, f"SELECT c_balance FROM customer WHERE {where}")
    ytd = one(cursor, "SELECT w_ytd FROM warehouse WHERE w_id = 1")
    assert call(cursor, "CALL HDB_PAYMENT(1, 3, 1, 3, 9, 0, 25.00, '')") == (0, 9)
    assert one(cursor, f"SELECT c_balance FROM customer WHERE {where}") == balance + 25
    assert one(cursor, "SELECT w_ytd FROM warehouse WHERE w_id = 1") == ytd + 25


def test_payment_and_order_status_by_name_find_a_customer(cursor: Any) -> None:
    name = "BARBARBAR"
    status, c_id = call(cursor, f"CALL HDB_PAYMENT(1, 2, 1, 2, 0, 1, 10.00, '{name}')")
    assert status == 0
    assert one(cursor, f"SELECT c_last FROM customer WHERE c_w_id=1 AND c_d_id=2 AND c_id={c_id}")
    assert call(cursor, f"CALL HDB_OSTAT(1, 2, 0, 1, '{name}')")[0] == 0
    assert call(cursor, "CALL HDB_OSTAT(1, 2, 5, 0, '')")[0] == 0


def test_delivery_and_stock_level_run(cursor: Any) -> None:
    pending = one(cursor, "SELECT COUNT(*) FROM new_order WHERE no_w_id = 1")
    assert call(cursor, "CALL HDB_DELIVERY(1, 4)")[0] == 0
    assert one(cursor, "SELECT COUNT(*) FROM new_order WHERE no_w_id = 1") == pending - 10
    status, count = call(cursor, "CALL HDB_SLEV(1, 2, 15)")
    assert status == 0
    assert count >= 0


def test_a_hammerdb_user_connects_as_hammerdb_does(mariadb_server: MariaDbServer) -> None:
    """Snapshot isolation off where the server has it (MariaDB 11.6+); here a no-op that must
    still give a working connection."""
    engine = mariadb_server.engine(mariadb_server.tpcc(1))
    conn = hammerdb_connect(engine.conninfo)
    try:
        cursor = conn.cursor()
        cursor.execute("SHOW VARIABLES LIKE 'innodb_snapshot_isolation'")
        rows = cursor.fetchall()
        assert not rows or str(rows[0][1]).upper() in ("OFF", "0")
        assert call(cursor, "CALL HDB_SLEV(1, 1, 12)")[0] == 0
    finally:
        conn.close()
