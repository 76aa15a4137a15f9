"""The SQL Server tuner against a real server, when ``BENCH_GUI_TEST_MSSQL`` names one (see
tests/engines/mssql/agent/live_server.py): seed 003's settings on a database of the test's own,
applied, read back and rolled back to exactly what was there.

Skipped here: no SQL Server can be installed on this project's machines, so until this runs
somewhere, SQL Server tuning is "not verified against a live server" (the Database page's SQL
Server tab says so). The login needs ALTER SETTINGS and may create a database.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from bench_gui.engines.mssql.agent.engine import drop_database_sql
from bench_gui.engines.mssql.proposal import seed_003_proposal
from bench_gui.engines.mssql.shared import settings
from bench_gui.engines.mssql.shared.connect import connect, resolve_conninfo
from bench_gui.engines.mssql.shared.names import quote_name
from bench_gui.engines.mssql.tuner import MssqlSnapshot, MssqlTuner
from tests.engines.mssql.agent.live_server import SKIP_REASON, LiveServer, live_server

SERVER = live_server()

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(SERVER is None, reason=SKIP_REASON),
]


def _run(server: LiveServer, database: str, statements: list[str]) -> None:
    conn = connect(resolve_conninfo(server.conninfo, database), password=server.password)
    try:
        settings.run_statements(conn, statements)
    finally:
        conn.close()


@pytest.fixture
def database() -> Iterator[str]:
    assert SERVER is not None
    name = f"bench_gui_tune_{os.getpid()}"
    _run(SERVER, "master", [f"CREATE DATABASE {quote_name(name)}"])
    try:
        yield name
    finally:
        _exists, single, drop = drop_database_sql(name)
        _run(SERVER, "master", [single, drop])


def _state(tuner: MssqlTuner) -> dict[str, Any]:
    snap = tuner.read_settings()
    names = ("show advanced options", "max degree of parallelism")
    return {
        "options": {n: snap.configurations[n] for n in names},
        "recovery": snap.recovery_model,
        "target": snap.target_recovery_time_s,
    }


def test_seed_003_applied_and_rolled_back_on_a_live_server(database: str) -> None:
    assert SERVER is not None
    tuner = MssqlTuner(SERVER.conninfo, database, password=SERVER.password)
    facts = tuner.facts()
    assert facts["alter_settings"], f"the test login needs ALTER SETTINGS: {facts['rights']}"
    before = _state(tuner)
    proposal = seed_003_proposal()
    result = tuner.apply(proposal)
    assert result.ok, result.summary()
    now = tuner.read_settings()
    assert now.configurations["max degree of parallelism"].value_in_use == 1
    assert (now.recovery_model, now.target_recovery_time_s) == ("SIMPLE", 60)
    assert now.configurations["show advanced options"] == before["options"]["show advanced options"]
    assert all(r.action == "same" for r in tuner.diff(proposal))
    assert result.snapshot is not None
    undone = tuner.rollback(MssqlSnapshot.from_dict(result.snapshot.to_dict()))
    assert undone.ok, undone.summary()
    assert _state(tuner) == before
