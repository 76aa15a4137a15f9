"""The embedded demo's plan: what `bench-gui demo`, `present` and `run --demo` run."""

from __future__ import annotations

from bench_gui.core.plan_model import Plan, Target
from bench_gui.wire.run_config import Workload


def demo_plan() -> Plan:
    """About a minute in all on the embedded server: a short but real three-step sweep."""
    return Plan(
        name="Demo sweep (embedded PostgreSQL)",
        target=Target(kind="demo", database="tpcc_demo"),
        workload=Workload(
            warehouses=2, virtual_users=[1, 2, 4], rampup_s=4.0, duration_s=12.0, build="if_missing"
        ),
    )
