"""A database that goes away for a moment under a real sweep of the real agent: a server
restarted (``pg_ctl restart -m fast``) or one virtual user's backend ended
(``pg_terminate_backend``) mid-step. The run goes on: the users whose connection broke
reconnect, their errors are counted by kind, the step says what happened (for how long, how
many users) and is not counted, and the next step runs complete.

The same for MariaDB through ODBC: one user's connection ended with ``KILL``.

The PostgreSQL server is the private ``hang_pg`` (restarting the session's shared server would
break every other test). The disruptions are driven by the event stream, never by sleeping.
"""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from bench_gui.cli.progress import ProgressPrinter
from bench_gui.core.plan import plan_from_toml
from bench_gui.services.run import RunController
from bench_gui.services.run_errors import RunError
from bench_gui.services.run_results import step_results
from bench_gui.store import SessionStore
from bench_gui.wire.protocol import Event
from tests._fixtures.isolation import MemoryKeyring
from tests._fixtures.mariadb import PASSWORD, PASSWORD_ENV, MariaDbServer
from tests._fixtures.pg import PgServer
from tests._fixtures.pg_hang import (
    hang_plan,
    restart,
    socket_hidden,
    stopped,
    template_locked,
    terminate_users,
)

pytestmark = pytest.mark.integration


@pytest.fixture
def store(tmp_path: Path, isolated: MemoryKeyring) -> Iterator[SessionStore]:
    with SessionStore(tmp_path / "sessions.sqlite3") as opened:
        yield opened


def first_measured(event: Event, step: int) -> bool:
    return event.kind == "sample" and event.get("step") == step and event.get("phase") == "measure"


def test_a_server_restart_mid_step_is_survived_and_marked(
    hang_pg: PgServer, store: SessionStore
) -> None:
    plan = hang_plan(hang_pg, "restart_mid_step", db_stall_limit_s=60)
    plan.workload.virtual_users = [2, 2]
    plan.workload.duration_s = 4
    controller = RunController(plan, store)
    restarted = False
    samples_after: list[Event] = []
    terminal = io.StringIO()
    printer = ProgressPrinter(terminal)
    for event in controller.events():
        printer(event)
        if not restarted and first_measured(event, 0):
            restart(hang_pg)
            restarted = True
        elif restarted and event.kind == "sample" and event.get("step") == 0:
            samples_after.append(event)

    assert restarted
    assert samples_after, "samples stopped after the restart"
    assert controller.final is not None
    assert controller.final.get("status") == "ok", controller.final
    steps = store.steps(controller.session_id)
    assert len(steps) == 2
    first, second = steps
    assert first.summary["errors"].get("connection_lost", 0) >= 1, first.summary
    outage = first.summary["connections_lost"]
    assert outage["users"] == 2, outage
    assert outage["longest_s"] > 0
    assert outage["still_down"] == 0
    assert not first.complete
    assert "2 of 2 virtual users lost their connection" in " ".join(first.summary["problems"])
    assert second.complete, second.summary
    assert second.nopm is not None
    assert second.nopm > 0

    # What the step summary says, the terminal and the CLI's JSON say too.
    printed = terminal.getvalue()
    assert "  not counted: 2 of 2 virtual users lost their connection" in printed
    results = step_results(controller)
    assert any("lost their connection" in p for p in results[0]["problems"])
    assert results[0]["connections_lost"]["users"] == 2
    assert results[1]["problems"] == []


def test_a_server_down_past_the_stall_limit_ends_the_run_keeping_the_steps(
    hang_pg: PgServer, store: SessionStore
) -> None:
    plan = hang_plan(hang_pg, "down_for_good", db_stall_limit_s=3)
    controller = RunController(plan, store)

    def follow() -> None:
        events = controller.events()
        with ExitStack() as down:
            for event in events:
                if first_measured(event, 1):
                    down.enter_context(stopped(hang_pg))  # down for the rest of the run
                    break
            for _event in events:
                pass

    with pytest.raises(RunError) as raised:
        follow()
    message = str(raised.value)
    assert "the database has not answered for 3 s (workload.db_stall_limit_s = 3)" in message
    assert "step 2 (1 VU) failed and 1 finished step kept" in message
    assert store.get_run(controller.session_id).status == "incomplete"
    steps = store.steps(controller.session_id)
    assert [s.complete for s in steps] == [True, False]
    assert steps[0].nopm is not None
    assert steps[1].summary["connections_lost"]["still_down"] == 1


