"""``bench-gui target …``, ``run --driver`` and ``attach`` against a real sshd on loopback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration


def bench(*args: str, db: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bench_gui", "--db", str(db), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ),
        input=stdin,
        check=False,
    )


def test_target_lifecycle_and_a_run_through_it(sshd: Any, pg_server: Any, tmp_path: Path) -> None:
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
    plan.write_text(pg_server.plan_text("cli_ssh", vus="1", rampup=1, duration=3))
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
