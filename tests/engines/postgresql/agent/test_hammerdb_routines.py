"""The hammerdb profile's PostgreSQL functions, called as its users call them (HammerDB 6.0's
logic, faults kept: docs/profiles.md)."""

from __future__ import annotations

import threading
from typing import Any

import psycopg

from bench_gui.agent.profiles import HammerDbParams
from bench_gui.engines.postgresql.agent import hammerdb, schema
from bench_gui.engines.postgresql.agent.vu import STATEMENTS
from tests._fixtures.wait import wait_until


def one(conn: psycopg.Connection, query: str, *params: Any) -> Any:
    row = conn.execute(query, params).fetchone()
    assert row is not None
    return row[0] if len(row) == 1 else row


def test_both_profiles_routines_are_built_under_their_own_names(
    build_conn: psycopg.Connection,
) -> None:
    status = schema.schema_status(build_conn)
    assert status.complete, status.problems
    for signature in hammerdb.ROUTINE_SIGNATURES.values():
        assert one(build_conn, "SELECT to_regprocedure(%s) IS NOT NULL", signature)
    # Never the same text: a run of one profile cannot call the other's by mistake.
    assert not set(hammerdb.STATEMENTS.values()) & set(STATEMENTS.values())


def test_neword_commits_an_order_of_uniform_items_with_hammerdb_stock_update(
    work_conn: psycopg.Connection,
) -> None:
    next_o, cnt = one(work_conn, "SELECT d_next_o_id, 0 FROM district WHERE d_w_id=1 AND d_id=5")
    ytd = one(work_conn, "SELECT sum(s_ytd) + sum(s_order_cnt) FROM stock")
    one(work_conn, "SELECT hdb_neword(1, 2, 5, 17, 10)")
    assert one(work_conn, "SELECT d_next_o_id FROM district WHERE d_w_id=1 AND d_id=5") == (
        next_o + 1
    )
    assert (
        one(
            work_conn,
            "SELECT count(*) FROM order_line WHERE ol_w_id=1 AND ol_d_id=5 AND ol_o_id=%s",
            next_o,
        )
        == 10 + cnt
    )
    # HammerDB's update writes s_quantity only: the spec's s_ytd and s_order_cnt stay.
    assert one(work_conn, "SELECT sum(s_ytd) + sum(s_order_cnt) FROM stock") == ytd


def test_the_intended_rollback_commits_as_in_hammerdb(work_conn: psycopg.Connection) -> None:
    """HammerDB's PostgreSQL New-Order never rolls back: the unused item 100001 leaves a line
    without amount and the order commits. Forced here by drawing until the 1% comes."""
    before = one(work_conn, "SELECT count(*) FROM order_line WHERE ol_i_id = 100001")
    orders = one(work_conn, "SELECT sum(d_next_o_id) FROM district")
    calls = 0
    while one(work_conn, "SELECT count(*) FROM order_line WHERE ol_i_id = 100001") == before:
        one(work_conn, "SELECT hdb_neword(2, 2, 1, 99, 5)")
        calls += 1
        assert calls < 3000, "no rollback drawn in 3000 New-Orders"
    assert one(work_conn, "SELECT sum(d_next_o_id) FROM district") == orders + calls
    assert (
        one(
            work_conn,
            "SELECT count(*) FROM order_line WHERE ol_i_id = 100001 AND ol_amount IS NULL",
        )
        == before + 1
    )


