"""The InnoDB tuner against the private MariaDB of the tests (tests/_fixtures/mariadb.py).

The option file goes into the private server's own folder (never /etc/mysql). Every test that
changes the server rolls it back, and checks that the rollback restored it: the server is
shared by the session.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench_gui.engines.mariadb.innodb import DbVersion, InnoDbInput, calculate
from bench_gui.engines.mariadb.option_file import parse_cnf
from bench_gui.engines.mariadb.tuner import (
    MariaDbSnapshot,
    MariaDbTuner,
    global_privileges,
    parse_service_control,
)
from bench_gui.engines.tuning_terms import TunedSetting
from bench_gui.remote.db_tuner import NotEnoughPrivileges, RejectedSettings, TuningError
from bench_gui.remote.host_access import LocalHost
from tests._fixtures.mariadb import PASSWORD, MariaDbServer

MIB = 1024**2


def tuner(server: MariaDbServer, config: Path | None, **kw: object) -> MariaDbTuner:
    return MariaDbTuner(
        server.conninfo(),
        "mariadb",
        password=PASSWORD,
        host=LocalHost() if config is not None else None,
        config_file=str(config) if config is not None else "",
        **kw,  # type: ignore[arg-type]
    )


def show(server: MariaDbServer, name: str) -> str:
    return server.sql(f"SHOW GLOBAL VARIABLES LIKE '{name}'").split("\t")[1].strip()


@pytest.fixture
def config(mariadb_server: MariaDbServer, tmp_path: Path) -> Path:
    folder = tmp_path / "conf.d"
    folder.mkdir()
    return folder / "99-bench-gui.cnf"


def test_facts_and_diff_of_a_real_proposal(mariadb_server: MariaDbServer, config: Path) -> None:
    t = tuner(mariadb_server, config)
    facts = t.facts()
    assert facts["flavour"] == "mariadb"
    assert "MariaDB" in facts["server"]
    assert "ALL PRIVILEGES" in facts["privileges"]
    version = DbVersion.parse(facts["version"])
    proposal = calculate(
        InnoDbInput(2 * 1024**3, cpus=4, connections=32, storage="nvme", version=version,
                    server="dedicated")
    )  # fmt: skip
    rows = {r.name: r for r in t.diff(proposal)}
    assert set(rows) == set(proposal.names())
    # The fixture started the server with a 256M pool and 300 connections.
    pool = rows["innodb_buffer_pool_size"]
    assert (pool.current, pool.proposed, pool.action) == ("256M", "1G", "reload")
    # 32 + 4 + 10 = 46, raised to 151, and the server's 300 is never lowered (issue 26).
    connections = rows["max_connections"]
    assert (connections.current, connections.proposed, connections.action) == ("300", "300", "same")
    assert "the server's 300 is kept" in connections.rule
    assert rows["innodb_io_capacity"].action == "reload"
    # MariaDB 10.11 reads innodb_flush_method only at start.
    assert rows["innodb_flush_method"].context == "static"
    assert rows["innodb_flush_log_at_trx_commit"].action == "same"
    assert not config.exists()  # a diff changes nothing


def test_apply_then_rollback_restores_exactly(mariadb_server: MariaDbServer, config: Path) -> None:
    config.write_text("[mysqld]\n# kept by hand\nmax_allowed_packet = 64M\n")
    before_text = config.read_text()
    t = tuner(mariadb_server, config)
    before = {n: show(mariadb_server, n) for n in ("innodb_io_capacity", "innodb_io_capacity_max",
                                                    "innodb_buffer_pool_size")}  # fmt: skip
    items = [
        TunedSetting("innodb_io_capacity_max", "20000", "nvme"),
        TunedSetting("innodb_io_capacity", "10000", "nvme"),
        TunedSetting("innodb_buffer_pool_size", "384M", "by hand"),
        TunedSetting("innodb_flush_method", "fsync", "static, for the test"),
    ]
    result = t.apply(items)
    assert sorted(result.changed) == sorted(i.name for i in items)
    assert result.pending_restart == ["innodb_flush_method"]
    assert result.ok, result.mismatches
    assert show(mariadb_server, "innodb_io_capacity") == "10000"
    assert show(mariadb_server, "innodb_io_capacity_max") == "20000"
    assert show(mariadb_server, "innodb_buffer_pool_size") == str(384 * MIB)
    written = parse_cnf(config.read_text())
    assert written["innodb_flush_method"] == "fsync"
    assert written["innodb_buffer_pool_size"] == "384M"
    assert written["max_allowed_packet"] == "64M"  # what was there stays
    assert "Restart" not in result.summary()
    assert "restart needed for innodb_flush_method" in (result.summary())

    assert result.snapshot is not None
    snapshot = MariaDbSnapshot.from_dict(result.snapshot.to_dict())  # as the history keeps it
    back = t.rollback(snapshot)
    assert back.ok, back.mismatches
    assert config.read_text() == before_text
    assert back.auto_conf_restored is True
    for name, value in before.items():
        assert show(mariadb_server, name) == value


def test_rollback_removes_a_file_that_was_not_there(
    mariadb_server: MariaDbServer, config: Path
) -> None:
    t = tuner(mariadb_server, config)
    before = show(mariadb_server, "max_connections")
    # Typed by hand ("user"): taken as is, even below the server's value.
    result = t.apply([TunedSetting("max_connections", "123", "test", "user")])
    assert any("back_log, thread_cache_size, host_cache_size are sized" in m
               for m in result.messages)  # fmt: skip
    assert show(mariadb_server, "max_connections") == "123"
    assert parse_cnf(config.read_text()) == {"max_connections": "123"}
    assert result.snapshot is not None
    t.rollback(MariaDbSnapshot.from_dict(result.snapshot.to_dict()))
    assert not config.exists()
    assert show(mariadb_server, "max_connections") == before


def test_refused_values_change_nothing(mariadb_server: MariaDbServer, config: Path) -> None:
    t = tuner(mariadb_server, config)
    before = show(mariadb_server, "innodb_io_capacity")
    bad = [
        TunedSetting("innodb_io_capacity", "3000", "fine"),
        TunedSetting("innodb_flush_method", "O_BANANA", "bad"),
        TunedSetting("innodb_no_such_thing", "1", "bad"),
    ]
    with pytest.raises(RejectedSettings) as err:
        t.apply(bad)
    assert set(err.value.rejected) == {"innodb_flush_method", "innodb_no_such_thing"}
    assert "O_BANANA" in str(err.value)
    assert "O_DIRECT" in str(err.value)
    assert show(mariadb_server, "innodb_io_capacity") == before
    assert not config.exists()
    result = t.apply(bad, skip_invalid=True)
    assert result.changed == ["innodb_io_capacity"]
    assert set(result.skipped) == {"innodb_flush_method", "innodb_no_such_thing"}
    assert result.snapshot is not None
    t.rollback(MariaDbSnapshot.from_dict(result.snapshot.to_dict()))
    assert show(mariadb_server, "innodb_io_capacity") == before


def test_a_user_without_super_gets_the_privilege_named(
    mariadb_server: MariaDbServer, config: Path
) -> None:
    mariadb_server.sql(
        "DROP USER IF EXISTS 'weak'@'%'; CREATE USER 'weak'@'%' IDENTIFIED BY 'weak-Pw-1';"
        " GRANT SELECT, PROCESS ON *.* TO 'weak'@'%'"
    )
    try:
        conninfo = f"SERVER=127.0.0.1;PORT={mariadb_server.port};UID=weak"
        weak = MariaDbTuner(conninfo, "mariadb", password="weak-Pw-1", host=LocalHost(),
                            config_file=str(config))  # fmt: skip
        rows = weak.diff([TunedSetting("innodb_io_capacity", "4321", "test")])
        assert rows[0].action == "reload"  # reading is allowed
        with pytest.raises(NotEnoughPrivileges, match=r"SUPER privilege.*GRANT SUPER ON \*\.\*"):
            weak.apply([TunedSetting("innodb_io_capacity", "4321", "test")])
        assert show(mariadb_server, "innodb_io_capacity") != "4321"
        assert not config.exists()
    finally:
        mariadb_server.sql("DROP USER IF EXISTS 'weak'@'%'")


def test_without_the_option_file_a_static_change_is_refused(
    mariadb_server: MariaDbServer,
) -> None:
    t = tuner(mariadb_server, None)
    with pytest.raises(TuningError, match="innodb_flush_method can only change in the server's"):
        t.apply([TunedSetting("innodb_flush_method", "fsync", "static")])


def test_wrong_password_and_controls() -> None:
    bad = MariaDbTuner("SERVER=127.0.0.1;PORT=1;UID=nobody", "mariadb", password="x")
    with pytest.raises(TuningError, match="cannot connect to the server"):
        bad.facts()
    with pytest.raises(TuningError, match="systemctl:UNIT"):
        parse_service_control("pg_ctl:/usr/bin/pg_ctl", LocalHost())
    assert parse_service_control("systemctl:mariadb", LocalHost()).argv[-1] == "mariadb"
    assert global_privileges(
        ["GRANT SELECT, SUPER ON *.* TO `x`@`%`", "GRANT ALL PRIVILEGES ON `db`.* TO `x`@`%`"]
    ) == ["SELECT", "SUPER"]
    assert parse_cnf("[client]\nport=1\n[mysqld]\ninnodb-io-capacity = 200\n") == {
        "innodb_io_capacity": "200"
    }


def test_apply_edits_a_dba_file_in_place_and_rollback_restores_its_bytes(
    mariadb_server: MariaDbServer, config: Path
) -> None:
    dba = (
        "# the DBA's own file\n[client]\nport = 3306\n\n[mysqld]\nskip-name-resolve\n"
        "max_allowed_packet = 64M  # for the ETL\n\n[mariadbd]\ninnodb_io_capacity = 300\n"
    )
    config.write_bytes(dba.encode())
    t = tuner(mariadb_server, config)
    before = show(mariadb_server, "innodb_io_capacity")
    result = t.apply(
        [
            TunedSetting("innodb_io_capacity", "1500", "test"),
            TunedSetting("innodb_flush_method", "fsync", "static, for the test"),
        ]
    )
    assert result.ok, result.mismatches
    text = config.read_text()
    for kept in ("# the DBA's own file", "[client]", "port = 3306", "skip-name-resolve",
                 "max_allowed_packet = 64M  # for the ETL", "[mariadbd]"):  # fmt: skip
        assert kept in text.splitlines()
    assert "innodb_io_capacity = 300" not in text
    assert parse_cnf(text)["innodb_io_capacity"] == "1500"
    assert parse_cnf(text)["innodb_flush_method"] == "fsync"
    assert result.snapshot is not None
    back = t.rollback(MariaDbSnapshot.from_dict(result.snapshot.to_dict()))
    assert back.ok, back.mismatches
    assert config.read_bytes() == dba.encode()
    assert show(mariadb_server, "innodb_io_capacity") == before
