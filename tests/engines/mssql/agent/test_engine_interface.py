"""The SQL Server engine behind the agent's engine interface: dispatch, the members of
:class:`~bench_gui.agent.engines.AgentEngine` (checked on every engine alike), and the
connection strings it finishes for this host's driver (no password in any of them)."""

from __future__ import annotations

import inspect
from typing import Any

import pyodbc
import pytest

from bench_gui.agent.engines import AGENT_ENGINES, AgentEngine, open_engine
from bench_gui.engines.mariadb.agent.engine import MariaDbEngine, MySqlEngine
from bench_gui.engines.mssql.agent.engine import MssqlEngine
from bench_gui.engines.mssql.shared.connect import installed_driver, resolve_conninfo
from bench_gui.engines.postgresql.agent.engine import PgEngine
from bench_gui.wire.engine_errors import EngineError

DRIVER18 = "ODBC Driver 18 for SQL Server"
CONNINFO = "DRIVER={ODBC Driver 18 for SQL Server};SERVER=tcp:db1,1433;UID=sa;Encrypt=yes"


def _protocol_members() -> dict[str, Any]:
    """What AgentEngine declares: its attributes and its methods (with their signatures)."""
    members: dict[str, Any] = {name: None for name in AgentEngine.__annotations__}
    for name, value in vars(AgentEngine).items():
        if name.startswith("_"):
            continue
        if isinstance(value, property) or inspect.isfunction(value):
            members[name] = value
    return members


ENGINES = {
    "postgresql": ("host=/nowhere dbname=tpcc", "host=/nowhere dbname=postgres"),
    "mariadb": ("SERVER=db1;UID=u", "SERVER=db1;UID=u"),
    "mysql": ("SERVER=db1;UID=u", "SERVER=db1;UID=u"),
    "mssql": (CONNINFO, CONNINFO),
}
CLASSES = {"postgresql": PgEngine, "mariadb": MariaDbEngine, "mysql": MySqlEngine}


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_every_engine_has_every_member_of_the_interface(name: str) -> None:
    """The same check on each engine the agent dispatches to (built, never connected)."""
    engine = open_engine(name, *ENGINES[name], "tpcc")
    assert isinstance(engine, CLASSES.get(name, MssqlEngine))
    members = _protocol_members()
    assert {"build", "counter_reader", "worker_main", "conninfo", "template"} <= set(members)
    for member, declared in members.items():
        assert hasattr(engine, member), f"{name}: no {member}"
        if declared is None or isinstance(declared, property):
            continue
        want = list(inspect.signature(declared).parameters)[1:]  # without self
        have = list(inspect.signature(getattr(engine, member)).parameters)
        assert have == want, f"{name}.{member}{have}, the interface says {want}"
    assert callable(engine.worker_main)
    assert engine.database == "tpcc"


def test_mssql_is_dispatched_to_its_engine() -> None:
    assert AGENT_ENGINES["mssql"] == "bench_gui.engines.mssql.agent.engine:MssqlEngine"
    engine: AgentEngine = open_engine("mssql", CONNINFO, CONNINFO + ";DATABASE=master", "tpcc")
    assert isinstance(engine, MssqlEngine)
    assert engine.name == "mssql"
    assert not engine.supports_template
    assert engine.template == ""
    from bench_gui.engines.mssql.agent.vu import worker_main

    assert engine.worker_main is worker_main
    assert engine.conninfo.endswith(";DATABASE=tpcc")
    assert engine.admin_conninfo.endswith(";DATABASE=master")
    with pytest.raises(EngineError, match="keeps no template"):
        engine.make_template()


def test_no_sql_server_driver_on_this_host_is_one_clear_error() -> None:
    """This machine has MariaDB's driver only (a real pyodbc.drivers())."""
    drivers = pyodbc.drivers()
    assert not any("sql server" in d.lower() or "freetds" in d.lower() for d in drivers)
    with pytest.raises(EngineError, match=r"no SQL Server ODBC driver is installed on this host"):
        open_engine("mssql", "SERVER=db1;PORT=1433;UID=sa", "SERVER=db1;UID=sa", "tpcc")
    assert installed_driver(["FreeTDS", DRIVER18, "MariaDB Unicode"]) == DRIVER18
    assert installed_driver(["FreeTDS", "MariaDB Unicode"]) == "FreeTDS"


