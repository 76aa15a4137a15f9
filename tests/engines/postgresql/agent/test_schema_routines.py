"""The server-side transactions, called directly: semantics, rollback, and consistency."""

from __future__ import annotations

import random
import threading
from collections import Counter
from decimal import Decimal
from typing import Any

import psycopg
import pytest

from bench_gui.agent import tpcc_rand
from bench_gui.engines.postgresql.agent import check
from bench_gui.wire.tpcc_tables import ITEMS

W = 2


def one(conn: psycopg.Connection, query: str, *params: Any) -> Any:
    row = conn.execute(query, params).fetchone()
    assert row is not None
    return row[0] if len(row) == 1 else row


def stock_snapshot(conn: psycopg.Connection) -> dict[tuple[int, int], tuple[int, ...]]:
    return {
        (row[0], row[1]): tuple(row[2:])
        for row in conn.execute(
            "SELECT s_w_id, s_i_id, s_quantity, s_ytd, s_order_cnt, s_remote_cnt FROM stock"
        )
    }


def district_state(conn: psycopg.Connection, w: int, d: int) -> tuple[int, int, int, int]:
    return one(
        conn,
        "SELECT d.d_next_o_id,"
        " (SELECT count(*) FROM orders WHERE o_w_id = d.d_w_id AND o_d_id = d.d_id),"
        " (SELECT count(*) FROM new_order WHERE no_w_id = d.d_w_id AND no_d_id = d.d_id),"
        " (SELECT count(*) FROM order_line WHERE ol_w_id = d.d_w_id AND ol_d_id = d.d_id)"
        " FROM district d WHERE d_w_id = %s AND d_id = %s",
        w,
        d,
    )


# -- New-Order ---------------------------------------------------------------------------


def test_neword_inserts_an_order(work_conn: psycopg.Connection) -> None:
    before = district_state(work_conn, 1, 3)
    stock_before = stock_snapshot(work_conn)
    o_id = one(work_conn, "SELECT neword(1, %s, 3, 42, 12, 0)", W)
    assert o_id == before[0]
    after = district_state(work_conn, 1, 3)
    assert after == (before[0] + 1, before[1] + 1, before[2] + 1, before[3] + 12)

    order = one(
        work_conn,
        "SELECT o_c_id, o_ol_cnt, o_carrier_id, o_all_local, o_entry_d IS NOT NULL"
        " FROM orders WHERE o_w_id = 1 AND o_d_id = 3 AND o_id = %s",
        o_id,
    )
    assert order[:3] == (42, 12, None)
    assert one(
        work_conn,
        "SELECT count(*) FROM new_order WHERE no_w_id = 1 AND no_d_id = 3 AND no_o_id = %s",
        o_id,
    )
    lines = work_conn.execute(
        "SELECT ol.ol_number, ol.ol_i_id, ol.ol_supply_w_id, ol.ol_quantity, ol.ol_amount,"
        " i.i_price, ol.ol_dist_info, s.s_dist_03, ol.ol_delivery_d"
        " FROM order_line ol JOIN item i ON i.i_id = ol.ol_i_id"
        " JOIN stock s ON s.s_w_id = ol.ol_supply_w_id AND s.s_i_id = ol.ol_i_id"
        " WHERE ol_w_id = 1 AND ol_d_id = 3 AND ol_o_id = %s ORDER BY ol_number",
        (o_id,),
    ).fetchall()
    assert [line[0] for line in lines] == list(range(1, 13))
    assert len({line[1] for line in lines}) == 12  # distinct items
    all_local = all(line[2] == 1 for line in lines)
    assert order[3] == int(all_local)
    stock_after = stock_snapshot(work_conn)
    for _, item, supply, qty, amount, price, dist, s_dist, delivered in lines:
        assert 1 <= qty <= 10
        assert amount == qty * price
        assert dist == s_dist
        assert delivered is None
        quantity, ytd, orders, remote = stock_before[(supply, item)]
        expected = quantity - qty if quantity >= qty + 10 else quantity - qty + 91
        remote_after = remote + (supply != 1)
        assert stock_after[(supply, item)] == (expected, ytd + qty, orders + 1, remote_after)
    changed = {k for k in stock_after if stock_after[k] != stock_before[k]}
    assert changed == {(line[2], line[1]) for line in lines}


