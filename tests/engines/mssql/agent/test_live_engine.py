"""The SQL Server engine against a real server, when ``BENCH_GUI_TEST_MSSQL`` names one (see
tests/engines/mssql/agent/live_server.py for its two forms): the engine's whole life (create, build,
status, checks, facts, settings, drop) and a short sweep through the real agent process.

Skipped here: no SQL Server can be installed on this project's machines. Until these run,
SQL Server is "not verified against a live server" (bench-gui engines says so).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench_gui.agent.engines import open_engine
from bench_gui.core.crosscheck import nopm_doubt
from bench_gui.engines.mssql.agent.engine import MssqlEngine
from bench_gui.wire.names import DB_PASSWORD_ENV
from tests.engines.mssql.agent.live_server import SKIP_REASON, LiveServer, live_server

SERVER = live_server()

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(SERVER is None, reason=SKIP_REASON),
]


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    """The server, with its password where the agent reads it (this process's environment,
    so the engine's connections and the agent subprocess find it)."""
    assert SERVER is not None
    before = os.environ.get(DB_PASSWORD_ENV)
    if SERVER.password is not None:
        os.environ[DB_PASSWORD_ENV] = SERVER.password
    try:
        yield SERVER
    finally:
        if before is None:
            os.environ.pop(DB_PASSWORD_ENV, None)
        else:
            os.environ[DB_PASSWORD_ENV] = before


@pytest.fixture(scope="module")
def engine(server: LiveServer) -> Iterator[MssqlEngine]:
    database = f"bench_gui_test_{os.getpid()}"
    eng = open_engine("mssql", server.on(database), server.on("master"), database)
    assert isinstance(eng, MssqlEngine)
    try:
        yield eng
    finally:
        eng.drop_database(database)
        assert not eng.database_exists()


@pytest.fixture(scope="module")
def built(engine: MssqlEngine) -> MssqlEngine:
    if engine.database_exists():
        engine.drop_database(engine.database)
    engine.create_database()
    assert engine.database_exists()
    assert engine.schema_status().state == "missing"
    progress: list[dict[str, Any]] = []
    stats = engine.build(1, 2, progress.append, threading.Event())
    assert stats["status"] == "ok", stats
    assert progress[-1]["message"] == "build complete"
    return engine


def test_live_build_status_checks_facts_and_settings(built: MssqlEngine) -> None:
    status = built.schema_status()
    assert (status.state, status.warehouses, status.problems) == ("complete", 1, [])
    results = built.consistency_checks()
    assert all(r.ok for r in results), [r.detail for r in results if not r.ok]
    said: list[dict[str, Any]] = []
    facts = built.schema_facts(lambda kind, **d: said.append(d), threading.Event(), "now")
    assert "schema_facts_error" not in facts, facts
    assert facts["table_rows"]["stock"] == 100_000
    assert facts["table_rows"]["item"] == 100_000
    info = built.server_info()
    assert "SQL Server" in info["server"]
    assert info["server_version_num"] >= 14_000_000  # 2017 or later
    assert "max degree of parallelism" in info["settings"]
    assert info["settings"]["database recovery model"]["value"] in ("SIMPLE", "FULL", "BULK_LOGGED")
    ident = built.identity()
    assert ident.keys[0].startswith("sqlserver|machine=")
    reader = built.counter_reader()
    try:
        snap = reader.read(wait=15)
        assert snap is not None, reader.error
        assert snap.new_orders == 10 * 3001  # d_next_o_id starts at 3001 in every district
        assert snap.transactions > 0
    finally:
        reader.close()


def _agent(config: dict[str, Any], lock_dir: Path) -> list[dict[str, Any]]:
    proc = subprocess.run(
        [sys.executable, "-m", "bench_gui.agent", "--lock-dir", str(lock_dir)],
        input=json.dumps(config),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert events, proc.stderr[-3000:]
    assert events[-1]["kind"] == "done", proc.stderr[-3000:]
    return events


def test_live_short_sweep_through_the_agent(
    built: MssqlEngine, server: LiveServer, tmp_path: Path
) -> None:
    base = {
        "engine": "mssql",
        "conninfo": server.on(built.database),
        "admin_conninfo": server.on("master"),
        "database": built.database,
        "warehouses": 1,
        "build": "never",
    }
    config = {
        **base,
        "action": "run",
        "virtual_users": [1, 2],
        "rampup_s": 2,
        "duration_s": 8,
        "processes": 1,
        "seed": 1,
    }
    events = _agent(config, tmp_path)
    done = events[-1]
    assert done["status"] == "ok", done
    hello = next(e for e in events if e["kind"] == "hello")
    assert hello["engine"] == "mssql"
    assert "PWD" not in json.dumps(hello["config"]).upper()
    steps = next(e for e in events if e["kind"] == "summary" and "steps" in e)["steps"]
    assert [s["vus"] for s in steps] == [1, 2]
    for step in steps:
        assert step["complete"] is True
        assert step["nopm"] > 0
        assert step["tpm"] > step["nopm"]  # every batch and RPC counts (Batch Requests/sec)
        assert nopm_doubt(step["nopm"], step["nopm_driver"], step["window_s"], step["vus"]) is None
        assert set(step["errors"]) <= {"deadlock_detected", "lock_timeout"}
    checked = _agent({**base, "action": "check"}, tmp_path)
    assert checked[-1]["status"] == "ok", checked[-1]