def assert_one_user_lost_and_back(controller: RunController, store: SessionStore) -> None:
    """The run ended well: step 1 counts one of its two users' connection lost and back,
    step 2 is complete."""
    assert controller.final is not None
    assert controller.final.get("status") == "ok", controller.final
    steps = store.steps(controller.session_id)
    assert len(steps) == 2
    first, second = steps
    assert first.summary["errors"].get("connection_lost") == 1, first.summary
    assert first.summary["connections_lost"]["users"] == 1
    assert first.summary["connections_lost"]["still_down"] == 0
    assert "1 of 2 virtual users lost their connection" in " ".join(first.summary["problems"])
    assert second.complete, second.summary


def test_one_ended_backend_reconnects_and_the_run_goes_on(
    hang_pg: PgServer, store: SessionStore
) -> None:
    plan = hang_plan(hang_pg, "terminate_one", db_stall_limit_s=60)
    plan.workload.virtual_users = [2, 2]
    plan.workload.duration_s = 4
    controller = RunController(plan, store)
    ended: list[int] = []
    for event in controller.events():
        if not ended and first_measured(event, 0):
            ended = terminate_users(hang_pg, "terminate_one", 1)

    assert len(ended) == 1
    assert_one_user_lost_and_back(controller, store)


def test_a_killed_mariadb_connection_reconnects_and_the_run_goes_on(
    mariadb_server: MariaDbServer, store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PASSWORD_ENV, PASSWORD)
    database = mariadb_server.tpcc(1)
    text = mariadb_server.plan_text(database, vus="2,2", rampup=1, duration=4, processes=1)
    controller = RunController(plan_from_toml(text), store)
    killed = ""
    for event in controller.events():
        if not killed and first_measured(event, 0):
            killed = kill_one_user(mariadb_server)

    assert killed
    assert_one_user_lost_and_back(controller, store)


def kill_one_user(server: MariaDbServer) -> str:
    """``KILL`` the connection of a virtual user caught in a CALL (each spends most of its
    time in one); its id."""
    query = (
        "SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE 'CALL %' ORDER BY ID LIMIT 1"
    )
    for _ in range(500):
        found = server.sql(query).strip()
        if found:
            server.sql(f"KILL {found}")
            return found
    raise AssertionError("no virtual user was seen in a CALL")


def wait_for_a_lock_wait(server: PgServer) -> None:
    """Until a backend of the server waits on a lock (the reset's copy of the template the test
    holds): its connection is made then."""
    import psycopg

    with psycopg.connect(server.uri(), autocommit=True) as conn:
        query = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
        while not (conn.execute(query).fetchone() or (0,))[0]:
            time.sleep(0.05)


def test_users_that_find_the_server_away_as_their_step_starts_connect_later(
    hang_pg: PgServer, store: SessionStore
) -> None:
    """The socket is hidden while step 2's reset waits on a lock the test holds, so step 2's
    users find no server as they start (as during a restart); they connect once it is back."""
    database = "away_at_start"
    plan = hang_plan(hang_pg, database, db_stall_limit_s=60, reset_between_steps=True)
    plan.workload.virtual_users = [2, 2]
    controller = RunController(plan, store)
    down: list[Event] = []
    with ExitStack() as lock, ExitStack() as hide:
        for event in controller.events():
            if event.kind == "step" and event.get("phase") == "start" and event.get("step") == 0:
                lock.enter_context(template_locked(hang_pg, f"{database}_template"))
            elif event.kind == "log" and str(event.get("message")).startswith("step 2: resetting"):
                # The agent says so before it connects: the socket goes once its copy waits.
                wait_for_a_lock_wait(hang_pg)
                hide.enter_context(socket_hidden(hang_pg))
                lock.close()  # the reset (connected already) goes on; new connections fail
            elif event.kind == "sample" and event.get("step") == 1 and event.get("vus_down"):
                down.append(event)
                if len(down) == 2:
                    hide.close()

    assert [e.get("vus_down") for e in down] == [2, 2]
    assert controller.final is not None
    assert controller.final.get("status") == "ok", controller.final
    steps = store.steps(controller.session_id)
    assert len(steps) == 2
    lost = steps[1].summary["connections_lost"]
    assert lost["users"] == 2
    assert lost["still_down"] == 0
    assert steps[1].counts, steps[1].summary  # they ran once connected
