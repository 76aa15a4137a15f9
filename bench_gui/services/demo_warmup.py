"""Make the embedded demo target ready before the first sweep asks for it.

A first sweep on the demo target used to spend 25 to 35 s before measuring anything: initdb,
starting the server, building the TPROC-C schema. The desktop app calls :class:`DemoWarmup`
in the background as it opens, so by the time someone presses Start the server is up and the
schema the plan needs is there.

The server's data directory is the app's own (``data_dir() / "demo-postgres"``, see
:mod:`bench_gui.remote.demo`) and is kept between launches: the next launch only starts the
server (about a second) and finds the schema built. The server stops when the last process
using it exits (a second app, or ``bench-gui demo``, may share it meanwhile).

The schema is asked for and built by the agent, as a run would (``status``, then ``build``
if needed), in a subprocess that takes the server's run lock: a sweep or another app's
warm-up on the same server is never raced. Qt-free: the GUI runs it in a task
(:mod:`bench_gui.gui.demo_ready`).
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from bench_gui.core.plan_model import Plan
from bench_gui.remote.local_transport import LocalAgentRun, LocalTransport
from bench_gui.store.paths import data_dir
from bench_gui.wire.protocol import Event

# What a warm-up found or did.
READY: Final = "ready"  # the schema the plan needs was there
BUILT: Final = "built"  # it was built now
SERVER_ONLY: Final = "server"  # the server is up; the plan rebuilds its schema anyway
BUSY: Final = "busy"  # another run holds the server: it was left alone
STOPPED: Final = "stopped"  # asked to stop before the end
STATES: Final = (READY, BUILT, SERVER_ONLY, BUSY, STOPPED)
# Enough for the agent to end after SIGTERM (a build stops between two batches).
AGENT_END_S: Final = 60.0

Progress = Callable[[str, float], None]  # a line of text, a fraction (-1: unknown)


class WarmupError(RuntimeError):
    """The demo target could not be made ready; the message says why."""


@dataclass(frozen=True)
class WarmupResult:
    state: str
    seconds: float  # from the call to the end
    server: str  # the server's version line ("" if never reached)
    warehouses: int  # in the schema now (0: none)
    message: str  # one sentence for the status bar


class DemoWarmup:
    """Starts the demo server and builds the plan's schema if it is missing.

    :meth:`run` blocks (call it from a worker thread); :meth:`stop` may be called from any
    thread: it ends the agent (a half-built schema is rebuilt by the next warm-up or run).
    """

    def __init__(
        self,
        plan: Plan,
        on_progress: Progress | None = None,
        runs_dir: Path | None = None,
    ) -> None:
        if plan.target.kind != "demo":
            raise WarmupError(
                f"the plan's target is {plan.target.kind!r}: only the demo target is warmed up"
            )
        self.plan = plan
        self.on_progress = on_progress or (lambda _text, _fraction: None)
        self.runs_dir = runs_dir
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._agent: LocalAgentRun | None = None
        self.server = ""

    def stop(self) -> None:
        self._stop.set()
        with self._lock:
            if self._agent is not None:
                self._agent.stop()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def run(self) -> WarmupResult:
        start = time.monotonic()
        workload = self.plan.workload
        database = self.plan.target.database
        self.on_progress("Starting the demo PostgreSQL server…", -1.0)
        schema = self._status()
        if schema is None:
            return self._result(start, STOPPED, 0, "the demo target's preparation was stopped")
        have = int(schema.get("warehouses") or 0)
        complete = schema.get("state") == "complete"
        if workload.build == "always":
            text = "the demo server is up (the plan builds its schema at each run)"
            return self._result(start, SERVER_ONLY, have, text)
        if complete and have == workload.warehouses:
            text = f"the demo target is ready: {database} has {have} warehouses"
            return self._result(start, READY, have, text)
        if workload.build == "never":
            raise WarmupError(
                f"the demo database {database!r} has no schema of {workload.warehouses}"
                " warehouses and the plan's build mode is 'never'"
            )
        return self._build(start)

    # ---- the agent's two actions ------------------------------------------------------------

    def _status(self) -> dict[str, Any] | None:
        events = self._agent_events("status")
        if events is None:
            return None
        for event in events:
            if event.kind == "summary" and isinstance(event.get("schema"), dict):
                return dict(event.get("schema"))
        raise WarmupError(f"the agent did not say what the demo database holds: {_why(events)}")

    def _build(self, start: float) -> WarmupResult:
        warehouses = self.plan.workload.warehouses
        self.on_progress(f"Building the demo schema ({warehouses} warehouses)…", 0.0)
        events = self._agent_events("build")
        if events is None:
            return self._result(start, STOPPED, 0, "the demo schema's build was stopped")
        done = next((e for e in events if e.kind == "done"), None)
        if done is not None and done.get("status") == "ok":
            text = f"the demo target is ready: {warehouses} warehouses built"
            return self._result(start, BUILT, warehouses, text)
        if any(e.kind == "error" and e.get("code") == "locked" for e in events):
            text = f"the demo target is in use by another run ({_why(events)})"
            return self._result(start, BUSY, 0, text)
        if self.stopped:
            return self._result(start, STOPPED, 0, "the demo schema's build was stopped")
        raise WarmupError(f"the demo schema could not be built: {_why(events)}")

    def _agent_events(self, action: str) -> list[Event] | None:
        """Run one agent action to its end; its events (None: stopped before or during it)."""
        if self.stopped:
            return None
        # Here, not at the top: the GUI imports this module as the window opens, and the run
        # module brings the SSH and database libraries (loaded by this worker thread instead).
        from bench_gui.services.agent_config import agent_config
        from bench_gui.services.run_errors import RunError

        try:
            config, env = agent_config(self.plan, action)
        except RunError as exc:
            raise WarmupError(str(exc)) from exc
        parent = self.runs_dir or data_dir() / "runs"
        parent.mkdir(parents=True, exist_ok=True)
        folder = Path(tempfile.mkdtemp(prefix="demo-warmup-", dir=parent))
        events: list[Event] = []
        try:
            with self._lock:
                if self.stopped:
                    return None
                agent = LocalTransport(folder).start_agent(config, env)
                self._agent = agent
            try:
                for item in agent.events():
                    if isinstance(item, Event):
                        events.append(item)
                        self._note(item)
            finally:
                if agent.wait(AGENT_END_S) is None:
                    agent.kill()
                with self._lock:
                    self._agent = None
            if self.stopped:
                return None
            if not events:
                detail = agent.diagnostics().strip().splitlines()
                raise WarmupError(
                    f"the agent ended without a word: {detail[-1] if detail else 'no output'}"
                )
            return events
        except OSError as exc:
            raise WarmupError(f"cannot start the agent: {exc}") from exc
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def _note(self, event: Event) -> None:
        if event.kind == "hello":
            self.server = str(event.get("server") or "")
        elif event.kind == "progress":
            done, total = event.get("done") or 0, event.get("total") or 0
            fraction = done / total if isinstance(total, int | float) and total > 0 else -1.0
            stage = event.get("stage") or event.get("task") or "building"
            self.on_progress(f"Building the demo schema: {stage}", float(fraction))

    def _result(self, start: float, state: str, warehouses: int, message: str) -> WarmupResult:
        return WarmupResult(state, time.monotonic() - start, self.server, warehouses, message)


def _why(events: list[Event]) -> str:
    """The agent's last error or done message (what a failed action says about itself)."""
    for event in reversed(events):
        if event.kind in ("error", "done") and event.get("message"):
            return str(event.get("message"))
    return "no reason given"


__all__ = [
    "BUILT",
    "BUSY",
    "READY",
    "SERVER_ONLY",
    "STATES",
    "STOPPED",
    "DemoWarmup",
    "WarmupError",
    "WarmupResult",
]
