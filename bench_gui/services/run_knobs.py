"""A run's ``[os]`` knobs: applied once before any agent starts, rolled back once however the
run ends (a run whose driver link was lost may keep them, saying how to restore them later),
each line kept in the session's log. One copy for a run on one driver host or several.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench_gui.core.plan_model import Plan
from bench_gui.remote.host_access import HostIO
from bench_gui.services.run_errors import RunError
from bench_gui.services.tuning import LogLine, OsRun, OsRunError, os_run_for_plan, resumed_os_run
from bench_gui.store import SessionStore


class RunKnobs:
    """The plan's OS knobs for one run; ``driver_host`` opens the driver host (None: the run's
    agent is on this machine)."""

    def __init__(
        self, store: SessionStore, plan: Plan, driver_host: Callable[[], HostIO] | None
    ) -> None:
        self.store = store
        self.plan = plan
        self.driver_host = driver_host
        self.run: OsRun | None = None

    def apply(
        self, session_id: int, conninfo: str | None = None, password: str | None = None
    ) -> list[LogLine]:
        """Apply the knobs (``conninfo``: the PostgreSQL server's, for the devices under its
        data directory); a refusal is a :class:`RunError` with the host left as it was."""
        self.run = os_run_for_plan(
            self.store,
            self.plan,
            session_id,
            driver_host=self.driver_host,
            conninfo=conninfo,
            password=password,
        )
        if self.run is None:
            return []
        try:
            lines = self.run.apply()
        except OsRunError as exc:
            self.run.close()
            self.run = None
            raise RunError(str(exc)) from exc
        for level, message in lines:
            self.store.add_log(session_id, level, message)
        return lines

    def resume(self, session_id: int) -> None:
        """A re-attached run's knobs, if they are still applied (restored at its end)."""
        self.run = resumed_os_run(self.store, self.plan, session_id, self.driver_host)

    @property
    def where(self) -> str:
        """Where the knobs are applied ("local" or an SSH target), "" when none are."""
        return self.run.where if self.run is not None else ""

    def record(self) -> dict[str, Any] | None:
        """What was applied, for the session's inventory (``os_tuning``); None if nothing."""
        if self.run is None or self.run.result is None:
            return None
        return self.run.record()

    def end(self, session_id: int | None, keep: str = "") -> list[LogLine]:
        """Roll the knobs back (``keep``: leave them, saying why); logged; never raises."""
        run, self.run = self.run, None
        if run is None:
            return []
        lines = run.end(keep=keep)
        for level, message in lines:
            if session_id is not None:
                self.store.add_log(session_id, level, message)
        return lines
