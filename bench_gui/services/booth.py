"""What a booth runs, decided once: live sweeps or a replay, the race, the loop. No Qt here.

``bench-gui present`` (and the GUI's Present mode) turn their options into a
:class:`BoothSetup`: which runs the loop starts (a plan's real sweeps, or a stored session
replayed at some speed with no database), the rival session they race against, how often the
loop goes round, how long the result card shows, and how a failed run's target is put right.
The Qt side (:mod:`bench_gui.gui.present.booth`) only drives it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bench_gui.core.plan_model import Plan
from bench_gui.services.loop import (
    DEFAULT_CARD_S,
    CardSource,
    DownCheck,
    Recovery,
    RunFactory,
    RunLike,
    demo_down_check,
    demo_recovery,
)
from bench_gui.services.pacing import Clock
from bench_gui.services.race import Rival, find_session, load_rival
from bench_gui.services.replay import ReplayController, check_speed, replay_plan
from bench_gui.services.result_figures import ResultFigures, result_figures
from bench_gui.services.run import RunController
from bench_gui.store.sessions import SessionStore


class BoothError(ValueError):
    """The booth's options do not fit together; the message names the option."""


@dataclass(frozen=True)
class BoothOptions:
    """What the user asked for (``bench-gui present`` options)."""

    race: str | None = None  # a session id or name to race against
    race_label: str | None = None  # the rival's name on screen (default: its short name)
    replay: tuple[str, str] | None = None  # (replayed, rival): ids or names
    speed: float = 1.0  # replay speed
    runs: int | None = 1  # None: forever
    card_seconds: float = DEFAULT_CARD_S


@dataclass
class BoothSetup:
    """Everything the booth's loop needs, ready to drive."""

    run_factory: RunFactory
    plan_for: Callable[[int], Plan]  # what run N shows (name, users, ramp-up, window)
    rival: Rival | None
    runs: int | None
    card_seconds: float
    card_for: CardSource
    recover: Recovery | None
    replaying: int | None = None  # the replayed session's id, when replaying
    speed: float = 1.0
    clock: Clock | None = None  # paces the loop's waits and replays (None: the wall clock)
    target_down: DownCheck | None = None  # asked while a run's database does not answer


def booth_setup(
    options: BoothOptions,
    store: SessionStore,
    plan: Plan | None = None,
    clock: Clock | None = None,
) -> BoothSetup:
    """Check the options against each other and the store, and set the booth up.

    A replay needs no plan (and takes none); live runs need one. ``clock`` paces replays and
    the loop's waits (default: the wall clock).
    """
    if options.replay is not None and options.race is not None:
        raise BoothError("--race and --replay both name the session to race: give one of them")
    if options.replay is None and options.speed != 1.0:
        raise BoothError("--speed sets the pace of a replay: it needs --replay A B")
    if options.replay is not None and plan is not None:
        raise BoothError("--replay plays stored sessions back: it takes no plan file")
    if options.replay is None and plan is None:
        raise BoothError("a live booth needs a plan file (or --replay A B to play sessions back)")
    rival_ref = options.replay[1] if options.replay is not None else options.race
    rival = None
    if rival_ref is not None:
        rival = load_rival(store, find_session(store, rival_ref), options.race_label)

    def card(session_id: int) -> ResultFigures:
        return result_figures(store, session_id, rival)

    if options.replay is not None:
        speed = check_speed(options.speed)
        replayed = find_session(store, options.replay[0])
        if rival is not None and rival.session_id == replayed:
            raise BoothError(f"--replay names session {replayed} twice: race it against another")
        shown = replay_plan(store, replayed)

        def replay(_number: int) -> RunLike:
            return ReplayController(store, replayed, speed=speed, clock=clock)

        return BoothSetup(
            run_factory=replay,
            plan_for=lambda _n: shown,
            rival=rival,
            runs=options.runs,
            card_seconds=options.card_seconds,
            card_for=card,
            recover=None,
            replaying=replayed,
            speed=speed,
            clock=clock,
        )
    assert plan is not None
    live = plan

    def run(_number: int) -> RunLike:
        return RunController(live, store)

    return BoothSetup(
        run_factory=run,
        plan_for=lambda _n: live,
        rival=rival,
        runs=options.runs,
        card_seconds=options.card_seconds,
        card_for=card,
        recover=demo_recovery if live.target.kind == "demo" else None,
        clock=clock,
        target_down=demo_down_check if live.target.kind == "demo" else None,
    )


__all__ = ["BoothError", "BoothOptions", "BoothSetup", "booth_setup"]
