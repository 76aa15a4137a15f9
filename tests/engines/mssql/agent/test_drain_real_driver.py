"""draining result sets and connecting with the password outside the string, through a real
ODBC driver.

No SQL Server can run here; the session's MariaDB (tests/_fixtures/mariadb.py) behind its
Connector/ODBC stands in for the parts that do not depend on the server's SQL: pyodbc's
``nextset()`` over several result sets (MariaDB adds a final set without columns after a CALL,
as SQL Server adds row-count results when NOCOUNT is off), an error raised after the first set,
and :func:`bench_gui.engines.mssql.shared.connect.connect` adding the password at connect time.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pyodbc
import pytest

from bench_gui.engines.mssql.agent.transactions import drain
from bench_gui.engines.mssql.shared.connect import PASSWORD_ENV, connect
from bench_gui.wire.engine_errors import EngineError
from tests._fixtures.mariadb import PASSWORD, MariaDbServer

DATABASE = "mssql_drain"


def _driver() -> str:
    return next(d for d in pyodbc.drivers() if "mariadb" in d.lower())


@pytest.fixture(scope="module")
def conninfo(mariadb_server: MariaDbServer) -> str:
    mariadb_server.sql(f"DROP DATABASE IF EXISTS {DATABASE}")
    mariadb_server.sql(f"CREATE DATABASE {DATABASE}")
    text = f"DRIVER={{{_driver()}}};{mariadb_server.conninfo(DATABASE)}"
    conn = connect(text, password=PASSWORD)
    try:
        cur = conn.cursor()
        cur.execute(
            "CREATE PROCEDURE two_sets() BEGIN SELECT 1 AS a; SELECT 2 AS b UNION ALL SELECT 3; END"
        )
        cur.execute(
            "CREATE PROCEDURE set_then_error() BEGIN SELECT 1 AS a; SIGNAL SQLSTATE '45000'"
            " SET MESSAGE_TEXT = 'customer not found: after the set'; END"
        )
    finally:
        conn.close()
    return text


@pytest.fixture
def cursor(conninfo: str) -> Iterator[Any]:
    conn = connect(conninfo, password=PASSWORD)
    try:
        yield conn.cursor()
    finally:
        conn.close()


def test_drain_reads_every_result_set(cursor: Any) -> None:
    cursor.execute("{CALL two_sets()}")
    assert drain(cursor) == [[(1,)], [(2,), (3,)]]
    # The statement is finished: the cursor takes the next one at once.
    cursor.execute("SELECT 4")
    assert drain(cursor) == [[(4,)]]


def test_error_after_a_result_set_surfaces_while_draining(cursor: Any) -> None:
    cursor.execute("{CALL set_then_error()}")  # the first set arrives without error
    with pytest.raises(pyodbc.Error, match="customer not found: after the set"):
        drain(cursor)


def test_password_from_the_environment_only(conninfo: str) -> None:
    assert "PWD" not in conninfo.upper()
    conn = connect(conninfo, env={PASSWORD_ENV: PASSWORD})
    conn.close()
    with pytest.raises(EngineError, match="cannot connect") as info:
        connect(conninfo, env={PASSWORD_ENV: "wrong-Pw-9"})
    assert "wrong-Pw-9" not in str(info.value)
