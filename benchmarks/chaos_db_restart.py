"""Chaos, a database that goes away for a moment: a private PostgreSQL restarted, one virtual
user's backend ended, and the server hung during the reset between steps, under real sweeps.

The real agent (through ``RunController``, as ``bench-gui run`` drives it) runs short two-step
sweeps of ``--vus`` users against a private embedded server:

1. **restart**: ``pg_ctl restart -m fast`` one second into step 1's measured window;
2. **killed backend**: ``pg_terminate_backend`` of one user's backend at the same moment;
3. **reset hang** (``reset_between_steps = true``): the server's processes stopped (SIGSTOP)
   while step 2's reset waits on the template (a lock the script holds makes the moment
   certain), for ``--stall`` seconds.

For each: whether the run survived (ended ``ok`` with both steps stored), samples lost and
duplicated against the agent's own spool (the ground truth: goal 0 and 0), the time to
recover (restart and killed backend: from the disruption to the first sample with the
database's rates and every user connected again, as the desktop received it; reset hang: from
the server going on to step 2's start), and what the disrupted step says.

    python benchmarks/chaos_db_restart.py             # about a minute
    python benchmarks/chaos_db_restart.py --vus 8 --stall 10 --json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests._fixtures
sys.path.insert(0, str(ROOT / "benchmarks"))  # chaos

from chaos import compare, spool_samples  # noqa: E402

from bench_gui.core.plan_model import Plan, Target  # noqa: E402
from bench_gui.services.run import RunController, RunError  # noqa: E402
from bench_gui.store import SessionStore  # noqa: E402
from bench_gui.wire.protocol import Event  # noqa: E402
from bench_gui.wire.run_config import Workload  # noqa: E402
from tests._fixtures.pg import PgServer  # noqa: E402
from tests._fixtures.pg_hang import (  # noqa: E402
    frozen,
    private_server,
    restart,
    template_locked,
    terminate_users,
)


def _plan(server: PgServer, database: str, vus: int, **workload: Any) -> Plan:
    server.clone_tpcc(database, 1)
    wl = Workload(
        warehouses=1,
        virtual_users=[vus, vus],
        rampup_s=2,
        duration_s=6,
        processes=1,
        build="never",
        db_stall_limit_s=60,
    )
    for key, value in workload.items():
        setattr(wl, key, value)
    target = Target(kind="postgresql", host=server.socket_dir, database=database)
    return Plan(name=f"chaos {database}", target=target, workload=wl)


def _figures(
    controller: RunController, store: SessionStore, delivered: list[int], failure: str
) -> dict[str, Any]:
    """Survived, the step summaries' words, and samples lost/duplicated against the spool."""
    session = controller.session_id
    steps = store.steps(session) if session is not None else []
    run_dir = Path(str(getattr(controller.agent, "run_dir", "")))
    status = None if controller.final is None else controller.final.get("status")
    stored = [s.seq for s in store.samples(session)] if session is not None else []
    first = steps[0].summary if steps else {}
    return {
        "survived": status == "ok" and len(steps) == 2 and not failure,
        "status": status,
        "failure": failure,
        "steps_complete": [s.complete for s in steps],
        "step_1_errors": first.get("errors", {}),
        "step_1_connections_lost": first.get("connections_lost"),
        "step_1_problems": first.get("problems", []),
        **compare(spool_samples(run_dir), stored, delivered),
    }


def _disrupted_step(
    server: PgServer,
    store: SessionStore,
    database: str,
    vus: int,
    disrupt: Callable[[], Any],
) -> dict[str, Any]:
    """``disrupt()`` one second into step 1's window; the time until the desktop had a sample
    with the database's rates and no user down."""
    controller = RunController(_plan(server, database, vus), store)
    delivered: list[int] = []
    measured = 0
    disrupted_at: float | None = None
    recovered_s: float | None = None
    failure = ""
    try:
        for event in controller.events():
            if event.kind != "sample":
                continue
            delivered.append(event.seq)
            now = time.monotonic()
            if event.get("step") == 0 and event.get("phase") == "measure":
                measured += 1
                if measured == 1 and disrupted_at is None:
                    disrupted_at = time.monotonic()
                    disrupt()
                    continue
            if disrupted_at is not None and recovered_s is None and _recovered(event):
                recovered_s = now - disrupted_at
    except RunError as exc:
        failure = str(exc)
    return {
        "recovered_after_s": None if recovered_s is None else round(recovered_s, 2),
        **_figures(controller, store, delivered, failure),
    }


def _recovered(event: Event) -> bool:
    return event.get("nopm_db") is not None and not event.get("vus_down")


