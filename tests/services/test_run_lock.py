"""One benchmark per database server: two runs against the same server are refused however
its host is spelled, and a run started through an SSH driver host meets a local run's lock.

Real components: the session's PostgreSQL (through its socket and, over TCP, as 127.0.0.1 and
localhost), the agent started by the runner, and the loopback sshd as the driver host.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench_gui.core.plan_model import Driver, Plan, Target
from bench_gui.remote.targets import TARGETS_FILE, add_target
from bench_gui.remote.transport import desktop_identity
from bench_gui.services.run import RunController
from bench_gui.services.run_errors import RunError
from bench_gui.store import SessionStore
from bench_gui.store.paths import data_dir
from bench_gui.wire.protocol import Event
from bench_gui.wire.run_config import Workload
from tests._fixtures.pg import PgServer
from tests._fixtures.pg_tcp import PgTcp

pytestmark = pytest.mark.integration

DATABASE = "lock_runs"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SessionStore]:
    with SessionStore(tmp_path / "sessions.sqlite3") as opened:
        yield opened


@pytest.fixture(scope="module", autouse=True)
def _database(pg_server: PgServer) -> None:
    pg_server.clone_tpcc(DATABASE)


def plan(
    name: str, host: str, port: int = 5432, driver: str = "", database: str = DATABASE
) -> Plan:
    """A run long enough to be caught holding its lock (it is stopped once it has been)."""
    return Plan(
        name=name,
        target=Target(kind="postgresql", host=host, port=port, database=database),
        workload=Workload(warehouses=1, virtual_users=[1], rampup_s=1, duration_s=120, processes=1),
        driver=Driver(target=driver),
    )


class Holding:
    """A run followed up to its ``hello``: the agent holds its lock from then on."""

    def __init__(self, controller: RunController) -> None:
        self.controller = controller
        self.events = controller.events()
        self.hello: Event = next(e for e in self.events if e.kind == "hello")

    def end(self) -> None:
        self.controller.stop()
        for _ in self.events:
            pass


@pytest.fixture
def holding() -> Iterator[list[Holding]]:
    runs: list[Holding] = []
    yield runs
    for run in runs:
        run.end()


def refused(controller: RunController, first: RunController) -> str:
    """The second run's failure, checked to name the first run; returns the message."""
    with pytest.raises(RunError) as info:
        list(controller.events())
    message = str(info.value)
    assert message.startswith("another benchmark is running against the PostgreSQL server")
    assert f'session {first.session_id} "{first.plan.name}" (run): ' in message
    assert f"(started from {desktop_identity()})" in message
    assert ", since 20" in message  # when it started
    assert controller.session_id is not None
    stored = controller.store.get_run(controller.session_id)
    assert stored.status == "failed"
    assert stored.message == message
    return message


def test_two_runs_spelled_127_0_0_1_and_localhost_are_one_server(
    pg_tcp: PgTcp, pg_server: PgServer, store: SessionStore, holding: list[Holding]
) -> None:
    first = RunController(plan("by address", "127.0.0.1", pg_tcp.port), store)
    holding.append(Holding(first))
    lock = holding[0].hello.get("lock")
    assert "system identifier" in lock["server"]

    message = refused(RunController(plan("by name", "localhost", pg_tcp.port), store), first)
    assert lock["server"] in message
    # The socket, and another database of the same server: the same server, refused too.
    refused(
        RunController(plan("by socket", pg_server.socket_dir, database="postgres"), store), first
    )

    holding.pop().end()  # the first run ends: the lock is free again
    again = RunController(plan("after it", "localhost", pg_tcp.port), store)
    holding.append(Holding(again))
    assert holding[0].hello.get("lock") == lock


def test_a_local_run_and_an_ssh_driver_run_take_the_same_lock(
    sshd: Any, pg_tcp: PgTcp, pg_server: PgServer, store: SessionStore, holding: list[Holding]
) -> None:
    sshd.trust()
    add_target(sshd.target("lab"), data_dir() / TARGETS_FILE)

    over_ssh = RunController(plan("over ssh", pg_server.socket_dir, driver="lab"), store)
    holding.append(Holding(over_ssh))
    refused(RunController(plan("local", "localhost", pg_tcp.port), store), over_ssh)
    holding.pop().end()

    local = RunController(plan("local", "127.0.0.1", pg_tcp.port), store)
    holding.append(Holding(local))
    refused(RunController(plan("over ssh", pg_server.socket_dir, driver="lab"), store), local)
