"""Runs on two driver hosts that are two machines as far as the network goes: each in its own
network namespace (its own sshd, hostname and lock folder, reached over a veth pair; see
``tests/_fixtures/netns.py``), against the suite's PostgreSQL.

- A host that vanishes mid-run (its link cut for good): the run fails naming it, the steps
  already stored stay, the other host's data is kept and its agent stopped; the vanished
  host's agent, which no desktop reaches any more, ends the run on its own at its next barrier.
- The barrier under load (the machine's CPUs kept busy): both hosts start every step, their
  users connected before it, the start spread measured and kept with each step, every merged
  second holding both hosts.
- The session of such a run round-trips through a file and a team store.

Nothing here asserts how long anything took. Where ``ip netns`` cannot run (not root, no
iproute2) the tests are skipped with the reason.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from bench_gui.core.crosscheck import nopm_doubt
from bench_gui.services.run import RunController
from bench_gui.services.run_errors import RunError
from bench_gui.services.run_stream import MergedStream
from bench_gui.services.step_barrier import START_SPREAD_LIMIT_S
from bench_gui.store import SessionStore, export_session, import_session
from bench_gui.store.team_store import TeamStoreConfig
from bench_gui.store.team_sync import pull, push
from bench_gui.wire.protocol import Event, decode_line
from tests._fixtures.netns import NamespacedHost
from tests._fixtures.wait import wait_until as wait_for
from tests.services.plans import HOSTS, two_host_plan

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("multi_database")]


def the_run(controller: RunController) -> MergedStream:
    """The merged stream of a run on several driver hosts (its hosts, barrier, steps)."""
    run = controller.stream
    assert isinstance(run, MergedStream)
    return run


def spool_events(spool: str) -> list[Event]:
    """An agent's events, read from its spool (the namespaces share this filesystem)."""
    lines = Path(spool).read_text(encoding="utf-8").splitlines(keepends=True)
    return [decode_line(line) for line in lines if line.endswith("\n")]


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def cut_in_step_2(
    controller: RunController, host: NamespacedHost, lost: list[tuple[int, str]]
) -> Iterator[Event]:
    """The run's events; at step 2's first measured second ``host``'s link is cut for good
    (its agent's pid and spool into ``lost``)."""
    for event in controller.events():
        measuring = event.kind == "sample" and event.get("phase") == "measure"
        if not lost and measuring and event.get("step") == 1:
            agent = next(h.agent for h in the_run(controller).hosts if h.name == host.name)
            assert agent is not None
            lost.append((agent.pid, agent.spool))
            host.cut()
        yield event


def test_a_host_that_vanishes_fails_the_run_by_name_and_its_agent_ends(
    pg_server: Any, namespaced: list[NamespacedHost], store: SessionStore
) -> None:
    plan = two_host_plan(pg_server, HOSTS, virtual_users=[2, 2, 2], duration_s=3)
    plan.driver.max_outage_s = 1.0
    controller = RunController(plan, store)
    notices: list[tuple[str, str]] = []
    controller.on_notice = lambda state, detail: notices.append((state, detail))
    lost: list[tuple[int, str]] = []  # beta's agent: its pid and spool
    with pytest.raises(RunError) as info:
        list(cut_in_step_2(controller, namespaced[1], lost))
    # The run ends naming the host that vanished, and only it.
    message = str(info.value)
    assert "driver host 'beta' was lost in step 2" in message, message
    assert "'alpha'" not in message
    assert controller.session_id is not None
    stored = store.get_run(controller.session_id)
    assert stored.status == "incomplete"  # failed, with its measured step kept
    assert "'beta'" in stored.message
    # Nothing already stored is lost: step 1 whole, from both hosts...
    (step,) = store.steps(controller.session_id)
    assert step.vus == 2
    assert [h["host"] for h in step.summary["driver_hosts"]] == HOSTS
    samples = store.samples(controller.session_id)
    first = [s for s in samples if s.step == 0 and s.phase == "measure"]
    assert first
    assert all([h["host"] for h in s.extra["hosts"]] == HOSTS for s in first)
    # ... and the other host's seconds of step 2 are kept.
    second = [s for s in samples if s.step == 1]
    assert second
    assert all("alpha" in [h["host"] for h in s.extra["hosts"]] for s in second)
    # The other host's agent was stopped cleanly.
    alpha = the_run(controller).hosts[0]
    assert alpha.final is not None
    assert alpha.final.get("status") == "stopped"
    assert alpha.agent is not None
    assert alpha.agent.wait(0) is not None
    assert any(state == "lost" and "'beta'" in detail for state, detail in notices)
    assert not any("'alpha'" in detail for _, detail in notices)

    # Beta's agent, out of every desktop's reach, finishes step 2 and ends the run at step 3's
    # barrier once nothing has probed it for max_outage_s and the allowance: not 10 minutes.
    pid, spool = lost[0]
    wait_for(partial(gone, pid), 300, "beta's agent to end the run on its own", interval=0.5)
    events = spool_events(spool)
    (error,) = [e for e in events if e.kind == "error" and e.get("fatal")]
    assert error.get("code") == "desktop_lost"
    assert error.get("message").startswith("step 3 (1 VU): the desktop has not probed this run")
    (done,) = [e for e in events if e.kind == "done"]
    assert done.get("status") == "failed"
    ends = [e.get("step") for e in events if e.kind == "step" and e.get("phase") == "end"]
    assert ends == [0, 1]  # what it measured is in its spool, for a later re-attach


