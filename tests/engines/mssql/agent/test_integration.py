"""Against a real SQL Server, when one is reachable: build, call each transaction, measure, check.

Set BENCH_GUI_TEST_MSSQL as tests/engines/mssql/agent/live_server.py says (an ODBC connection
string,
or host:port,user,password). The login must be allowed to create a database, read
sys.dm_os_performance_counters (VIEW SERVER STATE) and run sp_configure. The test database is
dropped at the end.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from bench_gui.engines.mssql.agent import checks, counters, loader, procedures
from bench_gui.engines.mssql.agent.transactions import PROCEDURE_OF, Caller, Params
from bench_gui.engines.mssql.shared import settings
from bench_gui.engines.mssql.shared.connect import connect, resolve_conninfo
from tests.engines.mssql.agent.live_server import SKIP_REASON, live_server

SERVER = live_server()
# The driver is chosen as the engine chooses it (a host:port form names none).
TARGET = resolve_conninfo(SERVER.conninfo, None) if SERVER else ""
PASSWORD = SERVER.password if SERVER else None

pytestmark = [pytest.mark.integration, pytest.mark.skipif(SERVER is None, reason=SKIP_REASON)]


def _in_database(connection_string: str, database: str) -> str:
    base = re.sub(r"(?i);?\s*DATABASE\s*=\s*(\{[^}]*\}|[^;]*)", "", connection_string)
    return f"{base.rstrip(';')};DATABASE={{{database}}}"


@pytest.fixture(scope="module")
def database() -> Iterator[str]:
    name = f"bench_gui_test_{os.getpid()}"
    admin = connect(_in_database(TARGET, "master"), password=PASSWORD)
    try:
        assert loader.ensure_database(admin, name)
        yield _in_database(TARGET, name)
    finally:
        cursor = admin.cursor()
        cursor.execute(
            f"IF DB_ID(N'{name}') IS NOT NULL ALTER DATABASE [{name}] SET SINGLE_USER"
            " WITH ROLLBACK IMMEDIATE"
        )
        cursor.execute(f"DROP DATABASE IF EXISTS [{name}]")
        admin.close()


@pytest.fixture(scope="module")
def built(database: str) -> str:
    events: list[dict[str, Any]] = []
    stats = loader.build(database, 1, 1, events.append, password=PASSWORD, seed=1)
    assert stats["status"] == "ok", stats
    assert stats["rows"] > 500_000
    assert events[-1]["message"] == "build complete"
    return database


def test_each_transaction_once_then_counters_and_checks(built: str) -> None:
    monitor = connect(built, password=PASSWORD)
    caller = Caller(connect(built, password=PASSWORD))
    try:
        first = counters.read_counters(monitor)
        params = Params(warehouses=1, seed=5)
        for kind in ("new_order", "payment", "order_status", "delivery", "stock_level"):
            outcome = caller.run(kind, params.draw(kind, 1, 4))
            assert outcome is not None, caller.errors
            expected = procedures.RESULT_SETS[PROCEDURE_OF[kind]]
            assert len(outcome.result_sets) == len(expected)
        rolled = caller.run("new_order", [1, 1, 2, 10, 6, 1])  # the intended rollback
        assert rolled is not None
        assert rolled.rolled_back
        time.sleep(1.0)
        last = counters.read_counters(monitor)
        rates = counters.rates(first, last)
        assert rates.new_orders == caller.new_orders == 1  # the rollback counts nowhere
        assert rates.batch_requests >= 6
        results = checks.consistency_checks(monitor)
        assert all(r.ok for r in results), [r.detail for r in results if not r.ok]
        snap = settings.read_settings(monitor)
        assert "max degree of parallelism" in snap.configurations
    finally:
        caller.close()
        monitor.close()
