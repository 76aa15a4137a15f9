"""What the Sessions list and detail say of a TPROC-C sweep: NOPM by virtual users."""

from __future__ import annotations

from typing import Any


def list_row(store: Any, row: Any) -> None:
    """A sweep's list cells (a ``RunRow``): its best NOPM and the virtual users it swept."""
    if row.best_nopm is not None:
        row.best_text, row.best_key = f"{row.best_nopm:,.0f} NOPM", row.best_nopm
    row.swept = f"{row.vus} VU" if row.vus else ""


def facts(header: Any) -> list[str]:
    """The detail's facts of a sweep after its engine (a ``RunHeader``): warehouses, timing,
    and its driver hosts when it ran on several."""
    info: list[str] = []
    plan = header.plan if isinstance(header.plan, dict) else {}
    workload = plan.get("workload", {}) if isinstance(plan.get("workload"), dict) else {}
    if workload.get("warehouses"):
        info.append(f"{workload['warehouses']} warehouses")
    if workload.get("duration_s"):
        info.append(
            f"ramp-up {workload.get('rampup_s', 0):g} s, measured {workload['duration_s']:g} s"
        )
    driver = plan.get("driver") if isinstance(plan.get("driver"), dict) else {}
    hosts = driver.get("targets") if isinstance(driver, dict) else None
    if isinstance(hosts, list) and len(hosts) > 1:
        info.append(f"{len(hosts)} driver hosts: {', '.join(str(h) for h in hosts)}")
    return info
