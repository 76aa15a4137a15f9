"""``BENCH_GUI_TEST_MSSQL``'s two forms, read as the live tests read them (these run always)."""

from __future__ import annotations

import pytest

from tests.engines.mssql.agent.live_server import SKIP_REASON, LiveServer, parse_live_server


def test_an_odbc_string_keeps_its_driver_and_gives_up_its_password() -> None:
    server = parse_live_server(
        "DRIVER={ODBC Driver 18 for SQL Server};SERVER=tcp:db,1433;UID=sa;PWD={p;w};"
        "DATABASE=x;Encrypt=yes"
    )
    assert server == LiveServer(
        "DRIVER={ODBC Driver 18 for SQL Server};SERVER=tcp:db,1433;UID=sa;ENCRYPT=yes", "p;w"
    )
    assert server.on("tpcc").endswith(";DATABASE=tpcc")


def test_an_odbc_string_without_pwd_takes_the_password_variable() -> None:
    server = parse_live_server("DSN=lab;UID=sa", password="from-env")
    assert server == LiveServer("DSN=lab;UID=sa", "from-env")


def test_host_port_user_password() -> None:
    server = parse_live_server("db1:14330,sa,Pw,with,commas")
    assert server == LiveServer(
        "SERVER=db1;PORT=14330;UID=sa;ENCRYPT=yes;TRUSTSERVERCERTIFICATE=yes", "Pw,with,commas"
    )
    assert parse_live_server("db1,sa,x").conninfo.startswith("SERVER=db1;PORT=1433;")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "is empty"),
        ("db1:1433,sa", "host:port,user,password, got 2"),
        ("db1:14x3,sa,pw", "port '14x3'"),
        ("UID=sa;PWD=x", "neither SERVER nor DSN"),
    ],
)
def test_a_bad_value_names_the_variable(value: str, message: str) -> None:
    with pytest.raises(ValueError, match=f"BENCH_GUI_TEST_MSSQL.*{message}|{message}"):
        parse_live_server(value)


def test_the_skip_reason_names_the_variable() -> None:
    assert SKIP_REASON.startswith("no SQL Server: BENCH_GUI_TEST_MSSQL is not set")