def _reset_hang(server: PgServer, store: SessionStore, vus: int, stall_s: float) -> dict[str, Any]:
    """Stop the server while step 2's reset waits on a lock on the template; go on after
    ``stall_s`` seconds."""
    database = "chaos_reset_hang"
    plan = _plan(server, database, vus, reset_between_steps=True)
    controller = RunController(plan, store)
    delivered: list[int] = []
    progress = silent = 0
    stopped_at = resumed_at = None
    recovered_s: float | None = None
    failure = ""
    try:
        with ExitStack() as hang:
            for event in controller.events():
                now = time.monotonic()
                if event.kind == "sample":
                    delivered.append(event.seq)
                elif event.kind == "step" and event.get("phase") == "start":
                    if event.get("step") == 0:
                        hang.enter_context(template_locked(server, f"{database}_template"))
                    elif resumed_at is not None and recovered_s is None:
                        recovered_s = now - resumed_at
                elif event.kind == "log" and str(event.get("message", "")).startswith(
                    "step 2: resetting"
                ):
                    hang.enter_context(frozen(server))
                    stopped_at = now
                elif event.kind == "progress" and event.get("task") == "reset":
                    progress += 1
                    silent += event.get("db_not_answering_s") is not None
                    if (
                        stopped_at is not None
                        and resumed_at is None
                        and now - stopped_at >= stall_s
                    ):
                        hang.close()
                        resumed_at = time.monotonic()
    except RunError as exc:
        failure = str(exc)
    return {
        "stall_s": None
        if stopped_at is None or resumed_at is None
        else round(resumed_at - stopped_at, 1),
        "progress_events_during_reset": progress,
        "of_them_not_answering": silent,
        "recovered_after_s": None if recovered_s is None else round(recovered_s, 2),
        **_figures(controller, store, delivered, failure),
    }


def db_restart_scenarios(workdir: Path, *, vus: int = 4, stall_s: float = 5.0) -> dict[str, Any]:
    """The three scenarios on a private server in ``workdir``; the figures of each."""
    os.environ["BENCH_GUI_DATA_DIR"] = str(workdir / "data")
    os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    with private_server(workdir / "pg") as server, SessionStore(workdir / "s.sqlite3") as store:
        server.tpcc_build(1)
        return {
            "restart": _disrupted_step(
                server, store, "chaos_restart", vus, lambda: restart(server)
            ),
            "killed_backend": _disrupted_step(
                server,
                store,
                "chaos_terminate",
                vus,
                lambda: terminate_users(server, "chaos_terminate", 1),
            ),
            "reset_hang": _reset_hang(server, store, vus, stall_s),
        }


def report(figures: dict[str, Any]) -> None:
    names = {
        "restart": "database restart (pg_ctl restart -m fast) mid-step",
        "killed_backend": "one backend ended (pg_terminate_backend) mid-step",
        "reset_hang": "server hung during the reset between steps",
    }
    survived = sum(1 for f in figures.values() if f["survived"])
    print(f"runs survived: {survived} of {len(figures)}")
    for key, f in figures.items():
        print(f"\n{names[key]}:")
        print(f"  survived:                  {f['survived']} (status {f['status']})")
        if f["failure"]:
            print(f"  failure:                   {f['failure']}")
        print(f"  samples lost:              {f['samples_lost']}")
        print(
            f"  samples duplicated:        {f['samples_duplicated_in_store']} stored twice,"
            f" {f['samples_delivered_twice']} delivered twice"
        )
        print(f"  time to recover:           {f['recovered_after_s']} s")
        if key == "reset_hang":
            print(f"  stall:                     {f['stall_s']} s")
            print(
                f"  progress during the reset: {f['progress_events_during_reset']}"
                f" ({f['of_them_not_answering']} saying 'not answering')"
            )
        print(f"  steps complete:            {f['steps_complete']}")
        print(f"  step 1 errors:             {f['step_1_errors']}")
        if f["step_1_connections_lost"]:
            print(f"  step 1 connections lost:   {f['step_1_connections_lost']}")
        for problem in f["step_1_problems"]:
            print(f"  step 1 not counted:        {problem}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vus", type=int, default=4, help="virtual users per step")
    parser.add_argument("--stall", type=float, default=5.0, help="seconds of the reset hang")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="chaos-db-restart-") as tmp:
        workdir = Path(tmp)
        workdir.chmod(0o755)  # the embedded server runs as its own user
        figures = db_restart_scenarios(workdir, vus=args.vus, stall_s=args.stall)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        report(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
