"""The booth: a loop of runs (or replays) raced against a stored session, on a present screen.

Wires :mod:`bench_gui.services.loop`, :mod:`~bench_gui.services.race` and
:mod:`~bench_gui.services.replay` (set up by :func:`bench_gui.services.booth.booth_setup`) to
the Present view (any :class:`BoothScreen`). The loop runs in one background task
(:mod:`bench_gui.gui.tasks`); what it yields crosses into the GUI thread as partial results,
in order:

- a run starts: the card goes away, the screen begins the run (``begin_run``);
- each event: to the screen (``handle_event``), which keeps its LiveModel;
- once a second: the race's ghost curve and its headline, "4.2X vs HDD RAID 10 at 16 users"
  in longer and shorter forms, green or amber (``set_ghost``, ``set_headline``);
- a run ends: ``run_finished``, then its result card as an overlay (``show_overlay``);
- an error: in the corner (``show_corner_error``), never a dialog; the loop carries on.

The screen's ``leave_requested`` (Esc) stops the loop; :attr:`Booth.finished` says when it is
over.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Protocol

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QWidget

from bench_gui.core.plan_model import Plan
from bench_gui.gui.present.result_card import ResultCard as ResultCardWidget
from bench_gui.gui.tasks import TaskRunner, TaskState
from bench_gui.services.booth import BoothSetup
from bench_gui.services.live_model import LiveModel
from bench_gui.services.loop import (
    LoopController,
    LoopError,
    LoopFinished,
    ResultCard,
    RunEnded,
    RunEvent,
    RunStarted,
)
from bench_gui.services.race import Headline, Race
from bench_gui.wire.protocol import Event

log = logging.getLogger(__name__)

RACE_TICK_MS = 1000
# Items the loop's thread may hand over before the screen has taken them: a replay at a high
# speed waits for the screen instead of queueing a whole session's events in memory.
MAX_QUEUED = 2000


class BoothScreen(Protocol):
    """What the booth needs of the screen it drives (the Present view).

    A screen that also has ``set_race_figures(live_nopm, stored_nopm)`` gets the two NOPM the
    ratio compares, each second; one with ``set_title(text)`` is told when a run is a replay.
    """

    model: LiveModel
    leave_requested: Any  # a Qt signal, emitted on Esc

    def begin_run(self, plan: Plan) -> None: ...

    def handle_event(self, event: Event) -> None: ...

    def run_finished(self, status: str) -> None: ...

    def run_failed(self, message: str) -> None: ...

    def set_ghost(self, label: str, points: list[tuple[float, float]] | None) -> None: ...

    def set_ratio_text(self, text: str | None) -> None: ...

    def set_headline(self, headline: Headline | None) -> None: ...

    def show_corner_error(self, text: str) -> None: ...

    def show_overlay(self, widget: QWidget | None) -> None: ...


class Booth(QObject):
    """Drives one :class:`BoothSetup` on a screen until the loop ends or is stopped.

    Signals:
        finished(object): the loop is over; its :class:`~bench_gui.services.loop.LoopFinished`
            (None if the loop itself broke, which the error channel reports).
    """

    finished = Signal(object)

    def __init__(self, setup: BoothSetup, screen: BoothScreen, parent: QObject | None = None):
        super().__init__(parent)
        self.setup = setup
        self.screen = screen
        self.race = Race(setup.rival) if setup.rival is not None else None
        self.loop = LoopController(
            setup.run_factory,
            runs=setup.runs,
            card_seconds=setup.card_seconds,
            card_for=setup.card_for,
            recover=setup.recover,
            clock=setup.clock,
            target_down=setup.target_down,
        )
        self.runner = TaskRunner(self, where="the booth loop")
        self.runner.partial.connect(self._on_item)
        self.card: ResultCardWidget | None = None
        self.outcome: LoopFinished | None = None
        self.errors: list[str] = []
        self._in_run = False
        self._room = threading.Semaphore(MAX_QUEUED)
        self._race_timer = QTimer(self)
        self._race_timer.setInterval(RACE_TICK_MS)
        self._race_timer.timeout.connect(self.update_race)
        screen.leave_requested.connect(self.stop)

    # ---- control -------------------------------------------------------------------------

    def start(self) -> None:
        if self.runner.busy or self.outcome is not None:
            raise RuntimeError("a Booth runs its loop once; make a new one")
        self.runner.start("loop", self._work, self._done, self._broke)

    def stop(self) -> None:
        """End the loop (Esc): the current run stops and keeps what it measured; ``finished``
        follows once the loop's thread has wound up."""
        self.loop.stop()

    @property
    def running(self) -> bool:
        return self.runner.busy is not None

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        """Stop and join the loop's thread; True if it ended within the timeout."""
        self.loop.stop()
        self._race_timer.stop()
        return self.runner.shutdown(timeout_s)

    # ---- the loop's thread ---------------------------------------------------------------

    def _work(self, state: TaskState) -> LoopFinished | None:
        last = None
        for item in self.loop.items():
            if state.cancelled:
                self.loop.stop()
            while not self._room.acquire(timeout=0.2):
                if state.cancelled:
                    return last  # shut down while the screen takes nothing more
            state.set_partial_result(item)
            if isinstance(item, LoopFinished):
                last = item
        return last

    # ---- the GUI thread ------------------------------------------------------------------

    def _on_item(self, _what: str, item: object) -> None:
        self._room.release()
        screen = self.screen
        if isinstance(item, RunEvent):
            screen.handle_event(item.event)
        elif isinstance(item, RunStarted):
            self.card = None
            screen.show_overlay(None)
            screen.begin_run(self.setup.plan_for(item.number))
            self._say_replay()
            self._in_run = True
            if self.race is not None:
                screen.set_headline(None)
                screen.set_ghost(self.race.rival.label, None)
                self._race_timer.start()
        elif isinstance(item, RunEnded):
            self._in_run = False
            screen.run_finished(item.status)
            self.update_race()
            self._race_timer.stop()
        elif isinstance(item, LoopError):
            self.errors.append(item.message)
            screen.show_corner_error(item.message)
            if self._in_run:
                self._in_run = False
                screen.run_failed(item.message)
                self.update_race()
                self._race_timer.stop()
        elif isinstance(item, ResultCard):
            self.card = ResultCardWidget(item.figures, item.number, self.setup.runs, item.seconds)
            screen.show_overlay(self.card)
        elif isinstance(item, LoopFinished):
            self.outcome = item
            if self._in_run:  # stopped mid-run (Esc): the screen says so, not "measuring"
                self._in_run = False
                if not screen.model.ended:
                    screen.run_finished("stopped")
            self._race_timer.stop()

    def _say_replay(self) -> None:
        """A replay says so in the screen's title: nobody should take it for a live run."""
        set_title = getattr(self.screen, "set_title", None)
        if set_title is None or self.setup.replaying is None:
            return
        speed = self.setup.speed
        # First, so a long name elided on a small screen still says it.
        what = "Replay" if speed == 1 else f"Replay {speed:g}x"
        set_title(f"{what}: {self.screen.model.name}")

    def update_race(self) -> None:
        """The race's ghost and figure from the screen's model (the timer calls it)."""
        if self.race is None:
            return
        frame = self.race.frame(self.screen.model)
        self.screen.set_ghost(frame.ghost_label, frame.ghost)
        self.screen.set_headline(frame.headline)
        figures = getattr(self.screen, "set_race_figures", None)
        if figures is not None:  # a screen that shows the two NOPM side by side
            figures(frame.live_nopm, frame.stored_nopm)

    def _done(self, result: LoopFinished | None) -> None:
        self._race_timer.stop()
        self.outcome = result or self.outcome
        self.finished.emit(self.outcome)

    def _broke(self, _what: str, message: str, _details: str) -> None:
        # A bug in the loop itself (it catches every run's failure): the error channel has it.
        self._race_timer.stop()
        log.error("booth loop ended: %s", message)
        self.screen.show_corner_error(f"the booth loop stopped: {message}")
        self.finished.emit(None)


__all__ = ["Booth", "BoothScreen"]
