"""Re-attaching at start to runs left on an SSH driver host (the real sshd, the real agent and
PostgreSQL): the window opens at once, a background scan finds the runs, the dialog asks, and
the chosen runs are fetched to the end; the others are closed with the reason."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
from collections.abc import Generator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from bench_gui.core.plan_model import Driver, Plan, Target
from bench_gui.gui.app import start_up
from bench_gui.gui.main_window import MainWindow
from bench_gui.gui.reattach import ReattachDialog
from bench_gui.remote.hostkeys import APP_KNOWN_HOSTS
from bench_gui.remote.targets import TARGETS_FILE, add_target
from bench_gui.services.host_links import ssh_transport
from bench_gui.services.reattach import (
    DECLINED_MESSAGE,
    REATTACH_LATER,
    RECENT_DAYS,
    Candidate,
    find_candidates,
    stored_events,
)
from bench_gui.services.run import RunController
from bench_gui.store import SessionStore
from bench_gui.store.paths import data_dir
from bench_gui.store.sessions import STALE_MESSAGE
from bench_gui.wire.protocol import Event
from bench_gui.wire.run_config import Workload

pytestmark = [pytest.mark.gui, pytest.mark.integration]

WAIT_MS = 120_000


@pytest.fixture
def store(data_dir: Path, isolated: Any) -> Iterator[SessionStore]:
    """A store whose ids start high and at random: a run directory of another store's
    session 1 on the driver host must never pass for this one's (each test has its own
    folder there now, ``BENCH_GUI_REMOTE_ROOT``; the ids still prove the match is by id)."""
    opened = SessionStore(data_dir / "sessions.sqlite3")
    with opened.transaction() as conn:
        conn.execute(
            "INSERT OR REPLACE INTO sqlite_sequence (name, seq) VALUES ('runs', ?)",
            (random.randrange(10**6, 10**9),),
        )
    yield opened
    opened.close()


@pytest.fixture(scope="module", autouse=True)
def _database(pg_server: Any) -> Iterator[None]:
    """The runs' database, cloned from the session's TPROC-C template: nothing is built."""
    pg_server.clone_tpcc("gui_reattach")
    yield
    pg_server.drop("gui_reattach")


@pytest.fixture
def abandoned() -> Iterator[list[Generator[Event, None, None]]]:
    """The first followers of abandoned runs, closed at the end whatever happened."""
    followers: list[Generator[Event, None, None]] = []
    yield followers
    for events in followers:
        events.close()


@pytest.fixture
def windows(qtbot: QtBot) -> Iterator[list[MainWindow]]:
    """Windows built by start_up, shut down (their tasks joined) at the end of the test."""
    opened: list[MainWindow] = []
    yield opened
    for window in opened:
        assert window.shutdown(60), "a re-attach task did not end"


def _start(qtbot: QtBot, store: SessionStore, windows: list[MainWindow]) -> MainWindow:
    window = start_up(store)
    qtbot.addWidget(window)
    windows.append(window)
    return window


def _plan(pg_server: Any, target: str, vus: list[int], duration_s: float = 3) -> Plan:
    return Plan(
        name="re-attach me",
        target=Target(kind="postgresql", host=pg_server.socket_dir, database="gui_reattach"),
        workload=Workload(
            warehouses=1, virtual_users=vus, rampup_s=1, duration_s=duration_s, processes=1
        ),
        driver=Driver(target=target),
    )


def _lab(sshd: Any, name: str = "lab", **fields: Any) -> None:
    add_target(sshd.target(name, **fields), data_dir() / TARGETS_FILE)


def _abandon(plan: Plan, store: SessionStore, followers: list[Generator[Event, None, None]]) -> int:
    """Start a run on the driver host, then let go of it at its first sample as a crashing app
    would: the store keeps "running", the agent runs on."""
    first = RunController(plan, store)
    events = first.events()
    assert isinstance(events, Generator)
    followers.append(events)
    for event in events:
        if event.kind == "sample":
            break
    first.transport.close()  # type: ignore[attr-defined]
    assert first.session_id is not None
    assert store.get_run(first.session_id).status == "running"
    store.claims.release(first.session_id)  # as the kernel does when the app's process ends
    return first.session_id


def _remote(target: str, session_id: int) -> Any:
    transport = ssh_transport(target)
    try:
        runs = [r for r in transport.list_runs() if r.meta.get("session_id") == session_id]
    finally:
        transport.close()
    assert runs, f"no run of session {session_id} on {target}"
    return runs[-1]


def _wait_finished_on_host(qtbot: QtBot, target: str, session_id: int) -> None:
    qtbot.waitUntil(lambda: _remote(target, session_id).state != "running", timeout=WAIT_MS)


def _wait_dialog(qtbot: QtBot, window: MainWindow) -> ReattachDialog:
    qtbot.waitUntil(lambda: window.run_control.reattacher.dialog is not None, timeout=WAIT_MS)
    dialog = window.run_control.reattacher.dialog
    assert dialog is not None
    assert dialog.isVisible()
    return dialog


def _gapless(store: SessionStore, session_id: int) -> tuple[int, int, int]:
    """(count, first seq, last seq) of the events stored for a run."""
    with sqlite3.connect(store.path) as conn:
        row = conn.execute(
            "SELECT COUNT(*), MIN(seq), MAX(seq) FROM events WHERE run_id = ?", (session_id,)
        ).fetchone()
    return int(row[0]), int(row[1]), int(row[2])


def _fake_session(store: SessionStore, plan: Plan) -> int:
    """A session as a crashed app leaves it, for targets where no run needs to exist."""
    session_id = store.create_run(
        name=plan.name,
        plan=plan.to_dict(),
        plan_toml=plan.to_toml(),
        target={"kind": "postgresql", "host": "db", "database": "x", "driver": plan.driver.target},
        engine="postgresql",
    )
    store.claims.release(session_id)  # the app that wrote it is gone
    return session_id


def test_a_run_still_going_on_is_followed_live_to_the_end(
    qtbot: QtBot,
    sshd: Any,
    pg_server: Any,
    store: SessionStore,
    windows: list[MainWindow],
    abandoned: list[Generator[Event, None, None]],
) -> None:
    sshd.trust()
    _lab(sshd)
    session_id = _abandon(_plan(pg_server, "lab", [1, 2]), store, abandoned)
    stored_before = store.last_seq(session_id)
    # Hold the agent still while the app looks for it, so it is found running whatever the
    # machine's speed (the host's run listing still sees it alive).
    pid = _remote("lab", session_id).pid
    os.kill(pid, signal.SIGSTOP)
    try:
        window = _start(qtbot, store, windows)
        assert window.isVisible()
        # The scan runs in the background, the window is up.
        assert window.run_control.reattacher.busy
        dialog = _wait_dialog(qtbot, window)
        assert [c.session_id for c in dialog.candidates] == [session_id]
        (found,) = dialog.candidates
        assert found.state == "running"
        assert found.events == stored_before
        assert dialog.chosen() == [session_id]
        assert dialog.reattach_button.isEnabled()
        dialog.accept()
    finally:
        os.kill(pid, signal.SIGCONT)

    running = window.run_control.worker
    assert running is not None, "a run still going on is followed on the Live page"
    assert window.current_page_name() == "Live"
    qtbot.waitUntil(lambda: window.run_control.worker is None, timeout=WAIT_MS)

    run = store.get_run(session_id)
    assert run.status == "complete", run.message
    assert [s.vus for s in store.steps(session_id)] == [1, 2]
    count, lowest, highest = _gapless(store, session_id)
    assert (count, lowest) == (highest, 1)  # every event once, none missing
    # The Live page got the stored part replayed, then the rest: the whole run, once.
    model = window.live_page.model
    assert [p.vus for p in model.points] == [1, 2]
    assert len(model.samples) == len(store.samples(session_id))
    assert model.last_seq == highest
    assert window.run_control.last_session_id == session_id
    abandoned[0].close()  # the first follower, long gone, must not rewrite the outcome
    assert store.get_run(session_id).status == "complete"


def test_declined_then_fetched_later_from_the_side_panel(
    qtbot: QtBot,
    sshd: Any,
    pg_server: Any,
    store: SessionStore,
    windows: list[MainWindow],
    abandoned: list[Generator[Event, None, None]],
) -> None:
    sshd.trust()
    _lab(sshd)
    session_id = _abandon(_plan(pg_server, "lab", [1]), store, abandoned)
    _wait_finished_on_host(qtbot, "lab", session_id)

    window = _start(qtbot, store, windows)
    dialog = _wait_dialog(qtbot, window)
    (found,) = dialog.candidates
    assert found.state == "finished"
    assert found.remote_seq > found.events
    assert "new events" in found.state_text()
    dialog.set_checked(session_id, False)
    assert not dialog.reattach_button.isEnabled()
    dialog.reject()

    run = store.get_run(session_id)
    assert (run.status, run.message) == ("incomplete", DECLINED_MESSAGE)
    assert window.run_control.worker is None
    assert find_candidates(store, at_start=True) == []  # not offered again at each start
    assert [c.session_id for c in find_candidates(store, at_start=False)] == [session_id]

    qtbot.mouseClick(window.reattach_button, Qt.MouseButton.LeftButton)
    dialog = _wait_dialog(qtbot, window)
    assert dialog.chosen() == [session_id]
    dialog.accept()
    assert window.run_control.worker is None  # a finished run is fetched in the background
    qtbot.waitUntil(lambda: window.run_control.reattacher.fetching is None, timeout=WAIT_MS)

    run = store.get_run(session_id)
    assert run.status == "complete", run.message
    assert len(store.steps(session_id)) == 1
    count, lowest, highest = _gapless(store, session_id)
    assert (count, lowest, highest) == (found.remote_seq, 1, found.remote_seq)
    # What the Live page would replay is what was stored, in order.
    seqs = [e.seq for e in stored_events(store, session_id)]
    assert seqs == sorted(set(seqs))


def test_an_unreachable_host_is_reported_and_the_reason_kept(
    qtbot: QtBot, sshd: Any, store: SessionStore, windows: list[MainWindow]
) -> None:
    _lab(sshd, "gone", port=sshd.free_port())  # nothing listens there
    session_id = _fake_session(store, Plan(name="lost", driver=Driver(target="gone")))
    local_id = _fake_session(store, Plan(name="on this machine"))

    window = _start(qtbot, store, windows)
    # A run on this machine cannot be going on any more: closed at start, as before.
    assert store.get_run(local_id).status == "incomplete"
    assert store.get_run(local_id).message == STALE_MESSAGE
    assert store.get_run(session_id).status == "running"  # until the host has been asked
    dialog = _wait_dialog(qtbot, window)
    (found,) = dialog.candidates
    assert found.state == "unreachable"
    assert found.detail
    assert found.detail in dialog.problems.text()
    assert dialog.problems.isVisible()
    assert dialog.chosen() == []
    assert not dialog.reattach_button.isVisible()
    assert dialog.skip_button.text() == "Close"
    dialog.reject()

    run = store.get_run(session_id)
    assert run.status == "incomplete"
    assert found.detail in run.message
    assert run.message.endswith(REATTACH_LATER)
    # The host may be back next time: offered again at the next start.
    assert [c.session_id for c in find_candidates(store)] == [session_id]


def test_an_unknown_host_key_is_never_accepted_by_the_scan(
    qtbot: QtBot, sshd: Any, store: SessionStore, windows: list[MainWindow]
) -> None:
    _lab(sshd)  # not trusted: its key is unknown
    session_id = _fake_session(store, Plan(name="lost", driver=Driver(target="lab")))

    window = _start(qtbot, store, windows)
    dialog = _wait_dialog(qtbot, window)
    (found,) = dialog.candidates
    assert found.state == "hostkey"
    assert sshd.fingerprint in found.detail
    assert "Targets page" in dialog.problems.text()
    dialog.reject()
    known = data_dir() / APP_KNOWN_HOSTS
    assert not known.exists() or sshd.host_key_line not in known.read_text()
    assert "host key" in store.get_run(session_id).message


def test_nothing_found_on_the_host_shows_no_dialog(
    qtbot: QtBot, sshd: Any, store: SessionStore, windows: list[MainWindow]
) -> None:
    sshd.trust()
    _lab(sshd)
    session_id = _fake_session(store, Plan(name="never started", driver=Driver(target="lab")))

    window = _start(qtbot, store, windows)
    with qtbot.waitSignal(window.run_control.reattacher.scan_finished, timeout=WAIT_MS):
        pass
    assert window.run_control.reattacher.dialog is None
    run = store.get_run(session_id)
    assert run.status == "incomplete"
    assert "not found on lab" in run.message
    assert find_candidates(store, at_start=False) == []
    assert "No run to re-attach" in window.face.status_label.text()


def test_no_candidate_no_scan(qtbot: QtBot, store: SessionStore, windows: list[MainWindow]) -> None:
    window = _start(qtbot, store, windows)
    assert not window.run_control.reattacher.busy
    assert window.run_control.reattacher.task is None


def test_the_dialog_lists_each_run_with_its_state(qtbot: QtBot) -> None:
    common: dict[str, Any] = {
        "created_at": "2024-05-01T12:00:00.000+00:00",
        "status": "running",
        "message": "",
        "steps": 1,
    }
    dialog = ReattachDialog(
        [
            Candidate(7, "nightly sweep", "lab", events=40, state="running", **common),
            Candidate(8, "big box", "lab", events=12, state="finished", remote_seq=90, **common),
            Candidate(9, "old", "gone", events=3, state="unreachable", detail="refused", **common),
            # A run on several driver hosts: the scan asks its primary; the row names them all.
            Candidate(
                10,
                "two hosts",
                "alpha",
                events=5,
                state="unreachable",
                detail="timed out",
                plan={"driver": {"targets": ["alpha", "beta"]}},
                **common,
            ),
        ]
    )
    qtbot.addWidget(dialog)
    assert dialog.chosen() == [7, 8]
    assert dialog.reattach_button.text() == "Re-attach 2 runs"
    dialog.set_checked(9, True)  # cannot be re-attached: stays unticked
    dialog.set_checked(8, False)
    assert dialog.chosen() == [7]
    assert dialog.reattach_button.text() == "Re-attach 1 run"
    assert dialog.table.item(1, 6).text() == "finished · 78 new events"  # type: ignore[union-attr]
    assert "refused" in dialog.problems.text()
    assert dialog.table.item(3, 3).text() == "alpha + beta"  # type: ignore[union-attr]
    assert "#10 on alpha + beta" in dialog.problems.text()


def test_close_unfinished_keeps_outcomes_and_the_last_event_time(store: SessionStore) -> None:
    plan = Plan(name="lost", driver=Driver(target="lab"))
    lost = _fake_session(store, plan)
    store.add_event(lost, Event("hello", 1, 1_700_000_000.0, {"server": "PostgreSQL 16"}))
    assert store.close_unfinished(lost, "gone")
    run = store.get_run(lost)
    assert (run.status, run.message) == ("incomplete", "gone")
    assert run.finished_at == "2023-11-14T22:13:20.000+00:00"  # the last event, not "now"
    assert store.close_unfinished(lost, "still gone")
    assert store.get_run(lost).finished_at == run.finished_at  # kept once closed

    done = _fake_session(store, plan)
    store.finish_run(done, "complete", "all steps measured")
    assert not store.close_unfinished(done, "gone")
    assert store.get_run(done).message == "all steps measured"


def test_which_sessions_are_offered(store: SessionStore) -> None:
    on_host = Plan(name="on a host", driver=Driver(target="lab"))
    running = _fake_session(store, on_host)
    stale = _fake_session(store, on_host)
    store.close_unfinished(stale, STALE_MESSAGE)
    link_lost = _fake_session(store, on_host)
    store.close_unfinished(link_lost, f"link down; the run may still be going on: {REATTACH_LATER}")
    declined = _fake_session(store, on_host)
    store.close_unfinished(declined, DECLINED_MESSAGE)
    stopped = _fake_session(store, on_host)
    store.finish_run(stopped, "incomplete", "stopped by the user")
    _fake_session(store, Plan(name="on this machine"))  # running, but not on a driver host

    assert [c.session_id for c in find_candidates(store)] == [running, stale, link_lost]
    assert [c.session_id for c in find_candidates(store, at_start=False)] == [
        running,
        stale,
        link_lost,
        declined,
    ]
    assert [c.session_id for c in find_candidates(store, exclude=[running])] == [stale, link_lost]
    # A lost run is offered for a few days; one the store still calls running, always.
    later = datetime.now(UTC) + timedelta(days=RECENT_DAYS + 1)
    assert [c.session_id for c in find_candidates(store, now=later)] == [running]
