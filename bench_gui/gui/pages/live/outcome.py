"""What the Live page says when a run ends, and why a chart stayed empty."""

from __future__ import annotations

from bench_gui.services.live_model import LiveModel

NO_POWER_MESSAGE = "No power meter in this run's plan"
NO_READINGS_MESSAGE = "No power readings were received"
NO_HOST_MESSAGE = "No host metrics were recorded in this run"
WAITING_FOR_POWER = "Waiting for the first readings…"
# A run that ended before its first sample: its charts say so (not "no host metrics").
ENDED_EARLY = {
    "failed": "The run failed before its first sample",
    "stopped": "The run was stopped before its first sample",
}
# The one line that stands for the power charts of a run without a meter.
NO_POWER_NOTE = (
    "Power, mW per NOPM: no power meter in this run's plan (choose one on the Workload page)"
)

BANNER_TEXT = {
    "ok": "Run complete.",
    "stopped": "Run stopped — the steps measured so far are kept in the session.",
    "failed": "Run failed.",
}


def banner_text(model: LiveModel, tone: str) -> str:
    """The banner's line for a run that ended with ``tone`` (ok, stopped, failed): how many
    steps were measured and the best of them, or why the run failed."""
    if tone == "failed":
        reason = model.status_message or "the run could not continue"
        text = f"Run failed: {reason}"
        if model.points:
            text += f"  ({len(model.points)} step(s) measured before the failure are kept.)"
        return text
    text = BANNER_TEXT.get(tone, "Run ended.")
    if tone == "ok" and model.points:
        n = len(model.points)
        text = f"Run complete: {n} step{'s' if n != 1 else ''} measured."
    best = model.best_point()
    if best is not None and best.nopm is not None:
        users = "user" if best.vus == 1 else "users"
        text += f"  Best: {best.nopm:,.0f} NOPM at {best.vus} {users}."
    doubtful = [p for p in model.points if p.nopm_flag]
    if doubtful:
        text += f"  ⚑ Step {doubtful[0].step + 1} ({doubtful[0].vus} VU): {doubtful[0].nopm_flag}"
        if len(doubtful) > 1:
            text += f" (and {len(doubtful) - 1} more step(s))"
        text += "" if text.endswith("?") else "."
    return text
