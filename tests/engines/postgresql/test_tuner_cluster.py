"""Tuning a real Debian cluster: restarts through ``pg_ctlcluster`` (and ``systemctl``).

The module makes a cluster of its own with ``pg_createcluster VERSION bgtest-PID-XXXX``
(its data directory under the test's temporary directory, its own port, trust for local
connections), and drops it with ``pg_dropcluster --stop`` when the module is done, whatever
happened. The system's clusters (15/main and any other) are never touched.

Every test that changes the cluster checks that ``postgresql.auto.conf`` and every row of
``pg_settings`` are back to what they were, and that the cluster runs.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import secrets as pysecrets
import shutil
import stat
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

from bench_gui.cli.main import main as cli_main
from bench_gui.engines.postgresql.control import (
    PgCtlClusterControl,
    RestartFailed,
    SystemdControl,
    debian_cluster,
    local_control,
    parse_control_spec,
)
from bench_gui.engines.postgresql.settings import parse_auto_conf
from bench_gui.engines.postgresql.tuner import PgTuner
from bench_gui.engines.tuning_terms import TunedSetting
from bench_gui.remote import secrets
from bench_gui.remote.db_tuner import NoServerControl
from bench_gui.remote.host_access import HostIO, LocalHost, SSHHost
from tests._fixtures.ssh import free_port

SOCKET_DIR = "/var/run/postgresql"
SYSTEMD_RUNS = Path("/run/systemd/system").is_dir()


def _installed_version() -> str | None:
    """The newest PostgreSQL major version postgresql-common can make a cluster of."""
    found = [p.parent.parent.name for p in Path("/usr/lib/postgresql").glob("*/bin/initdb")]
    return max(found, key=lambda v: [int(x) for x in v.split(".")]) if found else None


VERSION = _installed_version() or "15"


@dataclass
class DebianCluster:
    """A cluster of this module's own, made with pg_createcluster."""

    version: str
    name: str
    port: int
    data_dir: Path

    @property
    def conninfo(self) -> str:
        return f"host={SOCKET_DIR} port={self.port} user=postgres dbname=postgres"

    @property
    def spec(self) -> str:
        return f"pg_ctlcluster:{self.version}/{self.name}"

    @property
    def unit(self) -> str:
        return f"postgresql@{self.version}-{self.name}.service"

    @property
    def log_file(self) -> Path:
        return Path(f"/var/log/postgresql/postgresql-{self.version}-{self.name}.log")

    def control(self, host: HostIO | None = None) -> PgCtlClusterControl:
        return PgCtlClusterControl(host or LocalHost(), str(self.data_dir), self.version, self.name)

    def tuner(self, host: HostIO | None = None) -> PgTuner:
        return PgTuner(self.conninfo, self.control(host))

    def auto_conf(self) -> str:
        return (self.data_dir / "postgresql.auto.conf").read_text()

    def state(self) -> tuple[str, dict[str, tuple[str, str]]]:
        """postgresql.auto.conf and every setting (value, source), to compare before/after."""
        with psycopg.connect(self.conninfo, autocommit=True) as conn:
            rows = conn.execute("SELECT name, setting, source FROM pg_settings").fetchall()
        return self.auto_conf(), {name: (setting, source) for name, setting, source in rows}

    def show(self, name: str) -> str:
        with psycopg.connect(self.conninfo, autocommit=True) as conn:
            row = conn.execute(f"SHOW {name}").fetchone()
        assert row is not None
        return str(row[0])

    def pending_restart(self, names: list[str]) -> dict[str, bool]:
        with psycopg.connect(self.conninfo, autocommit=True) as conn:
            rows = conn.execute(
                "SELECT name, pending_restart FROM pg_settings WHERE name = ANY(%s)", (names,)
            ).fetchall()
        return {name: bool(pending) for name, pending in rows}

    def pid(self) -> int:
        return int((self.data_dir / "postmaster.pid").read_text().split()[0])

    def status(self) -> str:
        """pg_lsclusters' status of the cluster: online or down."""
        out = subprocess.run(
            ["pg_lsclusters", "-h", self.version, self.name],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        return out[3]


def _drop(version: str, name: str) -> subprocess.CompletedProcess[str]:
    assert name.startswith("bgtest-"), name  # never a cluster not ours (15/main...)
    return subprocess.run(
        ["pg_dropcluster", "--stop", version, name], capture_output=True, text=True, check=False
    )


def _drop_stale_clusters() -> None:
    """Clusters left by a test session that was killed before its teardown (its pid is gone)."""
    for conf in Path("/etc/postgresql").glob("*/bgtest-*"):
        match = re.match(r"^bgtest-(\d+)-", conf.name)
        if match and not Path(f"/proc/{match.group(1)}").exists():
            _drop(conf.parent.name, conf.name)


def _let_postgres_in(path: Path) -> list[tuple[Path, int]]:
    """Search permission for others on every folder above ``path`` (pytest's are 0700), so
    the cluster's owner reaches its data directory; the old modes, to put back."""
    changed = []
    for parent in path.parents:
        mode = stat.S_IMODE(parent.stat().st_mode)
        if not mode & stat.S_IXOTH:
            parent.chmod(mode | stat.S_IXOTH)
            changed.append((parent, mode))
    return changed


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DebianCluster]:
    if shutil.which("pg_createcluster") is None or _installed_version() is None:
        pytest.skip(
            "pg_createcluster is not installed: apt-get install -y postgresql (postgresql-common)"
        )
    if os.geteuid() != 0:
        pytest.skip("making a Debian cluster with pg_createcluster needs root")
    _drop_stale_clusters()
    name = f"bgtest-{os.getpid()}-{pysecrets.token_hex(3)}"
    data_dir = tmp_path_factory.mktemp("debian-cluster") / "data"
    modes = _let_postgres_in(data_dir)
    port = free_port()
    try:
        made = subprocess.run(
            ["pg_createcluster", VERSION, name, "-p", str(port), "-d", str(data_dir), "--start",
             "--", "--auth-local=trust", "--auth-host=trust"],
            capture_output=True, text=True, check=False, timeout=180,
        )  # fmt: skip
        if made.returncode != 0:
            pytest.fail(f"pg_createcluster failed: {made.stdout}{made.stderr}")
        yield DebianCluster(VERSION, name, port, data_dir)
    finally:
        if Path(f"/etc/postgresql/{VERSION}/{name}").exists():
            dropped = _drop(VERSION, name)
            assert dropped.returncode == 0, dropped.stderr
        for path, mode in modes:
            path.chmod(mode)


