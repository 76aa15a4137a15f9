"""What a random-read run sends its agent and records as its target: fio's fields, the data
file resolved, host metrics and power; no database (the kit's ``agent_config`` and
``session_target`` faces, called by :mod:`bench_gui.services.agent_config`)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from bench_gui.core.plan_model import Plan
from bench_gui.core.power import MeterNotFound, agent_power_config
from bench_gui.remote.secrets import DbPassword
from bench_gui.remote.storage import session_layout
from bench_gui.services.run_errors import RunError
from bench_gui.store.paths import data_dir
from bench_gui.wire.fio_sizes import RANDOM_READ_FIELDS

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


def file_target(plan: Plan, config: dict[str, Any]) -> dict[str, Any]:
    """A random-read run's target: the host and the data file."""
    return {
        "kind": "random_read",
        "host": plan.driver.target or "local",
        "file": config.get("file"),
        "driver": plan.driver.target,
    }
