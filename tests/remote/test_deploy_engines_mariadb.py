"""A MariaDB sweep through an SSH driver host whose Python has no pyodbc: ``bench-gui run
plan.toml --driver lab`` deploys the agent with this desktop's pyodbc, whose workers reach the
tests' private MariaDB through the host's unixODBC and MariaDB Connector/ODBC."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests._fixtures.mariadb import PASSWORD, PASSWORD_ENV, MariaDbServer

pytestmark = pytest.mark.integration


def bench(*args: str, db: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bench_gui", "--db", str(db), *args],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, PASSWORD_ENV: PASSWORD},
        check=False,
    )


def test_a_mariadb_sweep_runs_on_a_driver_host_with_the_shipped_pyodbc(
    sshd: Any, mariadb_server: MariaDbServer, tmp_path: Path
) -> None:
    db = tmp_path / "sessions.sqlite3"
    sshd.trust()
    added = bench(
        *("target", "add", "lab", "--host", "127.0.0.1", "--port", str(sshd.port)),
        *("--user", "root", "--auth", "key", "--key", str(sshd.client_key)),
        *("--python", "/usr/bin/python3"),  # Debian's: no pyodbc, no psycopg
        db=db,
    )
    assert added.returncode == 0, added.stderr
    plan = tmp_path / "plan.toml"
    plan.write_text(mariadb_server.plan_text(mariadb_server.tpcc(1), vus="1,2", duration=4))
    proc = bench("run", str(plan), "--driver", "lab", "--json", db=db)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    steps = result["steps"]
    assert [s["vus"] for s in steps] == [1, 2]
    assert all(s["complete"] and s["nopm"] > 0 and s["tpm"] > 0 for s in steps), steps
    # The run went through the host's copy of the agent, with this desktop's pyodbc in it.
    host_root = Path(os.environ["BENCH_GUI_REMOTE_ROOT"])
    (agent_dir,) = sorted(host_root.glob("agent-*"))
    assert any((agent_dir / "deps").glob("pyodbc*.so"))
    assert any((agent_dir / "deps").glob("psycopg_binary-*.dist-info"))
