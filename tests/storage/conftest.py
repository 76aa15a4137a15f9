"""Loop devices, the real SSH test target and a private PostgreSQL for the storage tests.

Loop devices are made from sparse files in the test's own temporary directory (``losetup -f
--show``); the fixture's teardown always runs, even when a test failed half-way: it unmounts
whatever is mounted from them, turns swap off, makes btrfs forget them, removes added
partitions, detaches them and deletes the files. Tests that need root skip themselves
without it (CI runs as root).

The sshd and the per-test isolation (own HOME, data directory and in-memory keyring) are the
SSH tests' own fixtures, loaded from ``tests/remote/conftest.py`` rather than copied.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ssh_fixtures import MemoryKeyring, Sshd
from storage_helpers import IS_ROOT, LoopDevices


@pytest.fixture(autouse=True)
def _isolated(isolated: MemoryKeyring) -> MemoryKeyring:
    """Own HOME, data directory and keyring for every storage test (the SSH tests' isolation)."""
    return isolated


@pytest.fixture
def loops(tmp_path: Path) -> Iterator[LoopDevices]:
    if not IS_ROOT:
        pytest.skip("loop devices need root")
    if shutil.which("losetup") is None:
        pytest.skip("losetup is missing (util-linux)")
    made = LoopDevices(tmp_path)
    try:
        yield made
    finally:
        made.cleanup()


@pytest.fixture
def ssh_runner(sshd: Any) -> Iterator[Any]:
    """A root session over the real SSH test target."""
    from bench_gui.remote.session import connect

    sshd.trust()
    session = connect(sshd.target())
    try:
        yield session
    finally:
        session.close()


@pytest.fixture
def local_runner() -> Any:
    from bench_gui.remote.localhost import LocalSession

    return LocalSession()


__all__ = ["Sshd", "local_runner", "loops", "ssh_runner"]
