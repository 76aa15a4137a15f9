"""A finished run's steps in the CLI's JSON shape (``bench-gui run --json``): from the run's
summary event, or from the steps the store kept when the run ended without one."""

from __future__ import annotations

from typing import Any

from bench_gui.services.run import RunController


def step_results(controller: RunController) -> list[dict[str, Any]]:
    """Step summaries in the CLI's JSON shape: from the run's summary event, or, when the run
    ended without one (the database restarted, the agent died), from the steps the store
    kept, so a finished step is never reported missing; the workload kit's ``step_results``
    face reads them."""
    results: list[dict[str, Any]] = controller.kit.face("step_results")(controller)
    return results
