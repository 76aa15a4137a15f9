"""A run on two driver hosts against the private PostgreSQL, through the run controller: one
session, the database's counters from the primary, the drivers' New-Orders summed, every step
started at one instant, a host lost mid-step failing the run by its name, and a link cut on
one host resumed by that host alone.

The two "hosts" are two saved SSH targets on two loopback sshd instances (``sshd`` and
``sshd2``: own port, host key and sessions, so a link cut reaches one host only). Both run on
this machine: with the suite's lock folder passed to every agent they meet in one folder and
the secondary shares the primary's run lock; without it each instance has its own folder, as
two machines, and a run against the database through either host is refused while the run
goes on.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench_gui.core.crosscheck import nopm_doubt
from bench_gui.core.plan_model import Driver, Plan, Target
from bench_gui.remote.inventory import collect_inventory
from bench_gui.remote.local_shell import LocalShell
from bench_gui.services.host_links import host_inventory, unreadable
from bench_gui.services.run import RunController
from bench_gui.services.run_errors import RunError
from bench_gui.services.run_stream import MergedStream
from bench_gui.services.step_barrier import start_spread
from bench_gui.store import SessionStore
from bench_gui.wire.names import LOCK_DIR_ENV
from bench_gui.wire.protocol import Event
from bench_gui.wire.run_config import Workload
from tests._fixtures.ssh import Sshd
from tests.services.plans import DATABASE, two_host_plan
from tests.services.test_run_lock import refused

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("multi_database")]


def the_run(controller: RunController) -> MergedStream:
    """The merged stream of a run on several driver hosts (its hosts, barrier, steps)."""
    run = controller.stream
    assert isinstance(run, MergedStream)
    return run


def test_two_hosts_one_session(pg_server: Any, two_hosts: list[str], store: SessionStore) -> None:
    controller = RunController(two_host_plan(pg_server, two_hosts), store)
    seen = list(controller.events())
    run = the_run(controller)

    assert controller.final is not None
    assert controller.final.get("status") == "ok", controller.errors
    assert controller.session_id is not None
    stored = store.get_run(controller.session_id)
    assert stored.status == "complete"
    # The session records the hosts and their clocks.
    recorded = stored.target["driver_hosts"]
    assert [h["host"] for h in recorded] == two_hosts
    assert all(isinstance(h["clock"]["offset_ms"], float) for h in recorded)
    # ... and every host's inventory, each taken over its own connection; the session's own
    # inventory is the primary's, as on one host.
    inventory = stored.inventory or {}
    assert inventory["collected_on"] == "alpha"
    per_host = inventory["driver_hosts"]
    assert list(per_host) == two_hosts
    for name, role in zip(two_hosts, ["primary", "secondary"], strict=True):
        assert per_host[name]["collected_on"] == name
        assert per_host[name]["role"] == role
        assert per_host[name]["cpu"]["threads"] >= 1
        assert per_host[name]["memory"]
        assert per_host[name]["kernel"]["release"] == os.uname().release
        assert unreadable(per_host[name]) == ""
    log = store.log(controller.session_id)
    assert not [e for e in log if "no inventory" in e.message]
    # Both agents took their run lock in the one folder they were given: the secondary shares
    # the primary's (one run), and says so.
    shares = [e.message for e in log if "which this agent shares" in e.message]
    assert len(shares) == 1
    assert shares[0].startswith("driver host 'beta': the run lock is held by another agent")
    assert f'session {controller.session_id} "two driver hosts" (run)' in shares[0]

    steps = store.steps(controller.session_id)
    assert [s.vus for s in steps] == [2, 4]
    for index, step in enumerate(steps):
        per_host = run.step_merge.host_summaries[index]
        primary, secondary = per_host["alpha"], per_host["beta"]
        # Each host ran its part of the users; the secondary read no database counters.
        assert [primary["vus"], secondary["vus"]] == controller.splits[index] == [index + 1] * 2
        assert secondary["nopm"] is None
        assert secondary["nopm_driver"] > 0
        # NOPM is the database's, read once, on the primary: never summed.
        assert step.nopm == primary["nopm"]
        # The drivers' New-Orders summed, and that sum agrees with the database's (the 2% rule).
        assert step.nopm_driver == pytest.approx(primary["nopm_driver"] + secondary["nopm_driver"])
        assert nopm_doubt(step.nopm, step.nopm_driver, step.window_s, step.vus) is None
        assert step.nopm_flag is None
        assert [h["host"] for h in step.summary["driver_hosts"]] == two_hosts
        # Each host's measured start is kept with the step: the spread across the hosts and
        # how late each began past the instant.
        start = step.summary["start"]
        assert start == run.barrier.spread(index)
        assert start["spread_s"] >= 0
        assert sorted(start["late_s"]) == sorted(two_hosts)
        assert all(late >= 0 for late in start["late_s"].values())
        # Both hosts started the step at one instant of this machine's clock: the go file each
        # agent read named it in its own clock (the measured offset apart).
        instant = run.barrier.go_instants[index]
        for host in run.hosts:
            assert host.clock is not None
            back = host.go[index] - host.clock.offset_ms / 1000.0
            assert back == pytest.approx(instant, abs=1e-6)

    # One stream: seq 1, 2, 3... of the merged events; samples with each host's figures.
    numbered = [e.seq for e in seen if e.seq]
    assert numbered == list(range(1, len(numbered) + 1))
    samples = store.samples(controller.session_id)
    in_step = [s for s in samples if s.step == 1]
    assert in_step
    assert all([h["host"] for h in s.extra["hosts"]] == two_hosts for s in in_step)
    measured = [s for s in in_step if s.phase == "measure"]
    assert measured
    assert all(s.vus == 4 for s in measured)
    assert any(s.nopm_db is not None for s in measured)


def test_unknown_hosts_named(pg_server: Any, two_hosts: list[str], store: SessionStore) -> None:
    plan = two_host_plan(pg_server, [*two_hosts, "gamma", "delta"], virtual_users=[4])
    controller = RunController(plan, store)
    with pytest.raises(RunError) as info:
        list(controller.events())
    named = str(info.value).split("(saved:")[0]
    assert "'gamma'" in named
    assert "'delta'" in str(info.value)
    assert store.list_runs() == []  # nothing started


def test_clock_past_the_limit_refused(
    pg_server: Any, two_hosts: list[str], store: SessionStore
) -> None:
    plan = two_host_plan(pg_server, two_hosts)
    plan.driver.max_clock_offset_ms = 0.0  # any measured offset is past it
    controller = RunController(plan, store)
    with pytest.raises(RunError) as info:
        list(controller.events())
    assert "driver.max_clock_offset_ms" in str(info.value)
    assert "driver host 'alpha'" in str(info.value)
    assert store.list_runs() == []  # refused before the session


def kill_beta_once_measuring(controller: RunController, seen: list[Event]) -> Iterator[Event]:
    """The run's events; once the first measured second is out, beta's agent is killed."""
    killed = False
    for event in controller.events():
        seen.append(event)
        if not killed and event.kind == "sample" and event.get("phase") == "measure":
            beta = the_run(controller).hosts[1]
            assert beta.agent is not None
            os.kill(beta.agent.pid, signal.SIGKILL)  # the host's agent is gone for good
            killed = True
        yield event


def test_host_lost_mid_step_fails_by_name(
    pg_server: Any, two_hosts: list[str], store: SessionStore
) -> None:
    plan = two_host_plan(pg_server, two_hosts, virtual_users=[2], duration_s=30)
    controller = RunController(plan, store)
    seen: list[Event] = []
    with pytest.raises(RunError) as info:
        list(kill_beta_once_measuring(controller, seen))
    assert "driver host 'beta' was lost in step 1" in str(info.value)
    assert controller.session_id is not None
    stored = store.get_run(controller.session_id)
    assert stored.status == "failed"
    assert "'beta'" in stored.message
    # The primary was stopped, not left running: its agent said so and ended.
    alpha = the_run(controller).hosts[0]
    assert alpha.final is not None
    assert alpha.final.get("status") == "stopped"
    assert alpha.agent is not None
    assert alpha.agent.wait(0) is not None
    assert any(e.kind == "error" and "'beta'" in str(e.get("message")) for e in seen)


def test_link_cut_on_one_host_resumes(
    sshd2: Sshd, pg_server: Any, two_hosts: list[str], store: SessionStore
) -> None:
    plan = two_host_plan(pg_server, two_hosts, virtual_users=[2, 2], duration_s=3)
    controller = RunController(plan, store)
    notices: list[tuple[str, str]] = []
    controller.on_notice = lambda state, detail: notices.append((state, detail))
    cut = False
    for event in controller.events():
        if not cut and event.kind == "sample" and event.get("phase") == "measure":
            beta = the_run(controller).hosts[1]
            assert beta.agent is not None
            port = beta.agent.local_port
            assert port is not None
            assert sshd2.cut(port)  # beta's sshd: alpha's link is another sshd's
            cut = True
    assert cut
    assert controller.final is not None
    assert controller.final.get("status") == "ok", controller.errors
    assert controller.session_id is not None
    assert store.get_run(controller.session_id).status == "complete"
    assert len(store.steps(controller.session_id)) == 2
    # The cut and its repair were beta's alone.
    states = [(state, detail) for state, detail in notices if "'beta'" in detail]
    assert [s for s, _ in states][:2] == ["lost", "restored"]
    assert not any("'alpha'" in detail for _, detail in notices)


def one_host_plan(pg_server: Any, host: str) -> Plan:
    """A run of its own through one driver host, against the two-host runs' database."""
    return Plan(
        name="through one host",
        target=Target(kind="postgresql", host=pg_server.socket_dir, database=DATABASE),
        workload=Workload(warehouses=1, virtual_users=[1], rampup_s=1, duration_s=60, processes=1),
        driver=Driver(target=host),
    )


