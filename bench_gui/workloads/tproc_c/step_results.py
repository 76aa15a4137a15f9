"""A finished TPROC-C run's steps in the CLI's JSON shape (``bench-gui run --json``): the
kit's ``step_results`` face, from the run's summary event or from the steps the store kept."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bench_gui.core.crosscheck import nopm_doubt

if TYPE_CHECKING:
    from bench_gui.services.run import RunController


def _why_not_counted(summary: dict[str, Any]) -> dict[str, Any]:
    """A step's ``problems`` (why it does not count) and ``connections_lost``, for the CLI's
    JSON: what the Live page says about a step, the JSON says too."""
    problems = summary.get("problems")
    out: dict[str, Any] = {"problems": list(problems) if isinstance(problems, list) else []}
    if isinstance(summary.get("connections_lost"), dict):
        out["connections_lost"] = summary["connections_lost"]
    return out


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
