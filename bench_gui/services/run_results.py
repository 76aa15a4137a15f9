"""A finished run's steps in the CLI's JSON shape (``bench-gui run --json``): from the run's
summary event, or from the steps the store kept when the run ended without one."""

from __future__ import annotations

from typing import Any

from bench_gui.core.crosscheck import nopm_doubt
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


def _why_not_counted(summary: dict[str, Any]) -> dict[str, Any]:
    """A step's ``problems`` (why it does not count) and ``connections_lost``, for the CLI's
    JSON: what the Live page says about a step, the JSON says too."""
    problems = summary.get("problems")
    out: dict[str, Any] = {"problems": list(problems) if isinstance(problems, list) else []}
    if isinstance(summary.get("connections_lost"), dict):
        out["connections_lost"] = summary["connections_lost"]
    return out


def step_results(controller: RunController) -> list[dict[str, Any]]:
    """Step summaries in the CLI's JSON shape: from the run's summary event, or, when the run
    ended without one (the database restarted, the agent died), from the steps the store
    kept, so a finished step is never reported missing; the workload kit's ``step_results``
    face reads them."""
    results: list[dict[str, Any]] = controller.kit.face("step_results")(controller)
    return results


def tproc_c_results(controller: RunController) -> list[dict[str, Any]]:
    """A TPROC-C run's steps: its summary event's, else the store's."""
    if controller.summary is None:
        if controller.session_id is None:
            return []
        stored = controller.store.steps(controller.session_id)
        return [
            {
                "vus": s.vus,
                "nopm": s.nopm,
                "tpm": s.tpm,
                "nopm_driver": s.nopm_driver,
                "window_s": s.window_s,
                "complete": s.complete,
                "latency_ms": s.latency_ms,
                "errors": s.errors,
                "rollbacks": s.summary.get("rollbacks", 0),
                "nopm_flag": s.nopm_flag,
                **_why_not_counted(s.summary),
            }
            for s in stored
        ]
    out = []
    for step in controller.summary.get("steps", []) or []:
        out.append(
            {
                "vus": step.get("vus"),
                "nopm": step.get("nopm"),
                "tpm": step.get("tpm"),
                "nopm_driver": step.get("nopm_driver"),
                "window_s": step.get("window_s"),
                "complete": step.get("complete"),
                "latency_ms": step.get("latency_ms", {}),
                "errors": step.get("errors", {}),
                "rollbacks": step.get("rollbacks", 0),
                "nopm_flag": nopm_doubt(
                    step.get("nopm"), step.get("nopm_driver"), step.get("window_s"), step.get("vus")
                ),
                **_why_not_counted(step),
            }
        )
    return out
