"""A small third-party workload kit with fields of its own (``[workload.options]``) and none in
the shared ``Workload``: the faces the plan reader, the plan writer and the agent's
configuration ask of it. Register :data:`KIT` for a test and reset the registry afterwards."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from bench_gui.core.plan_model import Plan
from bench_gui.remote.secrets import DbPassword
from bench_gui.workloads.contract import WorkloadKit
from bench_gui.workloads.options import check_options

# Its own fields, by name and default (the agent side reads a default for one not set).
OPTIONS: Final[Mapping[str, Any]] = {
    "threads": 4,
    "burst_s": 1.5,
    "pattern": "sawtooth",
    "verify": False,
    "sizes": ["4k"],
}
PLAN_FIELDS: Final = ()  # none of the shared [workload] fields is its


def plan_checks(problems: list[tuple[str, str]], plan: Plan, data: dict[str, Any]) -> None:
    """Its plan's own checks: a burst of its threads, as options (the reader read them)."""
    if plan.workload.options.get("threads", OPTIONS["threads"]) < 1:
        problems.append(("workload.options.threads", "must be at least 1"))


def plan_options(problems: list[tuple[str, str]], options: dict[str, Any]) -> dict[str, Any]:
    """Its options checked against its declaration."""
    return check_options(problems, options, OPTIONS)


def agent_config(
    plan: Plan, action: str, password: DbPassword | None = None
) -> tuple[dict[str, Any], dict[str, str]]:
    """What its agent side gets: its kind and its options, no database."""
    return {
        "action": action,
        "engine": "burst",
        "kind": plan.workload.kind,
        "options": dict(plan.workload.options),
    }, {}


KIT = WorkloadKit(
    name="burst",
    label="Burst",
    one_session="a burst study",
    sessions="burst studies",
    words=("bursts",),
    step_noun="burst",
    search_words=("burst",),
    uses_database=False,
    faces={
        "plan_fields": "tests._fixtures.options_kit:PLAN_FIELDS",
        "plan_checks": "tests._fixtures.options_kit:plan_checks",
        "plan_options": "tests._fixtures.options_kit:plan_options",
        "agent_config": "tests._fixtures.options_kit:agent_config",
    },
)
