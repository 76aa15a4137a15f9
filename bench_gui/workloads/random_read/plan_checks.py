"""A random-read plan's own checks (the plan reader asks the plan's kit): the study's fields,
and no database target (fio reads a file on the driver host)."""

from __future__ import annotations

from typing import Any

from bench_gui.core.plan_checks import check_random_read
from bench_gui.core.plan_model import Plan


def check(problems: list[tuple[str, str]], plan: Plan, data: dict[str, Any]) -> None:
    """Add the problems of ``plan`` read from ``data`` (the plan file's tables)."""
    wl_data = data.get("workload", {})
    check_random_read(problems, plan.workload, wl_data if isinstance(wl_data, dict) else {})
    if "target" in data:
        problems.append(
            (
                "target",
                "a random_read workload reads a file with fio on the driver host and uses"
                " no database: remove [target] (the host is [driver] target)",
            )
        )
