"""``attach`` survives a link cut in its setup: the loopback sshd, a saved target whose Python
cuts its own SSH link (kills the sshd processes serving it) the first time it lists the runs,
and a finished run on the host for the session to fetch."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bench_gui.core.plan_model import Driver, Plan, Target
from bench_gui.remote.transport import desktop_identity
from bench_gui.store import SessionStore
from bench_gui.wire.protocol import encode_event
from bench_gui.wire.run_config import Workload
from tests._fixtures.cli import bench

pytestmark = pytest.mark.integration

# The host's "python": lists the runs only after cutting the link it came in on, once.
CUTTING_PYTHON = """#!/bin/sh
case "$*" in
  *meta.json*)
    if mkdir {flag} 2>/dev/null; then
      port=${{SSH_CONNECTION#* }}; port=${{port%% *}}
      for p in $(ss -Htnp state established "( dport = :$port )" | grep -o 'pid=[0-9]*' \\
          | cut -d= -f2 | sort -u); do
        kill -9 "$p"
      done
      sleep 5
      exit 1
    fi;;
esac
exec {python} "$@"
"""


def test_a_cut_while_attach_lists_the_runs_is_retried(sshd: Any, tmp_path: Path) -> None:
    python = tmp_path / "cutting-python"
    flag = tmp_path / "cut-done"
    python.write_text(
        CUTTING_PYTHON.format(flag=shlex.quote(str(flag)), python=shlex.quote(sys.executable))
    )
    python.chmod(0o755)
    db = tmp_path / "s.sqlite3"
    sshd.trust()
    add = bench(
        *("target", "add", "lab", "--host", "127.0.0.1", "--port", str(sshd.port)),
        *("--user", "root", "--auth", "key", "--key", str(sshd.client_key)),
        *("--python", str(python)),
        db=db,
    )
    assert add.returncode == 0, add.stderr
    plan = Plan(
        name="cut",
        target=Target(kind="postgresql", host="/nonexistent", database="cut"),
        workload=Workload(warehouses=1, virtual_users=[1], rampup_s=1, duration_s=3),
        driver=Driver(target="lab"),
    )
    with SessionStore(db) as store:
        session = store.create_run(
            name=plan.name,
            plan=plan.to_dict(),
            plan_toml=plan.to_toml(),
            target={"kind": "postgresql", "driver": "lab"},
            engine="postgresql",
        )
    # The host's cache of this test (tests/conftest.py points the transport there).
    run_dir = Path(os.environ["BENCH_GUI_REMOTE_ROOT"]) / "runs" / "20260101-000000-abcdef"
    run_dir.mkdir(parents=True)
    lines = [encode_event("log", i, 1_760_000_000.0 + i, message=f"tick {i}") for i in range(1, 6)]
    lines.append(encode_event("done", 6, 1_760_000_006.0, status="ok", message="all done"))
    (run_dir / "events.jsonl").write_text("\n".join(lines) + "\n")
    # Started after the session was created, as a real run is (one started before it is an
    # older store's run, which attach never takes).
    started = datetime.now(UTC).isoformat(timespec="seconds")
    meta = {"session_id": session, "desktop": desktop_identity(), "started_at": started}
    (run_dir / "meta.json").write_text(json.dumps(meta))
    ended = subprocess.Popen(["true"])
    ended.wait()
    (run_dir / "agent.pid").write_text(f"{ended.pid}\n")

    proc = bench("attach", str(session), db=db)

    assert flag.exists()  # the link was cut while the runs were listed
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"session": session, "events": 6, "status": "complete"}
    notices = [line for line in proc.stderr.splitlines() if line.startswith("link ")]
    assert notices[0].startswith("link lost: link lost"), proc.stderr
    assert notices[-1] == "link restored: link restored", proc.stderr
    with SessionStore(db) as store:
        assert store.last_seq(session) == 6
