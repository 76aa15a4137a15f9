"""Replaying a stored session as if it ran now: no database, no agent, just the store.

A booth without a server (or whose server died) still shows the story: the stored session's
events go back into the live path (the :class:`~bench_gui.services.live_model.LiveModel`, the
Present view) in their order, paced on a clock that can be sped up, while a second stored
session races it as the ghost (:mod:`bench_gui.services.race`).

:class:`ReplayController` has the shape of a run controller (``events()``, ``stop()``,
``session_id``), so whatever drives runs (the GUI's run worker, a booth loop) drives a replay
the same way. Events keep their stored times: the charts' time axis is the original run's;
only the waits between them are divided by the speed. Nothing is written to the store.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator

from bench_gui.core.plan import plan_from_dict
from bench_gui.core.plan_model import Plan, PlanError
from bench_gui.services.pacing import Clock, RealClock
from bench_gui.store.sessions import SessionNotFound, SessionStore
from bench_gui.wire.protocol import Event
from bench_gui.wire.run_config import Workload

# Speeds a booth would use; any positive speed up to MAX_SPEED is accepted.
MAX_SPEED = 10_000.0


class ReplayError(ValueError):
    """A session cannot be replayed (not found, nothing stored); the message says which."""


def check_speed(speed: float) -> float:
    """``speed`` if it is a usable replay speed, else a ReplayError saying what is wrong."""
    if isinstance(speed, bool) or not isinstance(speed, int | float) or not math.isfinite(speed):
        raise ReplayError(f"the replay speed must be a number such as 1, 2 or 10, got {speed!r}")
    if not 0 < speed <= MAX_SPEED:
        raise ReplayError(
            f"the replay speed must be above 0 and at most {MAX_SPEED:g}, got {speed:g}"
        )
    return float(speed)


def stored_stream(store: SessionStore, session_id: int) -> list[Event]:
    """A stored session's events in seq order, as the live path received them."""
    # Imported here: the re-attach module brings the SSH stack, which a replay never uses.
    from bench_gui.services.reattach import stored_events

    try:
        events = stored_events(store, session_id)
    except SessionNotFound:
        raise ReplayError(f"no stored session with id {session_id}") from None
    if not any(e.kind in ("sample", "step") for e in events):
        name = store.get_run(session_id).name
        raise ReplayError(f"session {session_id} ({name}) has no measured step to replay")
    return events


def replay_plan(store: SessionStore, session_id: int) -> Plan:
    """The plan a replayed session is shown with: its stored plan when it still reads (older or
    imported sessions may not), else one made of what the session stored (its name, its users,
    the ramp-up and window of its first step); named after the session either way."""
    try:
        detail = store.get_run(session_id)
    except SessionNotFound:
        raise ReplayError(f"no stored session with id {session_id}") from None
    try:
        plan = plan_from_dict(detail.plan)
    except PlanError:
        plan = Plan(workload=Workload())
        steps = store.steps(session_id)
        if steps:
            summary = steps[0].summary
            for field, key in (("rampup_s", "rampup_s"), ("duration_s", "window_s")):
                value = summary.get(key)
                if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
                    setattr(plan.workload, field, float(value))
    if detail.vus:
        plan.workload.virtual_users = list(detail.vus)
    plan.name = detail.name
    return plan


def schedule(events: list[Event], speed: float) -> list[float]:
    """When each event is due, in seconds after the replay starts: its stored time since the
    first event, divided by ``speed`` (an event stored out of time order is due at once)."""
    if not events:
        return []
    first = events[0].t
    due: list[float] = []
    latest = 0.0
    for event in events:
        latest = max(latest, (event.t - first) / speed)
        due.append(latest)
    return due


class ReplayController:
    """Plays one stored session's events back at ``speed`` times their stored pace.

    ``session_id`` is the session shown (read only). ``events()`` blocks between events (meant
    for a worker thread); ``stop()`` ends it at the next event or wait, from any thread.
    """

    def __init__(
        self,
        store: SessionStore,
        session_id: int,
        speed: float = 1.0,
        clock: Clock | None = None,
    ) -> None:
        self.store = store
        self.session_id: int | None = session_id
        self.speed = check_speed(speed)
        self.clock: Clock = clock or RealClock()
        self.final: Event | None = None
        self.emitted = 0
        self._stop = threading.Event()

    def stop(self) -> None:
        self._stop.set()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def events(self) -> Iterator[Event]:
        assert self.session_id is not None
        stream = stored_stream(self.store, self.session_id)
        due = schedule(stream, self.speed)
        start = self.clock.now()
        for event, at in zip(stream, due, strict=True):
            wait = start + at - self.clock.now()
            if self.clock.wait(wait, self._stop) if wait > 0 else self._stop.is_set():
                return
            if event.kind == "done":
                self.final = event
            self.emitted += 1
            yield event


__all__ = [
    "MAX_SPEED",
    "ReplayController",
    "ReplayError",
    "check_speed",
    "replay_plan",
    "schedule",
    "stored_stream",
]
