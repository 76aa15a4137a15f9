"""The remote tests: every test gets its own HOME, data directory and in-memory keyring, and
the storage tests a root connection over the real SSH test target or this machine's shell."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests._fixtures.isolation import MemoryKeyring


@pytest.fixture(autouse=True)
def _isolated(isolated: MemoryKeyring) -> MemoryKeyring:
    return isolated


@pytest.fixture
def ssh_runner(sshd: Any) -> Iterator[Any]:
    """A root connection over the real SSH test target."""
    from bench_gui.remote.connection import connect

    sshd.trust()
    connection = connect(sshd.target())
    try:
        yield connection
    finally:
        connection.close()


@pytest.fixture
def local_runner() -> Any:
    from bench_gui.remote.local_shell import LocalShell

    return LocalShell()
