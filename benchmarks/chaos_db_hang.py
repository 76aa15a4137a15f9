"""Chaos, a hung database: a private PostgreSQL stopped with SIGSTOP under a real sweep.

The real agent (through ``RunController``, as ``bench-gui run`` drives it) runs short sweeps
against a private embedded server whose processes are stopped, not shut down, for a while:

1. a stall that ends (the server goes on after ``--stall`` seconds, across the end of the
   first step's measured window): the samples that came during it, how many said "database
   not answering", the time from the stop to the first of them, and whether the step was
   stored complete (it must not be);
2. a stall that does not end, with the plan's ``workload.db_stall_limit_s`` = ``--limit``:
   the time from the stop to a clean failure (the run's ``done``), its message, and the
   steps kept.

Prints the figures and returns them from :func:`db_hang_scenario` for ``benchmarks/chaos.py``.

    python benchmarks/chaos_db_hang.py                  # about a minute
    python benchmarks/chaos_db_hang.py --stall 20 --limit 10
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests._fixtures

from bench_gui.core.plan_model import Plan, Target
from bench_gui.services.run import RunController, RunError
from bench_gui.store import SessionStore
from bench_gui.wire.run_config import Workload
from tests._fixtures.pg import PgServer
from tests._fixtures.pg_hang import frozen, private_server


def _plan(server: PgServer, database: str, limit_s: float) -> Plan:
    server.clone_tpcc(database, 1)
    workload = Workload(
        warehouses=1,
        virtual_users=[2, 2],
        rampup_s=2,
        duration_s=5,
        processes=1,
        build="never",
        db_stall_limit_s=limit_s,
    )
    target = Target(kind="postgresql", host=server.socket_dir, database=database)
    return Plan(name=f"chaos {database}", target=target, workload=workload)


def _stall_that_ends(server: PgServer, store: SessionStore, stall_s: float) -> dict[str, Any]:
    """Stop the server 1 s into step 1's window for ``stall_s`` seconds."""
    controller = RunController(_plan(server, "chaos_hang_ends", 600), store)
    stopped_at = resumed_at = first_silent = None
    during = silent = 0
    with ExitStack() as stall:
        for event in controller.events():
            if event.kind != "sample":
                continue
            now = time.monotonic()
            if stopped_at is None and event.get("step") == 0 and event.get("phase") == "measure":
                stall.enter_context(frozen(server))
                stopped_at = now
                continue
            if stopped_at is not None and resumed_at is None:
                during += 1
                if event.get("db_not_answering_s") is not None:
                    silent += 1
                    first_silent = first_silent or now - stopped_at
                if now - stopped_at >= stall_s:
                    stall.close()
                    resumed_at = now
    steps = store.steps(controller.session_id) if controller.session_id else []
    return {
        "stall_s": round((resumed_at or 0) - (stopped_at or 0), 1),
        "samples_during_stall": during,
        "samples_saying_not_answering": silent,
        "first_not_answering_after_s": None if first_silent is None else round(first_silent, 2),
        "stalled_step_stored_complete": steps[0].complete if steps else None,
        "stalled_step_problems": steps[0].summary.get("problems") if steps else None,
        "run_status": None if controller.final is None else controller.final.get("status"),
    }


def _stall_that_never_ends(server: PgServer, store: SessionStore, limit_s: float) -> dict[str, Any]:
    """Stop the server 1 s into step 2's window and leave it stopped."""
    controller = RunController(_plan(server, "chaos_hang_stays", limit_s), store)
    stopped_at = ended_at = None
    during = 0
    message = ""
    with ExitStack() as stall:
        try:
            for event in controller.events():
                now = time.monotonic()
                if event.kind == "done":
                    ended_at = now
                if event.kind != "sample":
                    continue
                measuring = event.get("phase") == "measure"
                if stopped_at is None and event.get("step") == 1 and measuring:
                    stall.enter_context(frozen(server))
                    stopped_at = now
                elif stopped_at is not None:
                    during += 1
        except RunError as exc:
            message = str(exc)
    steps = store.steps(controller.session_id) if controller.session_id else []
    return {
        "stall_limit_s": limit_s,
        "samples_during_stall": during,
        "clean_failure_after_s": None
        if stopped_at is None or ended_at is None
        else round(ended_at - stopped_at, 1),
        "message": message,
        "steps_kept": len(steps),
        "steps_complete": [s.complete for s in steps],
    }


def db_hang_scenario(
    workdir: Path, *, stall_s: float = 8.0, limit_s: float = 5.0
) -> dict[str, dict[str, Any]]:
    """Both stalls on a private server in ``workdir``; the figures of each.

    Uses ``workdir`` for the server, the session store and the agent's runs (the data
    directory and a keyring that holds nothing are set for the process).
    """
    os.environ["BENCH_GUI_DATA_DIR"] = str(workdir / "data")
    os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    with private_server(workdir / "pg") as server, SessionStore(workdir / "s.sqlite3") as store:
        return {
            "stall_that_ends": _stall_that_ends(server, store, stall_s),
            "stall_that_never_ends": _stall_that_never_ends(server, store, limit_s),
        }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stall", type=float, default=8.0, help="seconds of the stall that ends")
    parser.add_argument("--limit", type=float, default=5.0, help="the plan's db_stall_limit_s")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="chaos-db-hang-") as tmp:
        figures = db_hang_scenario(Path(tmp), stall_s=args.stall, limit_s=args.limit)
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    ends, stays = figures["stall_that_ends"], figures["stall_that_never_ends"]
    print(f"stall that ends ({ends['stall_s']} s, across the end of step 1's window):")
    print(f"  samples during the stall:            {ends['samples_during_stall']}")
    print(f"  of them 'database not answering':    {ends['samples_saying_not_answering']}")
    print(f"  first 'not answering' sample after:  {ends['first_not_answering_after_s']} s")
    print(f"  stalled step stored complete:        {ends['stalled_step_stored_complete']}")
    print(f"  its problems:                        {ends['stalled_step_problems']}")
    print(f"  run status:                          {ends['run_status']}")
    print(f"stall that never ends (db_stall_limit_s = {stays['stall_limit_s']:g}):")
    print(f"  samples during the stall:            {stays['samples_during_stall']}")
    print(f"  clean failure after:                 {stays['clean_failure_after_s']} s")
    print(f"  message:                             {stays['message']}")
    print(f"  steps kept (complete):               {stays['steps_complete']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
