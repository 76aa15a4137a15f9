"""What a run of a plan sends its agent: the JSON configuration and the secret environment,
and what its session records as the target. Shared by every run (one driver host or several),
by the demo warm-up and by ``bench-gui target test``.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from bench_gui.core.engine import EngineNotFound, get_engine
from bench_gui.core.plan import Plan
from bench_gui.core.power import MeterNotFound, agent_power_config
from bench_gui.remote.demo import DemoUnavailable, start_demo
from bench_gui.remote.errors import SecretStoreError
from bench_gui.remote.secrets import DbPassword, database_password
from bench_gui.remote.storage import session_layout
from bench_gui.services.run_errors import RunError
from bench_gui.store.paths import data_dir
from bench_gui.wire.fio_sizes import RANDOM_READ_FIELDS
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
    ``agent_config`` face builds them."""
    build = kit_for(plan.workload.kind).face("agent_config")
    config, env = build(plan, action, password)
    return config, env


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
        engine_name = "postgresql"
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
        **{k: v for k, v in asdict(wl).items() if k not in RANDOM_READ_FIELDS},
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


# Where a random-read plan without a file puts it: on the storage prepared for the host.
DEFAULT_DATA_FILE = "bench-gui-random-read.dat"


def random_read_file(plan: Plan) -> str:
    """The data file of a random-read plan: its own ``workload.file``, else a file on the
    mount point of the storage bench-gui prepared on the driver host (the Storage page)."""
    if plan.workload.file:
        return plan.workload.file
    host = plan.driver.target or "local"
    layout = session_layout(data_dir() / "storage", host)
    point = str(((layout or {}).get("mount") or {}).get("point") or "")
    if not point:
        where = f"SSH target {plan.driver.target!r}" if plan.driver.target else "this machine"
        raise RunError(
            f"workload.file: no data file named and no storage prepared on {where} (Storage"
            " page): set workload.file to a path on the filesystem to measure"
        )
    return f"{point.rstrip('/')}/{DEFAULT_DATA_FILE}"


def random_read_config(
    plan: Plan, action: str, password: DbPassword | None = None
) -> tuple[dict[str, Any], dict[str, str]]:
    """The agent's configuration for a random-read plan (fio on the driver host, no
    database, so no ``password``): the workload's fields, the data file resolved, host
    metrics and power."""
    if action != "run":
        raise RunError(f"a random_read plan can only be run, not {action!r}")
    wl = plan.workload
    config: dict[str, Any] = {
        "action": action,
        "engine": "fio",
        "kind": "random_read",
        **{k: getattr(wl, k) for k in RANDOM_READ_FIELDS},
        "file": random_read_file(plan),
    }
    power = plan.power
    try:
        config["power"], env = agent_power_config(
            power.meter, power.options, power.idle_s, power.interval_s
        )
    except (MeterNotFound, ValueError) as exc:
        raise RunError(str(exc)) from exc
    config["monitor"] = asdict(plan.monitor)
    return config, env


def session_target(plan: Plan, config: dict[str, Any]) -> dict[str, Any]:
    """What a session records as its target (the workload kit's ``session_target`` face)."""
    target: dict[str, Any] = kit_for(plan.workload.kind).face("session_target")(plan, config)
    return target


def file_target(plan: Plan, config: dict[str, Any]) -> dict[str, Any]:
    """A random-read run's target: the host and the data file."""
    return {
        "kind": "random_read",
        "host": plan.driver.target or "local",
        "file": config.get("file"),
        "driver": plan.driver.target,
    }


def database_target(plan: Plan, config: dict[str, Any]) -> dict[str, Any]:
    """A database run's target: the database."""
    return {
        "kind": plan.target.kind,
        "host": plan.target.host,
        "port": plan.target.port,
        "database": plan.target.database,
        "driver": plan.driver.target,
    }
