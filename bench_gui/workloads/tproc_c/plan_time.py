"""How long a TPROC-C plan runs: one step per virtual-user count, each ramped up then
measured (the build and the load are not counted)."""

from __future__ import annotations

from typing import Any


def step_count(workload: Any) -> int:
    """The steps of a sweep (a plan's ``Workload``): one per virtual-user count."""
    return len(workload.virtual_users)


def plan_seconds(workload: Any, from_step: int = 0) -> float:
    """The windows of the sweep's steps from ``from_step`` on."""
    steps = max(len(workload.virtual_users) - from_step, 0)
    return float(steps * (workload.rampup_s + workload.duration_s))