@contextlib.contextmanager
def busy_cpus() -> Iterator[None]:
    """Every CPU of this machine kept busy by a spinning process until the block ends."""
    spin = "while True: pass"
    procs = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(os.cpu_count() or 1)]
    try:
        yield
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def test_the_barrier_under_load_starts_both_hosts_and_measures_their_spread(
    pg_server: Any, namespaced: list[NamespacedHost], store: SessionStore
) -> None:
    plan = two_host_plan(pg_server, HOSTS, virtual_users=[2, 4], duration_s=4)
    controller = RunController(plan, store)
    with busy_cpus():
        seen = list(controller.events())
    assert controller.final is not None
    assert controller.final.get("status") == "ok", controller.errors
    assert controller.session_id is not None
    run = the_run(controller)
    # Two machines: each host's inventory is its own, under its own hostname.
    inventory = store.get_run(controller.session_id).inventory or {}
    for name in HOSTS:
        assert inventory["driver_hosts"][name]["hostname"] == name
    # Each agent said it was ready only once its users were connected.
    for host in run.hosts:
        assert host.agent is not None
        ready = [
            e
            for e in spool_events(host.agent.spool)
            if e.kind == "progress" and e.get("stage") == "ready"
        ]
        assert [e.get("step") for e in ready] == [0, 1]
        assert all(e.get("connected") == e.get("vus") > 0 for e in ready)
    steps = store.steps(controller.session_id)
    assert [s.vus for s in steps] == [2, 4]
    went = [e for e in seen if e.kind == "progress" and e.get("stage") == "go"]
    for index, step in enumerate(steps):
        # Both hosts started the step at the one instant they were given, each as measured.
        assert sorted(e.get("driver_host") for e in went if e.get("step") == index) == HOSTS
        start = step.summary["start"]
        assert start == run.barrier.spread(index)
        assert sorted(start["late_s"]) == HOSTS
        assert all(late >= 0 for late in start["late_s"].values())
        # Flagged exactly when the measured spread passes the limit (it is kept either way).
        assert ("start_flag" in step.summary) == (start["spread_s"] > START_SPREAD_LIMIT_S)
        assert nopm_doubt(step.nopm, step.nopm_driver, step.window_s, step.vus) is None
        # Every second of the step holds both hosts (their own sample or the one covering it).
        seconds = [s for s in store.samples(controller.session_id) if s.step == index]
        assert seconds
        assert all([h["host"] for h in s.extra["hosts"]] == HOSTS for s in seconds)
        assert all(s.vus == step.vus for s in seconds if s.phase == "measure")


def test_a_namespaced_two_host_session_round_trips(
    pg_server: Any, namespaced: list[NamespacedHost], store: SessionStore, tmp_path: Path
) -> None:
    controller = RunController(two_host_plan(pg_server, HOSTS, virtual_users=[2]), store)
    for _event in controller.events():
        pass
    assert controller.session_id is not None, controller.errors
    recorded = store.run_to_json(controller.session_id)
    hosts = recorded["run"]["target"]["driver_hosts"]
    assert [h["host"] for h in hosts] == HOSTS
    assert all(isinstance(h["clock"]["offset_ms"], float) for h in hosts)

    path = export_session(store, controller.session_id, tmp_path / "two.bgsession.json.gz")
    with SessionStore(tmp_path / "imported.sqlite3") as other:
        back = other.run_to_json(import_session(other, path))
    assert back["run"]["target"] == recorded["run"]["target"]
    assert back["run"]["plan"] == recorded["run"]["plan"]
    assert back["steps"] == recorded["steps"]
    assert len(back["samples"]) == len(recorded["samples"])

    database = f"team_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_server.uri(), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
    try:
        config = TeamStoreConfig(f"postgresql://postgres@/{database}?host={pg_server.socket_dir}")
        with SessionStore(team=config) as team, SessionStore(tmp_path / "ada.sqlite3") as ada:
            assert list(push(store, team).copied) == [controller.session_id]
            result = pull(team, ada)
            assert result.refused == {}
            (local,) = result.copied.values()
            pulled = ada.run_to_json(local)
        assert pulled["run"]["target"] == recorded["run"]["target"]
        assert pulled["steps"] == recorded["steps"]
        assert len(pulled["samples"]) == len(recorded["samples"])
    finally:
        pg_server.drop(database)
