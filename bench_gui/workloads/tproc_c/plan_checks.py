"""A TPROC-C plan's own checks (the plan reader asks the plan's kit): the sweep's fields, and
HammerDB's transactions only where HammerDB has them."""

from __future__ import annotations

from typing import Any

from bench_gui.core.plan_checks import check_tproc_c
from bench_gui.core.plan_model import Plan
from bench_gui.engines.registry import target_kind, target_kinds


def check(problems: list[tuple[str, str]], plan: Plan, data: dict[str, Any]) -> None:
    """Add the problems of ``plan`` read from ``data`` (the plan file's tables)."""
    wl, target = plan.workload, plan.target
    wl_data = data.get("workload", {})
    check_tproc_c(problems, wl, wl_data if isinstance(wl_data, dict) else {})
    spec = target_kind(target.kind)
    if wl.profile == "hammerdb" and (spec is None or not spec.hammerdb):
        hammerdb = ", ".join(t.name for t in target_kinds() if t.hammerdb)
        problems.append(
            (
                "workload.profile",
                f"HammerDB's transactions exist for {hammerdb}"
                f' only, not for a {target.kind} target: use profile = "spec"',
            )
        )
