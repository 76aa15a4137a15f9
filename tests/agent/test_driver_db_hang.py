"""A database that hangs (its processes stopped with SIGSTOP, not shut down) under a real sweep
of the real agent: samples, host metrics included, keep coming once a second and say the
database is not answering; a step the database stayed silent in is stored as not complete with
the reason; a server silent for the plan's stall limit ends the run with a clear message and
the finished steps kept.

The server is a private one (``hang_pg``): stopping the session's shared server would hang
every other test. The stalls are driven by the event stream (stop at a sample, go on after so
many samples), never by sleeping.
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
from tests._fixtures.pg_hang import frozen, hang_plan

pytestmark = pytest.mark.integration


@pytest.fixture
def store(tmp_path: Path, isolated: MemoryKeyring) -> Iterator[SessionStore]:
    with SessionStore(tmp_path / "sessions.sqlite3") as opened:
        yield opened


def silent(event: Event) -> bool:
    return event.kind == "sample" and event.get("db_not_answering_s") is not None


def test_a_stall_across_the_window_end_flags_the_step_and_the_samples_go_on(
    hang_pg: PgServer, store: SessionStore
) -> None:
    plan = hang_plan(hang_pg, "hang_overrun", db_stall_limit_s=600)
    controller = RunController(plan, store)
    stalled: list[Event] = []
    hung = False
    with ExitStack() as stall:
        for event in controller.events():
            if event.kind != "sample":
                continue
            if not hung and event.get("step") == 0 and event.get("phase") == "measure":
                hung = True
                stall.enter_context(frozen(hang_pg))  # 1 s into a 3 s window
            elif silent(event) and event.get("step") == 0:
                stalled.append(event)
                if len(stalled) == 5:
                    stall.close()  # five seconds on: well past the window's end and tolerance

    # While the server was stopped, a sample a second, each saying for how long it had been
    # silent, without the database's rates but with the driver's and the host's.
    assert len(stalled) >= 5, stalled
    waits = [e.get("db_not_answering_s") for e in stalled]
    assert waits == sorted(waits)
    assert waits[0] > 0, waits
    assert all(e.get("nopm_db") is None and "host" in e.data for e in stalled)
    assert all(e.get("nopm_driver") is not None for e in stalled)

    # The step the server hung in is stored, not complete, with the reason; the next step
    # (the server answered again) is complete, and the run went on to its end.
    assert controller.final is not None
    assert controller.final.get("status") == "ok"
    assert "not counted: step 1 (1 VU)" in str(controller.final.get("message"))
    steps = store.steps(controller.session_id)
    assert [s.complete for s in steps] == [False, True]
    assert "did not answer" in " ".join(steps[0].summary["problems"])
    assert steps[1].summary.get("problems") is None
    # Every sample is stored, the silent ones with how long the database was silent.
    stored = [
        s
        for s in store.samples(controller.session_id)
        if s.step == 0 and "db_not_answering_s" in s.extra
    ]
    assert [s.extra["db_not_answering_s"] for s in stored] == waits


def test_a_server_silent_for_the_stall_limit_ends_the_run_keeping_the_finished_steps(
    hang_pg: PgServer, store: SessionStore
) -> None:
    plan = hang_plan(hang_pg, "hang_limit", db_stall_limit_s=3)
    controller = RunController(plan, store)
    seen: list[Event] = []
    hung = False

    def follow() -> None:
        nonlocal hung
        with ExitStack() as stall:
            for event in controller.events():
                seen.append(event)
                if (
                    not hung
                    and event.kind == "sample"
                    and event.get("step") == 1
                    and event.get("phase") == "measure"
                ):
                    hung = True
                    stall.enter_context(frozen(hang_pg))  # it stays stopped during the run

    with pytest.raises(RunError) as raised:
        follow()
    message = str(raised.value)
    assert "the database has not answered for 3 s (workload.db_stall_limit_s = 3)" in message
    assert "step 2 (1 VU) failed and 1 finished step kept" in message
    assert sum(1 for e in seen if silent(e)) >= 2  # samples kept coming while it was stuck
    assert controller.final is not None
    assert controller.final.get("status") == "failed"
    assert store.get_run(controller.session_id).status == "incomplete"  # steps kept visible
    steps = store.steps(controller.session_id)
    assert [s.complete for s in steps] == [True, False]
    assert steps[0].nopm is not None
    assert steps[0].nopm > 0
    assert "lost the database's counters" in " ".join(steps[1].summary["problems"])
    fatal = [line.message for line in store.log(controller.session_id) if line.level == "fatal"]
    assert fatal == [message]
