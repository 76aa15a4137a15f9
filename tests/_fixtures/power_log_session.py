"""A real stored session with power, and meter logs made from its own window times.

:func:`rapl_session` runs ``bench-gui run`` (the real CLI, agent and embedded PostgreSQL) on a
short two-step sweep whose power meter is RAPL over a powercap tree whose counters move while
the agent reads them (powercap_tree.py): the session then holds what a meter
measured during the run (66 W of CPU power per step, an idle baseline) for an import to
replace. :func:`write_meter_log` writes the CSV a wall meter would have logged around that
run: constant watts per step, so the expected average over each window is exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_gui.store import SessionStore
from tests._fixtures.cli import bench

from .powercap_tree import EnergyClock, PowercapTree

RANGE_UJ = 100_000_000
RAPL_WATTS = {"intel-rapl:0": 40.0, "intel-rapl:0:1": 4.0, "intel-rapl:1": 20.0}
CPU_WATTS = 64.0  # the two packages and the DRAM zone above
IDLE_W = 80.0
STEP_W = (150.0, 210.0)  # the wall meter's watts during step 1 and step 2


@dataclass
class PowerSession:
    db: Path
    run_id: int
    stderr: str
    folder: Path


def rapl_session(pg_server: Any, folder: Path, database: str) -> PowerSession:
    """A real 1- and 2-user sweep measured with RAPL, stored through the CLI, on ``database``
    (a copy of the session's 1-warehouse build)."""
    pg_server.clone_tpcc(database, warehouses=1)
    tree = PowercapTree(folder / "rapl", max_range_uj=RANGE_UJ)
    plan = folder / "plan.toml"
    plan.write_text(
        pg_server.plan_text(database, vus="1,2", warehouses=1, rampup=1, duration=4)
        + f'[power]\nmeter = "rapl"\nidle_s = 2\ninterval_s = 0.25\n'
        f'[power.options]\nroot = "{tree.root}"\n'
    )
    db = folder / "sessions.sqlite3"
    with EnergyClock(tree, RAPL_WATTS, RANGE_UJ):
        proc = bench("run", str(plan), db=db)
    assert proc.returncode == 0, proc.stderr[-3000:]
    with SessionStore(db) as store:
        run_id = store.list_runs()[0].id
    return PowerSession(db=db, run_id=run_id, stderr=proc.stderr, folder=folder)


def windows(store: SessionStore, run_id: int) -> list[tuple[float, float]]:
    """Each step's measured window (epoch seconds), as the agent recorded it."""
    return [(s.summary["window_t0"], s.summary["window_t1"]) for s in store.steps(run_id)]


def write_meter_log(
    path: Path,
    store: SessionStore,
    run_id: int,
    step_watts: tuple[float, ...] = STEP_W,
    idle_w: float = IDLE_W,
    before_s: float = 60.0,
    after_s: float = 5.0,
    skip: tuple[float, float] | None = None,
    every_s: float = 0.5,
) -> None:
    """A wall meter's log around the run, one line every ``every_s`` seconds from
    ``before_s`` before the run's first event: ``idle_w`` until step 1's ramp-up, then each
    step's watts until the middle of the gap after its window. ``skip`` leaves out a stretch.

    Each change of watts is a step: a reading at the change with the old watts and one a
    millisecond later with the new. The trapezoid rule interpolates between readings, so with
    readings only every ``every_s`` the ramp between two of them could reach into the idle
    window or a step's, by as much as the run's timing puts it there (80.036 W once, for 80).
    """
    spans = windows(store, run_id)
    begin = min(e["t"] for e in store.run_to_json(run_id)["events"])
    edges = [(a + b) / 2 for (_a0, a), (b, _b1) in zip(spans, spans[1:], strict=False)]
    # Step 1's ramp-up begins a whole ramp-up (1 s) before its window, after the idle
    # measurement: its watts start 0.75 s before the window.
    bounds = [round(b, 3) for b in (spans[0][0] - 0.75, *edges, spans[-1][1] + after_s + 1)]

    def watts_at(t: float) -> float:
        for i, step in enumerate(step_watts):
            if bounds[i] < t <= bounds[i + 1]:
                return step
        return idle_w

    times = []
    t = begin - before_s
    while t <= spans[-1][1] + after_s:
        times.append(t)
        t += every_s
    changes = [b for b in bounds[: len(step_watts) + 1] if b <= spans[-1][1] + after_s]
    times += [c for b in changes for c in (b, b + 0.001)]
    lines = ["timestamp,watts"]
    for t in sorted({round(t, 3) for t in times}):  # to the millisecond, as written
        if skip is None or not skip[0] <= t <= skip[1]:
            lines.append(f"{t:.3f},{watts_at(t):.2f}")
    path.write_text("\n".join(lines) + "\n")
