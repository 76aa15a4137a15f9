"""A schema build's progress events and its result, the same for every engine's loader.

The desktop draws one progress bar for any engine, so every loader must say its stages the
same way: a ``build`` progress event per step (stage, done of total, unit, rows per second)
and a result dictionary with the warehouses, workers, rows, status and seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


class BuildProgress:
    """Emits a build's progress events and keeps the stats its result is made of."""

    def __init__(
        self, progress: Callable[[dict[str, Any]], None], warehouses: int, workers: int
    ) -> None:
        self._progress = progress
        self.t0 = time.monotonic()
        self.stats: dict[str, Any] = {"warehouses": warehouses, "workers": workers, "rows": 0}

    def emit(self, stage: str, done: int, total: int, unit: str, rate: float, message: str) -> None:
        """One progress event: ``done`` of ``total`` ``unit`` of ``stage``, at ``rate`` rows/s
        (0: no rate yet)."""
        self._progress(
            {
                "task": "build",
                "stage": stage,
                "done": done,
                "total": total,
                "unit": unit,
                "rate": rate,
                "message": message,
            }
        )

    def finish(self, status: str) -> dict[str, Any]:
        """The build's result: its stats with ``status`` ("ok" or "stopped") and seconds."""
        self.stats["status"] = status
        self.stats["seconds"] = time.monotonic() - self.t0
        return self.stats