def test_payment_by_name_finds_nobody_and_overwrites_the_id_drawn(
    work_conn: psycopg.Connection,
) -> None:
    """The prepared statement quotes '$8': by name, the customer drawn by id gets balance
    minus the amount, whatever it was before (HammerDB's fault, kept)."""
    work_conn.execute("UPDATE customer SET c_balance = 500 WHERE c_w_id=1 AND c_d_id=2 AND c_id=7")
    work_conn.execute("PREPARE hdb_pay AS " + hammerdb.STATEMENTS["payment"].decode())
    history = one(work_conn, "SELECT count(*) FROM history")
    c_id = one(work_conn, "EXECUTE hdb_pay(1, 2, 1, 2, 7, 1, 40)")
    assert c_id == 7
    assert (
        one(work_conn, "SELECT c_balance FROM customer WHERE c_w_id=1 AND c_d_id=2 AND c_id=7")
        == -40
    )
    assert one(work_conn, "SELECT count(*) FROM history") == history + 1
    # By id, the balance is the customer's own minus the amount.
    one(work_conn, "EXECUTE hdb_pay(1, 2, 1, 2, 7, 0, 10)")
    assert (
        one(work_conn, "SELECT c_balance FROM customer WHERE c_w_id=1 AND c_d_id=2 AND c_id=7")
        == -50
    )


def test_order_status_by_name_returns_no_lines(work_conn: psycopg.Connection) -> None:
    query = hammerdb.STATEMENTS["order_status"].decode()
    work_conn.execute("PREPARE hdb_os AS " + query)
    assert work_conn.execute("EXECUTE hdb_os(1, 1, 1, 1)").fetchall() == []
    assert work_conn.execute("EXECUTE hdb_os(1, 1, 1, 0)").fetchall() != []


def test_delivery_and_stock_level_run(work_conn: psycopg.Connection) -> None:
    pending = one(work_conn, "SELECT count(*) FROM new_order WHERE no_w_id = 2")
    assert one(work_conn, "SELECT hdb_delivery(2, 3)") == 1
    assert one(work_conn, "SELECT count(*) FROM new_order WHERE no_w_id = 2") == pending - 10
    assert one(work_conn, "SELECT hdb_slev(2, 4, 15)") >= 0


def test_a_deadlock_surfaces_as_invalid_transaction_termination(work_uri: str) -> None:
    """HammerDB's handler ROLLBACKs inside a function, which PostgreSQL refuses: its users
    see SQLSTATE 2D000 where ours see 40P01 (and the whole call is undone)."""
    failures: list[psycopg.Error] = []
    with (
        psycopg.connect(work_uri) as holder,
        psycopg.connect(work_uri, autocommit=True) as user,
        psycopg.connect(work_uri, autocommit=True) as watcher,
    ):
        holder.execute("SET deadlock_timeout = '60s'")  # the user's check finds the cycle
        holder.execute("UPDATE district SET d_ytd = d_ytd WHERE d_w_id = 1 AND d_id = 1")
        pid = user.info.backend_pid

        def pay() -> None:
            try:  # takes warehouse 1, then waits for district (1, 1)
                user.execute("SELECT hdb_payment(1, 1, 1, 1, 3, 0, 5, '', '0', 0)")
            except psycopg.Error as exc:
                failures.append(exc)

        runner = threading.Thread(target=pay)
        runner.start()
        wait_until(
            lambda: one(
                watcher,
                "SELECT wait_event_type = 'Lock' FROM pg_stat_activity WHERE pid = %s",
                pid,
            )
        )
        holder.execute("UPDATE warehouse SET w_ytd = w_ytd WHERE w_id = 1")  # the cycle
        holder.commit()
        runner.join()
    assert [e.sqlstate for e in failures] == ["2D000"]


def test_hammerdb_draws_are_uniform_and_leave_names_out_on_postgresql() -> None:
    params = HammerDbParams(4, seed=3, names=False)
    customers = [int(params.params("new_order", 1, 1)[3] or 0) for _ in range(20_000)]
    assert min(customers) == 1
    assert max(customers) == 3000
    # Uniform: no tenth of the range holds much more than a tenth (NURand's would).
    tenths = [sum(1 for c in customers if i * 300 < c <= (i + 1) * 300) for i in range(10)]
    assert max(tenths) < 2_400
    assert len(params.params("payment", 1, 1)) == 7
    assert len(params.params("order_status", 1, 1)) == 4
    named = HammerDbParams(1, seed=3)
    payments = [named.params("payment", 1, 1) for _ in range(2_000)]
    assert all(p[2] == b"1" for p in payments)  # one warehouse: always home
    assert any(p[3] != p[1] for p in payments)  # but 15% another district, as HammerDB
