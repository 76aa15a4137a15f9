"""Background work for the GUI: one thread wrapper, one task, one task runner per widget.

The GUI never blocks its event loop and never touches a widget from another thread. Every
blocking call (an SSH connection, a tuning diff, a storage scan) runs as a :class:`Task` in a
:class:`TaskThread`; its outcome crosses into the GUI thread through a queued signal.

A page or panel owns one :class:`TaskRunner` (the pattern of Orange3's
``widgets/utils/concurrent.py``): one task at a time, ``busy_changed`` for its buttons,
progress and partial results through signals, cancel, and a ``shutdown`` that joins. A
failure the user can act on (an error class the page names as *expected*, such as
``SSHError``) goes to the page's own ``failed`` callback, for its banner; anything else is a
bug: its traceback is logged and it goes to the one error channel
(:func:`bench_gui.gui.errors.notifier`), and the page's ``failed`` callback still runs so the
page leaves its busy state.

Every task is registered until its thread has been joined (:func:`live_tasks`,
:func:`shutdown_all`), so the main window can join them before the store closes and tests can
check that none is left running.
"""

from __future__ import annotations

import inspect
import logging
import threading
import traceback
import weakref
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal

from bench_gui.gui.errors import notifier

log = logging.getLogger(__name__)

_all: weakref.WeakSet[Task] = weakref.WeakSet()
# Started and not yet joined: a strong reference, so no QThread is destroyed while it runs.
_unjoined: set[Task] = set()


def live_tasks() -> list[Task]:
    """Tasks whose thread is still running."""
    return [t for t in list(_all) if t.is_running()]


def shutdown_all(timeout_s: float = 30.0) -> bool:
    """Cancel and join every task still running; True if all ended within the timeout."""
    ok = True
    for task in live_tasks():
        ok = task.shutdown(timeout_s) and ok
    return ok


class TaskThread(QThread):
    """The one thread wrapper: runs ``body`` in a named QThread (names show in tracebacks)."""

    def __init__(self, body: Callable[[], None], name: str) -> None:
        super().__init__()
        self._body = body
        self.setObjectName(name)

    def run(self) -> None:
        self._body()


class TaskState:
    """What a task's work sees of its task: report progress and partial results, and check
    whether the user asked to cancel. Safe to call from the worker thread."""

    def __init__(self, task: Task) -> None:
        self._task = task

    @property
    def cancelled(self) -> bool:
        return self._task.cancelled

    def set_progress(self, fraction: float, text: str = "") -> None:
        """``fraction`` in [0, 1] (or -1 when unknown) and a line saying what is going on."""
        self._task.progress.emit(float(fraction), text)

    def set_partial_result(self, value: Any) -> None:
        self._task.partial.emit(value)


