"""Waiting that tests can skip: the clock a replay and a booth loop pace themselves on.

A replay waits between events, a loop waits while the result card shows and after an error;
both take a :class:`Clock` so tests inject a fake one that only counts the seconds asked for,
and so a stop request ends any wait at once instead of after it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol


class Clock(Protocol):
    """Monotonic time and an interruptible wait."""

    def now(self) -> float:
        """Seconds on a monotonic scale (only differences mean anything)."""
        ...

    def wait(self, seconds: float, stop: threading.Event) -> bool:
        """Wait ``seconds`` or until ``stop`` is set; True if it was set (the wait was cut)."""
        ...


class RealClock:
    """The wall clock: ``time.monotonic`` and an ``Event.wait`` that a stop cuts short."""

    def now(self) -> float:
        return time.monotonic()

    def wait(self, seconds: float, stop: threading.Event) -> bool:
        if seconds <= 0:
            return stop.is_set()
        return stop.wait(seconds)


class VirtualClock:
    """Time that passes only when waited on: a replay or a loop runs as fast as the machine
    goes, every wait recorded (the tests check the pacing with it, benchmarks time the work).

    ``on_wait`` is called after each wait with the seconds waited (a test stops a loop there).
    """

    def __init__(self, start: float = 0.0) -> None:
        self.time = start
        self.waits: list[float] = []
        self.on_wait: Callable[[float], None] | None = None

    def now(self) -> float:
        return self.time

    def wait(self, seconds: float, stop: threading.Event) -> bool:
        if stop.is_set():
            return True
        if seconds > 0:
            self.time += seconds
            self.waits.append(seconds)
            if self.on_wait is not None:
                self.on_wait(seconds)
        return stop.is_set()


__all__ = ["Clock", "RealClock", "VirtualClock"]
