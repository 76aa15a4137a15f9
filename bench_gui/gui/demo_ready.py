"""Prepare the embedded demo target while the window opens (the GUI side of
:mod:`bench_gui.services.demo_warmup`).

The work runs as a :class:`~bench_gui.gui.tasks.Task`; its progress and outcome are status
lines of the Workload page. ``BENCH_GUI_DEMO_WARMUP=0`` turns it off (a machine that never
uses the demo target). Closing the app stops a build in progress; the server itself is
stopped when the app exits, unless another process still uses it.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any, Final

from PySide6.QtCore import QObject, Signal

from bench_gui.core.plan_model import Plan
from bench_gui.gui.tasks import TaskRunner, TaskState
from bench_gui.services.demo_warmup import DemoWarmup, WarmupError, WarmupResult

WARMUP_ENV: Final = "BENCH_GUI_DEMO_WARMUP"

log = logging.getLogger(__name__)


def warmup_wanted() -> bool:
    """False when ``BENCH_GUI_DEMO_WARMUP`` is 0, no, off or false."""
    value = os.environ.get(WARMUP_ENV, "").strip().lower()
    return value not in ("0", "no", "off", "false")


class DemoReady(QObject):
    """Makes the demo target ready in the background, once per window.

    Signals:
        status(str): a line for the status bar.
        settled(): the preparation ended, ready or not (a sweep that waited may start).
    """

    status = Signal(str)
    settled = Signal()

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.runner = TaskRunner(self, expected=(WarmupError,), where="demo target")
        self.runner.progress.connect(self._progress)
        self.warmup: DemoWarmup | None = None
        self.result: WarmupResult | None = None
        self.error = ""
        self._started_at = 0.0

    @property
    def busy(self) -> bool:
        return self.runner.busy is not None

    def start(self, plan: Plan) -> bool:
        """Prepare the demo target for ``plan``; False (nothing started) if the plan is not on
        the demo target, or the work is under way already."""
        if plan.target.kind != "demo" or self.busy:
            return False
        self.result, self.error = None, ""
        self._started_at = time.monotonic()

        def work(state: TaskState) -> Any:
            warmup = DemoWarmup(plan, on_progress=lambda text, f: state.set_progress(f, text))
            self.warmup = warmup
            if state.cancelled:
                warmup.stop()
            return warmup.run()

        return self.runner.start("demo", work, self._done, self._failed)

    def _progress(self, _what: str, fraction: float, text: str) -> None:
        percent = f" {fraction:.0%}" if 0.0 <= fraction <= 1.0 and fraction > 0 else ""
        self.status.emit(f"{text}{percent}")

    def _done(self, result: WarmupResult) -> None:
        self.result = result
        log.info(
            "startup: demo target %s t=%.3f after %.1f s: %s",
            result.state,
            time.time(),
            time.monotonic() - self._started_at,
            result.message,
        )
        self.status.emit(result.message[:1].upper() + result.message[1:] + ".")
        self.settled.emit()

    def _failed(self, _what: str, message: str, _details: str) -> None:
        self.error = message
        log.warning("startup: demo target not ready t=%.3f: %s", time.time(), message)
        self.status.emit(f"The demo target is not ready: {message}")
        self.settled.emit()

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        """Stop a build in progress and join the task."""
        self.runner.cancel()  # first: a warm-up made after this sees it, one made before is here
        warmup = self.warmup
        if warmup is not None:
            warmup.stop()
        return self.runner.shutdown(timeout_s)
