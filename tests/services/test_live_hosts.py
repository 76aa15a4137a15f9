"""The Live page's driver-host cards (issue 18), from events shaped as a run on two hosts sends
them: each host's agent events (the scripted sweep, with CPU readings made by the agent's own
``cpu_percent``) merged by the same functions :mod:`bench_gui.services.run_stream` uses
(:class:`~bench_gui.services.multi_samples.SampleMerger`,
:func:`~bench_gui.core.multi_driver.merge_step`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench_gui.agent.hostmetrics import CpuTimes, cpu_percent
from bench_gui.core.multi_driver import merge_step
from bench_gui.remote.ssh_transport import LINK_LOST, LINK_RESTORED
from bench_gui.remote.targets import TARGETS_FILE, add_target
from bench_gui.services.live_hosts import CPU_WARNING, LiveHosts, host_named
from bench_gui.services.multi_samples import SampleMerger
from bench_gui.services.run import RunController
from bench_gui.store import SessionStore
from bench_gui.store.paths import data_dir
from bench_gui.wire.protocol import Event
from tests._fixtures.scripted import EventScript, sweep_events
from tests.services.plans import two_host_plan

HOSTS = ["alpha", "beta"]


def cpu_reading(busy_pct: float, iowait_pct: float = 2.0) -> dict[str, float]:
    """One interval's CPU shares as the agent reports them (from two /proc/stat readings)."""
    a = CpuTimes(user=0, nice=0, system=0, idle=0, iowait=0, irq=0, softirq=0, steal=0)
    busy = round(busy_pct * 100)
    wait = round(iowait_pct * 100)
    b = CpuTimes(
        user=busy * 3 // 4,
        nice=0,
        system=busy - busy * 3 // 4,
        idle=10_000 - busy - wait,
        iowait=wait,
        irq=0,
        softirq=0,
        steal=0,
    )
    return cpu_percent(a, b)


