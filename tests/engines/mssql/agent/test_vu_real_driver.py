"""The SQL Server users' worker process through a real ODBC driver: spawned as the sweep spawns
it, connected with the password from the environment, speaking the pipe protocol, counting.

No SQL Server can run here; the session's MariaDB (tests/_fixtures/mariadb.py) behind its
Connector/ODBC stands in for the transport only. Its database ``dbo`` holds five procedures
named like the T-SQL ones that answer the documented result sets (with none of the TPROC-C
work), so ``{CALL dbo.neword (?, ...)}`` reaches a real server through a real driver: the
process, the connections, draining, New-Order's rollback counted apart, the ticks and the
goodbye are real; the T-SQL is not run (see test_engine_recorded.py and test_live_engine.py).
"""

from __future__ import annotations

import multiprocessing as mp
from typing import Any

import pyodbc
import pytest

from bench_gui.agent.users import SLOT_ERRORS, SLOT_ROLLBACK, SLOTS, TX_INDEX, WorkerSpec
from bench_gui.engines.mssql.agent.vu import worker_main
from bench_gui.engines.mssql.shared.connect import connect
from tests._fixtures.mariadb import PASSWORD, PASSWORD_ENV, MariaDbServer
from tests._fixtures.wait import wait_until

STAND_INS = (
    "CREATE PROCEDURE neword(w INT, mw INT, d INT, c INT, n INT, rbk INT) BEGIN"
    " SELECT IF(rbk = 1, 0, 1) AS committed, IF(rbk = 1, NULL, 3001) AS o_id, n AS ol_cnt,"
    " 1.5 AS total_amount, 'BAR' AS c_last, 'GC' AS c_credit, 0.1 AS c_discount,"
    " 0.1 AS w_tax, 0.1 AS d_tax; END",
    "CREATE PROCEDURE payment(w INT, d INT, cw INT, cd INT, c INT, byname INT,"
    " amount DECIMAL(6,2), last VARCHAR(16)) BEGIN"
    " SELECT c, 'f', 'OE', last, -amount, 'GC', 0.1, 'w', 'd', amount; END",
    "CREATE PROCEDURE ostat(w INT, d INT, c INT, byname INT, last VARCHAR(16)) BEGIN"
    " SELECT c, 'f', 'OE', last, 1.0, 12, NULL, 3;"
    " SELECT 1, w, 5, 1.0, NULL UNION ALL SELECT 2, w, 5, 1.0, NULL; END",
    "CREATE PROCEDURE delivery(w INT, carrier INT) BEGIN SELECT 10 AS delivered; END",
    "CREATE PROCEDURE slev(w INT, d INT, threshold INT) BEGIN SELECT 3 AS low_stock; END",
)


@pytest.fixture(scope="module")
def conninfo(mariadb_server: MariaDbServer) -> str:
    mariadb_server.sql("DROP DATABASE IF EXISTS dbo")
    mariadb_server.sql("CREATE DATABASE dbo")
    driver = next(d for d in pyodbc.drivers() if "mariadb" in d.lower())
    text = f"DRIVER={{{driver}}};{mariadb_server.conninfo('dbo')}"
    conn = connect(text, password=PASSWORD)
    try:
        for statement in STAND_INS:
            conn.cursor().execute(statement)
    finally:
        conn.close()
    return text


def _spec(conninfo: str, vus: int) -> WorkerSpec:
    return WorkerSpec(
        worker=0,
        conninfo=conninfo,
        vus=list(range(vus)),
        total_vus=vus,
        warehouses=2,
        all_warehouses=False,
        keying_thinking=False,
        seed=9,
    )


def test_worker_process_runs_users_through_a_real_driver(
    conninfo: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PASSWORD_ENV, PASSWORD)  # the spawned process inherits it
    ctx = mp.get_context("spawn")
    counters: Any = ctx.RawArray("q", SLOTS)
    flags: Any = ctx.RawArray("b", 2)
    reader, writer = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=worker_main, args=(_spec(conninfo, 2), counters, flags, writer))
    proc.start()
    writer.close()
    messages: list[Any] = []
    try:
        assert reader.poll(60), "the worker said nothing"
        first = reader.recv()
        assert first == ("ready", 2), first
        flags[1] = 1  # measuring
        # Enough calls that New-Order's 1% rollback has come up.
        wait_until(lambda: counters[SLOT_ROLLBACK] >= 2, timeout=120)
    finally:
        flags[0] = 1
        while True:
            assert reader.poll(60), "no goodbye from the worker"
            message = reader.recv()
            messages.append(message)
            if message[0] == "bye":
                break
        proc.join(60)
    assert proc.exitcode == 0
    assert counters[SLOT_ERRORS] == 0, [m for m in messages if m[0] == "tick"]
    assert all(counters[TX_INDEX[k]] > 0 for k in TX_INDEX)
    ticks = [m for m in messages if m[0] == "tick"]
    measured = [m for m in ticks if m[4]]
    assert measured, "no tick of the measuring window"
    latencies = sum(sum(m[2].values()) for m in measured)
    assert latencies > 0


def test_worker_without_the_password_reports_the_connect_error(
    conninfo: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PASSWORD_ENV, "not-the-password")
    ctx = mp.get_context("spawn")
    counters: Any = ctx.RawArray("q", SLOTS)
    flags: Any = ctx.RawArray("b", 2)
    reader, writer = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=worker_main, args=(_spec(conninfo, 1), counters, flags, writer))
    proc.start()
    writer.close()
    assert reader.poll(60)
    kind, text = reader.recv()
    proc.join(60)
    assert kind == "error"
    assert text.startswith("virtual user 1: cannot connect to SQL Server:")
    assert "not-the-password" not in text
