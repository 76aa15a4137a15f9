"""Recorded statements: what a SQL Server virtual user sends and how it counts the answers.

No SQL Server runs here: :func:`bench_gui.engines.mssql.agent.vu.run_user` runs for real on a
recording connection (tests/engines/mssql/agent/recording.py, a test seam) that answers each call
with
the documented result sets. Every text it sent goes through the T-SQL parser; the counts show
the intended New-Order rollback counted apart, a deadlock victim counted as an error and not
retried (HammerDB retries none), and a lost connection reopened.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import pyodbc
import pytest

from bench_gui.agent.odbc_users import Counts
from bench_gui.agent.users import SLOT_ERRORS, SLOT_ROLLBACK, SLOTS, TX_INDEX, WorkerSpec
from bench_gui.engines.mssql.agent import vu
from bench_gui.engines.mssql.agent.transactions import CALLS, PROCEDURE_OF
from bench_gui.wire.protocol import TX_KEYS, TX_TYPES
from tests.engines.mssql.agent.recording import Log, RecordingConnection, ResultSets
from tests.engines.mssql.agent.sent_check import answer_call, check_sent

DEADLOCK = (
    "40001",
    "[40001] [Microsoft][ODBC Driver 18 for SQL Server][SQL Server]Transaction (Process ID 61)"
    " was deadlocked on lock resources with another process and has been chosen as the"
    " deadlock victim. Rerun the transaction. (1205) (SQLExecDirectW)",
)
LINK_FAILURE = (
    "08S01",
    "[08S01] [Microsoft][ODBC Driver 18 for SQL Server]Communication link failure",
)


def _spec(warehouses: int = 4) -> WorkerSpec:
    return WorkerSpec(
        worker=0,
        conninfo="DRIVER={ODBC Driver 18 for SQL Server};SERVER=tcp:db1,1433;UID=sa",
        vus=[0],
        total_vus=1,
        warehouses=warehouses,
        all_warehouses=False,
        keying_thinking=False,
        seed=3,
    )


class Script:
    """Answers calls as the procedures document, stops the user after ``calls`` of them, and
    raises the scripted errors at the given call numbers (1-based)."""

    def __init__(self, flags: list[int], calls: int, errors: dict[int, tuple[str, str]]) -> None:
        self.flags = flags
        self.calls = calls
        self.errors = errors
        self.count = 0

    def __call__(self, sql: str, params: Sequence[Any]) -> ResultSets:
        self.count += 1
        if self.count >= self.calls:
            self.flags[0] = 1
        if self.count in self.errors:
            raise pyodbc.Error(*self.errors[self.count])
        return answer_call(sql, params)


def _run(
    calls: int, errors: dict[int, tuple[str, str]] | None = None
) -> tuple[Log, list[int], Counts, list[RecordingConnection]]:
    flags = [0, 1]
    log = Log()
    script = Script(flags, calls, errors or {})
    counters = [0] * SLOTS
    shared = Counts(0, counters)
    reopened: list[RecordingConnection] = []

    def opener() -> RecordingConnection:
        conn = RecordingConnection(script, log)
        reopened.append(conn)
        return conn

    vu.run_user(_spec(), 0, RecordingConnection(script, log), shared, flags, 11, opener)
    return log, counters, shared, reopened


def test_recorded_user_sends_only_parsed_calls_in_hammerdbs_mix() -> None:
    log, counters, shared, _ = _run(2000)
    assert len(log.sent) == 2000
    texts = log.texts()
    assert set(texts) == set(CALLS.values())  # all five, nothing else
    for text in texts:
        check_sent(text)
    by_tx = Counter(next(k for k, v in CALLS.items() if v == s.sql) for s in log.sent)
    weights = {t.key: t.weight for t in TX_TYPES}
    total = sum(weights.values())
    for key in TX_KEYS:  # HammerDB's mix: 45/43/4/4/4 out of 100, within sampling noise
        assert abs(by_tx[key] / 2000 - weights[key] / total) < 0.04, (key, by_tx)
    # Typed parameters, one per marker; the customer's last name a real string parameter.
    for sent in log.sent:
        name = sent.sql.split()[1].removeprefix("dbo.")
        assert sent.sql.count("?") == len(sent.params), sent
        assert all(isinstance(p, (int, str)) for p in sent.params), sent
        if name in ("payment", "ostat"):
            assert isinstance(sent.params[-1], str)
            assert len(sent.params[-1]) <= 16
    # Every call counted once: a commit of its type, or New-Order's intended rollback.
    rollbacks = sum(1 for s in log.sent if s.sql == CALLS["new_order"] and s.params[-1] == 1)
    assert rollbacks > 0
    assert counters[SLOT_ROLLBACK] == rollbacks
    assert counters[TX_INDEX["new_order"]] == by_tx["new_order"] - rollbacks
    assert sum(counters[TX_INDEX[k]] for k in TX_KEYS) + rollbacks == 2000
    assert counters[SLOT_ERRORS] == 0
    assert log.opened == log.closed == 1


def test_recorded_deadlock_victim_is_counted_and_not_retried() -> None:
    """HammerDB's drivers print a failed transaction's error and draw the next one: the
    sequence of calls is the same with and without the deadlock, so nothing was re-sent."""
    clean, _, _, _ = _run(50)
    log, counters, shared, _ = _run(50, {7: DEADLOCK, 20: DEADLOCK})
    assert [(s.sql, s.params) for s in log.sent] == [(s.sql, s.params) for s in clean.sent]
    assert counters[SLOT_ERRORS] == 2
    _hists, _sums, errors = shared.take()
    assert errors == {"deadlock_detected": 2}
    assert sum(counters[TX_INDEX[k]] for k in TX_KEYS) + counters[SLOT_ROLLBACK] == 48


def test_recorded_lost_connection_is_reopened() -> None:
    log, counters, shared, reopened = _run(6, {3: LINK_FAILURE})
    assert len(reopened) == 1  # one new connection, after a back-off
    assert log.opened == log.closed == 2
    _hists, _sums, errors = shared.take()
    assert errors == {"connection_lost": 1}
    assert sum(counters[TX_INDEX[k]] for k in TX_KEYS) + counters[SLOT_ROLLBACK] == 5
    # The step hears of it: the user lost its connection, then had it back.
    assert [(kind, vu) for kind, vu, _t in shared.take_notices()] == [("lost", 0), ("back", 0)]


def test_recorded_answer_without_the_documented_sets_is_an_error() -> None:
    flags = [0, 1]
    log = Log()
    calls = [0]

    def wrong(sql: str, params: Sequence[Any]) -> ResultSets:
        calls[0] += 1
        if calls[0] >= 3:
            flags[0] = 1
        return [[(1,)], [(2,)], [(3,)]]  # three sets: no procedure answers that

    counters = [0] * SLOTS
    shared = Counts(0, counters)
    vu.run_user(_spec(), 0, RecordingConnection(wrong, log), shared, flags, 5)
    assert counters[SLOT_ERRORS] == 3
    assert shared.take()[2] == {"unexpected_result": 3}


@pytest.mark.parametrize("kind", sorted(PROCEDURE_OF))
def test_each_call_escape_is_checked(kind: str) -> None:
    check_sent(CALLS[kind])
