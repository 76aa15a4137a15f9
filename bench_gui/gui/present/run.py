"""One run of a plan on the Present view: the same worker and controller as the Live page.

A :class:`~bench_gui.gui.worker.RunWorker` runs a :class:`~bench_gui.services.run.
RunController` (or what ``controller_factory`` makes) in its thread; its events, its end or
its failure go to the view. :meth:`PresentRun.stop` ends the run cleanly (the session keeps
what was measured); ``ended`` says when the worker's thread is done.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from bench_gui.core.plan_model import Plan
from bench_gui.gui.present.view import PresentView
from bench_gui.gui.worker import Controller, RunWorker
from bench_gui.wire.protocol import Event

ControllerFactory = Callable[[Plan, Any, str], Controller]


def run_controller(plan: Plan, store: Any, action: str) -> Controller:
    """The real controller (imported when a run starts, not when the view is built)."""
    from bench_gui.services.run import RunController

    return RunController(plan, store, action)


class PresentRun(QObject):
    """Runs ``plan`` once and shows it on ``view``.

    Signals:
        ended(str): the run is over: ``ok``, ``stopped`` or ``failed``.
    """

    ended = Signal(str)

    def __init__(
        self,
        view: PresentView,
        plan: Plan,
        store: Any,
        controller_factory: ControllerFactory | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.view = view
        self.plan = plan
        self.store = store
        self.factory = controller_factory or run_controller
        self.worker: RunWorker | None = None
        self.outcome: str | None = None
        self.message = ""

    def start(self) -> None:
        if self.worker is not None:
            raise RuntimeError("a PresentRun runs once; make a new one")
        plan, store, factory = self.plan, self.store, self.factory
        self.worker = RunWorker(lambda: factory(plan, store, "run"), action="run", parent=self)
        self.worker.event.connect(self._on_event)
        self.worker.finished.connect(self._on_finished)
        self.worker.failed.connect(self._on_failed)
        self.view.begin_run(plan)
        self.worker.start()

    @property
    def running(self) -> bool:
        return self.worker is not None and self.outcome is None

    def stop(self) -> None:
        """End the run cleanly (what was measured is kept); ``ended`` follows."""
        if self.worker is not None:
            self.worker.stop()

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        """Stop and join the worker's thread; True if it ended within the timeout."""
        return self.worker is None or self.worker.shutdown(timeout_s)

    @property
    def session_id(self) -> int | None:
        return None if self.worker is None else self.worker.session_id

    def _on_event(self, event: Event) -> None:
        self.view.handle_event(event)

    def _on_finished(self, status: str) -> None:
        if self.worker is not None:
            self.worker.wait(60)  # its last signal was just delivered: the thread is ending
        self.outcome = status
        self.view.run_finished(status)
        self.ended.emit(status)

    def _on_failed(self, message: str) -> None:
        if self.worker is not None:
            self.worker.wait(60)
        self.outcome = "failed"
        self.message = message
        self.view.run_failed(message)
        self.ended.emit("failed")
