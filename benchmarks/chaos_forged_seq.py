"""Chaos scenario: a forged pair of far-future ``seq`` values appended to a live run's spool.

Used by ``benchmarks/chaos.py`` (its sshd, its PostgreSQL, its driver target). A sweep is
followed over SSH; at its first measured sample, two copies of that sample with seqs 10⁹ and
10⁹ + 1 (and its own time) are appended to the agent's spool on the host, between the agent's
lines. Before the fix both were accepted (the second "went on" from the first), every real event
after them was refused as a repeat, the session ended incomplete and ``attach`` could not repair
it. Figures: the run's status, the bad lines reported, samples lost and duplicated against the
spool (the forged lines left out), and whether ``attach`` afterwards finds nothing new.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

FORGED = 10**9


def forged_seq_scenario(
    server: Any,
    db: Path,
    duration_s: float,
    plan_for: Callable[..., Any],
    compare: Callable[..., dict[str, Any]],
    spool_samples: Callable[[Path], list[int]],
) -> dict[str, Any]:
    """One two-step sweep over SSH with a forged seq pair written into its spool."""
    from bench_gui.services.run import RunController
    from bench_gui.store import SessionStore
    from bench_gui.wire.protocol import encode_event

    server.clone_tpcc("chaos_forged", 1)
    plan = plan_for("chaos_forged", server.socket_dir, [1, 2], duration_s)
    delivered: list[int] = []
    forged_at: float | None = None
    with SessionStore(db) as store:
        controller = RunController(plan, store)
        for event in controller.events():
            if event.kind != "sample":
                continue
            delivered.append(event.seq)
            if forged_at is None and event.get("phase") == "measure":
                run_dir = Path(str(getattr(controller.agent, "run_dir", "")))
                lines = [encode_event("sample", FORGED + k, event.t, **event.data) for k in (0, 1)]
                with open(run_dir / "events.jsonl", "a", encoding="utf-8") as spool:
                    for line in lines:  # one write a line: O_APPEND keeps lines whole
                        spool.write(line + "\n")
                        spool.flush()
                forged_at = time.monotonic()
        session_id = controller.session_id
        run_dir = Path(str(getattr(controller.agent, "run_dir", "")))
        assert session_id is not None
        run = store.get_run(session_id)
        bad = [
            line.message
            for line in store.log(session_id)
            if line.level == "warning" and str(FORGED)[:6] in line.message
        ]
    attach = subprocess.run(
        [sys.executable, "-m", "bench_gui", "--db", str(db), "attach", str(session_id)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    attached = json.loads(attach.stdout.strip().splitlines()[-1]) if attach.returncode == 0 else {}
    spool = [seq for seq in spool_samples(run_dir) if seq < FORGED]
    stored = [seq for seq in _stored(db, session_id)]
    return {
        "status": run.status,
        "message": run.message,
        "forged_lines_reported": len(bad),
        "forged_stored": sum(1 for seq in stored if seq >= FORGED),
        "attach_exit": attach.returncode,
        "attach_new_events": attached.get("events"),
        "status_after_attach": attached.get("status"),
        **compare(spool, [s for s in stored if s < FORGED], delivered),
    }


def _stored(db: Path, session_id: int) -> list[int]:
    from bench_gui.store import SessionStore

    with SessionStore(db) as store:
        return [s.seq for s in store.samples(session_id)]


def report_forged(figures: dict[str, Any]) -> None:
    forged = figures.get("forged_seq")
    if not forged:
        return
    print(f"\nforged seq pair ({FORGED}, {FORGED + 1}) in a live spool:")
    print(f"  run:                            {forged['status']} ({forged['message']})")
    print(f"  forged lines reported as bad:   {forged['forged_lines_reported']}")
    print(f"  forged samples stored:          {forged['forged_stored']}")
    print(f"  samples in the agent's spool:   {forged['samples_in_spool']}")
    print(f"  samples stored:                 {forged['samples_stored']}")
    print(f"  samples lost:                   {forged['samples_lost']}")
    print(f"  samples duplicated (delivered): {forged['samples_delivered_twice']}")
    print(f"  samples duplicated (stored):    {forged['samples_duplicated_in_store']}")
    print(
        f"  attach afterwards:              exit {forged['attach_exit']},"
        f" {forged['attach_new_events']} new events, session {forged['status_after_attach']}"
    )


__all__ = ["FORGED", "forged_seq_scenario", "report_forged"]
