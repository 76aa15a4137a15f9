"""A TPROC-C plan's own checks (the plan reader asks the plan's kit): the sweep's fields, and
HammerDB's transactions only where HammerDB has them."""

from __future__ import annotations

from typing import Any

from bench_gui.core.plan_checks import check_tproc_c
from bench_gui.core.plan_model import HAMMERDB_PROFILE_KINDS, Plan


def check(problems: list[tuple[str, str]], plan: Plan, data: dict[str, Any]) -> None:
    """Add the problems of ``plan`` read from ``data`` (the plan file's tables)."""
    wl, target = plan.workload, plan.target
    wl_data = data.get("workload", {})
    check_tproc_c(problems, wl, wl_data if isinstance(wl_data, dict) else {})
    if wl.profile == "hammerdb" and target.kind not in HAMMERDB_PROFILE_KINDS:
        problems.append(
            (
                "workload.profile",
                f"HammerDB's transactions exist for {', '.join(HAMMERDB_PROFILE_KINDS)}"
                f' only, not for a {target.kind} target: use profile = "spec"',
            )
        )
