"""The Targets page's and ``bench-gui targets test``'s database check is the plan's engine
kit's (its ``database_check`` face), over a real sshd: PostgreSQL's probe for a PostgreSQL
target, and for SQL Server (no server here) a note that says it was not checked, instead of
PostgreSQL's probe being handed an ODBC string as before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench_gui.engines.registry import kits
from bench_gui.services.targets import DatabaseCheck, check_connection


def test_every_kit_checks_its_own_databases() -> None:
    for kit in kits():
        assert callable(kit.face("database_check")), kit.name


def test_a_postgresql_target_is_checked_by_its_kit(
    sshd: Any, pg_server: Any, tmp_path: Path
) -> None:
    sshd.trust()
    target = sshd.target()
    good = check_connection(
        target,
        tmp_path / "known_hosts",
        database=DatabaseCheck(pg_server.uri(), None, "postgresql"),
    )
    assert good.ok, good.format()
    assert good.database_ok is True
    assert "ok: the database answers from 127.0.0.1" in good.format()
    nobody = DatabaseCheck(f"host=127.0.0.1 port={sshd.free_port()} user=x", None, "postgresql")
    bad = check_connection(target, tmp_path / "known_hosts", database=nobody)
    assert bad.database_ok is False
    assert "PROBLEM: the database is not reachable from 127.0.0.1" in bad.format()


def test_a_sql_server_target_says_it_was_not_checked(sshd: Any, tmp_path: Path) -> None:
    sshd.trust()
    check = DatabaseCheck(
        "DRIVER={ODBC Driver 18 for SQL Server};SERVER=127.0.0.1,1433;UID=sa", "Pw-1", "mssql"
    )
    report = check_connection(sshd.target(), tmp_path / "known_hosts", database=check)
    assert report.connected
    assert report.database_ok is None
    assert not any("database" in line for line in report.problems), report.format()
    assert "note: the database was not checked from the target: SQL Server's" in report.format()
    assert "Pw-1" not in report.format()
