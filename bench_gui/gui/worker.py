"""Run one :class:`~bench_gui.services.run.RunController` action in a thread; report by signals.

The pattern is Orange3's task with partial results: the blocking ``events()`` generator runs in
a :class:`QThread`; each event crosses into the GUI thread through a queued signal; the outcome
is exactly one of ``finished`` or ``failed``. The worker never touches a widget. ``stop()`` may
be called at any time, even before the controller exists, and ends the run cleanly (the
controller keeps what was measured). Every worker is registered until its thread has ended, so
tests can check that none is left running.
"""

from __future__ import annotations

import logging
import threading
import traceback
import weakref
from collections.abc import Callable, Iterator
from typing import Protocol

from PySide6.QtCore import QObject, Signal

from bench_gui.gui.tasks import TaskThread
from bench_gui.wire.protocol import Event

log = logging.getLogger(__name__)


class Controller(Protocol):
    """What the worker needs of a run controller (``bench_gui.services.run.RunController``)."""

    session_id: int | None

    def events(self) -> Iterator[Event]: ...

    def stop(self) -> None: ...


ControllerFactory = Callable[[], Controller]

_live: weakref.WeakSet[RunWorker] = weakref.WeakSet()


def live_workers() -> list[RunWorker]:
    """Workers whose thread is still running (for shutdown and for tests)."""
    return [w for w in list(_live) if w.is_running()]


def _is_expected(exc: BaseException) -> bool:
    """A failure the user can act on (the runner's RunError), as opposed to a bug."""
    from bench_gui.services.run_errors import RunError

    return isinstance(exc, RunError)


def _user_message(exc: BaseException) -> str:
    if _is_expected(exc):
        return str(exc)
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class RunWorker(QObject):
    """Runs a controller's events in a thread.

    ``factory`` builds the controller; it is called in the worker thread, so a slow start
    (starting the embedded server, connecting) never blocks the GUI.

    Signals:
        event(object): one :class:`~bench_gui.wire.protocol.Event`, in stream order.
        notice(str, str): a driver host's link dropped or came back (state, sentence).
        finished(str): the run ended; the agent's final status (``ok``, ``stopped``, ...).
        failed(str): the run could not start or failed; a message for the user.
    """

    # Shadows QObject.event(QEvent) by name only: PySide6 does not take a signal for an
    # override of the virtual, and nothing posts QEvents to a worker.
    event = Signal(object)  # type: ignore[assignment]
    # (state, sentence) when the link to a driver host drops or comes back (the controller's
    # on_notice, called in the worker thread; queued to the GUI thread by the signal).
    notice = Signal(str, str)
    finished = Signal(str)
    failed = Signal(str)

    def __init__(
        self, factory: ControllerFactory, action: str = "run", parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.action = action
        self._factory = factory
        self._lock = threading.Lock()
        self._controller: Controller | None = None
        self._stop_requested = False
        self._started = False
        self.outcome: str | None = None  # "finished:<status>" or "failed", once known
        self.error_details = ""  # traceback of the exception that failed the run
        self.unexpected = False  # True when that exception was not a RunError (a bug)
        self._thread = TaskThread(self._work, f"bench-{action}")
        _live.add(self)

    # ---- GUI-thread API ------------------------------------------------------------------

    def start(self) -> None:
        if self._started:
            raise RuntimeError("a RunWorker runs once; create a new one")
        self._started = True
        self._thread.start()

    def stop(self) -> None:
        """Ask the run to end cleanly (thread-safe, idempotent, returns at once)."""
        with self._lock:
            self._stop_requested = True
            controller = self._controller
        if controller is not None:
            controller.stop()

    @property
    def stop_requested(self) -> bool:
        return self._stop_requested

    def is_running(self) -> bool:
        return self._thread.isRunning()

    def wait(self, timeout_s: float | None = None) -> bool:
        """Join the thread; True once it has ended (always True if it never started)."""
        if not self._started:
            return True
        if timeout_s is None:
            return bool(self._thread.wait())
        return bool(self._thread.wait(max(0, int(timeout_s * 1000))))

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        """Stop and join; True if the thread ended within the timeout."""
        self.stop()
        return self.wait(timeout_s)

    @property
    def session_id(self) -> int | None:
        controller = self._controller
        return None if controller is None else controller.session_id

    # ---- worker thread -------------------------------------------------------------------

    def _work(self) -> None:
        status = "ok"
        try:
            controller = self._factory()
            if hasattr(controller, "on_notice"):
                controller.on_notice = self.notice.emit
            with self._lock:
                self._controller = controller
                stop_now = self._stop_requested
            if stop_now:
                controller.stop()
            for event in controller.events():
                if event.kind == "done":
                    status = str(event.get("status") or "ok")
                self.event.emit(event)
        except Exception as exc:  # noqa: BLE001 - a thread's top: every failure becomes the outcome
            self.error_details = traceback.format_exc()
            self.unexpected = not _is_expected(exc)
            log.info("%s worker failed: %s", self.action, self.error_details)
            self.outcome = "failed"
            self.failed.emit(_user_message(exc))
            return
        if status == "ok" and self._stop_requested:
            status = "stopped"
        self.outcome = f"finished:{status}"
        self.finished.emit(status)

    def __repr__(self) -> str:
        state = "running" if self.is_running() else (self.outcome or "idle")
        return f"<RunWorker {self.action} {state}>"


def describe_status(status: str) -> str:
    """A finished run's status as words for a banner or the status bar."""
    return {
        "ok": "Run complete",
        "stopped": "Run stopped — measured steps are kept",
        "failed": "Run failed",
    }.get(status, f"Run ended ({status})")


__all__ = ["Controller", "ControllerFactory", "RunWorker", "describe_status", "live_workers"]
