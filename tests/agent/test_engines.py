"""The agent's engine dispatch (:mod:`bench_gui.agent.engines`) and the ODBC connection strings
its MariaDB/MySQL engine builds (no password in any string that is echoed)."""

from __future__ import annotations

import pytest

from bench_gui.agent.__main__ import _public_config
from bench_gui.agent.engines import AgentEngine, open_engine
from bench_gui.engines.mariadb.shared import odbc
from bench_gui.engines.postgresql.agent.engine import PgEngine
from bench_gui.wire import odbc as wire_odbc
from bench_gui.wire.engine_errors import EngineError
from bench_gui.wire.run_config import RunConfig


def test_postgresql_is_the_pg_engine_and_satisfies_the_interface() -> None:
    engine: AgentEngine = open_engine("postgresql", "host=/x dbname=a", "host=/x", "a")
    assert isinstance(engine, PgEngine)
    assert engine.supports_template
    assert engine.template == "a_template"
    from bench_gui.engines.postgresql.agent.vu import worker_main

    assert engine.worker_main is worker_main


def test_mariadb_chooses_this_hosts_driver_once() -> None:
    engine = open_engine("mariadb", "SERVER=h;UID=u;DATABASE=x", "SERVER=h;UID=u", "tpcc")
    params = wire_odbc.parse(engine.conninfo)
    assert params["DATABASE"] == "tpcc"  # the run's database, whatever the string said
    assert "mariadb" in params["DRIVER"].lower()
    assert "DATABASE" not in wire_odbc.parse(engine.admin_conninfo)
    assert not engine.supports_template


def test_an_unknown_engine_names_the_known_ones() -> None:
    with pytest.raises(EngineError, match=r"does not know engine 'db2' \(it knows mariadb, mssql"):
        open_engine("db2", "", "", "tpcc")


def test_connection_strings_parse_and_quote_round_trip() -> None:
    params = {"DRIVER": "MariaDB Unicode", "PWD": "a;b}c", "UID": " x", "PORT": "3306"}
    text = wire_odbc.build(params)
    assert text == "DRIVER=MariaDB Unicode;PWD={a;b}}c};UID={ x};PORT=3306"
    assert wire_odbc.parse(text) == params


def test_the_password_comes_from_the_environment_at_connect_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BENCH_GUI_DB_PASSWORD", "s3cr;et")
    full = odbc.full_conninfo("DRIVER=X;SERVER=h;UID=u", "mariadb", ENABLE_LOCAL_INFILE="1")
    assert wire_odbc.parse(full) == {
        "DRIVER": "X",
        "SERVER": "h",
        "UID": "u",
        "PWD": "s3cr;et",
        "ENABLE_LOCAL_INFILE": "1",
    }


def test_echoed_configurations_never_hold_an_odbc_password() -> None:
    cfg = RunConfig(
        engine="mariadb",
        conninfo="DRIVER=X;SERVER=h;UID=u;PWD={p;w}",
        admin_conninfo="SERVER=h;Password=hunter2;UID=u",
    )
    public = _public_config(cfg)
    assert "p;w" not in str(public)
    assert "hunter2" not in str(public)
    assert public["conninfo"] == "DRIVER=X;SERVER=h;UID=u;PWD=***"


def test_a_missing_odbc_driver_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import pyodbc

    monkeypatch.setattr(pyodbc, "drivers", lambda: ["ODBC Driver 18 for SQL Server"])
    with pytest.raises(EngineError, match="no MariaDB or MySQL ODBC driver is installed"):
        odbc.installed_driver("mariadb")
