"""``bench-gui run --json`` when the database stops answering after the first step: the run ends
with a clear message (the plan's stall limit, or the next step's users' connect timeout), and
its JSON result still lists the finished step the store kept (it printed ``"steps": []`` when
the agent never sent its summary).

A real CLI subprocess against the private ``hang_pg`` server, stopped with SIGSTOP once the
store holds the first step; the stall is driven by what the store holds, never by sleeping.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path

import pytest

from bench_gui.store import SessionStore, StoreError
from tests._fixtures.pg import PgServer
from tests._fixtures.pg_hang import frozen, hang_plan
from tests._fixtures.wait import wait_until

pytestmark = pytest.mark.integration


def _stored_steps(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with SessionStore(db) as store:
            return sum(len(store.steps(run.id)) for run in store.list_runs(kind=None))
    except StoreError:  # the CLI may be creating the file: not readable yet
        return 0


def test_run_json_lists_the_kept_step_after_the_database_hangs(
    hang_pg: PgServer, tmp_path: Path
) -> None:
    plan = hang_plan(hang_pg, "hang_cli", db_stall_limit_s=3)
    plan_file = tmp_path / "plan.toml"
    plan_file.write_text(plan.to_toml(), encoding="utf-8")
    db = tmp_path / "sessions.sqlite3"
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench_gui", "--db", str(db), "run", str(plan_file), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    with ExitStack() as stall:
        try:
            wait_until(lambda: _stored_steps(db) >= 1, 240, "the first step stored")
            stall.enter_context(frozen(hang_pg))
            out, err = proc.communicate(timeout=240)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert proc.returncode != 0, out
    result = json.loads(out.strip().splitlines()[-1])
    # Frozen between steps, the next step's users cannot connect; frozen inside one, the stall
    # limit ends the run. Either way the run says why, on stderr and in its result.
    assert result["error"], result
    assert result["error"] in err
    steps = result["steps"]
    assert steps, result
    assert steps[0]["vus"] == 1
    assert steps[0]["complete"] is True
    assert steps[0]["nopm"] > 0
