"""The five stored procedures, called as the users call them, on a database of their own."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from bench_gui.agent.users import Params
from bench_gui.engines.mariadb.agent.engine import read_counters
from bench_gui.engines.mariadb.agent.vu import Statements, _call, call_text, draw_call
from bench_gui.wire import odbc
from tests._fixtures.odbc_calls import one


class _Single:
    """One cursor for every transaction (what :func:`_call` asks of a user's statements)."""

    def __init__(self, cursor: Any) -> None:
        self._cursor = cursor

    def cursor(self, _tx: str) -> Any:
        return self._cursor


def test_new_order_commits_an_order_and_its_lines(cursor: Any) -> None:
    before = one(cursor, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 3")
    assert _call(_Single(cursor), "new_order", ("CALL NEWORD(1, 1, 3, 42, 7, 0)", [])) is False
    o_id = before
    assert one(cursor, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 3") == (
        before + 1
    )
    lines = f"FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 3 AND ol_o_id = {o_id}"
    assert one(cursor, f"SELECT COUNT(*) {lines}") == 7
    assert one(cursor, f"SELECT COUNT(*) {lines} AND ol_amount > 0") == 7
    order = f"o_w_id = 1 AND o_d_id = 3 AND o_id = {o_id}"
    assert one(cursor, f"SELECT o_c_id FROM orders WHERE {order}") == 42
    pending = f"no_w_id = 1 AND no_d_id = 3 AND no_o_id = {o_id}"
    assert one(cursor, f"SELECT COUNT(*) FROM new_order WHERE {pending}") == 1


def test_the_one_percent_rollback_undoes_everything_and_counts_as_a_rollback(
    cursor: Any,
) -> None:
    before = one(cursor, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 4")
    stock = one(cursor, "SELECT SUM(s_order_cnt) FROM stock WHERE s_w_id = 1")
    counters = read_counters(cursor)
    orders = one(cursor, "SELECT COUNT(*) FROM orders WHERE o_w_id = 1 AND o_d_id = 4")
    lines = one(cursor, "SELECT COUNT(*) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 4")
    # Counted by the user as a rollback (True), not raised as an error.
    assert _call(_Single(cursor), "new_order", ("CALL NEWORD(1, 1, 4, 7, 9, 1)", [])) is True
    after = read_counters(cursor)
    # No rows left behind: no order, no lines, no pending new-order.
    assert one(cursor, "SELECT COUNT(*) FROM orders WHERE o_w_id = 1 AND o_d_id = 4") == orders
    assert one(cursor, "SELECT COUNT(*) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 4") == lines
    pending = f"no_w_id = 1 AND no_d_id = 4 AND no_o_id = {before}"
    assert one(cursor, f"SELECT COUNT(*) FROM new_order WHERE {pending}") == 0
    # The district increment and the eight stock updates before the bad item are gone.
    assert one(cursor, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 4") == before
    assert one(cursor, "SELECT SUM(s_order_cnt) FROM stock WHERE s_w_id = 1") == stock
    assert after.new_orders == counters.new_orders
    # TPM's source counts it (Com_rollback), as HammerDB's does.
    assert after.transactions - counters.transactions == 1


def test_payment_by_last_name_pays_the_middle_customer(cursor: Any) -> None:
    name = "BARBARBAR"
    rows = f"FROM customer WHERE c_w_id = 1 AND c_d_id = 2 AND c_last = '{name}'"
    cursor.execute(f"SELECT c_id {rows} ORDER BY c_first")
    ids = [r[0] for r in cursor.fetchall()]
    middle = ids[(len(ids) + 1) // 2 - 1]
    ytd = one(cursor, "SELECT w_ytd FROM warehouse WHERE w_id = 1")
    cursor.execute(f"CALL PAYMENT(1, 5, 1, 2, 0, 1, 123.45, '{name}')")
    assert cursor.description is None  # no result set: the CALL's OK alone
    assert one(cursor, "SELECT w_ytd FROM warehouse WHERE w_id = 1") == ytd + Decimal("123.45")
    assert (
        one(cursor, f"SELECT COUNT(*) FROM history WHERE h_c_id = {middle} AND h_amount = 123.45")
        >= 1
    )


def test_an_unknown_customer_is_an_error_and_changes_nothing(cursor: Any) -> None:
    import pyodbc

    ytd = one(cursor, "SELECT w_ytd FROM warehouse WHERE w_id = 1")
    with pytest.raises(pyodbc.Error, match="TPC02"):  # an error stays an error for the user
        _call(
            _Single(cursor), "payment", ("CALL PAYMENT(1, 5, 1, 2, 0, 1, 10.00, 'NOSUCHNAME')", [])
        )
    assert one(cursor, "SELECT w_ytd FROM warehouse WHERE w_id = 1") == ytd


def test_delivery_order_status_and_stock_level(cursor: Any) -> None:
    pending = one(cursor, "SELECT COUNT(*) FROM new_order WHERE no_w_id = 1")
    for text in ("CALL DELIVERY(1, 3)", "CALL OSTAT(1, 1, 5, 0, '')", "CALL SLEV(1, 1, 20)"):
        cursor.execute(text)
        assert cursor.description is None, text  # a commit reads no result set
    assert one(cursor, "SELECT COUNT(*) FROM new_order WHERE no_w_id = 1") == pending - 10


def test_the_users_calls_are_the_procedures_calls(cursor: Any) -> None:
    params = Params(1, seed=5)
    for tx in ("new_order", "payment", "delivery", "stock_level", "order_status"):
        text = call_text(tx, params.params(tx, 1, 3))
        assert text.startswith("CALL ")
        cursor.execute(text)
        assert cursor.description is None
    assert odbc.message(Exception("x")) == "x"


def test_a_user_prepares_each_call_once_and_re_executes_it(cursor: Any) -> None:
    """Each transaction is one execution of its prepared CALL, not a prepare, an execute and
    a close per call (Connector/ODBC's SQLExecDirect): one round trip as the floor's."""
    statements = Statements(cursor.connection)
    params = Params(1, seed=11)

    def prepared() -> int:
        status = statements.cursor("status")
        status.execute("SHOW SESSION STATUS LIKE 'Com_stmt_prepare'")
        count = int(status.fetchone()[1])
        status.nextset()
        return count

    before = prepared()
    kinds = ("new_order", "payment", "delivery", "stock_level", "order_status")
    for n in range(40):
        tx = kinds[n % len(kinds)]
        _call(statements, tx, draw_call(params, tx, 1, 3))
    # the five CALLs once, and the SHOW STATUS itself (sent as text: prepared each time)
    assert prepared() - before == len(kinds) + 1
