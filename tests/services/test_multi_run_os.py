"""A plan's ``[os]`` knobs on a run with several driver hosts, for real: applied on the host
``os.host`` names before any agent starts, held while every host runs, recorded with the
session, rolled back however the run ends; a refused value fails the run before any host
starts. The knob is one this container can write without harm (``vm.dirty_expire_centisecs``,
as in ``test_run_os_knobs``)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from bench_gui.core.plan_model import OsKnobs
from bench_gui.services.run import RunController
from bench_gui.services.run_errors import RunError
from bench_gui.store import SessionStore
from bench_gui.wire.protocol import Event
from tests.services.kernel_knob import EXPIRE, read_knob
from tests.services.plans import two_host_plan
from tests.services.test_run_os_knobs import log_of

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(os.geteuid() != 0, reason="changing kernel knobs needs root"),
]


def test_knobs_on_the_named_host_hold_for_every_host_and_are_restored(
    pg_server: Any, two_hosts: list[str], store: SessionStore, expire: tuple[str, str]
) -> None:
    before, new = expire
    plan = two_host_plan(pg_server, two_hosts, virtual_users=[2])
    # The secondary's saved target: the knobs go over a connection of their own.
    plan.os = OsKnobs(knobs={"vm.dirty_expire_centisecs": new}, host=two_hosts[1])
    controller = RunController(plan, store)
    during: list[str] = []
    for event in controller.events():
        if event.kind == "step" and event.get("phase") == "start":
            during.append(read_knob(EXPIRE))  # both hosts' users are connected by now
    assert controller.final is not None
    assert controller.final.get("status") == "ok", controller.errors
    assert during == [new]
    assert read_knob(EXPIRE) == before
    stored = store.get_run(controller.session_id)  # type: ignore[arg-type]
    tuning = (stored.inventory or {})["os_tuning"]
    assert tuning["where"] == two_hosts[1]
    assert tuning["knobs"] == {"vm.dirty_expire_centisecs": new}
    assert tuning["history_id"] is not None
    # Still the primary's inventory, with every host's.
    assert list((stored.inventory or {})["driver_hosts"]) == two_hosts
    lines = log_of(store, controller.session_id)
    assert any(f"vm.dirty_expire_centisecs: {before} → {new}" in line for line in lines)
    assert any("OS knobs restored" in line for line in lines)


def test_a_refused_value_fails_before_any_host_starts(
    pg_server: Any, two_hosts: list[str], store: SessionStore, expire: tuple[str, str]
) -> None:
    before, new = expire
    background = read_knob("/proc/sys/vm/dirty_background_ratio")
    plan = two_host_plan(pg_server, two_hosts, virtual_users=[2])
    plan.os = OsKnobs(
        knobs={"vm.dirty_expire_centisecs": new, "vm.dirty_background_ratio": "1000"},
        host=two_hosts[0],  # the primary: over its own link
    )
    controller = RunController(plan, store)
    seen: list[Event] = []
    with pytest.raises(RunError, match="vm.dirty_background_ratio: Invalid argument"):
        seen.extend(controller.events())
    assert not [e for e in seen if e.kind in ("hello", "step", "sample")]
    assert read_knob(EXPIRE) == before
    assert read_knob("/proc/sys/vm/dirty_background_ratio") == background
    run = store.get_run(controller.session_id)  # type: ignore[arg-type]
    assert run.status == "failed"
    assert "OS knobs not applied on" in run.message
    assert controller.hosts
    assert all(host.agent is None for host in controller.hosts)  # no agent was started
