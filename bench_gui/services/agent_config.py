"""What a run of a plan sends its agent: the JSON configuration and the secret environment,
and what its session records as the target. Shared by every run (one driver host or several),
by the demo warm-up and by ``bench-gui target test``.
"""

from __future__ import annotations

from typing import Any

from bench_gui.core.plan_model import Plan
from bench_gui.remote.errors import SecretStoreError
from bench_gui.remote.secrets import DbPassword, database_password
from bench_gui.services.run_errors import RunError
from bench_gui.wire.run_config import RunConfig
from bench_gui.workloads.base import kit_for

# The agent actions a run controller drives.
ACTIONS = ("run", "build", "check", "status")


def plan_password(plan: Plan) -> DbPassword:
    """The database password a run of the plan sends to its agent, and where it came from."""
    try:
        return database_password(plan.target)
    except SecretStoreError as exc:
        raise RunError(str(exc)) from exc


def agent_config(
    plan: Plan, action: str, password: DbPassword | None = None
) -> tuple[dict[str, Any], dict[str, str]]:
    """The agent's JSON configuration and the secret environment for a plan (``password``:
    the one :func:`plan_password` found, else looked up here): the plan's workload kit's
    ``agent_config`` face builds them (with the plan's ``workload.options`` when it has any)."""
    build = kit_for(plan.workload.kind).face("agent_config")
    config, env = build(plan, action, password)
    for key in RunConfig.UNSENT_WHEN_EMPTY:  # an agent older than them refuses the key
        if key in config and not config[key]:
            del config[key]
    return config, env


def session_target(plan: Plan, config: dict[str, Any]) -> dict[str, Any]:
    """What a session records as its target (the workload kit's ``session_target`` face)."""
    target: dict[str, Any] = kit_for(plan.workload.kind).face("session_target")(plan, config)
    return target