def two_host_events(
    busy: dict[str, float], vus: tuple[int, ...] = (4, 8), lose: str | None = None
) -> list[Event]:
    """The merged stream of a run on ``HOSTS`` (alpha the primary), each host's CPU ``busy``
    percent; ``lose``: that host's agent ends half-way through the last step."""
    per_host: dict[str, list[Event]] = {}
    for index, name in enumerate(HOSTS):
        part = tuple(v // len(HOSTS) for v in vus)
        events = sweep_events(part, 3, 5, db_counters=index == 0, seed=index + 1)
        for event in events:
            if event.kind == "sample":
                event.data["host"] = {"cpu": cpu_reading(busy[name])}
                if index == 0:  # the database counts every host's orders
                    for key in ("nopm_db", "tpm_db"):
                        event.data[key] *= len(HOSTS)
            if event.kind == "step" and event.get("phase") == "end":
                summary = event.data["summary"]
                summary["host"] = {"cpu": cpu_reading(busy[name])}
                if index == 0:
                    summary["nopm"] *= len(HOSTS)
                    summary["tpm"] *= len(HOSTS)
        per_host[name] = events
    script = EventScript()
    merger = SampleMerger(HOSTS, HOSTS[0])
    starts: dict[int, dict[str, Event]] = {}
    ends: dict[int, dict[str, dict[str, Any]]] = {}
    lost_at = len(vus) - 1 if lose else None
    # The hosts' events interleaved, one of each in turn (as their readers queue them).
    for row in zip(*(per_host[name] for name in HOSTS), strict=True):
        for name, event in zip(HOSTS, row, strict=True):
            step = event.get("step")
            if name == lose and step == lost_at and event.get("elapsed", 0) > 4:
                continue
            if event.kind == "hello" and name == HOSTS[0]:
                script.emit("hello", **event.data)
            elif event.kind == "sample":
                for merged in merger.add(name, event.data):
                    script.emit("sample", dt=1.0, **merged)
            elif event.kind == "step" and event.get("phase") == "start":
                starts.setdefault(step, {})[name] = event
                if len(starts[step]) == len(HOSTS):
                    data = dict(starts[step][HOSTS[0]].data)
                    data["vus"] = sum(int(e.get("vus")) for e in starts[step].values())
                    data["driver_hosts"] = {n: e.get("vus") for n, e in starts[step].items()}
                    script.emit("step", **data)
            elif event.kind == "step":
                if name == lose and step == lost_at:
                    continue
                ends.setdefault(step, {})[name] = event.data["summary"]
                if len(ends[step]) == len(HOSTS):
                    for merged in merger.step_ended(step):
                        script.emit("sample", **merged)
                    done = merge_step([(n, ends[step][n]) for n in HOSTS], HOSTS[0])
                    script.emit(
                        "step",
                        phase="end",
                        step=step,
                        vus=done.summary["vus"],
                        summary=done.summary,
                    )
    if lose:
        for merged in merger.host_gone(lose):
            script.emit("sample", **merged)
        script.emit(
            "error",
            message=f"driver host {lose!r} was lost in step {len(vus)}: its agent ended",
            fatal=True,
            code="driver_host_lost",
        )
    return script.events


def fed(events: list[Event]) -> LiveHosts:
    hosts = LiveHosts()
    hosts.begin()
    for event in events:
        hosts.feed(event)
    return hosts


def test_each_host_has_its_card_with_its_own_figures() -> None:
    events = two_host_events({"alpha": 40.0, "beta": 55.0})
    hosts = fed(events)
    assert hosts.shown
    assert list(hosts.cards) == HOSTS
    alpha, beta = hosts.cards["alpha"], hosts.cards["beta"]
    assert (alpha.role, beta.role) == ("primary", "secondary")
    assert (alpha.vus, beta.vus) == (4, 4)  # 8 users split evenly
    # The cards carry the last second's per-host figures of the merged sample, exactly.
    last = [e for e in events if e.kind == "sample"][-1].get("hosts")
    by_name = {h["host"]: h for h in last}
    assert alpha.nopm_driver == by_name["alpha"]["nopm_driver"] > 0
    assert beta.tpm_driver == by_name["beta"]["tpm_driver"] > 0
    assert alpha.cpu_busy_pct == pytest.approx(40.0)
    assert beta.cpu_busy_pct == pytest.approx(55.0)
    assert beta.cpu_text() == "CPU 55%"
    assert not alpha.warning
    assert not beta.warning
    assert alpha.warning_text() == ""
    # The last step's own figures from merge_step: the committed transactions of its window.
    step_end = [e for e in events if e.kind == "step" and e.get("phase") == "end"][-1]
    recorded = {h["host"]: h for h in step_end.get("summary")["driver_hosts"]}
    assert beta.step == 1
    assert beta.step_transactions == recorded["beta"]["transactions"] > 0
    assert beta.step_text() == (
        f"step 2  ·  {recorded['beta']['transactions']:,} tx  ·  CPU 55% over the window"
    )
    assert alpha.figures_text().startswith("4 users  ·  ")


def test_a_host_past_80_percent_cpu_is_flagged() -> None:
    hosts = fed(two_host_events({"alpha": 35.0, "beta": 91.5}))
    beta = hosts.cards["beta"]
    assert beta.cpu_warning
    assert beta.step_cpu_warning
    assert beta.warning
    assert beta.warning_text() == CPU_WARNING
    assert "80%" in CPU_WARNING
    assert not hosts.cards["alpha"].warning
    # 80% itself is not past the limit.
    at_limit = fed(two_host_events({"alpha": 80.0, "beta": 10.0})).cards["alpha"]
    assert at_limit.cpu_busy_pct == pytest.approx(80.0)
    assert not at_limit.warning


def test_link_notices_name_their_host() -> None:
    hosts = fed(two_host_events({"alpha": 30.0, "beta": 30.0}))
    version = hosts.version
    assert hosts.notice("lost", f"driver host 'beta': {LINK_LOST}")
    assert hosts.version > version
    beta = hosts.cards["beta"]
    assert beta.link == "lost"
    assert beta.warning
    assert beta.warning_text() == "link lost · reconnecting"
    assert hosts.notice("restored", f"driver host 'beta': {LINK_RESTORED}")
    assert beta.link_text() == "link restored"
    assert not beta.warning
    assert hosts.cards["alpha"].link == ""
    # A notice of a run on one host names no host: nothing changes.
    assert not hosts.notice("lost", LINK_LOST)
    with pytest.raises(ValueError, match="link state 'unplugged' of driver host 'beta'"):
        hosts.notice("unplugged", "driver host 'beta': cable")


def test_a_host_lost_for_good() -> None:
    hosts = fed(two_host_events({"alpha": 30.0, "beta": 30.0}, lose="beta"))
    beta = hosts.cards["beta"]
    assert beta.link == "gone"
    assert beta.warning_text() == "host lost · the run fails"
    # A late notice does not bring it back.
    assert not hosts.notice("restored", f"driver host 'beta': {LINK_RESTORED}")
    assert beta.link == "gone"


def test_a_single_host_run_has_no_cards() -> None:
    hosts = fed(sweep_events((4, 8), 3, 5))
    assert not hosts.shown
    assert hosts.cards == {}


def test_host_names_are_read_as_the_run_writes_them() -> None:
    assert host_named("driver host 'beta': link restored") == "beta"
    odd = "o'hare"
    assert host_named(f"driver host {odd!r}: link lost") == odd
    assert host_named("link lost") is None


@pytest.mark.integration
def test_a_real_two_host_run_fills_the_cards(pg_server: Any, sshd: Any, tmp_path: Path) -> None:
    """The cards from a real run on two driver hosts (two saved SSH targets on the loopback
    sshd, as in tests/services/test_multi_run.py) against the private PostgreSQL."""
    pg_server.clone_tpcc("live_hosts_run")
    sshd.trust()
    for name in HOSTS:
        add_target(sshd.target(name), data_dir() / TARGETS_FILE)
    plan = two_host_plan(pg_server, HOSTS)
    plan.target.database = "live_hosts_run"
    with SessionStore(tmp_path / "sessions.sqlite3") as store:
        controller = RunController(plan, store)
        events = list(controller.events())
        assert controller.final is not None
        assert controller.final.get("status") == "ok", controller.errors
    hosts = fed(events)
    assert list(hosts.cards) == HOSTS
    alpha, beta = hosts.cards["alpha"], hosts.cards["beta"]
    assert (alpha.role, beta.role) == ("primary", "secondary")
    assert (alpha.vus, beta.vus) == (2, 2)  # the last step's 4 users, split evenly
    ends = [e for e in events if e.kind == "step" and e.get("phase") == "end"]
    recorded = {h["host"]: h for h in ends[-1].get("summary")["driver_hosts"]}
    for card in (alpha, beta):
        assert card.step == 1
        assert card.step_transactions == recorded[card.name]["transactions"] > 0
        assert card.step_cpu_pct == recorded[card.name]["cpu_busy_pct"]
        assert card.nopm_driver is not None
        assert card.tpm_driver is not None
        assert card.tpm_driver >= card.nopm_driver
        # The agent's host metrics ride along on every sample: each host's CPU is known.
        assert card.cpu_busy_pct is not None
        assert 0.0 <= card.cpu_busy_pct <= 100.0
        assert card.step_cpu_pct is not None
        assert card.link == ""


def test_the_cards_keep_the_runs_host_order_whoever_is_named_first() -> None:
    """A link notice or a sample may name the secondary first (the hosts' events arrive in any
    order on a loaded machine); the step's split puts the cards back in the run's order."""
    hosts = LiveHosts()
    assert hosts.notice("lost", f"driver host 'beta': {LINK_LOST}")
    hosts.feed(Event("sample", 1, 1.0, {"hosts": [{"host": "beta", "role": "secondary"}]}))
    assert list(hosts.cards) == ["beta"]
    hosts.feed(Event("step", 2, 2.0, {"phase": "start", "driver_hosts": {"alpha": 2, "beta": 2}}))
    assert list(hosts.cards) == HOSTS
    assert hosts.cards["beta"].link == "lost"  # what was known of it is kept
