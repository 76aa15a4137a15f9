"""RunController against a real server: stop keeps what was measured, templates reset data,
a half-built schema is detected, the demo target works with nothing configured."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pytest

from bench_gui.core.plan import plan_from_dict
from bench_gui.core.plan_model import Plan, Target
from bench_gui.services.run import RunController
from bench_gui.services.run_errors import RunError
from bench_gui.store import SessionStore
from bench_gui.wire.protocol import Event
from bench_gui.wire.run_config import Workload
from tests._fixtures.pg import Clone

pytestmark = pytest.mark.integration


def pg_plan(pg_server: Any, database: str, **workload: Any) -> Plan:
    wl = Workload(warehouses=1, virtual_users=[2], rampup_s=1, duration_s=4)
    for key, value in workload.items():
        setattr(wl, key, value)
    target = Target(kind="postgresql", host=pg_server.socket_dir, database=database)
    return Plan(name=f"runner {database}", target=target, workload=wl)


@pytest.fixture
def store(tmp_path: Path) -> Any:
    with SessionStore(tmp_path / "sessions.sqlite3") as opened:
        yield opened


def test_stop_mid_window_keeps_what_was_measured(
    pg_server: Any, tpcc_db: Clone, store: SessionStore
) -> None:
    plan = pg_plan(
        pg_server, tpcc_db("runner_stop"), virtual_users=[2, 4], rampup_s=1, duration_s=600
    )
    controller = RunController(plan, store)
    seen: list[Event] = []
    for event in controller.events():
        seen.append(event)
        if event.kind == "sample" and event.get("phase") == "measure" and event.get("elapsed") > 3:
            controller.stop()
    assert controller.final is not None
    assert controller.final.get("status") == "stopped"
    run = store.get_run(controller.session_id)
    assert run.status == "incomplete"
    steps = store.steps(controller.session_id)
    assert len(steps) == 1  # the second step never started
    assert steps[0].complete is False
    assert steps[0].nopm
    assert steps[0].nopm > 0
    assert len(store.samples(controller.session_id)) == len([e for e in seen if e.kind == "sample"])


def test_reset_between_steps_starts_each_step_from_the_same_data(
    pg_server: Any, tpcc_db: Clone, store: SessionStore
) -> None:
    database = tpcc_db("runner_reset")
    plan = pg_plan(
        pg_server, database, virtual_users=[1, 1], reset_between_steps=True, duration_s=3
    )
    controller = RunController(plan, store)
    logs = [e.get("message") for e in controller.events() if e.kind == "log"]
    assert any("resetting runner_reset from runner_reset_template" in m for m in logs)
    # After the run, the template still has the pristine 3000 orders per district.
    with psycopg.connect(pg_server.uri("runner_reset_template")) as conn:
        row = conn.execute("SELECT min(d_next_o_id), max(d_next_o_id) FROM district").fetchone()
    assert row == (3001, 3001)
    assert store.get_run(controller.session_id).status == "complete"


def test_half_built_schema_is_detected(pg_server: Any, tpcc_db: Clone, store: SessionStore) -> None:
    plan = pg_plan(pg_server, tpcc_db("runner_half"))
    with psycopg.connect(pg_server.uri("runner_half"), autocommit=True) as conn:
        conn.execute("DROP FUNCTION neword")
    controller = RunController(plan, store)
    with pytest.raises(RunError, match="half built.*neword"):
        list(controller.events())
    assert store.get_run(controller.session_id).status == "failed"


def test_missing_schema_with_build_never(pg_server: Any, store: SessionStore) -> None:
    pg_server.psql("DROP DATABASE IF EXISTS runner_never; CREATE DATABASE runner_never;")
    plan = pg_plan(pg_server, "runner_never", build="never")
    with pytest.raises(RunError, match="no TPROC-C schema in 'runner_never'"):
        list(RunController(plan, store).events())


def test_demo_target_needs_nothing_configured(store: SessionStore) -> None:
    plan = Plan(
        target=Target(kind="demo", database="demo_test"),
        workload=Workload(warehouses=1, virtual_users=[1], rampup_s=1, duration_s=3),
    )
    controller = RunController(plan, store)
    kinds = [e.kind for e in controller.events()]
    assert kinds[0] == "hello"
    assert "progress" in kinds  # built on first use
    assert kinds[-1] == "done"
    steps = store.steps(controller.session_id)
    assert steps[0].nopm
    assert steps[0].nopm > 0


def test_agent_that_dies_leaves_an_incomplete_session(
    pg_server: Any, tpcc_db: Clone, store: SessionStore
) -> None:
    plan = pg_plan(pg_server, tpcc_db("runner_dies"), virtual_users=[2], rampup_s=1, duration_s=600)
    controller = RunController(plan, store)
    samples = 0

    def follow() -> None:
        nonlocal samples
        for event in controller.events():
            if event.kind == "sample":
                samples += 1
                if samples == 3:
                    controller.agent.kill()  # type: ignore[union-attr]

    with pytest.raises(RunError, match="ended without finishing"):
        follow()
    assert controller.session_id is not None
    assert store.get_run(controller.session_id).status == "incomplete"
    assert len(store.samples(controller.session_id)) == 3


def _warehouses_with_new_orders(pg_server: Any, database: str) -> int:
    with psycopg.connect(pg_server.uri(database)) as conn:
        row = conn.execute("SELECT count(DISTINCT o_w_id) FROM orders WHERE o_id > 3000")
        return int(row.fetchone()[0])  # type: ignore[index]


def test_home_warehouse_or_all_warehouses(
    pg_server: Any, tpcc_db: Clone, store: SessionStore
) -> None:
    # One user, two warehouses: by default it keeps one home warehouse; with all warehouses
    # it owns both and spreads its orders over them. (Two: the session's 2-warehouse build is
    # shared with tests/engines/postgresql/agent and the CLI sweep; a 3-warehouse one was built for
    # this alone.)
    home = tpcc_db("runner_home", warehouses=2)
    plan = pg_plan(pg_server, home, warehouses=2, virtual_users=[1], duration_s=3)
    list(RunController(plan, store).events())
    assert _warehouses_with_new_orders(pg_server, "runner_home") == 1
    everywhere = tpcc_db("runner_allw", warehouses=2)
    plan = pg_plan(
        pg_server, everywhere, warehouses=2, virtual_users=[1], duration_s=3, all_warehouses=True
    )
    list(RunController(plan, store).events())
    assert _warehouses_with_new_orders(pg_server, "runner_allw") == 2


def test_keying_and_thinking_slow_users_down(
    pg_server: Any, tpcc_db: Clone, store: SessionStore
) -> None:
    plan = pg_plan(
        pg_server,
        tpcc_db("runner_keying"),
        virtual_users=[10],
        rampup_s=0,
        duration_s=5,
        keying_thinking=True,
    )
    controller = RunController(plan, store)
    list(controller.events())
    step = store.steps(controller.session_id)[0]
    # Keying alone is 2-18 s before each transaction: ten users manage a handful in 5 s
    # where they would otherwise commit thousands.
    total = sum(step.counts.values())
    assert 0 < total < 30


def test_the_prepared_storage_layout_is_kept_with_the_session(
    pg_server: Any, tpcc_db: Clone, store: SessionStore
) -> None:
    from bench_gui.remote.storage import record_layout
    from bench_gui.store.compare_input import storage_layout
    from bench_gui.store.paths import data_dir

    layout = {
        "target": "local",
        "volume": "/dev/loop7",
        "mount": {"point": "/mnt/bench", "options": "noatime"},
        "filesystem": {"type": "xfs"},
        "devices": [{"path": "/dev/loop7", "model": "loop", "serial": "", "erase": "discard"}],
        "database": {"placement": "tablespace"},
    }
    record_layout(data_dir() / "storage", layout)
    try:
        plan = pg_plan(pg_server, tpcc_db("runner_layout"), duration_s=2)
        controller = RunController(plan, store)
        list(controller.events())
        run = store.get_run(controller.session_id)
        assert run.inventory is not None
        assert run.inventory["storage_layout"]["mount"]["point"] == "/mnt/bench"
        assert storage_layout(run) == run.inventory["storage_layout"]
    finally:
        (data_dir() / "storage" / "local.json").unlink()


def test_a_plan_on_several_unsaved_driver_hosts_is_refused_naming_them(
    store: SessionStore,
) -> None:
    """Several driver hosts are one run's (tests/services/test_multi_run.py); hosts that are
    not saved SSH targets are refused, each named, before anything starts."""
    plan = plan_from_dict(
        {
            "target": {"kind": "postgresql", "host": "db1"},
            "workload": {"virtual_users": [4]},
            "driver": {"targets": ["lab-a", "lab-b"]},
        }
    )
    with pytest.raises(RunError, match=r"driver.targets.*'lab-a'.*'lab-b'"):
        list(RunController(plan, store).events())
    assert store.list_runs() == []
