"""``bench-gui target …``, ``run --driver`` and ``attach`` against a real sshd on loopback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench_gui.store import SessionStore
from tests._fixtures import cli
from tests._fixtures.pg import Clone
from tests._fixtures.wait import wait_until

pytestmark = pytest.mark.integration


def bench(*args: str, db: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return cli.bench(*args, db=db, stdin=stdin)


def test_target_lifecycle_and_a_run_through_it(
    sshd: Any, pg_server: Any, tpcc_db: Clone, tmp_path: Path
) -> None:
    db = tmp_path / "s.sqlite3"
    proc = bench(
        "target",
        "add",
        "lab",
        "--host",
        "127.0.0.1",
        "--port",
        str(sshd.port),
        "--user",
        "root",
        "--auth",
        "key",
        "--key",
        str(sshd.client_key),
        db=db,
    )
    assert proc.returncode == 0, proc.stderr
    listed = json.loads(bench("target", "list", "--json", db=db).stdout)
    assert [t["name"] for t in listed] == ["lab"]
    saved = (Path(os.environ["BENCH_GUI_DATA_DIR"]) / "targets.toml").read_text()
    assert "password" not in saved

    # Unknown host key: refused with the fingerprint and how to accept it.
    proc = bench("target", "test", "lab", db=db)
    assert proc.returncode == 3
    assert sshd.fingerprint in proc.stderr
    assert "--accept-host-key" in proc.stderr
    proc = bench("target", "test", "lab", "--accept-host-key", sshd.fingerprint, "--json", db=db)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["connected"]
    assert report["python_ok"]

    inventory = json.loads(bench("target", "inventory", "lab", "--json", db=db).stdout)
    assert inventory["memory"]

    plan = tmp_path / "plan.toml"
    plan.write_text(pg_server.plan_text(tpcc_db("cli_ssh", 2), vus="1", rampup=1, duration=3))
    proc = bench("run", str(plan), "--driver", "lab", "--json", db=db)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["steps"][0]["nopm"] > 0

    runs = json.loads(bench("target", "runs", "lab", "--json", db=db).stdout)
    assert any(r["meta"].get("session_id") == result["session"] for r in runs)
    proc = bench("attach", str(result["session"]), db=db)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["status"] == "complete"  # nothing new, nothing duplicated

    assert bench("target", "remove", "lab", db=db).returncode == 0
    assert json.loads(bench("target", "list", "--json", db=db).stdout) == []


def test_attach_says_how_far_it_has_fetched(
    sshd: Any, pg_server: Any, tpcc_db: Clone, tmp_path: Path
) -> None:
    """The desktop side of a run is killed mid-run; ``attach`` follows the rest of it on the
    host, printing its progress on stderr as events arrive, not only at the end."""
    db = tmp_path / "s.sqlite3"
    sshd.trust()
    add = bench(
        *("target", "add", "lab", "--host", "127.0.0.1", "--port", str(sshd.port)),
        *("--user", "root", "--auth", "key", "--key", str(sshd.client_key)),
        db=db,
    )
    assert add.returncode == 0, add.stderr
    plan = tmp_path / "plan.toml"
    plan.write_text(pg_server.plan_text(tpcc_db("cli_attach", 1), vus="1,2", rampup=1, duration=4))
    argv = [sys.executable, "-m", "bench_gui", "--db", str(db), "run", str(plan)]
    with open(tmp_path / "run.log", "wb") as log:
        run = subprocess.Popen(
            [*argv, "--driver", "lab"], stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ)
        )
    try:

        def sampled() -> int:
            assert run.poll() is None, (tmp_path / "run.log").read_text()[-2000:]
            with SessionStore(db) as store:
                runs = store.list_runs()
                return runs[0].id if runs and store.samples(runs[0].id) else 0

        session = wait_until(sampled, 240, "the run's first stored sample")
    finally:
        run.kill()  # as a crash would: the agent runs on, detached on the host
        run.wait()
    with SessionStore(db) as store:
        stored = store.last_seq(session)

    proc = bench("attach", str(session), db=db)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["status"] == "complete"
    lines = proc.stderr.splitlines()
    assert lines[0] == (
        f"re-attaching session {session} on lab: fetching the events after seq {stored:,}"
    )
    progress = [line for line in lines if line.startswith("fetched ")]
    assert len(progress) >= 2  # the first event, the end of step 2 at least, and the total
    assert progress[0].startswith("fetched 1 event, ")
    with SessionStore(db) as store:
        last = store.last_seq(session)
        data = store.run_to_json(session)
    # The steps of the events attach fetched: those after what the store had before.
    steps = {s["step"] for s in data["samples"] if s["seq"] > stored}
    steps |= {
        e["data"]["step"] for e in data["events"] if e["kind"] == "step" and e["seq"] > stored
    }
    assert steps
    events = result["events"]
    assert progress[-1] == (
        f"fetched {events:,} events, {len(steps)} step{'s' if len(steps) > 1 else ''} seen,"
        f" at seq {last:,} (done fetching)"
    )
    assert any(line.startswith("run ok") for line in lines)
