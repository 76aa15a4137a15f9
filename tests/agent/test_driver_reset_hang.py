"""A server that hangs while the run resets the test database between steps
(``reset_between_steps = true``): the run keeps its pace (a ``progress`` event a second with the
host's metrics, saying for how long the database has not answered), goes on when the server
does, and ends with the finished steps kept when it stays silent for ``db_stall_limit_s``.

The reset is caught in the act without timing: the test holds a lock on the template (an open
transaction that commented on it), so the copy of step 2's reset waits on it, and stops the
private server (``hang_pg``) as soon as the run says it is resetting.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from bench_gui.services.run import RunController
from bench_gui.services.run_errors import RunError
from bench_gui.store import SessionStore
from bench_gui.wire.protocol import Event
from tests._fixtures.isolation import MemoryKeyring
from tests._fixtures.pg import PgServer
from tests._fixtures.pg_hang import frozen, hang_plan, template_locked

pytestmark = pytest.mark.integration


@pytest.fixture
def store(tmp_path: Path, isolated: MemoryKeyring) -> Iterator[SessionStore]:
    with SessionStore(tmp_path / "sessions.sqlite3") as opened:
        yield opened


def starts_step_1(event: Event) -> bool:
    return event.kind == "step" and event.get("phase") == "start" and event.get("step") == 0


def resetting_step_2(event: Event) -> bool:
    return event.kind == "log" and str(event.get("message", "")).startswith("step 2: resetting")


def silent_reset(event: Event) -> bool:
    return (
        event.kind == "progress"
        and event.get("task") == "reset"
        and event.get("db_not_answering_s") is not None
    )


def test_a_hang_in_the_reset_is_waited_out_with_progress_and_the_run_goes_on(
    hang_pg: PgServer, store: SessionStore
) -> None:
    database = "reset_hang_ends"
    plan = hang_plan(hang_pg, database, db_stall_limit_s=600, reset_between_steps=True)
    controller = RunController(plan, store)
    during: list[Event] = []
    with ExitStack() as hang:
        for event in controller.events():
            if starts_step_1(event):
                hang.enter_context(template_locked(hang_pg, f"{database}_template"))
            elif resetting_step_2(event):
                hang.enter_context(frozen(hang_pg))
            elif silent_reset(event):
                during.append(event)
                if len(during) == 3:
                    hang.close()  # the server goes on and the lock is let go

    assert len(during) >= 3, during
    waits = [e.get("db_not_answering_s") for e in during]
    assert waits == sorted(waits)
    assert all("host" in e.data for e in during)
    assert controller.final is not None
    assert controller.final.get("status") == "ok", controller.final
    assert [s.complete for s in store.steps(controller.session_id)] == [True, True]


def test_a_server_silent_through_the_reset_ends_the_run_at_the_stall_limit(
    hang_pg: PgServer, store: SessionStore
) -> None:
    database = "reset_hang_stays"
    plan = hang_plan(hang_pg, database, db_stall_limit_s=3, reset_between_steps=True)
    controller = RunController(plan, store)
    during: list[Event] = []

    def follow() -> None:
        with ExitStack() as hang:
            for event in controller.events():
                if starts_step_1(event):
                    hang.enter_context(template_locked(hang_pg, f"{database}_template"))
                elif resetting_step_2(event):
                    hang.enter_context(frozen(hang_pg))  # stopped for the rest of the run
                elif silent_reset(event):
                    during.append(event)

    with pytest.raises(RunError) as raised:
        follow()
    message = str(raised.value)
    assert "has not answered for 3 s while step 2: resetting" in message, message
    assert "(workload.db_stall_limit_s = 3)" in message
    assert "before step 2 (1 VU), with 1 finished step kept" in message
    assert during, "no progress while the reset hung"
    assert controller.final is not None
    assert controller.final.get("status") == "failed"
    assert store.get_run(controller.session_id).status == "incomplete"
    steps = store.steps(controller.session_id)
    assert [s.complete for s in steps] == [True]
    assert steps[0].nopm is not None
