"""Replaying stored sessions with no database: their events, in order, paced by a clock.

The pacing is checked on a VirtualClock (time passes only when waited on), never by sleeping.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench_gui.services.live_model import LiveModel
from bench_gui.services.pacing import RealClock, VirtualClock
from bench_gui.services.replay import ReplayController, ReplayError, schedule, stored_stream
from bench_gui.store import SessionStore
from tests._fixtures.scripted import sweep_events
from tests._fixtures.seed_sessions import build_seed003, store_session


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SessionStore]:
    opened = SessionStore(tmp_path / "sessions.sqlite3")
    yield opened
    opened.close()


@pytest.fixture
def recorded(store: SessionStore) -> int:
    """A three-step sweep stored as the runner stores one: a sample every second."""
    return store_session(store, "NVMe RAID 10", sweep_events(vus=(4, 8, 12), noise=0.05))


@pytest.mark.parametrize("speed", [1.0, 2.0, 10.0])
def test_events_come_in_order_at_their_stored_pace_divided_by_the_speed(
    store: SessionStore, recorded: int, speed: float
) -> None:
    clock = VirtualClock(start=100.0)
    replay = ReplayController(store, recorded, speed=speed, clock=clock)
    stored = stored_stream(store, recorded)
    first = stored[0].t
    got = []
    for event in replay.events():
        # Each event is handed over when its stored time since the first, sped up, has passed.
        assert clock.now() - 100.0 == pytest.approx((event.t - first) / speed)
        got.append(event)
    assert [e.seq for e in got] == [e.seq for e in stored]
    assert [e.seq for e in got] == sorted(e.seq for e in got)
    assert [(e.kind, e.t, e.data) for e in got] == [(e.kind, e.t, e.data) for e in stored]
    assert sum(clock.waits) == pytest.approx((stored[-1].t - first) / speed)
    assert replay.final is not None
    assert replay.final.get("status") == "ok"
    assert replay.emitted == len(stored)


def test_a_replay_feeds_the_live_model_the_stored_results(
    store: SessionStore, recorded: int
) -> None:
    model = LiveModel()
    model.feed_all(ReplayController(store, recorded, speed=10, clock=VirtualClock()).events())
    assert model.phase == "ok"
    assert [(p.step, p.vus, p.nopm) for p in model.points] == [
        (s.step, s.vus, s.nopm) for s in store.steps(recorded)
    ]
    assert len(model.samples) == len(store.samples(recorded))
    assert [m[2] for m in model.markers] == [4, 8, 12]


def test_stop_ends_the_replay_during_a_wait(store: SessionStore) -> None:
    base, _scaled = build_seed003(store)
    clock = VirtualClock()
    replay = ReplayController(store, base, speed=2, clock=clock)
    waits_before_stop = 3
    clock.on_wait = lambda _s: replay.stop() if len(clock.waits) == waits_before_stop else None
    got = list(replay.events())
    assert replay.stopped
    assert len(clock.waits) == waits_before_stop
    assert 0 < len(got) < len(stored_stream(store, base))
    assert replay.final is None


def test_the_real_clock_replays_too(store: SessionStore) -> None:
    """The wall clock, sped up so the stored 75 minutes pass in well under a second."""
    base, _scaled = build_seed003(store)
    replay = ReplayController(store, base, speed=10_000, clock=RealClock())
    assert [e.seq for e in replay.events()] == [e.seq for e in stored_stream(store, base)]


def test_schedule_never_goes_back_in_time(store: SessionStore, recorded: int) -> None:
    events = stored_stream(store, recorded)
    late = events[3]
    events[4] = type(late)(events[4].kind, events[4].seq, late.t - 5.0, events[4].data)
    due = schedule(events, 2.0)
    assert due == sorted(due)
    assert due[4] == due[3]
    assert schedule([], 2.0) == []


@pytest.mark.parametrize(
    ("speed", "message"),
    [
        (0, "above 0"),
        (-2, "above 0"),
        (1e9, "at most 10000"),
        (math.nan, "must be a number"),
        ("fast", "must be a number"),
        (True, "must be a number"),
    ],
)
def test_bad_speeds_are_refused(
    store: SessionStore, recorded: int, speed: object, message: str
) -> None:
    with pytest.raises(ReplayError, match=message):
        ReplayController(store, recorded, speed=speed)  # type: ignore[arg-type]


def test_what_cannot_be_replayed_is_said(store: SessionStore) -> None:
    with pytest.raises(ReplayError, match="no stored session with id 77"):
        list(ReplayController(store, 77, clock=VirtualClock()).events())
    empty = store.create_run("never ran", {}, "", {"kind": "demo"}, "postgresql")
    with pytest.raises(ReplayError, match=r"session \d+ \(never ran\) has no measured step"):
        list(ReplayController(store, empty, clock=VirtualClock()).events())
