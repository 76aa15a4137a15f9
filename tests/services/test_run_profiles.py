"""A hammerdb-profile run on a PostgreSQL database built before the profile existed: the
routines are added to the database and to the template a reset copies, and the run completes;
an unknown profile sent to the agent is refused by name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pytest

from bench_gui.core.plan_model import Plan, Target
from bench_gui.engines.postgresql.agent import template
from bench_gui.services.run import RunController
from bench_gui.services.run_errors import RunError
from bench_gui.store import SessionStore
from bench_gui.wire.run_config import Workload
from tests._fixtures.pg import Clone

pytestmark = pytest.mark.integration


def pg_plan(pg_server: Any, database: str, **workload: Any) -> Plan:
    wl = Workload(warehouses=1, virtual_users=[1], rampup_s=1, duration_s=3, **workload)
    target = Target(kind="postgresql", host=pg_server.socket_dir, database=database)
    return Plan(name=f"profiles {database}", target=target, workload=wl)


@pytest.fixture
def store(tmp_path: Path) -> Any:
    with SessionStore(tmp_path / "sessions.sqlite3") as opened:
        yield opened


def test_an_older_database_and_its_template_get_the_hammerdb_routines(
    pg_server: Any, tpcc_db: Clone, store: SessionStore
) -> None:
    database = tpcc_db("profiles_old")
    with psycopg.connect(pg_server.uri(database), autocommit=True) as conn:
        conn.execute("DROP FUNCTION hdb_neword, hdb_payment")
    template.make_template(pg_server.uri(), database, f"{database}_template")
    plan = pg_plan(pg_server, database, profile="hammerdb", reset_between_steps=True)
    controller = RunController(plan, store)
    logs = [e.get("message") for e in controller.events() if e.kind == "log"]
    assert any("creating both profiles' routines" in m for m in logs), logs
    run = store.get_run(controller.session_id)
    assert run.status == "complete"
    assert run.plan["workload"]["profile"] == "hammerdb"
    (step,) = store.steps(controller.session_id)
    assert step.complete
    assert step.nopm
    pg_server.drop(f"{database}_template")


def test_a_half_built_schema_is_still_refused(
    pg_server: Any, tpcc_db: Clone, store: SessionStore
) -> None:
    """Only the hammerdb routines are added on the fly: a missing spec routine is damage."""
    database = tpcc_db("profiles_half")
    with psycopg.connect(pg_server.uri(database), autocommit=True) as conn:
        conn.execute("DROP FUNCTION hdb_slev")
        conn.execute("DROP FUNCTION slev")
    controller = RunController(pg_plan(pg_server, database), store)
    with pytest.raises(RunError, match="half built.*slev"):
        list(controller.events())
