"""``bench-gui present`` options for a booth: race, replay, loop, result card.

``bench-gui present PLAN.toml --race "HDD RAID 10" --loop forever`` runs the plan's sweep again
and again on the Present screen, raced against a stored session; ``bench-gui present --replay
12 7 --speed 10`` needs no plan and no database: session 12 is played back ten times faster
against session 7. The ``present`` command adds these options with
:func:`add_booth_arguments` and builds the booth with :func:`build_booth`.
"""

from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING, Any

from bench_gui.core.plan_model import Plan
from bench_gui.services.booth import BoothError, BoothOptions, BoothSetup, booth_setup
from bench_gui.services.loop import DEFAULT_CARD_S, parse_runs
from bench_gui.services.race import RaceError
from bench_gui.services.replay import ReplayError
from bench_gui.services.result_figures import ResultError
from bench_gui.services.sessions import SessionStore

if TYPE_CHECKING:
    from bench_gui.gui.present.booth import Booth, BoothScreen

# What setting a booth up may raise; each message names the option or session at fault.
BOOTH_ERRORS = (BoothError, RaceError, ReplayError, ResultError)


def add_booth_arguments(parser: argparse.ArgumentParser) -> None:
    """The booth's options, in a group of their own."""
    group = parser.add_argument_group("booth: race, replay and loop")
    group.add_argument(
        "--race",
        metavar="SESSION",
        help="race every run against this stored session (its id or name), step by step",
    )
    group.add_argument(
        "--race-label",
        metavar="TEXT",
        help="what the screen calls the raced session (default: its name without parentheses)",
    )
    group.add_argument(
        "--replay",
        nargs=2,
        metavar=("A", "B"),
        help="no database: play stored session A back, raced against stored session B",
    )
    group.add_argument(
        "--speed",
        type=float,
        default=1.0,
        metavar="X",
        help="replay speed: 1 is the pace it was measured at, 2, 10... faster (with --replay)",
    )
    group.add_argument(
        "--loop",
        metavar="N|forever",
        help="run the sweep N times, or forever; errors are shown and the loop carries on",
    )
    group.add_argument(
        "--card-seconds",
        type=float,
        default=DEFAULT_CARD_S,
        metavar="S",
        help=f"how long the result card shows between runs (default {DEFAULT_CARD_S:g} s)",
    )


def booth_options(args: argparse.Namespace) -> BoothOptions:
    """The parsed options, checked one by one (how they combine: services.booth)."""
    loop = getattr(args, "loop", None)
    try:
        runs = parse_runs(loop) if loop is not None else 1
    except ValueError as exc:
        raise BoothError(str(exc)) from None
    card = getattr(args, "card_seconds", DEFAULT_CARD_S)
    if not math.isfinite(card) or card < 0:
        raise BoothError(f"--card-seconds takes 0 or more seconds, got {card:g}")
    replay = getattr(args, "replay", None)
    return BoothOptions(
        race=getattr(args, "race", None),
        race_label=getattr(args, "race_label", None),
        replay=(str(replay[0]), str(replay[1])) if replay else None,
        speed=getattr(args, "speed", 1.0),
        runs=runs,
        card_seconds=card,
    )


def booth_from_args(args: argparse.Namespace, store: SessionStore, plan: Plan | None) -> BoothSetup:
    """The booth's setup from the parsed options (one of BOOTH_ERRORS when they do not fit)."""
    return booth_setup(booth_options(args), store, plan)


def build_booth(
    args: argparse.Namespace,
    screen: BoothScreen,
    store: SessionStore,
    plan: Plan | None,
    parent: Any = None,
) -> Booth:
    """The booth controller driving ``screen`` (call ``start()`` once the screen shows)."""
    from bench_gui.gui.present.booth import Booth

    return Booth(booth_from_args(args, store, plan), screen, parent)


__all__ = [
    "BOOTH_ERRORS",
    "add_booth_arguments",
    "booth_from_args",
    "booth_options",
    "build_booth",
]
