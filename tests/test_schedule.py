"""The xdist scheduler's rules (tests/_fixtures/schedule.py): knob files never run together,
measuring files run last and alone, the longest files go first."""

from __future__ import annotations

from tests._fixtures.schedule import Plan, kind_of

KNOB_A = "tests/remote/test_osknobs.py"
KNOB_B = "tests/workloads/random_read/agent/test_cgroup.py"
MEASURING = "tests/workloads/random_read/agent/test_collapse.py"
PLAIN_LONG = "tests/gui/test_long.py"
PLAIN_SHORT = "tests/core/test_short.py"


def _plan() -> Plan:
    plan = Plan(durations={PLAIN_LONG: 300.0, PLAIN_SHORT: 1.0, KNOB_A: 50.0, KNOB_B: 40.0})
    plan.add([PLAIN_SHORT, MEASURING, KNOB_B, PLAIN_LONG, KNOB_A])
    return plan


def test_the_files_kinds() -> None:
    assert kind_of(KNOB_A) == "knob"
    assert kind_of(MEASURING) == "measuring"
    assert kind_of(PLAIN_LONG) == "plain"


def test_longest_first() -> None:
    assert _plan().next_for("gw0") == PLAIN_LONG


def test_knob_files_never_run_together() -> None:
    plan = _plan()
    started = [plan.next_for(w) for w in ("gw0", "gw1", "gw2", "gw3")]
    assert sum(1 for f in started if f is not None and kind_of(f) == "knob") == 1
    knob_worker = next(w for w, f in plan.running.items() if kind_of(f) == "knob")
    plan.done(knob_worker)
    assert kind_of(plan.next_for(knob_worker) or "") == "knob"


def test_measuring_files_run_last_and_alone() -> None:
    plan = _plan()
    workers = ["gw0", "gw1", "gw2"]
    seen: list[tuple[str, int]] = []  # (file, how many others ran alongside)
    for _ in range(20):
        for w in workers:
            if w not in plan.running:
                f = plan.next_for(w)
                if f is not None:
                    seen.append((f, len(plan.running) - 1))
        if not plan.running and not plan.waiting:
            break
        plan.done(next(iter(plan.running)))  # one file ends
    files = [f for f, _ in seen]
    assert files[-1] == MEASURING
    assert sorted(files) == sorted([PLAIN_SHORT, MEASURING, KNOB_B, PLAIN_LONG, KNOB_A])
    assert dict(seen)[MEASURING] == 0