def test_neword_rollback_changes_nothing(work_conn: psycopg.Connection) -> None:
    before = district_state(work_conn, 2, 5)
    stock_before = stock_snapshot(work_conn)
    with pytest.raises(psycopg.Error) as info:
        work_conn.execute("SELECT neword(2, %s, 5, 7, 9, 1)", (W,))
    assert info.value.sqlstate == "TPC01"
    assert "Item number is not valid" in str(info.value)
    assert district_state(work_conn, 2, 5) == before
    assert stock_snapshot(work_conn) == stock_before


def test_neword_reports_damage_apart_from_the_rollback(work_uri: str) -> None:
    with psycopg.connect(work_uri) as conn:  # one transaction, rolled back at the end
        conn.execute("SAVEPOINT s")
        with pytest.raises(psycopg.Error) as info:
            conn.execute("SELECT neword(1, 1, 1, 3001, 5, 0)")  # no customer 3001
        assert info.value.sqlstate == "TPC02"
        conn.execute("ROLLBACK TO SAVEPOINT s")
        conn.execute("DELETE FROM stock WHERE s_w_id = 1")
        with pytest.raises(psycopg.Error) as info:
            conn.execute("SELECT neword(1, 1, 1, 1, 5, 0)")
        assert info.value.sqlstate == "TPC03"
        conn.rollback()


