"""How long a random-read plan runs: the device's raw IOPS once, then one point per dataset
size, each warmed up then measured."""

from __future__ import annotations

from typing import Any


def step_count(workload: Any) -> int:
    """The points of a study (a plan's ``Workload``): one per dataset size."""
    return len(workload.dataset_sizes)


def plan_seconds(workload: Any, from_step: int = 0) -> float:
    """The windows of the study's points from ``from_step`` on (and its raw-IOPS
    measurement when it starts from the first)."""
    points = max(len(workload.dataset_sizes) - from_step, 0)
    raw = workload.raw_iops_s if from_step == 0 else 0
    return float(points * (workload.warmup_s + workload.measure_s) + raw)