@pytest.fixture
def clean(cluster: DebianCluster) -> Iterator[DebianCluster]:
    """The test must leave the file and every setting as it found them, the cluster online."""
    before = cluster.state()
    yield cluster
    assert cluster.status() == "online"
    assert cluster.state() == before


def settings(**values: str) -> list[TunedSetting]:
    return [TunedSetting(name, value, f"test: {value}") for name, value in values.items()]


RESTART_PROFILE = {"shared_buffers": "256MB", "max_connections": "120", "work_mem": "8MB"}


def _apply_restart_rollback(cluster: DebianCluster, tuner: PgTuner) -> None:
    """A profile that needs a restart, verified, then rolled back byte for byte."""
    auto_before, settings_before = cluster.state()
    pid = cluster.pid()
    result = tuner.apply(settings(**RESTART_PROFILE), restart=True)
    assert result.ok, result.summary()
    assert result.restarted
    assert sorted(result.changed) == sorted(RESTART_PROFILE)
    assert cluster.pid() != pid  # really restarted
    assert cluster.show("shared_buffers") == "256MB"
    assert cluster.show("max_connections") == "120"
    assert cluster.show("work_mem") == "8MB"
    assert cluster.pending_restart(list(RESTART_PROFILE)) == dict.fromkeys(RESTART_PROFILE, False)
    assert parse_auto_conf(cluster.auto_conf())["shared_buffers"] == "256MB"
    assert result.snapshot is not None
    assert result.snapshot.auto_conf == auto_before
    assert result.snapshot.data_directory == str(cluster.data_dir)

    pid = cluster.pid()
    back = tuner.rollback(result.snapshot)
    assert back.ok, back.summary()
    assert back.restarted
    assert back.auto_conf_restored is True
    assert cluster.pid() != pid
    assert cluster.auto_conf() == auto_before  # byte for byte
    assert cluster.state() == (auto_before, settings_before)
    assert cluster.pending_restart(list(RESTART_PROFILE)) == dict.fromkeys(RESTART_PROFILE, False)


