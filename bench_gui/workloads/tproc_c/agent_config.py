"""What a TPROC-C run sends its agent and records as its target: the database's connection,
its secrets in the environment, the workload's fields, host metrics and power (the kit's
``agent_config`` and ``session_target`` faces, called by :mod:`bench_gui.services.agent_config`).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from bench_gui.core.engine import EngineNotFound, get_engine
from bench_gui.core.plan_model import Plan
from bench_gui.core.power import MeterNotFound, agent_power_config
from bench_gui.engines.registry import kit_for as engine_kit_for
from bench_gui.remote.demo import DemoUnavailable, start_demo
from bench_gui.remote.secrets import DbPassword
from bench_gui.services.agent_config import plan_password
from bench_gui.services.run_errors import RunError
from bench_gui.store.paths import data_dir
from bench_gui.workloads.base import kits
from bench_gui.workloads.tproc_c.kit import KIT


def _others_fields() -> set[str]:
    """The ``[workload]`` fields only other workloads use (random read's fio fields): the
    agent's TPROC-C configuration leaves them out."""
    own = set(KIT.face("plan_fields"))
    return {f for kit in kits() if kit is not KIT for f in kit.face("plan_fields")} - own


def database_config(
    plan: Plan, action: str, password: DbPassword | None = None
) -> tuple[dict[str, Any], dict[str, str]]:
    """The agent's configuration for a workload run against a database (TPROC-C): the target's
    connection, its secrets in the environment, the workload's fields, metrics and power."""
    target = plan.target
    env: dict[str, str] = {}
    if target.kind == "demo":
        try:
            demo = start_demo(data_dir() / "demo-postgres")
        except DemoUnavailable as exc:
            raise RunError(str(exc)) from exc
        conninfo = demo.conninfo(target.database)
        admin = demo.conninfo(target.admin_database)
        engine_name = engine_kit_for(target.kind).name  # the demo is its kit's engine
    else:
        engine_name = target.kind
        try:
            engine = get_engine(engine_name)
        except EngineNotFound as exc:
            raise RunError(str(exc)) from exc
        conninfo = engine.conninfo(target, target.database)
        admin = engine.conninfo(target, target.admin_database)
        found = password if password is not None else plan_password(plan)
        if found.value is not None:
            # Where the engine's agent side reads it: libpq's PGPASSWORD, or the ODBC
            # engines' BENCH_GUI_DB_PASSWORD (never in the conninfo, which is echoed).
            env[getattr(engine, "password_env", "PGPASSWORD")] = found.value
    wl = plan.workload
    config = {
        "action": action,
        "engine": engine_name,
        "conninfo": conninfo,
        "admin_conninfo": admin,
        "database": target.database,
        **{k: v for k, v in asdict(wl).items() if k not in _others_fields()},
    }
    if action == "run":
        # Host metrics and the power meter; a BMC password (keyring) goes into env only.
        power = plan.power
        try:
            config["power"], power_env = agent_power_config(
                power.meter, power.options, power.idle_s, power.interval_s
            )
        except (MeterNotFound, ValueError) as exc:
            raise RunError(str(exc)) from exc
        config["monitor"] = asdict(plan.monitor)
        env.update(power_env)
    return config, env


def database_target(plan: Plan, config: dict[str, Any]) -> dict[str, Any]:
    """A database run's target: the database."""
    return {
        "kind": plan.target.kind,
        "host": plan.target.host,
        "port": plan.target.port,
        "database": plan.target.database,
        "driver": plan.driver.target,
    }
