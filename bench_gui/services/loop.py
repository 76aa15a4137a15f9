"""A booth's loop: the sweep again and again, a result card between runs, errors never stop it.

At a trade show nobody watches the laptop. The loop runs the sweep N times or forever; after
each run it shows the run's result card for a while; when a run fails, the error is logged and
shown in a corner (never a dialog that waits for a click), the target is put right where that
can be done (the embedded demo server started again: ``recover``), and after a back-off the
loop carries on. A run whose database stops answering is asked about (``target_down``): when
the target is known to be down (the demo server died), the run is stopped and counted failed at
once, rather than after the run's stall limit (two minutes of a zero in front of visitors).

No Qt and no knowledge of what a run is: runs come from a factory (a real
:class:`~bench_gui.services.run.RunController`, a
:class:`~bench_gui.services.replay.ReplayController`, or in tests one that fails), so the
loop's rules are tested on their own. :meth:`LoopController.items` is a blocking generator
for a worker thread: it yields what happens, in order, as :data:`LoopItem` records, and waits
on a :class:`~bench_gui.services.pacing.Clock` that :meth:`LoopController.stop` cuts short.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, replace
from typing import Protocol

from bench_gui.remote.demo import demo_down, restart_demo_if_down
from bench_gui.services.pacing import Clock, RealClock
from bench_gui.services.result_figures import ResultFigures
from bench_gui.wire.protocol import Event

log = logging.getLogger(__name__)

DEFAULT_CARD_S = 15.0
# After a failed run: wait this long, doubling after each failure in a row, up to the most.
FIRST_BACKOFF_S = 5.0
MAX_BACKOFF_S = 60.0
# A run's database silent this long: the loop asks whether the target is down.
DOWN_CHECK_AFTER_S = 5.0


class RunLike(Protocol):
    """What the loop needs of a run (RunController and ReplayController have it)."""

    session_id: int | None

    def events(self) -> Iterator[Event]: ...

    def stop(self) -> None: ...


RunFactory = Callable[[int], RunLike]  # the run's number (from 1) -> the run
CardSource = Callable[[int], ResultFigures]  # a finished run's session id -> its figures
Recovery = Callable[[], str]  # put the target right after a failure; what it did, or ""
DownCheck = Callable[[], str]  # why the target is down ("" when it is not, or not known)


@dataclass(frozen=True)
class RunStarted:
    number: int  # from 1
    total: int | None  # None: forever


@dataclass(frozen=True)
class RunEvent:
    number: int
    event: Event


@dataclass(frozen=True)
class RunEnded:
    number: int
    status: str  # the agent's: ok, stopped (failed runs are a LoopError)
    session_id: int | None


@dataclass(frozen=True)
class LoopError:
    number: int
    message: str  # for the corner of the screen and the log
    retry_in_s: float  # the back-off before the next run (0: none)


@dataclass(frozen=True)
class ResultCard:
    number: int
    figures: ResultFigures
    seconds: float  # how long it shows before the next run (0: the loop has ended)


@dataclass(frozen=True)
class LoopFinished:
    runs: int  # runs started
    ok: int  # runs that ended well
    failed: int
    stopped: bool  # stop() ended it


LoopItem = RunStarted | RunEvent | RunEnded | LoopError | ResultCard | LoopFinished


class RunFailed(Exception):
    """A run that ended with status "failed" without raising (a replayed failed session)."""


def parse_runs(text: str) -> int | None:
    """``--loop`` value: a number of runs (at least 1), or ``forever`` (None)."""
    value = text.strip().lower()
    if value in ("forever", "inf", "infinite"):
        return None
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"--loop takes a number of runs (1 or more) or 'forever', got {text!r}")
    return int(value)


def _check_seconds(value: float, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{what} must be a number of seconds, got {value!r}")
    if value < 0:
        raise ValueError(f"{what} cannot be negative, got {value:g}")
    return float(value)


def first_line(text: str) -> str:
    """The first line of a message with something in it (an error's details stay in the log)."""
    return next((line.strip() for line in text.splitlines() if line.strip()), text.strip())


def demo_down_check() -> str:
    """The down check of a loop on the embedded demo target: its server process has died."""
    return "the demo database stopped (crashed or killed)" if demo_down() else ""


def demo_recovery() -> str:
    """The recovery of a loop on the embedded demo target: start its server again if it died
    (the words are the screen's: they replace the run's failure there)."""
    if restart_demo_if_down():
        return "Demo database restarted after a crash"
    return ""


class LoopController:
    """Runs ``run_factory``'s runs ``runs`` times (None: forever), with cards and back-off.

    Every run started counts toward ``runs``, failed ones too, so a loop of N always ends.
    ``card_for`` gives a finished run's card (None: no card); ``recover`` is called after each
    failure (its sentence goes with the error; its own failure too). ``target_down`` is asked
    while a run's database does not answer; a reason from it stops the run as failed.
    """

    def __init__(
        self,
        run_factory: RunFactory,
        runs: int | None = 1,
        card_seconds: float = DEFAULT_CARD_S,
        card_for: CardSource | None = None,
        recover: Recovery | None = None,
        clock: Clock | None = None,
        first_backoff_s: float = FIRST_BACKOFF_S,
        target_down: DownCheck | None = None,
        max_backoff_s: float = MAX_BACKOFF_S,
    ) -> None:
        if runs is not None and (isinstance(runs, bool) or runs < 1):
            raise ValueError(f"a loop runs at least once (or forever: None), got {runs!r}")
        self.run_factory = run_factory
        self.runs = runs
        self.card_seconds = _check_seconds(card_seconds, "the result card's time")
        self.card_for = card_for
        self.recover = recover
        self.target_down = target_down
        self.clock: Clock = clock or RealClock()
        self.first_backoff_s = _check_seconds(first_backoff_s, "the first back-off")
        self.max_backoff_s = max(self.first_backoff_s, _check_seconds(max_backoff_s, "back-off"))
        self.started = 0
        self.ok = 0
        self.failed = 0
        self._streak = 0  # failures in a row
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._current: RunLike | None = None

    def stop(self) -> None:
        """End the loop: the current run stops (keeping what it measured), no wait goes on."""
        self._stop.set()
        with self._lock:
            current = self._current
        if current is not None:
            current.stop()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def _more(self) -> bool:
        return not self._stop.is_set() and (self.runs is None or self.started < self.runs)

    def items(self) -> Iterator[LoopItem]:
        while self._more():
            self.started += 1
            number = self.started
            yield RunStarted(number, self.runs)
            try:
                ended = yield from self._one_run(number)
            except Exception as exc:  # noqa: BLE001 - a booth loop outlives any failed run
                if self._stop.is_set():
                    break
                yield from self._failure(number, exc)
                continue
            if ended is None:  # stopped during the run
                break
            self.ok += 1
            self._streak = 0
            yield ended
            yield from self._card(ended)
        yield LoopFinished(self.started, self.ok, self.failed, self._stop.is_set())

    def _one_run(self, number: int) -> Generator[LoopItem, None, RunEnded | None]:
        """The run's events; returns its RunEnded, or None when the loop was stopped."""
        run = self.run_factory(number)
        with self._lock:
            self._current = run
        try:
            if self._stop.is_set():
                run.stop()
                return None
            status, last_error, down = "ok", "", ""
            for event in run.events():
                if not down and event.kind == "sample":
                    down = self._down(event)
                    if down:
                        log.warning("booth loop: run %d: %s; stopping it", number, down)
                        run.stop()  # its events go on to the end: what it measured is kept
                if down and event.kind == "done":
                    # The screen says the run failed and why, while the target is put right
                    # (a grey "Stopped" read as if someone had stopped it).
                    event = replace(event, data={**event.data, "status": "failed", "message": down})
                if event.kind == "done":
                    status = str(event.get("status") or "ok")
                    last_error = last_error or str(event.get("message") or "")
                elif event.kind == "error":
                    last_error = str(event.get("message") or last_error)
                yield RunEvent(number, event)
        finally:
            with self._lock:
                self._current = None
        if self._stop.is_set():
            return None
        if down:
            raise RunFailed(down)
        if status == "failed":
            raise RunFailed(last_error or "the run failed")
        return RunEnded(number, status, run.session_id)

    def _down(self, sample: Event) -> str:
        """Why the target is down, asked once the sample's database has been silent a while."""
        silent = sample.get("db_not_answering_s")
        if self.target_down is None or not isinstance(silent, int | float):
            return ""
        if silent < DOWN_CHECK_AFTER_S:
            return ""
        try:
            return self.target_down()
        except Exception as exc:  # noqa: BLE001 - a check that fails says nothing
            log.debug("booth loop: the down check failed: %s", exc)
            return ""

    def _failure(self, number: int, exc: Exception) -> Iterator[LoopItem]:
        self.failed += 1
        self._streak += 1
        text = str(exc) or type(exc).__name__
        failure = f"run {number} failed: {text}"
        # The screen gets one line: the failure's first, and when the target was put right,
        # what was done instead (the crash that failed the run); the log keeps the whole.
        message = f"run {number} failed: {first_line(text)}"
        if self.recover is not None:
            try:
                done = self.recover()
            except Exception as recovery:  # noqa: BLE001 - reported with the failure
                message += f"; could not put the target right: {first_line(str(recovery))}"
                failure += f"; could not put the target right: {recovery}"
            else:
                if done:
                    message = done
                    failure += f"; {done}"
        wait = 0.0
        if self._more():
            wait = min(self.max_backoff_s, self.first_backoff_s * 2 ** (self._streak - 1))
            message += f"; next run in {wait:.0f} s"
        log.warning("booth loop: %s", failure)
        yield LoopError(number, message, wait)
        if wait > 0:
            self.clock.wait(wait, self._stop)

    def _card(self, ended: RunEnded) -> Iterator[LoopItem]:
        if self.card_for is None or ended.session_id is None:
            return
        try:
            figures = self.card_for(ended.session_id)
        except Exception as exc:  # noqa: BLE001 - a card that cannot be made is not fatal
            message = f"run {ended.number}: no result card ({exc})"
            log.warning("booth loop: %s", message)
            yield LoopError(ended.number, message, 0.0)
            return
        seconds = self.card_seconds if self._more() else 0.0
        yield ResultCard(ended.number, figures, seconds)
        if seconds > 0:
            self.clock.wait(seconds, self._stop)


__all__ = [
    "DEFAULT_CARD_S",
    "LoopController",
    "LoopError",
    "LoopFinished",
    "LoopItem",
    "ResultCard",
    "RunEnded",
    "RunEvent",
    "RunFactory",
    "RunFailed",
    "RunLike",
    "RunStarted",
    "demo_down_check",
    "demo_recovery",
    "parse_runs",
]
