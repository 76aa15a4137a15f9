"""The runner with a plan that names an SSH driver host: host-key acceptance, inventory and the
command log kept with the session, and re-attaching to a run after the desktop side let go."""

from __future__ import annotations

from typing import Any

import pytest

from bench_gui.core.plan_model import Driver, Plan
from bench_gui.remote.targets import TARGETS_FILE, add_target
from bench_gui.services.run import RunController
from bench_gui.services.run_errors import HostKeyUnknown, RunError
from bench_gui.store import SessionStore
from bench_gui.store.paths import data_dir
from tests.services.plans import tpcc_plan

pytestmark = pytest.mark.integration

DATABASE = "ssh_runner"


@pytest.fixture(scope="module", autouse=True)
def _database(pg_server: Any) -> None:
    """The module's runs share one copy of the session's 1-warehouse build."""
    pg_server.clone_tpcc(DATABASE)


def driver_plan(pg_server: Any, name: str, **workload: Any) -> Plan:
    return tpcc_plan(pg_server, DATABASE, "through a driver host", Driver(target=name), **workload)


def test_unknown_host_key_then_accepted_run(sshd: Any, pg_server: Any, store: SessionStore) -> None:
    add_target(sshd.target("lab"), data_dir() / TARGETS_FILE)
    plan = driver_plan(pg_server, "lab")

    with pytest.raises(HostKeyUnknown) as info:
        list(RunController(plan, store).events())
    assert info.value.fingerprint == sshd.fingerprint
    assert store.list_runs()[0].status == "failed"  # nothing half-started is left "running"

    controller = RunController(plan, store, accept_fingerprint=info.value.fingerprint)
    list(controller.events())
    assert controller.session_id is not None
    run = store.get_run(controller.session_id)
    assert run.status == "complete"
    assert run.inventory is not None
    assert run.inventory["memory"]  # collected on the driver host
    commands = [
        line.message for line in store.log(controller.session_id) if line.level == "command"
    ]
    assert any("sftp put" in c or "mkdir" in c for c in commands)
    assert all("PGPASSWORD" not in c for c in commands)


def test_reattach_resumes_without_gaps_or_duplicates(
    sshd: Any, pg_server: Any, store: SessionStore
) -> None:
    sshd.trust()
    add_target(sshd.target("lab"), data_dir() / TARGETS_FILE)
    plan = driver_plan(pg_server, "lab", virtual_users=[1, 2], duration_s=3)
    first = RunController(plan, store)
    events = first.events()
    for event in events:
        if event.kind == "sample":
            break
    # The desktop side lets go without stopping the run (as if it had crashed): the transport's
    # connections are dropped, the agent runs on on the driver host.
    first.transport.close()  # type: ignore[attr-defined]
    session_id = first.session_id
    assert session_id is not None
    stored_before = store.last_seq(session_id)

    again = RunController(plan, store)
    seen = list(again.reattach(session_id))
    assert seen[0].seq > stored_before
    assert seen[-1].kind == "done"
    seqs = [s.seq for s in store.samples(session_id)]
    assert seqs == sorted(set(seqs))
    assert len(store.steps(session_id)) == 2
    assert store.get_run(session_id).status == "complete"
    events.close()  # the first follower, long gone, must not rewrite the outcome
    assert store.get_run(session_id).status == "complete"


def test_reattach_never_takes_the_run_of_an_older_store(
    sshd: Any, pg_server: Any, store: SessionStore, tmp_path: Any
) -> None:
    """A store started afresh numbers its sessions from 1 again: its session 1 is not the run
    the old store's session 1 left on the driver host (that run began before it existed)."""
    sshd.trust()
    add_target(sshd.target("lab"), data_dir() / TARGETS_FILE)
    plan = driver_plan(pg_server, "lab", virtual_users=[1], duration_s=1)
    old = RunController(plan, store)
    list(old.events())
    with SessionStore(tmp_path / "fresh.sqlite3") as fresh:
        session_id = fresh.create_run(
            name=plan.name,
            plan=plan.to_dict(),
            plan_toml=plan.to_toml(),
            target={},
            engine="postgresql",
        )
        assert session_id == old.session_id
        with pytest.raises(RunError, match="no run of session"):
            list(RunController(plan, fresh).reattach(session_id))
