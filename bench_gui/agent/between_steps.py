"""Work on the database between steps, watched as a step is: the template looked for and made,
the reset from it, the test schema measured before step 1.

A reset drops the test database and copies it again from the template: seconds on a small
database, minutes on a large one, and forever on a server that hangs (its processes stopped,
its storage stuck) or a lock nobody releases. So the reset runs in a thread of its own while
the run's thread keeps the pace of a step: a ``progress`` event a second (task ``reset``) with
the host's metrics and power, and, when the server does not answer a probe of its own
(``SELECT 1`` on the admin connection,
:class:`bench_gui.engines.postgresql.agent.counters.ServerProbe`), for
how long (``db_not_answering_s``) and why. A server silent for the plan's
``workload.db_stall_limit_s`` ends the wait with :class:`DatabaseAway`; the work under way is
left to its (daemon) thread.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import Any

from bench_gui.agent.engines import AgentEngine
from bench_gui.agent.hostmetrics import Monitor
from bench_gui.wire.engine_errors import EngineError


class DatabaseAway(EngineError):
    """The server did not answer for the stall limit while work between steps waited on it."""


class _Work:
    """``action`` in a daemon thread: when it is done, and what it raised."""

    def __init__(self, action: Callable[[], None]) -> None:
        self.action = action
        self.error: BaseException | None = None
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, name="bench-gui-between", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.action()
        except BaseException as exc:  # noqa: BLE001 - handed to the run's thread
            self.error = exc
        finally:
            self.done.set()


def watched(
    action: Callable[[], None],
    *,
    what: str,
    engine: AgentEngine,
    emit: Callable[..., Any],
    stop: threading.Event,
    monitor: Monitor | None,
    limit_s: float,
) -> bool:
    """Run ``action`` (``what`` names it in the events) while watching the server.

    Returns True when it finished, False when the run was stopped first (the action is left to
    end on its own). Raises what the action raised, or :class:`DatabaseAway` when the server
    did not answer for ``limit_s`` seconds.
    """
    opener = getattr(engine, "server_probe", None)
    probe = opener() if opener is not None else None
    work = _Work(action)
    started = time.monotonic()
    next_tick = started + 1.0
    limit_at = math.inf  # when the silence under way reaches the limit
    try:
        while not work.done.wait(max(0.0, min(next_tick, limit_at) - time.monotonic())):
            if stop.is_set():
                return False
            fields: dict[str, Any] = {}
            if probe is not None and probe.read() is None:
                silent = probe.not_answering_s()
                limit_at = time.monotonic() + limit_s - silent
                fields["db_not_answering_s"] = round(silent, 1)
                if probe.error:
                    fields["db_error"] = probe.error
                if silent >= limit_s:
                    text = (
                        f"the database has not answered for {int(silent)} s while {what}"
                        f" (workload.db_stall_limit_s = {limit_s:g})"
                    )
                    if probe.error:
                        text += f", last error: {probe.error}"
                    raise DatabaseAway(text)
            else:
                limit_at = math.inf
            now = time.monotonic()
            if now < next_tick:
                continue
            next_tick = max(next_tick + 1.0, now + 0.5)
            emit(
                "progress",
                task="reset",
                done=round(now - started, 1),
                unit="s",
                message=what,
                **fields,
                **(monitor.sample_fields() if monitor is not None else {}),
            )
    finally:
        if probe is not None:
            probe.close()
    if work.error is not None:
        raise work.error
    return True


__all__ = ["DatabaseAway", "watched"]
