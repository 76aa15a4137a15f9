"""ODBC users (MariaDB, SQL Server) that find the server away as their step starts: they start
without a connection and open one with back-off, and the step hears of it; a connection that
can never work (a wrong password) still fails the step at once."""

from __future__ import annotations

import multiprocessing as mp
import signal
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pyodbc
import pytest

from bench_gui.agent import odbc_users
from bench_gui.agent.users import SLOT_ERRORS, SLOTS, WorkerSpec
from bench_gui.engines.mariadb.agent import vu as mysql_vu
from bench_gui.engines.mssql.agent import vu as mssql_vu
from bench_gui.wire.engine_errors import EngineError
from tests._fixtures.mariadb import PASSWORD, PASSWORD_ENV, MariaDbServer
from tests._fixtures.ssh import free_port
from tests.engines.mssql.agent.recording import Log, RecordingConnection
from tests.engines.mssql.agent.sent_check import answer_call
from tests.engines.mssql.agent.test_vu_recorded import LINK_FAILURE, _spec


@pytest.fixture
def signals_kept() -> Iterator[None]:
    """worker_main ignores SIGINT and SIGTERM (its parent decides): put them back after."""
    kept = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    yield
    for sig, handler in kept.items():
        signal.signal(sig, handler)


def test_users_that_find_the_server_away_start_lost_and_connect_later(
    signals_kept: None,
) -> None:
    """Recorded statements (no SQL Server here): the first connect fails with a link failure,
    so both users start without a connection; they connect after their back-off and run."""
    flags: Any = [0, 1]
    log = Log()
    calls = 0
    attempts: list[int] = []

    def answer(sql: str, params: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls >= 40 and len(attempts) == 3:  # both users connected: enough
            flags[0] = 1
        return answer_call(sql, params)

    def opener() -> RecordingConnection:
        attempts.append(1)
        if len(attempts) == 1:
            raise pyodbc.Error(*LINK_FAILURE)
        return RecordingConnection(answer, log)

    spec = replace(_spec(), vus=[0, 1], total_vus=2)
    reader, writer = mp.Pipe(duplex=False)
    odbc_users.worker_main(
        spec, [0] * SLOTS, flags, writer, lambda s: mssql_vu.user_calls(s, opener)
    )
    messages = []
    while reader.poll(0):
        messages.append(reader.recv())
    assert messages[0] == ("ready", 2)
    lost = sorted(m[1] for m in messages if m[0] == "lost")
    back = sorted(m[1] for m in messages if m[0] == "back")
    assert (lost, back) == ([0, 1], [0, 1])
    assert len(attempts) == 3  # one failed, then one each: the second user did not wait on it
    assert calls >= 40
    assert messages[-1] == ("bye", None)


def test_mariadb_names_a_refused_connect_away_and_a_wrong_password_not(
    mariadb_server: MariaDbServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real Connector/ODBC's errors: nothing listening is "away for now"; a wrong password
    is not, and fails the worker at once with the driver's message."""
    monkeypatch.setenv(PASSWORD_ENV, PASSWORD)
    nobody = WorkerSpec(
        worker=0,
        conninfo=f"SERVER=127.0.0.1;PORT={free_port()};UID=bench;DATABASE=x",
        vus=[0],
        total_vus=1,
        warehouses=1,
        all_warehouses=False,
        keying_thinking=False,
        seed=1,
    )
    calls = mysql_vu.user_calls(nobody)
    with pytest.raises(EngineError) as refused:
        calls.connect()
    assert odbc_users._server_away(calls, refused.value), refused.value

    monkeypatch.setenv(PASSWORD_ENV, "not-the-password")
    wrong = replace(nobody, conninfo=mariadb_server.conninfo("mysql"))
    calls = mysql_vu.user_calls(wrong)
    with pytest.raises(EngineError) as denied:
        calls.connect()
    assert not odbc_users._server_away(calls, denied.value), denied.value


def test_a_failure_drawing_parameters_is_a_counted_error_not_a_silent_end() -> None:
    """The third draw raises: the user reports it through the counts, as any user error, and
    goes on drawing its next transaction until the stop flag (it used to end its thread
    silently: the draw ran outside the ``try``)."""
    flags = [0]
    draws = [0]
    calls_made = [0]

    def draw(_params: Any, tx: str, _w: int, _d: int) -> str:
        draws[0] += 1
        if draws[0] == 3:
            raise ValueError("no item list")
        return tx

    def call(_cursor: Any, _tx: str, _drawn: Any) -> bool:
        calls_made[0] += 1
        if calls_made[0] >= 9:
            flags[0] = 1
        return False

    class Params:
        def __init__(self, seed: int) -> None:
            import random

            self.rng = random.Random(seed)

    class Conn:
        def close(self) -> None:
            pass

    calls = odbc_users.UserCalls(
        connect=Conn,
        params=Params,
        draw=draw,
        call=call,
        failure=lambda exc: type(exc).__name__,
        cursor=lambda _conn: object(),
    )
    counters = [0] * SLOTS
    counts = odbc_users.Counts(0, counters)
    odbc_users.run_user(_spec(), 0, Conn(), counts, flags, 7, calls)
    assert draws[0] == 10
    assert calls_made[0] == 9
    assert counts.take()[2] == {"ValueError": 1}
    assert counters[SLOT_ERRORS] == 1
