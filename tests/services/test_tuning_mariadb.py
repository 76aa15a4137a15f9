"""The tuning service and the target check on a MariaDB plan, against the private MariaDB of
the tests: the service picks the InnoDB tuner by the plan's kind, records the apply with its
snapshot and rolls it back; the Targets page's database check reaches MariaDB through ODBC
(locally and from an SSH target) and says whether the user may change variables."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from bench_gui.core.plan import plan_from_dict
from bench_gui.core.plan_model import Plan
from bench_gui.engines.mariadb.tuner import MariaDbTuner, check_mariadb
from bench_gui.engines.postgresql.tuner import PgTuner
from bench_gui.engines.tuning_terms import PresetError, TunedSetting
from bench_gui.remote.db_tuner import TuningError
from bench_gui.remote.host_access import LocalHost
from bench_gui.services import tuning
from bench_gui.services.targets import check_connection, database_check
from bench_gui.services.tuning_parts import Inputs
from bench_gui.store import SessionStore
from bench_gui.store.tuning_history import TuningHistory
from tests._fixtures.mariadb import PASSWORD, MariaDbServer


def show(server: MariaDbServer, name: str) -> str:
    return server.sql(f"SHOW GLOBAL VARIABLES LIKE '{name}'").split("\t")[1].strip()


@pytest.fixture
def plan_file(mariadb_server: MariaDbServer, tmp_path: Path) -> Path:
    path = tmp_path / "plan.toml"
    path.write_text(mariadb_server.plan_text("tpcc_svc", vus="2,40"))
    return path


@pytest.fixture
def store(tmp_path: Path) -> Any:
    with SessionStore(tmp_path / "sessions.db") as opened:
        yield opened


def plan_of(path: Path) -> Plan:
    return plan_from_dict(tomllib.loads(path.read_text()))


def test_the_service_dispatches_on_the_kind(plan_file: Path, tmp_path: Path) -> None:
    cnf = str(tmp_path / "x.cnf")
    conn = tuning.resolve_target(str(plan_file), config_file=cnf)
    assert isinstance(conn.tuner, MariaDbTuner)
    assert conn.engine == "mariadb"
    assert conn.planned_users == 40
    assert conn.tuner.config_file == cnf
    assert conn.host is not None  # 127.0.0.1: the option file is reachable here
    proposal = tuning.proposal_for(
        conn, "innodb", Inputs(ram_bytes=4 * 1024**3, server="dedicated")
    )
    # 40 + 4 + 10 = 54, raised to the servers' default 151 (issue 26: never lowered).
    assert proposal.values()["max_connections"] == "151"
    assert proposal.values()["innodb_buffer_pool_size"] == "2G"
    shared = tuning.proposal_for(conn, "innodb", Inputs(ram_bytes=4 * 1024**3))
    assert shared.values()["innodb_buffer_pool_size"] == "1G"  # not declared dedicated
    with pytest.raises(PresetError, match="use innodb"):
        tuning.proposal_for(conn, "pgtune")
    with pytest.raises(TuningError, match="--control .*systemctl:UNIT"):
        tuning.resolve_target(str(plan_file), control="pg_ctl")
    # PostgreSQL targets are as before; the option file is MariaDB's only.
    pg = plan_file.with_name("pg.toml")
    pg.write_text('[target]\nkind = "postgresql"\nhost = "127.0.0.1"\n')
    assert isinstance(tuning.resolve_target(str(pg)).tuner, PgTuner)
    with pytest.raises(TuningError, match="--config-file is for MariaDB"):
        tuning.resolve_target(str(pg), config_file=cnf)


def test_apply_and_rollback_are_recorded(
    mariadb_server: MariaDbServer, plan_file: Path, tmp_path: Path, store: SessionStore
) -> None:
    conn = tuning.resolve_target(str(plan_file), config_file=str(tmp_path / "x.cnf"))
    before = show(mariadb_server, "innodb_io_capacity")
    result, entry = tuning.apply_profile(
        store, conn, [TunedSetting("innodb_io_capacity", "1234", "test")], profile="by hand"
    )
    assert result.changed == ["innodb_io_capacity"]
    assert show(mariadb_server, "innodb_io_capacity") == "1234"
    assert entry is not None
    stored = TuningHistory(store).get(entry)
    assert stored is not None
    assert stored.snapshot is not None
    assert stored.snapshot["engine"] == "mariadb"
    assert stored.snapshot["values"] == {"innodb_io_capacity": before}
    assert stored.changes["innodb_io_capacity"] == {"from": before, "to": "1234", "rule": "test"}
    back, rid, undone = tuning.rollback_last(store, conn)
    assert undone.id == entry
    assert back.ok
    assert show(mariadb_server, "innodb_io_capacity") == before
    assert TuningHistory(store).get(entry).undone_by == rid  # type: ignore[union-attr]


def test_database_check_of_a_mariadb_plan(mariadb_server: MariaDbServer, plan_file: Path) -> None:
    check, skipped = database_check(plan_of(plan_file))
    assert skipped == ""
    assert check is not None
    assert check.kind == "mariadb"
    assert check.password == PASSWORD
    assert f"PORT={mariadb_server.port}" in check.conninfo
    assert PASSWORD not in check.conninfo
    ok, detail = check_mariadb(LocalHost(), check.conninfo, check.password, sys.executable)
    assert ok, detail
    assert detail.startswith("MariaDB 10.")
    assert "may change server variables" in detail
    ok, detail = check_mariadb(LocalHost(), check.conninfo, "wrong", sys.executable)
    assert not ok
    assert "Access denied for user 'bench'" in detail
    ok, detail = check_mariadb(LocalHost(), check.conninfo, PASSWORD, "/no/such/python")
    assert not ok
    assert detail.startswith("the check did not run")


def test_a_user_without_super_is_said_read_only(mariadb_server: MariaDbServer) -> None:
    mariadb_server.sql(
        "DROP USER IF EXISTS 'reader'@'%'; CREATE USER 'reader'@'%' IDENTIFIED BY 'rd-Pw-1';"
        " GRANT SELECT ON *.* TO 'reader'@'%'"
    )
    try:
        conninfo = f"SERVER=127.0.0.1;PORT={mariadb_server.port};UID=reader"
        ok, detail = check_mariadb(LocalHost(), conninfo, "rd-Pw-1", sys.executable)
        assert ok, detail
        assert "no SUPER privilege" in detail
    finally:
        mariadb_server.sql("DROP USER IF EXISTS 'reader'@'%'")


def test_the_target_check_over_ssh(
    sshd: Any, mariadb_server: MariaDbServer, plan_file: Path, tmp_path: Path
) -> None:
    sshd.trust()
    check, _ = database_check(plan_of(plan_file))
    assert check is not None
    target = sshd.target(python=sys.executable)
    report = check_connection(target, tmp_path / "known_hosts", database=check)
    assert report.database_ok, report.format()
    assert "the database answers from 127.0.0.1: MariaDB 10." in report.format()
    assert PASSWORD not in report.format()