def test_neword_items_follow_nurand(work_conn: psycopg.Connection) -> None:
    first = one(work_conn, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 9")
    for c in range(1, 151):
        work_conn.execute("SELECT neword(1, %s, 9, %s, 10, 0)", (W, c))
    rows = work_conn.execute(
        "SELECT ol_i_id, ol_supply_w_id FROM order_line"
        " WHERE ol_w_id = 1 AND ol_d_id = 9 AND ol_o_id >= %s",
        (first,),
    ).fetchall()
    assert len(rows) == 1500
    items = Counter(i for i, _ in rows)
    assert all(1 <= i <= ITEMS for i in items)
    # NURand(8191, ...) favours some items: far more repeats than a uniform draw gives
    assert sum(n - 1 for n in items.values()) > 20
    remote = sum(1 for _, s in rows if s != 1)
    assert remote < 60  # about 1% of lines are supplied by the other warehouse
    local_flags = work_conn.execute(
        "SELECT o.o_all_local, bool_and(ol.ol_supply_w_id = o.o_w_id)::int"
        " FROM orders o JOIN order_line ol"
        " ON ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id AND ol.ol_o_id = o.o_id"
        " WHERE o.o_w_id = 1 AND o.o_d_id = 9 AND o.o_id >= %s GROUP BY o.o_id, o.o_all_local",
        (first,),
    ).fetchall()
    assert all(flag == local for flag, local in local_flags)


def test_neword_single_warehouse_is_all_local(work_conn: psycopg.Connection) -> None:
    first = one(work_conn, "SELECT d_next_o_id FROM district WHERE d_w_id = 2 AND d_id = 9")
    for c in range(1, 101):
        work_conn.execute("SELECT neword(2, 1, 9, %s, 15, 0)", (c,))
    assert (
        one(
            work_conn,
            "SELECT count(*) FROM order_line WHERE ol_w_id = 2 AND ol_d_id = 9 AND ol_o_id >= %s"
            " AND ol_supply_w_id <> 2",
            first,
        )
        == 0
    )


# -- Payment -----------------------------------------------------------------------------


def payment_state(conn: psycopg.Connection, w: int, d: int, cw: int, cd: int, c: int) -> Any:
    return one(
        conn,
        "SELECT (SELECT w_ytd FROM warehouse WHERE w_id = %s),"
        " (SELECT d_ytd FROM district WHERE d_w_id = %s AND d_id = %s),"
        " c_balance, c_ytd_payment, c_payment_cnt, c_data,"
        " (SELECT count(*) FROM history WHERE h_c_w_id = %s AND h_c_d_id = %s AND h_c_id = %s)"
        " FROM customer WHERE c_w_id = %s AND c_d_id = %s AND c_id = %s",
        w,
        w,
        d,
        cw,
        cd,
        c,
        cw,
        cd,
        c,
    )


def test_payment_by_id_updates_the_totals(work_conn: psycopg.Connection) -> None:
    before = payment_state(work_conn, 1, 4, 2, 7, 123)
    amount = Decimal("100.50")
    c_id = one(work_conn, "SELECT payment(1, 4, 2, 7, 123, 0, %s, %s)", amount, "IGNORED")
    assert c_id == 123
    after = payment_state(work_conn, 1, 4, 2, 7, 123)
    assert after[0] == before[0] + amount
    assert after[1] == before[1] + amount
    assert after[2] == before[2] - amount
    assert after[3] == before[3] + amount
    assert after[4] == before[4] + 1
    assert after[6] == before[6] + 1
    h_data = one(
        work_conn,
        "SELECT h_data = w_name || '    ' || d_name AND h_amount = %s"
        " FROM history, warehouse, district"
        " WHERE h_c_w_id = 2 AND h_c_d_id = 7 AND h_c_id = 123 AND h_w_id = 1 AND h_d_id = 4"
        " AND w_id = 1 AND d_w_id = 1 AND d_id = 4 ORDER BY h_date DESC LIMIT 1",
        amount,
    )
    assert h_data is True


def test_payment_by_name_takes_the_middle_customer(work_conn: psycopg.Connection) -> None:
    name = tpcc_rand.last_name(0)  # c_id 1 has it; NURand gives it to others too
    ids = [
        c
        for (c,) in work_conn.execute(
            "SELECT c_id FROM customer WHERE c_w_id = 1 AND c_d_id = 6 AND c_last = %s"
            " ORDER BY c_first",
            (name,),
        )
    ]
    assert ids
    expected = ids[(len(ids) + 1) // 2 - 1]
    before = payment_state(work_conn, 1, 6, 1, 6, expected)
    c_id = one(work_conn, "SELECT payment(1, 6, 1, 6, 0, 1, %s, %s)", Decimal("5.00"), name)
    assert c_id == expected
    after = payment_state(work_conn, 1, 6, 1, 6, expected)
    assert after[2] == before[2] - Decimal("5.00")
    assert after[4] == before[4] + 1


def test_payment_prepends_bad_credit_data(work_conn: psycopg.Connection) -> None:
    bc, gc = (
        one(
            work_conn,
            "SELECT min(c_id) FROM customer WHERE c_w_id = 2 AND c_d_id = 2 AND c_credit = %s",
            credit,
        )
        for credit in ("BC", "GC")
    )
    data_bc = payment_state(work_conn, 2, 2, 2, 2, bc)[5]
    data_gc = payment_state(work_conn, 2, 2, 2, 2, gc)[5]
    work_conn.execute("SELECT payment(2, 2, 2, 2, %s, 0, %s, '')", (bc, Decimal("12.34")))
    work_conn.execute("SELECT payment(2, 2, 2, 2, %s, 0, %s, '')", (gc, Decimal("12.34")))
    new_bc = payment_state(work_conn, 2, 2, 2, 2, bc)[5]
    prefix = f"{bc} 2 2 2 2 12.34 | "
    assert new_bc == (prefix + data_bc)[:500]
    assert len(new_bc) <= 500
    assert payment_state(work_conn, 2, 2, 2, 2, gc)[5] == data_gc


def test_payment_unknown_customer_raises(work_conn: psycopg.Connection) -> None:
    before = payment_state(work_conn, 1, 1, 1, 1, 1)
    with pytest.raises(psycopg.Error) as info:
        work_conn.execute("SELECT payment(1, 1, 1, 1, 0, 1, %s, %s)", (Decimal(1), "NOBODY"))
    assert info.value.sqlstate == "TPC02"
    with pytest.raises(psycopg.Error) as info:
        work_conn.execute("SELECT payment(1, 1, 1, 1, 3001, 0, %s, '')", (Decimal(1),))
    assert info.value.sqlstate == "TPC02"
    assert payment_state(work_conn, 1, 1, 1, 1, 1) == before


# -- Order-Status, Delivery, Stock-Level ---------------------------------------------------


def test_ostat_reads_the_latest_order(work_conn: psycopg.Connection) -> None:
    o_id = one(work_conn, "SELECT neword(2, %s, 4, 77, 13, 0)", W)
    assert one(work_conn, "SELECT ostat(2, 4, 77, 0, '')") == 13
    loaded = one(
        work_conn, "SELECT o_ol_cnt FROM orders WHERE o_w_id = 2 AND o_d_id = 4 AND o_c_id = 78"
    )
    assert one(work_conn, "SELECT ostat(2, 4, 78, 0, '')") == loaded
    assert o_id > 3000
    name = tpcc_rand.last_name(77 - 1)
    ids = [
        c
        for (c,) in work_conn.execute(
            "SELECT c_id FROM customer WHERE c_w_id = 2 AND c_d_id = 4 AND c_last = %s"
            " ORDER BY c_first",
            (name,),
        )
    ]
    middle = ids[(len(ids) + 1) // 2 - 1]
    expected = one(
        work_conn,
        "SELECT o_ol_cnt FROM orders WHERE o_w_id = 2 AND o_d_id = 4 AND o_c_id = %s"
        " ORDER BY o_id DESC LIMIT 1",
        middle,
    )
    assert one(work_conn, "SELECT ostat(2, 4, 0, 1, %s)", name) == expected
    with pytest.raises(psycopg.Error) as info:
        work_conn.execute("SELECT ostat(2, 4, 0, 1, 'NOBODY')")
    assert info.value.sqlstate == "TPC02"


def test_delivery_delivers_the_oldest_order_of_each_district(
    work_conn: psycopg.Connection,
) -> None:
    oldest = dict(
        work_conn.execute(
            "SELECT no_d_id, min(no_o_id) FROM new_order WHERE no_w_id = 2 GROUP BY no_d_id"
        ).fetchall()
    )
    assert len(oldest) == 10
    customers = {
        d: one(
            work_conn,
            "SELECT o.o_c_id, c.c_balance, c.c_delivery_cnt,"
            " (SELECT sum(ol_amount) FROM order_line"
            "  WHERE ol_w_id = 2 AND ol_d_id = %s AND ol_o_id = %s)"
            " FROM orders o JOIN customer c"
            " ON c.c_w_id = o.o_w_id AND c.c_d_id = o.o_d_id AND c.c_id = o.o_c_id"
            " WHERE o.o_w_id = 2 AND o.o_d_id = %s AND o.o_id = %s",
            d,
            o,
            d,
            o,
        )
        for d, o in oldest.items()
    }
    count = one(work_conn, "SELECT count(*) FROM new_order WHERE no_w_id = 2")
    assert one(work_conn, "SELECT delivery(2, 7)") == 10
    assert one(work_conn, "SELECT count(*) FROM new_order WHERE no_w_id = 2") == count - 10
    for d, o in oldest.items():
        assert (
            one(
                work_conn,
                "SELECT count(*) FROM new_order"
                " WHERE no_w_id = 2 AND no_d_id = %s AND no_o_id = %s",
                d,
                o,
            )
            == 0
        )
        assert (
            one(
                work_conn,
                "SELECT o_carrier_id FROM orders WHERE o_w_id = 2 AND o_d_id = %s AND o_id = %s",
                d,
                o,
            )
            == 7
        )
        assert one(
            work_conn,
            "SELECT bool_and(ol_delivery_d IS NOT NULL) FROM order_line"
            " WHERE ol_w_id = 2 AND ol_d_id = %s AND ol_o_id = %s",
            d,
            o,
        )
        c_id, balance, deliveries, amount = customers[d]
        assert one(
            work_conn,
            "SELECT c_balance, c_delivery_cnt FROM customer"
            " WHERE c_w_id = 2 AND c_d_id = %s AND c_id = %s",
            d,
            c_id,
        ) == (balance + amount, deliveries + 1)


def test_delivery_skips_a_district_without_new_orders(work_uri: str) -> None:
    with psycopg.connect(work_uri) as conn:  # one transaction, rolled back at the end
        conn.execute("DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 10")
        assert one(conn, "SELECT delivery(1, 1)") == 9
        conn.rollback()


def test_slev_counts_low_stock_items(work_conn: psycopg.Connection) -> None:
    for threshold in (10, 15, 20, 101):
        expected = one(
            work_conn,
            "SELECT count(DISTINCT s_i_id) FROM district, order_line, stock"
            " WHERE d_w_id = 1 AND d_id = 2 AND ol_w_id = 1 AND ol_d_id = 2"
            " AND ol_o_id >= d_next_o_id - 20 AND ol_o_id < d_next_o_id"
            " AND s_w_id = 1 AND s_i_id = ol_i_id AND s_quantity < %s",
            threshold,
        )
        result = one(work_conn, "SELECT slev(1, 2, %s)", threshold)
        assert isinstance(result, int)
        assert result == expected
    assert one(work_conn, "SELECT slev(1, 2, 101)") > 100  # 20 orders of 5..15 lines


# -- a random mix ------------------------------------------------------------------------


def random_transaction(conn: psycopg.Connection, rng: random.Random, home: int) -> str:
    """One transaction drawn like the driver draws it (HammerDB's U[1,23] mix)."""
    draw = rng.randint(1, 23)
    d = rng.randint(1, 10)
    if draw <= 10:
        rbk = int(rng.randint(1, 100) == 1)
        c = tpcc_rand.run_customer_id(rng)
        conn.execute(
            "SELECT neword(%s, %s, %s, %s, %s, %s)", (home, W, d, c, rng.randint(5, 15), rbk)
        )
        return "new_order"
    if draw <= 20:
        cw, cd = (home, d) if rng.random() < 0.85 or W == 1 else (3 - home, rng.randint(1, 10))
        byname = int(rng.random() < 0.6)
        amount = Decimal(rng.randint(100, 500_000)) / 100
        conn.execute(
            "SELECT payment(%s, %s, %s, %s, %s, %s, %s, %s)",
            (home, d, cw, cd, tpcc_rand.run_customer_id(rng), byname, amount,
             tpcc_rand.run_last_name(rng)),
        )  # fmt: skip
        return "payment"
    if draw == 21:
        conn.execute("SELECT delivery(%s, %s)", (home, rng.randint(1, 10)))
        return "delivery"
    if draw == 22:
        conn.execute("SELECT slev(%s, %s, %s)", (home, d, rng.randint(10, 20)))
        return "stock_level"
    byname = int(rng.random() < 0.6)
    conn.execute(
        "SELECT ostat(%s, %s, %s, %s, %s)",
        (home, d, tpcc_rand.run_customer_id(rng), byname, tpcc_rand.run_last_name(rng)),
    )
    return "order_status"


def run_mix(uri: str, seed: int, count: int, home: int, outcomes: Counter[str]) -> None:
    rng = random.Random(seed)
    with psycopg.connect(uri, autocommit=True) as conn:
        for _ in range(count):
            try:
                outcomes[random_transaction(conn, rng, home)] += 1
            except psycopg.Error as exc:
                outcomes[f"error {exc.sqlstate}"] += 1


def test_random_mix_keeps_the_database_consistent(
    work_uri: str, work_conn: psycopg.Connection
) -> None:
    outcomes: Counter[str] = Counter()
    run_mix(work_uri, 1, 400, 1, outcomes)
    assert outcomes["new_order"] > 100
    assert set(outcomes) <= {
        "new_order",
        "payment",
        "delivery",
        "stock_level",
        "order_status",
        "error TPC01",  # the 1% rollback
        "error TPC02",  # a last name no customer of that district has
    }
    results = check.consistency_checks(work_conn)
    assert [r.name[0] for r in results] == ["1", "2", "3", "4"]
    assert all(r.ok for r in results), [r.detail for r in results if not r.ok]


def test_concurrent_mix_does_not_deadlock(work_uri: str, work_conn: psycopg.Connection) -> None:
    """Eight users on two warehouses: the lock order of the routines keeps them deadlock-free."""
    counters: list[Counter[str]] = [Counter() for _ in range(8)]  # one per thread
    threads = [
        threading.Thread(target=run_mix, args=(work_uri, 100 + i, 150, 1 + i % 2, counters[i]))
        for i in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    outcomes = sum(counters, Counter())
    errors = {k: v for k, v in outcomes.items() if k.startswith("error")}
    assert set(errors) <= {"error TPC01", "error TPC02"}, errors
    assert sum(outcomes.values()) == 8 * 150
    results = check.consistency_checks(work_conn)
    assert all(r.ok for r in results), [r.detail for r in results if not r.ok]
