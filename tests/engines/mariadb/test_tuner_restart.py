"""A static InnoDB variable through a real restart: a MariaDB of this module's own that reads
its option files (``!includedir conf.d``), restarted by a script through the tuner's server
control (as ``systemctl restart mariadb`` would on a server). The session's shared MariaDB is
started with --no-defaults and cannot be restarted, hence this one."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench_gui.engines.mariadb.tuner import MariaDbSnapshot, MariaDbTuner, ServiceControl
from bench_gui.engines.tuning_terms import TunedSetting
from bench_gui.remote.host_access import LocalHost
from tests._fixtures.ssh import free_port
from tests._fixtures.wait import wait_until

PASSWORD = "restart-Pw-1"


class Restartable:
    def __init__(self, folder: Path, port: int, socket: str) -> None:
        self.folder = folder
        self.port = port
        self.socket = socket
        self.cnf = folder / "conf.d" / "99-bench-gui.cnf"

    def sql(self, statement: str) -> str:
        argv = ["mariadb", "--no-defaults", "-S", self.socket, "-u", "root", "-N", "-B"]
        proc = subprocess.run([*argv, "-e", statement], capture_output=True, text=True,
                              timeout=60, check=False)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    def show(self, name: str) -> str:
        return self.sql(f"SHOW GLOBAL VARIABLES LIKE '{name}'").split("\t")[1].strip()

    def tuner(self) -> MariaDbTuner:
        control = ServiceControl(LocalHost(), [str(self.folder / "restart.sh")], "restart.sh")
        return MariaDbTuner(
            f"SERVER=127.0.0.1;PORT={self.port};UID=bench", "mariadb", password=PASSWORD,
            host=LocalHost(), config_file=str(self.cnf), control=control,
        )  # fmt: skip


@pytest.fixture(scope="module")
def restartable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Restartable]:
    folder = tmp_path_factory.mktemp("mdb-restart")
    (folder / "conf.d").mkdir()
    sock_dir = str(folder) if len(str(folder)) < 80 else tempfile.mkdtemp(prefix="mdbr-")
    server = Restartable(folder, free_port(), f"{sock_dir}/s")
    root = "user = root\n" if os.geteuid() == 0 else ""
    (folder / "my.cnf").write_text(
        f"[mysqld]\n{root}datadir = {folder}/data\nport = {server.port}\n"
        f"socket = {server.socket}\nbind-address = 127.0.0.1\npid-file = {folder}/pid\n"
        f"log-error = {folder}/server.log\nskip-log-bin\ninnodb-buffer-pool-size = 128M\n"
        f"!includedir {folder}/conf.d\n"
    )
    start = (
        f"mariadbd --defaults-file={folder}/my.cnf --datadir={folder}/data >/dev/null 2>&1 &\n"
        f"for i in $(seq 600); do mariadb --no-defaults -S {server.socket} -u root"
        " -e 'SELECT 1' >/dev/null 2>&1 && exit 0; sleep 0.2; done; exit 1\n"
    )
    (folder / "start.sh").write_text("#!/bin/sh\n" + start)
    (folder / "restart.sh").write_text(
        f"#!/bin/sh\npid=$(cat {folder}/pid)\nkill $pid\n"
        "while kill -0 $pid 2>/dev/null; do sleep 0.2; done\n" + start
    )
    for name in ("start.sh", "restart.sh"):
        (folder / name).chmod(0o755)
    install = subprocess.run(
        ["mariadb-install-db", f"--defaults-file={folder}/my.cnf",
         "--auth-root-authentication-method=normal", "--skip-test-db"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert install.returncode == 0, install.stdout[-2000:] + install.stderr[-2000:]
    started = subprocess.run([str(folder / "start.sh")], timeout=200, check=False)
    assert started.returncode == 0, (folder / "server.log").read_text()[-2000:]
    try:
        server.sql(
            "DELETE FROM mysql.global_priv WHERE User = ''; FLUSH PRIVILEGES;"
            f" CREATE USER 'bench'@'%' IDENTIFIED BY '{PASSWORD}';"
            " GRANT ALL ON *.* TO 'bench'@'%'"
        )
        yield server
    finally:
        pid = (folder / "pid").read_text().strip() if (folder / "pid").exists() else ""
        if pid:
            os.kill(int(pid), signal.SIGTERM)
            wait_until(lambda: not Path(f"/proc/{pid}").exists(), 120, "mariadbd to stop")
        if sock_dir != str(folder):
            shutil.rmtree(sock_dir, ignore_errors=True)
        shutil.rmtree(folder / "data", ignore_errors=True)


def test_a_static_variable_takes_effect_after_the_restart_and_goes_back(
    restartable: Restartable,
) -> None:
    assert restartable.show("innodb_flush_method") == "O_DIRECT"
    tuner = restartable.tuner()
    items = [
        TunedSetting("innodb_flush_method", "fsync", "static"),
        TunedSetting("innodb_io_capacity", "900", "dynamic"),
    ]
    pending = tuner.apply(items)
    assert pending.pending_restart == ["innodb_flush_method"]
    assert restartable.show("innodb_flush_method") == "O_DIRECT"  # not before a restart
    assert restartable.show("innodb_io_capacity") == "900"
    assert pending.snapshot is not None
    tuner.rollback(MariaDbSnapshot.from_dict(pending.snapshot.to_dict()), restart=False)
    assert not restartable.cnf.exists()

    applied = tuner.apply(items, restart=True)
    assert applied.restarted
    assert applied.pending_restart == []
    assert applied.ok, applied.mismatches
    assert restartable.show("innodb_flush_method") == "fsync"
    assert restartable.show("innodb_io_capacity") == "900"  # kept over the restart by the file
    assert applied.snapshot is not None
    back = tuner.rollback(MariaDbSnapshot.from_dict(applied.snapshot.to_dict()))
    assert back.restarted
    assert back.ok, back.mismatches
    assert restartable.show("innodb_flush_method") == "O_DIRECT"
    assert restartable.show("innodb_io_capacity") == "200"
    assert not restartable.cnf.exists()


def test_a_rollback_says_what_max_connections_sized_at_the_last_start(
    restartable: Restartable,
) -> None:
    """Issue 26: back_log, thread_cache_size and host_cache_size are sized from
    max_connections when the server starts; after a restart with the applied value, a rollback
    (SET GLOBAL) leaves them as they are until the next restart, and says so."""
    derived = ("back_log", "thread_cache_size", "host_cache_size")
    before = {n: restartable.show(n) for n in derived}
    tuner = restartable.tuner()
    items = [
        TunedSetting("max_connections", "400", "more users", "user"),
        TunedSetting("innodb_flush_method", "fsync", "static: the apply restarts"),
    ]
    applied = tuner.apply(items, restart=True)
    assert applied.restarted
    assert applied.ok, applied.mismatches
    assert restartable.show("back_log") != before["back_log"]
    assert applied.snapshot is not None
    back = tuner.rollback(MariaDbSnapshot.from_dict(applied.snapshot.to_dict()), restart=False)
    assert restartable.show("max_connections") == "151"
    changed = [n for n in derived if restartable.show(n) != before[n]]
    assert changed
    note = next(m for m in back.messages if "until the server restarts" in m)
    for name in changed:
        assert f"{name} is {restartable.show(name)} (was {before[name]})" in note
    # The restart that brings them back.
    assert restartable.tuner().control is not None
    ok, _detail = restartable.tuner().control.restart()  # type: ignore[union-attr]
    assert ok
    assert {n: restartable.show(n) for n in derived} == before