def _preset(folder: Path, **values: str) -> str:
    """A preset file with these settings (the built-in ones size memory for big machines)."""
    path = folder / "lab.toml"
    lines = ['name = "lab"', 'version = "15"', "[settings]"]
    lines += [f'{name} = "{value}"' for name, value in values.items()]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _json_result(code: int, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """The JSON a ``tune ... --json`` command printed, once it exited 0."""
    out = capsys.readouterr()
    assert code == 0, out.err + out.out
    data: dict[str, Any] = json.loads(out.out.strip().splitlines()[-1])
    return data


def _password_sudo_host(sshd: Any) -> Any:
    """A session as the sudo user, root through ``sudo`` with the keyring's password."""
    from bench_gui.remote.connection import connect

    if sshd.sudo_user is None:
        pytest.skip("needs root and sudo installed (apt-get install -y sudo)")
    sshd.trust()
    target = sshd.target(
        name="sudoer", user=sshd.sudo_user, auth="password", key_path=None, sudo="password"
    )
    secrets.set_secret("sudoer", "password", sshd.password)
    secrets.set_secret("sudoer", "sudo_password", sshd.password)
    return connect(target)


# -- pg_ctlcluster on this machine -----------------------------------------------------------------


def test_apply_restarts_with_pg_ctlcluster_and_rolls_back_exactly(clean: DebianCluster) -> None:
    _apply_restart_rollback(clean, clean.tuner())


def test_a_server_that_will_not_start_is_rolled_back_naming_the_setting(
    clean: DebianCluster,
) -> None:
    """wal_level = minimal: ALTER SYSTEM takes it, the server refuses to start with
    max_wal_senders = 10 (the default). The reason comes from the cluster's Debian log."""
    cluster = clean
    with pytest.raises(RestartFailed) as info:
        cluster.tuner().apply(settings(wal_level="minimal", work_mem="32MB"), restart=True)
    exc = info.value
    fatal = 'WAL streaming (max_wal_senders > 0) requires wal_level "replica" or "logical"'
    assert exc.setting == "wal_level"
    assert exc.rolled_back
    assert "the setting that failed: wal_level" in str(exc)
    assert f"({fatal})" in str(exc)  # the server's own words
    assert "previous settings were restored and the server runs again" in str(exc)
    # The log the tuner read is the cluster's file under /var/log/postgresql.
    assert re.search(r"\[\d+\] FATAL:  " + re.escape(fatal), exc.log)
    assert exc.log in cluster.log_file.read_text()
    assert cluster.status() == "online"
    assert cluster.show("wal_level") == "replica"
    assert cluster.show("work_mem") == "4MB"


def test_the_cluster_is_found_from_its_data_directory(cluster: DebianCluster) -> None:
    """pg_createcluster -d puts the data anywhere: the cluster's own config says where."""
    assert debian_cluster(str(cluster.data_dir)) == (cluster.version, cluster.name)
    assert debian_cluster(str(cluster.data_dir) + "/") == (cluster.version, cluster.name)
    control = local_control(str(cluster.data_dir))
    assert isinstance(control, PgCtlClusterControl)
    assert (control.version, control.cluster) == (cluster.version, cluster.name)
    assert control.log_file == str(cluster.log_file)
    control.check()  # the cluster exists and its data directory is this one

    spec = parse_control_spec(cluster.spec, LocalHost(), str(cluster.data_dir))
    assert isinstance(spec, PgCtlClusterControl)
    assert (spec.version, spec.cluster, spec.log_file) == (
        cluster.version,
        cluster.name,
        str(cluster.log_file),
    )
    # A server's own data directory as the server reports it gives the same.
    assert cluster.tuner().facts()["data_directory"] == str(cluster.data_dir)


def test_a_wrong_cluster_is_refused_before_anything_changes(clean: DebianCluster) -> None:
    cluster = clean
    missing = PgTuner(
        cluster.conninfo,
        parse_control_spec(
            f"pg_ctlcluster:{cluster.version}/bgtest-nosuch", LocalHost(), str(cluster.data_dir)
        ),
    )
    with pytest.raises(NoServerControl, match=f"no Debian cluster {cluster.version}/bgtest-nosuch"):
        missing.apply(settings(shared_buffers="256MB", work_mem="8MB"), restart=True)
    assert cluster.show("work_mem") == "4MB"  # not even the reloadable one
    # A real cluster, but not the one holding this server's data: never restarted.
    other = PgCtlClusterControl(LocalHost(), "/var/lib/postgresql/elsewhere", VERSION, cluster.name)
    with pytest.raises(NoServerControl, match="keeps its data in .*, not in this server's"):
        other.check()


# -- over SSH ------------------------------------------------------------------------------------


def test_pg_ctlcluster_over_ssh_with_a_sudo_password(clean: DebianCluster, sshd: Any) -> None:
    with _password_sudo_host(sshd) as session:
        host = SSHHost(session)
        control = clean.control(host)
        assert control.read_auto_conf() == clean.auto_conf()
        _apply_restart_rollback(clean, PgTuner(clean.conninfo, control))
        commands = [entry.command for entry in session.command_log]
    restart = f"pg_ctlcluster {clean.version} {clean.name} restart"
    assert any(c.startswith("sudo -S") and c.endswith(restart) for c in commands), commands


def test_a_failed_start_over_ssh_is_rolled_back(clean: DebianCluster, sshd: Any) -> None:
    """A library that does not exist: ALTER SYSTEM takes the name, the server will not start."""
    from bench_gui.remote.connection import connect

    sshd.trust()
    with connect(sshd.target()) as session:
        tuner = clean.tuner(SSHHost(session))
        with pytest.raises(RestartFailed) as info:
            tuner.apply(settings(shared_preload_libraries="no_such_library"), restart=True)
        commands = [entry.command for entry in session.command_log]
    exc = info.value
    assert exc.setting == "shared_preload_libraries"
    assert exc.rolled_back
    assert '(could not access file "no_such_library": No such file or directory)' in str(exc)
    assert exc.log in clean.log_file.read_text()  # read over SSH from the Debian log
    assert any(c.startswith("tail -c +") and str(clean.log_file) in c for c in commands)
    assert any(c.endswith(f"pg_ctlcluster {clean.version} {clean.name} start") for c in commands)
    assert clean.show("shared_preload_libraries") == ""


# -- the command line ------------------------------------------------------------------------------


def test_cli_apply_and_rollback_with_pg_ctlcluster(
    clean: DebianCluster, sshd: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bench_gui.remote.targets import TARGETS_FILE, add_target
    from bench_gui.store.paths import data_dir

    cluster = clean
    db = str(tmp_path / "sessions.sqlite3")
    preset = _preset(tmp_path, shared_buffers="160MB", max_connections="110", work_mem="16MB")
    before = cluster.auto_conf()
    pid = cluster.pid()
    code = cli_main(["--db", db, "tune", "apply", cluster.conninfo, preset,
                     "--control", cluster.spec, "--restart", "--json"])  # fmt: skip
    data = _json_result(code, capsys)
    assert data["ok"]
    assert data["restarted"]
    assert cluster.pid() != pid
    assert cluster.show("shared_buffers") == "160MB"
    assert cluster.show("max_connections") == "110"

    # The rollback restarts the same cluster through an SSH target.
    sshd.trust()
    add_target(sshd.target(name="loop"), data_dir() / TARGETS_FILE)
    assert cli_main(["--db", db, "tune", "rollback", cluster.conninfo,
                     "--control", cluster.spec, "--ssh", "loop"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "rolled back #1" in out
    assert "server restarted" in out
    assert cluster.auto_conf() == before
    assert cluster.show("shared_buffers") == "128MB"

    # Without --control: the local cluster's control is found from its data directory.
    code = cli_main(["--db", db, "tune", "apply", cluster.conninfo, preset,
                     "--only", "max_connections", "--restart", "--json"])  # fmt: skip
    data = _json_result(code, capsys)
    assert data["restarted"]
    assert cluster.show("max_connections") == "110"
    assert cli_main(["--db", db, "tune", "rollback", cluster.conninfo]) == 0
    assert "server restarted" in capsys.readouterr().out
    assert cluster.auto_conf() == before


# -- systemctl -------------------------------------------------------------------------------------


@pytest.mark.skipif(
    not SYSTEMD_RUNS,
    reason=f"systemd is not PID 1 here (no /run/systemd/system): the restart through systemctl"
    f" of postgresql@{VERSION}-<cluster>.service runs only on a host where systemd runs",
)
def test_systemctl_restarts_the_clusters_unit(clean: DebianCluster) -> None:
    cluster = clean
    active = subprocess.run(
        ["systemctl", "is-active", cluster.unit], capture_output=True, text=True
    )
    assert active.stdout.strip() == "active", f"{cluster.unit}: {active.stdout}{active.stderr}"
    control = parse_control_spec(f"systemctl:{cluster.unit}", LocalHost(), str(cluster.data_dir))
    assert isinstance(control, SystemdControl)
    control.check()
    tuner = PgTuner(cluster.conninfo, control)
    _apply_restart_rollback(cluster, tuner)
    with pytest.raises(RestartFailed) as info:
        tuner.apply(settings(wal_level="minimal"), restart=True)
    assert info.value.setting == "wal_level"
    assert info.value.rolled_back
    assert cluster.show("wal_level") == "replica"


@pytest.mark.skipif(SYSTEMD_RUNS, reason="systemd runs here: this tests a host without it")
def test_systemctl_without_systemd_says_so_before_anything_changes(
    clean: DebianCluster, sshd: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bench_gui.remote.connection import connect

    cluster = clean
    spec = f"systemctl:{cluster.unit}"
    expected = (
        f"systemd is not running on {{host}}: use pg_ctlcluster:{cluster.version}/{cluster.name}"
        " or pg_ctl"
    )
    control = parse_control_spec(spec, LocalHost(), str(cluster.data_dir))
    assert isinstance(control, SystemdControl)
    tuner = PgTuner(cluster.conninfo, control)
    with pytest.raises(NoServerControl) as info:
        tuner.apply(settings(shared_buffers="256MB", work_mem="8MB"), restart=True)
    assert str(info.value) == expected.format(host="this machine")
    assert cluster.show("work_mem") == "4MB"  # nothing was changed, not even reloaded

    # Settings that need no restart do not need systemd either.
    result = tuner.apply(settings(shared_buffers="256MB", work_mem="8MB"))
    assert result.pending_restart == ["shared_buffers"]
    assert cluster.show("work_mem") == "8MB"
    assert result.snapshot is not None
    back = tuner.rollback(result.snapshot)  # shared_buffers never took effect: no restart
    assert back.ok
    assert not back.restarted

    # A rollback that would need the restart says so before it changes anything.
    done = cluster.tuner().apply(settings(shared_buffers="256MB"), restart=True)
    assert done.snapshot is not None
    changed = cluster.auto_conf()
    with pytest.raises(NoServerControl, match="systemd is not running on this machine"):
        tuner.rollback(done.snapshot)
    assert cluster.auto_conf() == changed
    assert cluster.tuner().rollback(done.snapshot).restarted

    # Over SSH, the message names the host.
    sshd.trust()
    with connect(sshd.target()) as session:
        host = SSHHost(session)
        remote = PgTuner(
            cluster.conninfo, SystemdControl(host, str(cluster.data_dir), cluster.unit)
        )
        with pytest.raises(NoServerControl) as info:
            remote.apply(settings(max_connections="120"), restart=True)
        assert str(info.value) == expected.format(host=host.label)

    # And from the command line: exit 1, the message as it is.
    db = str(tmp_path / "sessions.sqlite3")
    preset = _preset(tmp_path, shared_buffers="256MB", work_mem="8MB")
    code = cli_main(["--db", db, "tune", "apply", cluster.conninfo, preset,
                     "--restart", "--control", spec])  # fmt: skip
    assert code == 1
    assert expected.format(host="this machine") in capsys.readouterr().err
    assert cluster.show("work_mem") == "4MB"


def test_the_log_is_read_where_the_clusters_log_link_points(clean: DebianCluster) -> None:
    """pg_ctlcluster logs to the target of /etc/postgresql/V/C/log when that link exists: the
    reason of a failed start is read there, not from /var/log/postgresql."""
    cluster = clean
    folder = cluster.data_dir.parent / "logs"
    folder.mkdir(exist_ok=True)
    custom = folder / "cluster.log"
    custom.touch()
    owner = pwd.getpwnam("postgres")
    os.chown(folder, owner.pw_uid, owner.pw_gid)
    os.chown(custom, owner.pw_uid, owner.pw_gid)
    link = Path(f"/etc/postgresql/{cluster.version}/{cluster.name}/log")
    link.symlink_to(custom)
    try:
        assert cluster.control().log_file == str(custom)
        with pytest.raises(RestartFailed) as info:
            cluster.tuner().apply(settings(wal_level="minimal"), restart=True)
        assert info.value.setting == "wal_level"
        assert "wal_level" in info.value.log
        assert info.value.log in custom.read_text()
    finally:
        link.unlink()
    assert cluster.control().log_file == str(cluster.log_file)
