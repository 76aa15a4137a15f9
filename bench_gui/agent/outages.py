"""Virtual users whose connection broke: their back-off, and what the step says about them.

A real server restarts, fails over and ends sessions (``pg_terminate_backend``, ``KILL``). A
user whose connection breaks does not end the run: it tries again after a short delay that
doubles up to :data:`BACKOFF_MAX_S` (with jitter, so a thousand users do not knock on a
restarting server at the same instant), and its worker process tells the parent when it was
lost and when it was back (``("lost", vu, t)`` and ``("back", vu, t)`` on the worker's pipe,
``t`` on the system-wide monotonic clock). The parent's :class:`Outages` keeps the tally:
each sample says how many users are down, the step summary how many lost their connection,
how often, for how long, and a step that lost users is not counted (its load was not the
planned one).
"""

from __future__ import annotations

import random
import time
from typing import Any, Final

# The first delay before a lost user reconnects, and the longest (seconds).
BACKOFF_FIRST_S: Final = 0.2
BACKOFF_MAX_S: Final = 5.0


class Backoff:
    """When a lost user tries again: :data:`BACKOFF_FIRST_S`, doubling to :data:`BACKOFF_MAX_S`,
    each delay drawn between half and all of it."""

    __slots__ = ("_delay", "_rng", "due")

    def __init__(self, rng: random.Random | None = None) -> None:
        self._rng = rng or random.Random()
        self._delay = BACKOFF_FIRST_S
        self.due = 0.0

    def failed(self, now: float) -> float:
        """The connection broke or could not be opened at ``now``: the next attempt's time."""
        delay = self._delay * (0.5 + 0.5 * self._rng.random())
        self._delay = min(BACKOFF_MAX_S, self._delay * 2)
        self.due = now + delay
        return self.due

    def reset(self) -> None:
        """The connection is up again: the next loss starts from the first delay."""
        self._delay = BACKOFF_FIRST_S
        self.due = 0.0


def lost(vu: int) -> tuple[str, int, float]:
    """The worker's message: user ``vu`` lost its connection now."""
    return ("lost", vu, time.monotonic())


def back(vu: int) -> tuple[str, int, float]:
    """The worker's message: user ``vu`` is connected again."""
    return ("back", vu, time.monotonic())


class Outages:
    """The parent's tally of one step's lost connections (from the workers' messages)."""

    def __init__(self) -> None:
        self.down: dict[int, float] = {}  # user -> since when
        self.users: set[int] = set()  # every user that lost its connection in the step
        self.times = 0
        self.longest_s = 0.0
        self.first: float | None = None

    def take(self, message: tuple[Any, ...]) -> bool:
        """Count a worker's ``lost``/``back`` message; False for any other message."""
        kind = message[0]
        if kind == "lost":
            _, vu, t = message
            self.down.setdefault(vu, t)
            self.users.add(vu)
            self.times += 1
            self.first = t if self.first is None else min(self.first, t)
            return True
        if kind == "back":
            _, vu, t = message
            since = self.down.pop(vu, None)
            if since is not None:
                self.longest_s = max(self.longest_s, t - since)
            return True
        return False

    def sample_fields(self) -> dict[str, Any]:
        """A sample's ``vus_down`` (users without a connection now), when any is."""
        return {"vus_down": len(self.down)} if self.down else {}

    def summary_fields(self, now: float) -> dict[str, Any]:
        """The step summary's ``connections_lost``, when a user lost its connection."""
        if not self.users:
            return {}
        longest = max([self.longest_s, *(now - t for t in self.down.values())])
        return {
            "connections_lost": {
                "users": len(self.users),
                "times": self.times,
                "longest_s": round(longest, 1),
                "still_down": len(self.down),
            }
        }

    def problem(self, vus: int, now: float) -> str:
        """Why a step that lost connections does not count ("" if none was lost)."""
        if not self.users:
            return ""
        fields = self.summary_fields(now)["connections_lost"]
        text = (
            f"{fields['users']} of {vus} virtual users lost their connection"
            f" ({fields['times']} time{'' if fields['times'] == 1 else 's'}, the longest for"
            f" {fields['longest_s']:.1f} s)"
        )
        if fields["still_down"]:
            text += f", {fields['still_down']} still without one at the step's end"
        return text + ": the step did not run the planned load"


__all__ = ["BACKOFF_FIRST_S", "BACKOFF_MAX_S", "Backoff", "Outages", "back", "lost"]
