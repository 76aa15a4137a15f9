"""The application services (a run, a tuning change) against real components: every test gets
its own HOME, data directory and in-memory keyring (runs through an SSH driver host accept its
host key and read saved targets there). Also the fixtures of runs on two driver hosts (on two
loopback sshd, or in two network namespaces), and of a kernel knob the tests may change."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench_gui.remote.targets import TARGETS_FILE, add_target
from bench_gui.store import SessionStore
from bench_gui.store.paths import data_dir
from tests._fixtures.isolation import MemoryKeyring
from tests._fixtures.netns import NamespacedHost, namespaced_hosts
from tests._fixtures.ssh import Sshd
from tests.services.kernel_knob import EXPIRE, read_knob
from tests.services.plans import DATABASE, HOSTS


@pytest.fixture(autouse=True)
def _isolated(isolated: MemoryKeyring) -> MemoryKeyring:
    return isolated


@pytest.fixture(autouse=True)
def _qt_app(qapp: Any) -> Any:
    """A study's brief draws its charts in-process through Qt: let pytest-qt make the one
    QApplication of the test session first, so no bare QGuiApplication is left behind for the
    widget tests that follow (tests/workloads' conformance suite runs after these)."""
    return qapp


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SessionStore]:
    with SessionStore(tmp_path / "sessions.sqlite3") as opened:
        yield opened


@pytest.fixture(scope="session")
def multi_database(pg_server: Any) -> str:
    """The database of the runs on two driver hosts, cloned once."""
    pg_server.clone_tpcc(DATABASE)
    return DATABASE


@pytest.fixture
def two_hosts(sshd: Sshd, sshd2: Sshd, multi_database: str) -> list[str]:
    """alpha on ``sshd``, beta on ``sshd2``: one driver host per sshd instance, saved."""
    for name, server in zip(HOSTS, (sshd, sshd2), strict=True):
        server.trust()
        add_target(server.target(name), data_dir() / TARGETS_FILE)
    return list(HOSTS)


@pytest.fixture
def namespaced(tmp_path: Path, multi_database: str) -> Iterator[list[NamespacedHost]]:
    """alpha and beta as two machines: each in its own network namespace (its own sshd,
    hostname and lock folder, reached over a veth pair whose link a test may cut), saved."""
    with namespaced_hosts(tmp_path / "hosts", list(HOSTS)) as hosts:
        for host in hosts:
            host.sshd.trust()
            add_target(host.sshd.target(host.name), data_dir() / TARGETS_FILE)
        yield hosts


@pytest.fixture
def expire() -> Iterator[tuple[str, str]]:
    """(the machine's ``vm.dirty_expire_centisecs``, another one); put back whatever the test
    did."""
    before = read_knob(EXPIRE)
    yield before, "2999" if before != "2999" else "2998"
    if read_knob(EXPIRE) != before:
        Path(EXPIRE).write_text(before + "\n")