class Task(QObject):
    """One blocking call in a thread; ``done`` (queued to the GUI thread) when it returned.

    ``kind`` names the work ("test", "inventory", "diff"); ``context`` is free for the caller
    (what the task was started for, to retry it or to label its result). ``body`` takes no
    argument, or one :class:`TaskState` to report progress and see a cancel request.

    Signals:
        done(): the body returned or raised; read ``result`` or ``error``.
        progress(float, str): from :meth:`TaskState.set_progress`.
        partial(object): from :meth:`TaskState.set_partial_result`.
    """

    done = Signal()
    progress = Signal(float, str)
    partial = Signal(object)

    def __init__(
        self,
        kind: str,
        body: Callable[..., Any],
        context: Any = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.kind = kind
        self.context = context
        self._body = body
        self._wants_state = _takes_argument(body)
        self.result: Any = None
        self.error: BaseException | None = None
        self.error_details = ""
        self._cancel = threading.Event()
        self._started = False
        self._thread = TaskThread(self._work, f"bench-task-{kind}")
        # Queued to this object's thread (the GUI's): joins even if nobody listens to done.
        self._thread.finished.connect(self._joined)
        _all.add(self)

    # ---- GUI-thread API ------------------------------------------------------------------

    def start(self) -> None:
        if self._started:
            raise RuntimeError("a Task runs once; create a new one")
        self._started = True
        _unjoined.add(self)
        self._thread.start()

    def cancel(self) -> None:
        """Mark the outcome as unwanted; a body that takes a TaskState can stop early."""
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def is_running(self) -> bool:
        return self._thread.isRunning()

    @property
    def succeeded(self) -> bool:
        return self._started and self.error is None and not self.is_running()

    def wait(self, timeout_s: float | None = None) -> bool:
        """Join the thread; True once it has ended (always True if it never started)."""
        if not self._started:
            return True
        if timeout_s is None:
            ended = bool(self._thread.wait())
        else:
            ended = bool(self._thread.wait(max(0, int(timeout_s * 1000))))
        if ended:
            _unjoined.discard(self)
        return ended

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        self.cancel()
        return self.wait(timeout_s)

    def _joined(self) -> None:
        self.wait()

    # ---- worker thread -------------------------------------------------------------------

    def _work(self) -> None:
        try:
            if self._wants_state:
                self.result = self._body(TaskState(self))
            else:
                self.result = self._body()
        except Exception as exc:  # noqa: BLE001 - a thread's top: every failure becomes the task's outcome
            self.error = exc
            self.error_details = traceback.format_exc()
        try:
            self.done.emit()
        except RuntimeError:
            pass  # the task's owner is gone (the window closed while it ran)

    def __repr__(self) -> str:
        state = "running" if self.is_running() else ("failed" if self.error else "idle")
        return f"<Task {self.kind} {state}>"


def _takes_argument(body: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(body).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(
        p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
        for p in params
    )


Done = Callable[[Any], None]
Failed = Callable[[str, str, str], None]  # what, message for the user, details


class TaskRunner(QObject):
    """One background task at a time for one page or panel.

    ``expected`` are the error classes the user can act on: their message goes to ``failed``
    as it is. Any other exception is a bug: logged with its traceback, sent to the error
    notifier, and ``failed`` is told "unexpected error" so the page leaves its busy state.

    Signals:
        busy_changed(bool): a task started (True) or the runner became idle (False).
        progress(str, float, str): what, fraction (-1: unknown), a line of text.
        partial(str, object): what, a partial result.
    """

    busy_changed = Signal(bool)
    progress = Signal(str, float, str)
    partial = Signal(str, object)

    def __init__(
        self,
        parent: QObject,
        expected: tuple[type[BaseException], ...] = (),
        where: str = "",
    ) -> None:
        super().__init__(parent)
        self.expected = expected
        self.where = where
        self._task: Task | None = None
        self.last_error = ""
        self.last_error_details = ""

    @property
    def busy(self) -> str | None:
        """What is running ("diff", "apply" ...), or None when idle."""
        return self._task.kind if self._task is not None else None

    @property
    def task(self) -> Task | None:
        return self._task

    def start(
        self,
        what: str,
        work: Callable[..., Any],
        then: Done,
        failed: Failed | None = None,
        context: Any = None,
    ) -> bool:
        """Run ``work`` in a thread, then ``then(result)`` in the GUI thread.

        False (and nothing started) while another task of this runner is running.
        """
        if self._task is not None:
            return False
        task = Task(what, work, context=context, parent=self)
        task.progress.connect(lambda f, text: self.progress.emit(what, f, text))
        task.partial.connect(lambda value: self.partial.emit(what, value))
        task.done.connect(lambda: self._finish(task, then, failed))
        self._task = task
        self.busy_changed.emit(True)
        task.start()
        return True

    def cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        """Cancel the running task and join it; True if it ended within the timeout."""
        task = self._task
        return True if task is None else task.shutdown(timeout_s)

    def wait(self, timeout_s: float | None = None) -> bool:
        task = self._task
        return True if task is None else task.wait(timeout_s)

    def _finish(self, task: Task, then: Done, failed: Failed | None) -> None:
        if task is not self._task:
            return
        self._task = None
        task.wait()
        try:
            error = task.error
            if task.cancelled and error is None:
                return
            if error is None:
                self.last_error = ""
                self.last_error_details = ""
                then(task.result)
                return
            message = str(error) or type(error).__name__
            if not isinstance(error, self.expected):
                log.error("%s failed unexpectedly:\n%s", task.kind, task.error_details)
                notifier().report_exception(
                    type(error), error, error.__traceback__, self.where or task.kind
                )
                message = f"unexpected error ({type(error).__name__}: {message})"
            self.last_error = message
            self.last_error_details = task.error_details
            if failed is not None:
                failed(task.kind, message, task.error_details)
        finally:
            if self._task is None:
                self.busy_changed.emit(False)


__all__ = ["Task", "TaskRunner", "TaskState", "TaskThread", "live_tasks", "shutdown_all"]