def test_a_bad_database_name_is_an_engine_error() -> None:
    with pytest.raises(EngineError, match="database: not a valid SQL Server name"):
        open_engine("mssql", CONNINFO, CONNINFO, "x" * 129)


def test_neutral_strings_are_finished_for_the_chosen_driver() -> None:
    neutral = "SERVER=db1;PORT=14330;UID=sa;DATABASE=master"
    assert resolve_conninfo(neutral, "tpcc", DRIVER18) == (
        "DRIVER={ODBC Driver 18 for SQL Server};SERVER=tcp:db1,14330;DATABASE=tpcc;UID=sa;"
        "Encrypt=yes;TrustServerCertificate=no;APP=bench_gui;LoginTimeout=10"
    )
    lab = neutral + ";ENCRYPT=yes;TRUSTSERVERCERTIFICATE=yes"
    assert resolve_conninfo(lab, None, "FreeTDS") == (
        "DRIVER={FreeTDS};SERVER=db1;PORT=14330;TDS_Version=7.4;DATABASE=master;UID=sa;"
        "Encryption=require"
    )
    windows = resolve_conninfo("SERVER=db1;AUTHENTICATION=windows", None, DRIVER18)
    assert "Trusted_Connection=yes" in windows
    assert "UID" not in windows
    entra = resolve_conninfo(neutral + ";AUTHENTICATION=entra_password", None, DRIVER18)
    assert entra.endswith(";Authentication=ActiveDirectoryPassword")
    assert ";UID=sa;" in entra
    integrated = resolve_conninfo("SERVER=db1;AUTHENTICATION=entra_integrated", None, DRIVER18)
    assert integrated.endswith(";Authentication=ActiveDirectoryIntegrated")
    assert "Trusted_Connection" not in integrated
    assert "UID" not in integrated


@pytest.mark.parametrize(
    ("conninfo", "driver", "message"),
    [
        ("SERVER=db1;UID=sa", "FreeTDS", r"set target\.tls to 'on'"),
        ("SERVER=db1;UID=sa;ENCRYPT=yes", "FreeTDS", r"set target\.tls to 'on'"),
        ("SERVER=db1;UID=sa;PWD=secret", DRIVER18, "holds a password"),
        ("SERVER=db1;PORT=14x;UID=sa", DRIVER18, "PORT '14x' in the connection string"),
        ("SERVER=db1;UID=sa;AUTHENTICATION=kerberos", DRIVER18, "authentication 'kerberos'"),
        ("SERVER=db1;UID=sa;ENCRYPT=maybe", DRIVER18, "encrypt 'maybe'"),
        ("SERVER=db1", DRIVER18, "user is empty"),
        (
            "SERVER=db1;UID=u;ENCRYPT=yes;AUTHENTICATION=entra_password",
            "FreeTDS",
            "needs Microsoft's ODBC driver",
        ),
    ],
)
def test_strings_that_cannot_work_say_why(conninfo: str, driver: str, message: str) -> None:
    with pytest.raises(EngineError, match=message) as info:
        resolve_conninfo(conninfo, "tpcc", driver)
    assert "secret" not in str(info.value)


def test_a_finished_string_keeps_its_driver_and_changes_only_the_database() -> None:
    text = resolve_conninfo(CONNINFO + ";DATABASE=master", "tpcc")
    assert text == (
        "DRIVER={ODBC Driver 18 for SQL Server};SERVER=tcp:db1,1433;UID=sa;ENCRYPT=yes;"
        "DATABASE=tpcc"
    )
    assert resolve_conninfo("DSN=lab;UID=sa", None) == "DSN=lab;UID=sa"


def test_the_agent_process_dispatches_to_mssql_and_says_what_is_missing(tmp_path: Any) -> None:
    """The real agent, asked for a SQL Server run on this host (which has no SQL Server
    driver): one fatal error naming the drivers it has, no traceback."""
    import json
    import subprocess
    import sys

    config = {
        "action": "status",
        "engine": "mssql",
        "conninfo": "SERVER=db1;PORT=1433;UID=sa",
        "admin_conninfo": "SERVER=db1;PORT=1433;UID=sa",
        "database": "tpcc",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "bench_gui.agent", "--lock-dir", str(tmp_path)],
        input=json.dumps(config),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    assert proc.returncode == 2, proc.stderr
    assert [e["kind"] for e in events] == ["error", "done"]
    assert events[0]["message"].startswith("no SQL Server ODBC driver is installed on this host")
    assert "Traceback" not in proc.stderr
