"""The five calls' parameters, answers and error names, without a server.

The cursor here is a scripted stand-in (no SQL Server can run on our machines): it plays the
result sets the procedures document, so draining and the New-Order count are exercised; the
same calls run against a real server in test_integration.py.
"""

from __future__ import annotations

import random
from typing import Any

import pyodbc
import pytest

from bench_gui.engines.mssql.agent import procedures
from bench_gui.engines.mssql.agent.transactions import (
    CALLS,
    PROCEDURE_OF,
    Caller,
    Params,
    call,
    drain,
    error_kind,
)


class ScriptedCursor:
    """Plays a list of result sets (None: a set without columns) per execute."""

    def __init__(self, answers: list[list[list[tuple[Any, ...]] | None]]) -> None:
        self.answers = answers
        self.executed: list[tuple[str, tuple[Any, ...]]] = []
        self._sets: list[list[tuple[Any, ...]] | None] = []

    def execute(self, sql: str, *params: Any) -> None:
        self.executed.append((sql, params))
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        self._sets = list(answer)

    @property
    def description(self) -> Any:
        return None if self._sets[0] is None else [("c",)]

    def fetchall(self) -> list[tuple[Any, ...]]:
        rows = self._sets[0]
        assert rows is not None
        return rows

    def nextset(self) -> bool:
        self._sets.pop(0)
        return bool(self._sets)


class ScriptedConnection:
    def __init__(self, cursor: ScriptedCursor) -> None:
        self._cursor = cursor

    def cursor(self) -> ScriptedCursor:
        return self._cursor


def test_drain_reads_every_set_and_skips_row_counts() -> None:
    cursor = ScriptedCursor([[[(1, "a")], None, [], [(2,), (3,)]]])
    cursor.execute("x")
    assert drain(cursor) == [[(1, "a")], [], [(2,), (3,)]]


def test_neword_commit_and_intended_rollback_are_counted_apart() -> None:
    committed = [[(1, 3001, 7, 100, "BARBAR", "GC", 0.1, 0.1, 0.1)]]
    rolled_back = [[(0, None, 7, None, None, None, None, None, None)]]
    cursor = ScriptedCursor([committed, rolled_back])
    caller = Caller(ScriptedConnection(cursor))
    assert caller.run("new_order", [1, 1, 1, 1, 7, 0]) is not None
    outcome = caller.run("new_order", [1, 1, 1, 1, 7, 1])
    assert outcome is not None
    assert outcome.rolled_back
    assert (caller.new_orders, caller.rollbacks, caller.committed["new_order"]) == (1, 1, 1)
    assert cursor.executed[0][0] == "{CALL dbo.neword (?, ?, ?, ?, ?, ?)}"


def test_errors_are_counted_by_name() -> None:
    deadlock = pyodbc.Error(
        "40001",
        "[40001] [Microsoft][ODBC Driver 18 for SQL Server][SQL Server]Transaction (Process ID"
        " 61) was deadlocked on lock resources with another process (1205) (SQLExecDirectW)",
    )
    cursor = ScriptedCursor([deadlock])
    caller = Caller(ScriptedConnection(cursor))
    assert caller.run("payment", [1, 1, 1, 1, 1, 0, 10, ""]) is None
    assert caller.errors == {"deadlock_detected": 1}
    assert caller.new_orders == 0


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (("08S01", "[08S01] Communication link failure (0)"), "connection_lost"),
        (
            ("42000", "[42000] ... customer not found: id 5 in warehouse 1 (50000)"),
            "customer_not_found",
        ),
        (("HY000", "[HY000] Lock request time out period exceeded. (1222)"), "lock_timeout"),
        (("42S02", "[42S02] Invalid object name 'dbo.stock'. (208) (SQLExecDirectW)"), "error 208"),
    ],
)
def test_error_kind(args: tuple[str, str], name: str) -> None:
    assert error_kind(pyodbc.Error(*args)) == name


def test_wrong_answers_are_refused() -> None:
    cursor = ScriptedCursor([[[(1,)], [(2,)]]])
    with pytest.raises(ValueError, match="slev answered 2 result sets, expected 1"):
        call(cursor, "stock_level", [1, 1, 15])
    with pytest.raises(ValueError, match="takes 3 parameters, got 2"):
        call(cursor, "stock_level", [1, 1])
    with pytest.raises(ValueError, match="unknown transaction 'neworder'"):
        call(cursor, "neworder", [])


def test_parameters_follow_the_rules() -> None:
    params = Params(warehouses=4, seed=7)
    rng = random.Random(1)
    remote = byname = rollbacks = 0
    for _ in range(4000):
        w = rng.randint(1, 4)
        no = params.draw("new_order", w, 3)
        assert no[0] == w
        assert no[1] == 4
        assert 1 <= no[2] <= 10
        assert 1 <= no[3] <= 3000
        assert 5 <= no[4] <= 15
        assert no[5] in (0, 1)
        rollbacks += no[5]
        pay = params.draw("payment", w, 3)
        assert len(pay) == len(procedures.PARAMETERS["payment"])
        assert 1 <= pay[6] <= 5000
        assert (pay[5] == 1) == (pay[7] != "")
        remote += pay[2] != w
        byname += pay[5]
        assert params.draw("stock_level", w, 3)[1] == 3
        assert 10 <= params.draw("stock_level", w, 3)[2] <= 20
        assert 1 <= params.draw("delivery", w, 3)[1] <= 10
        assert len(params.draw("order_status", w, 3)) == 5
    assert 0.12 < remote / 4000 < 0.18
    assert 0.56 < byname / 4000 < 0.64
    assert 10 <= rollbacks <= 80  # about 1% of 4000
    assert set(CALLS) == set(PROCEDURE_OF)
    with pytest.raises(ValueError, match="warehouses must be at least 1"):
        Params(0)
