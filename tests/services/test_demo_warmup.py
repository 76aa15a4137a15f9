"""The demo target made ready before the first sweep: the embedded PostgreSQL started, the
plan's schema built once and found again, a build stopped half-way rebuilt, a server another
run holds left alone, a second process sharing the server without stopping it.

Real components: the embedded server of :mod:`bench_gui.remote.demo` (one per test process,
in the data directory of the first test that starts it), the agent as a subprocess, the run
lock of :mod:`bench_gui.agent.runlock`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from itertools import count
from pathlib import Path

import psycopg
import pytest

from bench_gui.agent.runlock import default_lock_dir, holder_info, lock_path, take_lock
from bench_gui.core.plan_model import Plan, Target
from bench_gui.engines.postgresql.agent.identity import server_identity
from bench_gui.remote.demo import (
    HANDLES_FILE,
    DemoTarget,
    forget_dead_users,
    start_demo,
    stop_demo,
)
from bench_gui.services.demo_warmup import (
    BUILT,
    BUSY,
    READY,
    SERVER_ONLY,
    STOPPED,
    DemoWarmup,
    WarmupError,
)
from bench_gui.store.paths import data_dir
from bench_gui.wire.run_config import Workload

pytestmark = pytest.mark.integration

_NUMBERS = count(1)


def demo_plan(database: str, warehouses: int = 1, build: str = "if_missing") -> Plan:
    return Plan(
        name="warm-up",
        target=Target(kind="demo", database=database),
        workload=Workload(warehouses=warehouses, build=build, build_workers=1),
    )


@pytest.fixture(scope="module", autouse=True)
def _stop_at_the_end() -> Iterator[None]:
    """The server stopped while the run's temporary folder still exists (at exit, the
    package's ``pg_ctl`` could no longer write its output there)."""
    yield
    stop_demo()


@pytest.fixture
def demo() -> DemoTarget:
    return start_demo(data_dir() / "demo-postgres")


def drop(demo: DemoTarget, database: str) -> None:
    with psycopg.connect(demo.conninfo("postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


@pytest.fixture
def fresh(demo: DemoTarget) -> Iterator[str]:
    """A database name on the demo server that does not exist yet (dropped at the end)."""
    name = f"warm_{os.getpid()}_{next(_NUMBERS)}"
    drop(demo, name)
    yield name
    drop(demo, name)


def test_only_the_demo_target_is_warmed_up() -> None:
    plan = Plan(target=Target(kind="postgresql", host="db1"))
    with pytest.raises(WarmupError, match="the plan's target is 'postgresql'"):
        DemoWarmup(plan)


def test_the_first_warm_up_builds_the_schema_and_the_next_finds_it(fresh: str) -> None:
    said: list[tuple[str, float]] = []
    first = DemoWarmup(demo_plan(fresh), on_progress=lambda t, f: said.append((t, f))).run()
    assert first.state == BUILT, first.message
    assert first.warehouses == 1
    assert first.server.startswith("PostgreSQL")
    assert any(text.startswith("Building the demo schema") for text, _ in said)
    assert any(0.0 < fraction <= 1.0 for _, fraction in said)  # the build's own progress

    said.clear()
    again = DemoWarmup(demo_plan(fresh), on_progress=lambda t, f: said.append((t, f))).run()
    assert again.state == READY, again.message
    assert again.warehouses == 1
    assert f"{fresh} has 1 warehouses" in again.message
    assert not any(text.startswith("Building") for text, _ in said)

    with pytest.raises(WarmupError, match="no schema of 2 warehouses.*'never'"):
        DemoWarmup(demo_plan(fresh, warehouses=2, build="never")).run()
    always = DemoWarmup(demo_plan(fresh, build="always")).run()
    assert always.state == SERVER_ONLY


def test_a_build_stopped_half_way_is_rebuilt_next_time(fresh: str) -> None:
    warmup: DemoWarmup

    def stop_when_building(text: str, fraction: float) -> None:
        if text.startswith("Building the demo schema:") and fraction > 0:
            warmup.stop()

    warmup = DemoWarmup(demo_plan(fresh), on_progress=stop_when_building)
    result = warmup.run()
    assert result.state == STOPPED
    assert warmup.stopped
    leftover = [d for d in (data_dir() / "runs").glob("demo-warmup-*")]
    assert leftover == []  # the agent's folder is gone with it

    rebuilt = DemoWarmup(demo_plan(fresh)).run()
    assert rebuilt.state == BUILT, rebuilt.message


def test_a_server_another_run_holds_is_left_alone(demo: DemoTarget, fresh: str) -> None:
    with psycopg.connect(demo.conninfo("postgres"), autocommit=True) as conn:
        identity = server_identity(conn)
    info = holder_info(None, {"session_name": "the other run"}, identity.label, "a test")
    held = []
    for key in identity.keys:
        lock, holder = take_lock(lock_path(default_lock_dir(), key), info)
        assert lock is not None, holder
        held.append(lock)
    try:
        result = DemoWarmup(demo_plan(fresh)).run()
    finally:
        for lock in held:
            lock.release()
    assert result.state == BUSY
    assert "in use by another run" in result.message
    assert "the other run" in result.message


def test_a_second_process_shares_the_server_and_leaves_it_running(demo: DemoTarget) -> None:
    folder = demo.data_directory
    code = (
        "from pathlib import Path; import sys\n"
        "from bench_gui.remote.demo import start_demo\n"
        "target = start_demo(Path(sys.argv[1]))\n"
        "print(target.data_directory)\n"
    )
    env = dict(os.environ, BENCH_GUI_DATA_DIR=str(folder.parent))
    done = subprocess.run(
        [sys.executable, "-c", code, str(folder)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert Path(done.stdout.strip()) == folder
    # The other process has exited: the server it shared is still up for this one.
    with psycopg.connect(demo.conninfo("postgres"), autocommit=True) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
    assert os.getpid() in json.loads((folder / HANDLES_FILE).read_text())


def test_processes_that_died_are_forgotten(tmp_path: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    handles = tmp_path / HANDLES_FILE
    handles.write_text(json.dumps([dead.pid, os.getpid()]))
    assert forget_dead_users(tmp_path) == [dead.pid]
    assert json.loads(handles.read_text()) == [os.getpid()]
    assert forget_dead_users(tmp_path) == []  # nothing more to drop
    assert forget_dead_users(tmp_path / "nowhere") == []
