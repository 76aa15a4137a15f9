"""A finished random-read run's steps (one per dataset size) in the CLI's JSON shape
(``bench-gui run --json``): the kit's ``step_results`` face."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bench_gui.services.run import RunController

# A random-read step in the CLI's JSON shape: these fields of its summary.
RANDOM_READ_RESULT_FIELDS = (
    "step",
    "dataset_label",
    "dataset_bytes",
    "ram_multiple",
    "ram_ratio",
    "memory_bytes",
    "ops_s",
    "mbs",
    "window_s",
    "latency_ms",
    "raw_iops",
    "multiplier",
    "complete",
    "caches_dropped",
    "memory_peak_bytes",
    "problems",
)


def random_read_results(controller: RunController) -> list[dict[str, Any]]:
    """The steps of a random-read run (one per dataset size), as :func:`step_results`."""
    if controller.summary is not None:
        summaries = [s for s in controller.summary.get("steps", []) or [] if isinstance(s, dict)]
    elif controller.session_id is not None:
        summaries = [s.summary for s in controller.store.steps(controller.session_id)]
    else:
        summaries = []
    return [{k: s.get(k) for k in RANDOM_READ_RESULT_FIELDS} for s in summaries]
