"""The SQL Server engine plugin, found through the ``bench_gui.engines`` entry point: the plan's
target as the connection string the agent gets (never a password), each field mapped, and
what the plugin says of itself (its ODBC drivers, not verified against a live server)."""

from __future__ import annotations

import pytest

from bench_gui.core.engine import Engine, get_engine
from bench_gui.core.plan import plan_from_toml
from bench_gui.core.plan_model import Target
from bench_gui.engines.mssql.connection import ConnectionSettingError, MssqlEngine
from bench_gui.engines.mssql.shared.connect import resolve_conninfo
from bench_gui.wire.names import DB_PASSWORD_ENV
from bench_gui.wire.odbc import parse

DRIVER18 = "ODBC Driver 18 for SQL Server"


def _target(**fields: object) -> Target:
    return Target(kind="mssql", host="db1", port=1433, user="sa", **fields)  # type: ignore[arg-type]


def test_the_entry_point_gives_the_sql_server_engine() -> None:
    engine = get_engine("mssql")
    assert isinstance(engine, MssqlEngine)
    assert isinstance(engine, Engine)
    assert (engine.label, engine.default_port, engine.password_env) == (
        "SQL Server",
        1433,
        DB_PASSWORD_ENV,
    )
    assert engine.verified_live is False
    assert "sqlglot's T-SQL dialect" in engine.verified_how
    assert engine.odbc_drivers[0] == DRIVER18


def test_without_a_driver_the_string_is_neutral_and_the_agent_finishes_it() -> None:
    text = MssqlEngine().conninfo(_target(tls="on"), "tpcc")
    assert (
        text == "SERVER=db1;PORT=1433;UID=sa;DATABASE=tpcc;ENCRYPT=yes;TRUSTSERVERCERTIFICATE=yes"
    )
    # What the driver host makes of it, with Microsoft's driver or FreeTDS.
    assert resolve_conninfo(text, "tpcc", DRIVER18).startswith(
        "DRIVER={ODBC Driver 18 for SQL Server};SERVER=tcp:db1,1433;DATABASE=tpcc;UID=sa;"
        "Encrypt=yes;TrustServerCertificate=yes"
    )
    assert "Encryption=require" in resolve_conninfo(text, "tpcc", "FreeTDS")


@pytest.mark.parametrize(
    ("tls", "encrypt", "trust"),
    [("", "yes", "no"), ("off", "no", "no"), ("on", "yes", "yes"), ("verify", "yes", "no")],
)
def test_a_named_driver_gets_a_finished_string_for_each_tls_mode(
    tls: str, encrypt: str, trust: str
) -> None:
    text = MssqlEngine().conninfo(_target(odbc_driver=DRIVER18, tls=tls), "tpcc")
    params = parse(text)
    assert (params["DRIVER"], params["SERVER"], params["DATABASE"]) == (
        DRIVER18,
        "tcp:db1,1433",
        "tpcc",
    )
    assert (params["ENCRYPT"], params["TRUSTSERVERCERTIFICATE"]) == (encrypt, trust)
    assert "PWD" not in params


def test_freetds_spells_server_port_and_encryption_its_way() -> None:
    text = MssqlEngine().conninfo(_target(odbc_driver="FreeTDS", tls="on"), "tpcc")
    assert text == (
        "DRIVER={FreeTDS};SERVER=db1;PORT=1433;TDS_Version=7.4;DATABASE=tpcc;UID=sa;"
        "Encryption=require"
    )
    with pytest.raises(ConnectionSettingError, match=r"target: .*set target\.tls to 'on'"):
        MssqlEngine().conninfo(_target(odbc_driver="FreeTDS"), "tpcc")


def test_authentication_modes() -> None:
    engine = MssqlEngine()
    windows = parse(engine.conninfo(_target(odbc_driver=DRIVER18, authentication="windows"), "x"))
    assert windows["TRUSTED_CONNECTION"] == "yes"
    assert "UID" not in windows
    entra = parse(
        engine.conninfo(_target(odbc_driver=DRIVER18, authentication="entra_password"), "x")
    )
    assert (entra["AUTHENTICATION"], entra["UID"]) == ("ActiveDirectoryPassword", "sa")
    dsn = engine.conninfo(_target(dsn="lab", authentication="windows", tls="verify"), "x")
    assert dsn == "DSN=lab;DATABASE=x;ENCRYPT=yes;TRUSTSERVERCERTIFICATE=no;Trusted_Connection=yes"
    sql_login = engine.conninfo(_target(dsn="lab", authentication="sql"), "x")
    assert sql_login == "DSN=lab;UID=sa;DATABASE=x"


def test_a_plan_for_sql_server_turns_into_the_agents_strings() -> None:
    plan = plan_from_toml(
        '[target]\nkind = "mssql"\nhost = "db1"\nodbc_driver = "ODBC Driver 18 for SQL Server"\n'
        'tls = "on"\n'
    )
    engine = get_engine("mssql")
    text = engine.conninfo(plan.target, plan.target.database)
    admin = engine.conninfo(plan.target, plan.target.admin_database)
    assert parse(text)["DATABASE"] == "tpcc"
    assert parse(admin)["DATABASE"] == "master"
    assert parse(text)["UID"] == "sa"
