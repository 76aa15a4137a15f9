"""A real run records the test schema (issue 14, seed 000's Table 8) and the report prints it:
the rows of every table counted when the run started and after it, the database's size at both
moments, stored with the session's steps; the report's schema table shows the counts and the
size instead of rows derived from the warehouse count."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from bench_gui.core.plan_model import Plan, Target
from bench_gui.report import build_report
from bench_gui.report.html import render_html
from bench_gui.services.run import RunController
from bench_gui.store import SessionStore
from bench_gui.wire.run_config import Workload
from bench_gui.wire.tpcc_tables import TABLES
from tests._fixtures.pg import Clone, PgServer

pytestmark = pytest.mark.integration

GIB = 1024**3


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SessionStore]:
    with SessionStore(tmp_path / "sessions.sqlite3") as opened:
        yield opened


def counts(uri: str) -> tuple[dict[str, int], int]:
    """count(*) of every table and pg_database_size, read apart from the agent."""
    with psycopg.connect(uri) as conn:
        rows = {}
        for table in TABLES:
            row = conn.execute(f"SELECT count(*) FROM {table}").fetchone()
            assert row is not None
            rows[table] = int(row[0])
        size = conn.execute("SELECT pg_database_size(current_database())").fetchone()
        assert size is not None
    return rows, int(size[0])


def test_a_run_stores_the_schema_and_the_report_prints_it(
    pg_server: PgServer, tpcc_db: Clone, store: SessionStore
) -> None:
    database = tpcc_db("facts_run", 1)
    before, template_size = counts(pg_server.uri(pg_server.tpcc_build(1).template))
    plan = Plan(
        name="schema facts",
        target=Target(kind="postgresql", host=pg_server.socket_dir, database=database),
        workload=Workload(warehouses=1, virtual_users=[1, 2], rampup_s=1, duration_s=2),
    )
    controller = RunController(plan, store)
    logs = [str(e.get("message")) for e in controller.events() if e.kind == "log"]
    sid = controller.session_id
    assert sid is not None
    assert store.get_run(sid).status == "complete"
    assert any(m.startswith("schema before step 1: database ") for m in logs)
    assert any(m.startswith("schema after the run: database ") for m in logs)

    first, last = (s.summary for s in store.steps(sid))
    # As the run found the database (a copy of the template): exact counts, its size.
    assert first["table_rows"] == before
    assert first["table_rows_method"] == dict.fromkeys(TABLES, "exact")
    size = first["database_size_bytes"]
    assert isinstance(size, int)
    assert size == pytest.approx(template_size, rel=0.05)
    assert "after_run" not in first
    assert "table_rows" not in last
    # As the run left it: more orders, lines and history; the same count(*) the agent saw.
    after, after_size = counts(pg_server.uri(database))
    stored = dict(last["after_run"])
    # The size to within a few pages: autovacuum may write a visibility map or free-space page
    # between the agent's reading and this one (8,192 bytes more seen on a loaded machine).
    assert stored.pop("database_size_bytes") == pytest.approx(after_size, abs=64 * 8192)
    assert stored == {"table_rows": after, "table_rows_method": dict.fromkeys(TABLES, "exact")}
    for grown in ("orders", "order_line", "history"):
        assert after[grown] > before[grown], grown
    assert after_size >= size

    report = build_report(store, [sid], sid)
    table = report.tables["config_schema"]
    shown: dict[str, Any] = {row[0].text: row[1].text for row in table.rows}
    for name in TABLES:
        assert shown[name] == f"{before[name]:,}", name
    assert shown["Database size"] == f"{size / 1024**2:,.0f} MiB"  # under 1 GiB: in MiB
    assert shown["Database size after the run"] == f"{after_size / 1024**2:,.0f} MiB"
    assert table.notes[0] == "Rows counted in the database when the run started."
    assert not any("not recorded" in note for note in table.notes)
    html = render_html(report)
    assert "Test schema" in html
    assert "Rows counted in the database when the run started." in html
    assert f"{before['order_line']:,}" in html
    assert "database size was not recorded" not in html
