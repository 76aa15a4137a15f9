"""One short piece of work on a driver host (listing its runs, opening a run to follow) retried
across a cut link: a bounded number of reconnects with the follower's back-off and the same
link-state notices (lost, reconnecting, restored, failed), so ``attach`` survives a cut in its
setup as it survives one while it follows.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Final, Protocol, TypeVar

from bench_gui.remote.errors import ConnectError
from bench_gui.remote.ssh_agent_run import BACKOFF, BACKOFF_CAP, LINK_LOST, LINK_RESTORED

T = TypeVar("T")

# Reconnects tried before the setup gives up (about 25 s of back-off in all).
SETUP_ATTEMPTS: Final = 6


class RetriedHost(Protocol):
    """What the retry needs of a transport (an SSHTransport)."""

    on_link_state: Callable[[str, str], None] | None

    def close(self) -> None:
        """Drop the transport's own session (the next command opens a new one)."""
        ...


def over_cuts(
    host: RetriedHost,
    work: Callable[[], T],
    *,
    attempts: int = SETUP_ATTEMPTS,
    cancel: threading.Event | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """``work()``, tried again after a lost link (:class:`ConnectError`) up to ``attempts``
    more times; any other error, and the last link error, goes to the caller."""

    def notify(state: str, detail: str) -> None:
        if host.on_link_state is not None:
            host.on_link_state(state, detail)

    failures = 0
    while True:
        try:
            result = work()
        except ConnectError as exc:
            failures += 1
            host.close()
            stopped = cancel is not None and cancel.is_set()
            if failures > attempts or stopped:
                notify("failed", f"gave up reconnecting: {exc}")
                raise
            delay = BACKOFF[failures - 1] if failures <= len(BACKOFF) else BACKOFF_CAP
            if failures == 1:
                notify("lost", LINK_LOST)
            else:
                notify("reconnecting", f"attempt {failures - 1} failed: {exc}; next in {delay:g} s")
            if cancel is not None:
                cancel.wait(delay)
            else:
                sleep(delay)
            continue
        if failures:
            notify("restored", LINK_RESTORED)
        return result


__all__ = ["SETUP_ATTEMPTS", "RetriedHost", "over_cuts"]
