"""The session's MariaDB: a private server started by the tests, reached through ODBC.

``mariadb_server`` initialises a data directory of its own (``mariadb-install-db
--no-defaults``) and starts ``mariadbd --no-defaults`` on a free loopback port and a socket in
the test run's folder, once per test session; it is stopped and its files removed at the end.
The machine's own MariaDB service (port 3306, /etc/mysql) is never used or touched. The
anonymous accounts the install creates are removed and a real user with a password
(:data:`USER`, :data:`PASSWORD`) gets every privilege, so the tests log in as a plan would.

A TPROC-C schema of each size the tests use is built once per session through the agent's own
engine (:meth:`MariaDbServer.tpcc`): MariaDB has no cheap copy of a database, so tests that
run on it share it (runs keep it consistent: the consistency checks hold after any run).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from .ssh import free_port
from .wait import wait_until

USER = "bench"
PASSWORD = "bench-Pw-1"
# The variable the agent reads the ODBC engines' password from (a plan may name it too).
PASSWORD_ENV = "BENCH_GUI_DB_PASSWORD"
PROGRAMS = ("mariadbd", "mariadb-install-db", "mariadb")


class MariaDbServer:
    """A running private MariaDB: connection strings, a root client, TPROC-C builds."""

    def __init__(self, folder: Path, port: int, socket_path: str, proc: Any) -> None:
        self.folder = folder
        self.port = port
        self.socket = socket_path
        self.proc = proc
        self._built: dict[int, str] = {}
        self._lock = threading.Lock()

    def conninfo(self, database: str | None = None) -> str:
        """The ODBC string a plan's target turns into (no password: see :meth:`env`)."""
        text = f"SERVER=127.0.0.1;PORT={self.port};UID={USER}"
        return text + (f";DATABASE={database}" if database else "")

    def env(self) -> dict[str, str]:
        """The environment an agent needs for this server's password."""
        return {**os.environ, PASSWORD_ENV: PASSWORD}

    def sql(self, statement: str, database: str = "") -> str:
        """Run SQL as root over the socket (the mariadb client); its tab-separated output."""
        argv = ["mariadb", "--no-defaults", "-S", self.socket, "-u", "root", "-N", "-B"]
        proc = subprocess.run(
            [*argv, *([database] if database else []), "-e", statement],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert proc.returncode == 0, f"{statement!r} failed: {proc.stderr.strip()}"
        return proc.stdout

    def engine(self, database: str) -> Any:
        """The agent's engine on ``database`` (the fixture put the password in this process's
        environment, where the agent reads it)."""
        from bench_gui.agent.engines import open_engine

        return open_engine("mariadb", self.conninfo(database), self.conninfo(), database)

    def tpcc(self, warehouses: int = 1) -> str:
        """The session's TPROC-C database of this many warehouses (built on first use)."""
        with self._lock:
            database = self._built.get(warehouses)
            if database is None:
                database = f"tpcc_{warehouses}w"
                engine = self.engine(database)
                engine.drop_database(database)
                engine.create_database()
                # The agent's default build workers (one per CPU), as a plan without
                # build_workers gets them.
                workers = os.cpu_count() or 1
                stats = engine.build(warehouses, workers, lambda _p: None, None)
                assert stats["status"] == "ok", stats
                self._built[warehouses] = database
            return database

    def plan_text(
        self,
        database: str,
        vus: str = "1,2",
        warehouses: int = 1,
        rampup: float = 2,
        duration: float = 6,
        **extra: object,
    ) -> str:
        """A plan file's text for a MariaDB target on this server (password from the
        environment variable :data:`PASSWORD_ENV`)."""
        lines = [
            'name = "MariaDB sweep"',
            "[target]",
            'kind = "mariadb"',
            'host = "127.0.0.1"',
            f"port = {self.port}",
            f'user = "{USER}"',
            f'database = "{database}"',
            f'password_env = "{PASSWORD_ENV}"',
            "[workload]",
            f"warehouses = {warehouses}",
            f'virtual_users = "{vus}"',
            f"rampup_s = {rampup}",
            f"duration_s = {duration}",
        ]
        for key, value in extra.items():
            lines.append(f"{key} = {str(value).lower() if isinstance(value, bool) else value!r}")
        return "\n".join(lines) + "\n"


def _as_root() -> list[str]:
    # mariadbd refuses to run as root unless told which user to run as.
    return ["--user=root"] if os.geteuid() == 0 else []


def _missing() -> list[str]:
    import pyodbc

    missing = [p for p in PROGRAMS if shutil.which(p) is None]
    if not any("mariadb" in d.lower() for d in pyodbc.drivers()):
        missing.append("the MariaDB Connector/ODBC (odbc-mariadb)")
    return missing


class MariaDbUnavailable(RuntimeError):
    """The private server could not be started (programs missing, or it would not come up)."""


@contextmanager
def private_mariadb(folder: Path) -> Iterator[MariaDbServer]:
    """A private MariaDB in ``folder`` (data, socket, log), its user created and the password
    in this process's environment, stopped and its data removed on exit. The tests' fixture
    and ``benchmarks/build_speed.py`` start theirs this one way."""
    missing = _missing()
    if missing:
        raise MariaDbUnavailable(
            f"MariaDB needs {', '.join(missing)}: run scripts/install-system-deps.sh --test"
        )
    data = folder / "data"
    # A socket path must stay under ~100 bytes: a short folder of its own when needed.
    sock_dir = str(folder) if len(str(folder)) < 80 else tempfile.mkdtemp(prefix="mdb-")
    socket_path = f"{sock_dir}/s"
    install = subprocess.run(
        [
            "mariadb-install-db",
            "--no-defaults",
            f"--datadir={data}",
            "--auth-root-authentication-method=normal",
            "--skip-test-db",
            *_as_root(),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if install.returncode != 0:
        raise MariaDbUnavailable(install.stdout[-2000:] + install.stderr[-2000:])
    port = free_port()
    log = folder / "server.log"
    proc = subprocess.Popen(
        [
            "mariadbd",
            "--no-defaults",
            *_as_root(),
            # The path as an argument of its own: a run killed before its end leaves a server
            # that the next run finds by it (tests/conftest.py, _drop_stale_bases).
            "--datadir",
            str(data),
            f"--port={port}",
            f"--socket={socket_path}",
            "--bind-address=127.0.0.1",
            f"--pid-file={folder}/server.pid",
            f"--log-error={log}",
            "--skip-log-bin",
            "--innodb-buffer-pool-size=256M",
            "--innodb-log-file-size=128M",
            "--max-connections=300",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    server = MariaDbServer(folder, port, socket_path, proc)
    try:

        def up() -> bool:
            if proc.poll() is not None:
                text = log.read_text(errors="replace")[-2000:] if log.exists() else ""
                raise MariaDbUnavailable(f"mariadbd exited with {proc.returncode}: {text}")
            return os.path.exists(socket_path) and (
                subprocess.run(
                    ["mariadb", "--no-defaults", "-S", socket_path, "-u", "root", "-e", "SELECT 1"],
                    capture_output=True,
                    timeout=30,
                    check=False,
                ).returncode
                == 0
            )

        wait_until(up, 120, "the private MariaDB to accept connections", interval=0.2)
        server.sql(
            "DELETE FROM mysql.global_priv WHERE User = ''; FLUSH PRIVILEGES;"
            f" CREATE USER '{USER}'@'%' IDENTIFIED BY '{PASSWORD}';"
            f" CREATE USER '{USER}'@'localhost' IDENTIFIED BY '{PASSWORD}';"
            f" GRANT ALL ON *.* TO '{USER}'@'%' WITH GRANT OPTION;"
            f" GRANT ALL ON *.* TO '{USER}'@'localhost' WITH GRANT OPTION;"
        )
        old = os.environ.get(PASSWORD_ENV)
        os.environ[PASSWORD_ENV] = PASSWORD
        try:
            yield server
        finally:
            if old is None:
                os.environ.pop(PASSWORD_ENV, None)
            else:
                os.environ[PASSWORD_ENV] = old
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if sock_dir != str(folder):
            shutil.rmtree(sock_dir, ignore_errors=True)
        shutil.rmtree(data, ignore_errors=True)


@pytest.fixture(scope="session")
def mariadb_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MariaDbServer]:
    try:
        with private_mariadb(tmp_path_factory.mktemp("mariadb")) as server:
            yield server
    except MariaDbUnavailable as exc:
        pytest.fail(f"MariaDB tests: {exc}")
