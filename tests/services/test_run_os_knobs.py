"""A plan's ``[os]`` knobs on this machine, for real: applied before the agent starts (the
kernel shows them while the run goes on, the hello records them), rolled back however the
run ends, a refused value fails the run before anything starts and leaves the host as it was.

The knobs are ones this container can write without harm: ``vm.dirty_expire_centisecs`` (no
other test touches it) and the read-ahead of a loop device made for the test.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from bench_gui.core.plan_model import OsKnobs, Plan, Target
from bench_gui.remote.host_access import LocalHost
from bench_gui.remote.local_transport import LocalTransport
from bench_gui.services.run import RunController
from bench_gui.services.run_errors import RunError
from bench_gui.services.tuning import os_run_for_plan, os_target_key, rollback_os
from bench_gui.store import SessionStore
from bench_gui.store.tuning_history import TuningHistory
from bench_gui.wire.protocol import Event
from bench_gui.wire.run_config import Workload
from tests._fixtures.pg import Clone
from tests.services.kernel_knob import EXPIRE, read_knob

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(os.geteuid() != 0, reason="changing kernel knobs needs root"),
]


def read_ahead(device: str) -> str:
    return read_knob(f"/sys/block/{device}/queue/read_ahead_kb")


def os_plan(pg_server: Any, database: str, section: OsKnobs, **workload: Any) -> Plan:
    wl = Workload(warehouses=1, virtual_users=[1], rampup_s=1, duration_s=2, processes=1)
    for key, value in workload.items():
        setattr(wl, key, value)
    target = Target(kind="postgresql", host=pg_server.socket_dir, database=database)
    return Plan(name=f"os knobs {database}", target=target, workload=wl, os=section)


def log_of(store: SessionStore, session_id: int | None) -> list[str]:
    assert session_id is not None
    return [f"{line.level}: {line.message}" for line in store.log(session_id)]


def test_knobs_hold_during_the_run_and_are_restored_after(
    pg_server: Any,
    tpcc_db: Clone,
    store: SessionStore,
    expire: tuple[str, str],
    loop_disk: tuple[str, Path],
) -> None:
    before, new = expire
    device, mount = loop_disk
    ahead = read_ahead(device)
    new_ahead = "4096" if ahead != "4096" else "2048"
    section = OsKnobs(
        knobs={
            "vm.dirty_expire_centisecs": new,
            "read_ahead_kb": new_ahead,
            "kernel.sched_min_granularity_ns": "10000000",  # gone since 6.6: reported, no error
        },
        data_dir=str(mount),  # the devices are found from it
    )
    controller = RunController(os_plan(pg_server, tpcc_db("os_knobs_run"), section), store)
    seen: dict[str, Any] = {}
    events: list[Event] = []
    for event in controller.events():
        events.append(event)
        if event.kind == "hello":
            seen["expire"] = read_knob(EXPIRE)
            seen["ahead"] = read_ahead(device)
            seen["recorded"] = event.get("os_knobs")["block"][device]["read_ahead_kb"]
    assert seen == {"expire": new, "ahead": new_ahead, "recorded": new_ahead}
    # Afterwards, exactly the old values.
    assert read_knob(EXPIRE) == before
    assert read_ahead(device) == ahead

    run = store.get_run(controller.session_id)  # type: ignore[arg-type]
    assert run.status == "complete"
    record = run.inventory["os_tuning"]  # type: ignore[index]
    assert record["changed"]["vm.dirty_expire_centisecs"] == [before, new]
    assert record["devices"] == [device]
    lines = log_of(store, controller.session_id)
    assert f"info: OS knob vm.dirty_expire_centisecs: {before} → {new} on this machine" in lines
    assert f"info: OS knob block.{device}.read_ahead_kb: {ahead} → {new_ahead} on this machine" in (
        lines
    )
    if not Path("/proc/sys/kernel/sched_min_granularity_ns").exists():
        assert any(
            line.startswith("warning: OS knob kernel.sched_min_granularity_ns: not on this kernel")
            for line in lines
        )
    assert any(line.startswith("info: OS knobs restored on this machine") for line in lines)
    # The consumer saw the apply before the hello, and the restore at the end.
    messages = [str(e.get("message")) for e in events if e.kind == "log"]
    assert messages.index(f"OS knob vm.dirty_expire_centisecs: {before} → {new} on this machine")
    assert [e.kind for e in events].index("hello") > 0
    assert messages[-1].startswith("OS knobs restored on this machine")
    # The history keeps the apply and the rollback that undid it.
    history = TuningHistory(store).entries(os_target_key(LocalHost()), kind="os")
    assert [e.action for e in history] == ["rollback", "apply"]
    assert history[1].undone_by == history[0].id
    assert history[1].profile.startswith(f"for run #{controller.session_id}")


def test_a_stopped_run_and_a_consumer_that_goes_away_restore_them(
    pg_server: Any, tpcc_db: Clone, store: SessionStore, expire: tuple[str, str]
) -> None:
    before, new = expire
    section = OsKnobs(knobs={"vm.dirty_expire_centisecs": new})
    plan = os_plan(pg_server, tpcc_db("os_knobs_stop"), section, duration_s=600)
    controller = RunController(plan, store)
    during = ""
    for event in controller.events():
        if event.kind == "sample" and event.get("phase") == "measure":
            during = read_knob(EXPIRE)
            controller.stop()
    assert during == new
    assert read_knob(EXPIRE) == before
    assert store.get_run(controller.session_id).status == "incomplete"  # type: ignore[arg-type]

    controller = RunController(plan, store)
    events = controller.events()
    for event in events:
        if event.kind == "hello":
            assert read_knob(EXPIRE) == new
            break
    events.close()  # the reader goes away mid-run
    assert read_knob(EXPIRE) == before
    assert any("OS knobs restored" in line for line in log_of(store, controller.session_id))


def test_an_agent_that_fails_restores_them(
    pg_server: Any, store: SessionStore, expire: tuple[str, str], tmp_path: Path
) -> None:
    before, new = expire
    section = OsKnobs(knobs={"vm.dirty_expire_centisecs": new})
    # The agent cannot even start: its run directory would be under a plain file.
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    plan = os_plan(pg_server, "os_knobs_nostart", section)
    controller = RunController(plan, store, transport=LocalTransport(blocker / "runs"))
    with pytest.raises(RunError):
        list(controller.events())
    assert read_knob(EXPIRE) == before
    assert store.get_run(controller.session_id).status == "failed"  # type: ignore[arg-type]
    assert any("OS knobs restored" in line for line in log_of(store, controller.session_id))

    # The agent starts, then fails: no such database server.
    plan = os_plan(pg_server, "os_knobs_fails", section)
    plan.target.port = 1
    controller = RunController(plan, store)
    with pytest.raises(RunError):
        list(controller.events())
    assert read_knob(EXPIRE) == before
    assert any("OS knobs restored" in line for line in log_of(store, controller.session_id))


def test_a_refused_value_fails_the_run_before_anything_starts(
    pg_server: Any, store: SessionStore, expire: tuple[str, str]
) -> None:
    before, new = expire
    background = read_knob("/proc/sys/vm/dirty_background_ratio")
    section = OsKnobs(knobs={"vm.dirty_expire_centisecs": new, "vm.dirty_background_ratio": "1000"})
    controller = RunController(os_plan(pg_server, "os_knobs_refused", section), store)
    seen: list[Event] = []
    with pytest.raises(RunError, match="vm.dirty_background_ratio: Invalid argument") as info:
        seen.extend(controller.events())
    assert "already changed were restored" in str(info.value)
    assert seen == []  # the agent never started
    assert read_knob(EXPIRE) == before
    assert read_knob("/proc/sys/vm/dirty_background_ratio") == background
    run = store.get_run(controller.session_id)  # type: ignore[arg-type]
    assert run.status == "failed"
    assert "OS knobs not applied on this machine" in run.message
    assert store.steps(controller.session_id) == []  # type: ignore[arg-type]


def test_knobs_left_applied_can_be_restored_from_the_history(
    store: SessionStore, expire: tuple[str, str]
) -> None:
    """When the end of the run cannot restore them (the link to the host is down), the
    snapshot waits in the history: ``bench-gui tune os rollback`` and the Database page use it."""
    before, new = expire
    plan = Plan(os=OsKnobs(knobs={"vm.dirty_expire_centisecs": new}))
    run = os_run_for_plan(store, plan, 7)
    assert run is not None
    run.apply()
    assert read_knob(EXPIRE) == new
    ((level, message),) = run.keep("the run may still be going on the driver host")
    assert level == "warning"
    assert "OS tuning history (#" in message
    assert "`bench-gui tune os rollback`" in message
    assert read_knob(EXPIRE) == new
    result, rid, entry = rollback_os(store, LocalHost())
    assert entry.id == run.entry
    assert result.changed["vm.dirty_expire_centisecs"] == ("", before)
    assert read_knob(EXPIRE) == before
    # The run's own restore, should it come later, sees it is done.
    assert run.restore() == [("info", f"OS knobs already restored (#{rid})")]
