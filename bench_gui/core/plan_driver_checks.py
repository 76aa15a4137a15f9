"""The checks of a plan's ``[driver]`` section: one driver host, or several for one run.

Several hosts (``targets``) bring the split of each step's users (``users`` or ``share``) and the
clock offset a host may have; :func:`check_driver_hosts_saved` is the check only the caller can
make (whether the hosts are saved SSH targets). Kept apart from
:mod:`bench_gui.core.plan_checks` so that each stays small; the split itself is
:mod:`bench_gui.core.multi_driver`'s.
"""

from __future__ import annotations

from typing import Any

from bench_gui.core.multi_driver import SplitError
from bench_gui.core.plan_checks import TARGET_NAME, shown
from bench_gui.core.plan_model import (
    MAX_CLOCK_OFFSET_LIMIT_MS,
    MAX_OUTAGE_LIMIT_S,
    MAX_VUS_PER_STEP,
    MULTI_DRIVER_FIELDS,
    Plan,
    PlanError,
)
from bench_gui.workloads.base import one_host_why, uses_database


def check_driver_hosts(problems: list[tuple[str, str]], plan: Plan, data: dict[str, Any]) -> None:
    """``[driver] targets`` (several hosts) and the fields that go with it: the split of the
    users (``users`` or ``share``), ``max_clock_offset_ms`` and ``max_outage_s``."""
    driver = plan.driver
    if "targets" not in data:
        for key in MULTI_DRIVER_FIELDS:
            if key in data:
                problems.append(
                    (f"driver.{key}", "only with several driver hosts (driver.targets)")
                )
        return
    names = data["targets"]
    if not isinstance(names, list) or not names:
        problems.append(
            ("driver.targets", "must list two or more saved SSH targets' names (one: use target)")
        )
        return
    seen: set[str] = set()
    for name in names:
        if not isinstance(name, str) or not TARGET_NAME.match(name):
            problems.append(("driver.targets", f"{shown(name)} is not a saved SSH target's name"))
        elif name == "local":
            problems.append(
                (
                    "driver.targets",
                    "'local' is this machine: every driver host must be a saved SSH target",
                )
            )
        elif name in seen:
            problems.append(("driver.targets", f"{name!r} is named more than once"))
        else:
            seen.add(name)
    if "target" in data:
        problems.append(("driver.target", "give target (one host) or targets (several), not both"))
        return
    if plan.target.kind == "demo" and uses_database(plan.workload.kind):
        problems.append(("driver.targets", "the embedded demo runs on this machine only"))
    if len(names) == 1:
        # One host, spelled as a list: the same as target = "name".
        driver.target = names[0]
        for key in ("users", "share", "max_clock_offset_ms", "max_outage_s"):
            if key in data:
                problems.append((f"driver.{key}", "only with two or more driver hosts"))
        return
    driver.targets = list(names)
    driver.target = names[0]
    if why := one_host_why(plan.workload.kind):
        problems.append(
            ("driver.targets", f"a {plan.workload.kind} workload {why}: use driver.target")
        )
    if plan.workload.reset_between_steps:
        problems.append(
            (
                "driver.targets",
                "workload.reset_between_steps is not supported with several driver hosts (the"
                " reset would drop the database under the other hosts' users)",
            )
        )
    if "max_clock_offset_ms" in data:
        value = data["max_clock_offset_ms"]
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not 1 <= value <= MAX_CLOCK_OFFSET_LIMIT_MS
        ):
            problems.append(
                (
                    "driver.max_clock_offset_ms",
                    f"must be a number of milliseconds from 1 to {MAX_CLOCK_OFFSET_LIMIT_MS:,.0f},"
                    f" got {shown(value)}",
                )
            )
        else:
            driver.max_clock_offset_ms = float(value)
    if "max_outage_s" in data:
        value = data["max_outage_s"]
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not 1 <= value <= MAX_OUTAGE_LIMIT_S
        ):
            problems.append(
                (
                    "driver.max_outage_s",
                    f"must be a number of seconds from 1 to {MAX_OUTAGE_LIMIT_S:g} (a host whose"
                    " link stays down longer fails the run; past that the healthy hosts' start"
                    f" barrier would time out first), got {shown(value)}",
                )
            )
        else:
            driver.max_outage_s = float(value)
    _check_driver_split(problems, plan, data)


def check_driver_hosts_saved(plan: Plan, saved: list[str]) -> None:
    """Raise :class:`PlanError` naming every driver host of ``plan`` that is not among the
    ``saved`` SSH targets' names (the plan itself cannot know them: the caller asks the
    store of targets)."""
    field_name = "driver.targets" if plan.driver.targets else "driver.target"
    missing = [name for name in plan.driver.hosts if name not in saved]
    if missing:
        known = ", ".join(sorted(saved)) if saved else "none yet"
        raise PlanError(
            [
                (field_name, f"{name!r} is not a saved SSH target (saved: {known})")
                for name in missing
            ]
        )


def _check_driver_split(problems: list[tuple[str, str]], plan: Plan, data: dict[str, Any]) -> None:
    """``users`` (each host's users, per step or for every step) or ``share`` (weights)."""
    driver, hosts = plan.driver, len(plan.driver.targets)
    if "users" in data and "share" in data:
        problems.append(("driver.share", "give users or share, not both"))
        return
    if "users" in data:
        rows = data["users"]
        if isinstance(rows, list) and rows and all(_is_count(v) for v in rows):
            rows = [rows]  # one row: the same for every step
        if (
            not isinstance(rows, list)
            or not rows
            or not all(isinstance(row, list) and all(_is_count(v) for v in row) for row in rows)
        ):
            problems.append(
                (
                    "driver.users",
                    "must be each host's virtual users ([4, 4]) or one such row per sweep step"
                    f" ([[2, 2], [4, 4]]), got {shown(data['users'])}",
                )
            )
            return
        for row in rows:
            if len(row) != hosts:
                problems.append(
                    ("driver.users", f"{shown(row)} has {len(row)} counts for {hosts} driver hosts")
                )
                return
        steps = len(plan.workload.virtual_users)
        if len(rows) not in (1, steps):
            problems.append(
                (
                    "driver.users",
                    f"{len(rows)} rows for {steps} sweep steps: give one row per step, or one"
                    " row for every step",
                )
            )
            return
        driver.users = [list(row) for row in rows] * (steps if len(rows) == 1 else 1)
    elif "share" in data:
        share = data["share"]
        if (
            not isinstance(share, list)
            or len(share) != hosts
            or not all(
                not isinstance(v, bool) and isinstance(v, int | float) and 0 < v < float("inf")
                for v in share
            )
        ):
            problems.append(
                (
                    "driver.share",
                    f"must be one positive number per driver host ({hosts}), got {shown(share)}",
                )
            )
            return
        driver.share = [float(v) for v in share]
    if any(name == "workload.virtual_users" for name, _ in problems):
        return  # no sweep to split
    try:
        driver.step_splits(plan.workload.virtual_users)
    except SplitError as exc:
        field_name = (
            "driver.users"
            if driver.users
            else "driver.share"
            if driver.share
            else ("driver.targets")
        )
        problems.append((field_name, f"{exc} (workload.virtual_users)"))


def _is_count(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int) and 1 <= value <= MAX_VUS_PER_STEP