def test_the_run_locks_the_server_on_every_host(
    pg_server: Any,
    sshd2: Sshd,
    two_hosts: list[str],
    store: SessionStore,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each sshd instance as its own machine (its own lock folder): while a run goes on on
    both, another run against the database through the SECONDARY's host is refused, naming
    the secondary's agent; once the run is over it may start."""
    monkeypatch.delenv(LOCK_DIR_ENV)  # every host's agent takes its host's own folder
    plan = two_host_plan(pg_server, two_hosts, virtual_users=[2], duration_s=60)
    controller = RunController(plan, store)
    events = controller.events()
    try:
        for event in events:
            if event.kind == "sample" and event.get("phase") == "measure":
                break  # both hosts are running the step
        beta = the_run(controller).hosts[1]
        assert beta.agent is not None

        other = RunController(one_host_plan(pg_server, "beta"), store)
        message = refused(other, controller)  # names the run, as one host's lock does
        assert f"agent pid {beta.agent.pid} of " in message  # beta's own agent holds it
    finally:
        controller.stop()
        for _ in events:
            pass
    assert controller.final is not None
    assert controller.final.get("status") == "stopped"

    # The run is over: a run through beta starts, and holds its lock in beta's own folder.
    after = RunController(one_host_plan(pg_server, "beta"), store)
    events = after.events()
    try:
        hello = next(e for e in events if e.kind == "hello")
        paths = hello.get("lock")["paths"]
        assert paths
        assert all(path.startswith(f"{sshd2.lock_dir}/") for path in paths)
    finally:
        after.stop()
        for _ in events:
            pass


def test_inventory_whose_commands_cannot_run_is_a_warning(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A host where no inventory command can run (none is on its PATH): the collector's
    inventory says nothing of the host, so it is not stored and the warning names the host."""
    readable, warning = host_inventory(LocalShell(), "alpha", "primary")
    assert warning == ""
    assert readable is not None
    assert (readable["collected_on"], readable["role"]) == ("alpha", "primary")
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: lscpu, cat, sh... not found
    empty = collect_inventory(LocalShell())
    assert unreadable(empty)
    inventory, warning = host_inventory(LocalShell(), "beta", "secondary")
    assert inventory is None
    assert warning.startswith("driver host 'beta': no inventory: ")
    assert "lscpu" in warning


def beta_down_in_step_2(
    controller: RunController, outage: contextlib.ExitStack, sshd2: Sshd, pids: list[int]
) -> Iterator[Event]:
    """The run's events; at step 2's first measured second beta's sshd goes down until
    ``outage`` closes (beta's agent's pid into ``pids``)."""
    for event in controller.events():
        measuring = event.kind == "sample" and event.get("phase") == "measure"
        if not pids and measuring and event.get("step") == 1:
            beta = the_run(controller).hosts[1]
            assert beta.agent is not None
            pids.append(beta.agent.pid)
            outage.enter_context(sshd2.down())
        yield event


def test_host_that_does_not_come_back_fails_by_name(
    sshd2: Sshd, pg_server: Any, two_hosts: list[str], store: SessionStore
) -> None:
    """Beta's link goes down for good in step 2: past the plan's max_outage_s the run fails
    naming beta (not alpha, which waits at step 3's barrier), step 1 is kept and alpha's agent
    is stopped cleanly."""
    plan = two_host_plan(pg_server, two_hosts, virtual_users=[2, 2, 2], duration_s=3)
    plan.driver.max_outage_s = 1.0
    controller = RunController(plan, store)
    notices: list[tuple[str, str]] = []
    controller.on_notice = lambda state, detail: notices.append((state, detail))
    pids: list[int] = []
    with contextlib.ExitStack() as outage, pytest.raises(RunError) as info:
        list(beta_down_in_step_2(controller, outage, sshd2, pids))
    assert pids
    beta_pid = pids[0]
    # Beta's agent runs on (it waits at step 3's barrier until no desktop has probed it for its
    # desktop timeout, 46 s here): this test's own cleanup.
    with contextlib.suppress(ProcessLookupError):
        os.kill(beta_pid, signal.SIGKILL)
    message = str(info.value)
    assert "driver host 'beta' was lost in step" in message, message
    assert "'alpha'" not in message
    assert controller.session_id is not None
    stored = store.get_run(controller.session_id)
    assert stored.status == "incomplete"  # failed, with its measured step kept
    assert "'beta'" in stored.message
    assert [s.vus for s in store.steps(controller.session_id)] == [2]
    alpha = the_run(controller).hosts[0]
    assert alpha.final is not None
    assert alpha.final.get("status") == "stopped"
    assert alpha.agent is not None
    assert alpha.agent.wait(0) is not None
    assert any(state == "lost" and "'beta'" in detail for state, detail in notices)
    assert not any("'alpha'" in detail for _, detail in notices)


def test_a_step_whose_hosts_began_apart_is_flagged() -> None:
    together = start_spread(0, {"alpha": (100.0, 0.001), "beta": (100.05, 0.002)})
    assert together["spread_s"] == pytest.approx(0.05)
    assert together["late_s"] == {"alpha": 0.001, "beta": 0.002}
    assert "flag" not in together
    apart = start_spread(2, {"alpha": (100.0, 0.5), "beta": (101.05, 1.55)})
    assert apart["spread_s"] == pytest.approx(1.05)
    assert apart["flag"].startswith("step 3: the driver hosts began 1.050 s apart")
    assert "'beta' last" in apart["flag"]


def test_a_run_on_several_hosts_stopped_before_it_started_is_said_so(
    pg_server: Any, two_hosts: list[str], store: SessionStore
) -> None:
    """As on one host: the session says it was stopped before it started, and no agent ran
    (a stop before the primary's agent started used to end the session 'failed', 'the run
    failed'; one before the run began left no session)."""
    controller = RunController(two_host_plan(pg_server, two_hosts), store)
    controller.stop()
    assert list(controller.events()) == []
    assert controller.session_id is not None
    stored = store.get_run(controller.session_id)
    assert (stored.status, stored.message) == ("incomplete", "stopped before it started")
    assert all(host.agent is None for host in controller.hosts)
