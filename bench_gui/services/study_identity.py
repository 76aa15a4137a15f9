"""Which server a study's system measured, so a resumed study re-measures new hardware.

A stored session of a study is skipped only when its plan is the study's plan now *and* the
server behind the system's target is the one it measured: next quarter the same study file,
pointed at the same host name on new hardware (or a rebuilt cluster, an upgraded release),
must measure again, and say why. The identity is read from the server itself, as the tuning
page reads it: the engine, its version, the cluster's own identifier (PostgreSQL's system
identifier, MariaDB's server UUID, SQL Server's machine and instance), and the machine's RAM,
CPUs and the device under the data directory. A random-read study's identity is its driver
host's (host name, RAM, CPUs and the device under the data file). Each run of a study records
it in the session's inventory (``study_system``); a field either side does not know is not
compared.
"""

from __future__ import annotations

import os
from typing import Any, Final

from bench_gui.core.study_model import System
from bench_gui.remote.db_tuner import TuningError
from bench_gui.remote.errors import SSHError
from bench_gui.store import SessionStore
from bench_gui.workloads.base import uses_database

INVENTORY_KEY: Final = "study_system"
# Compared in this order; the words say what changed.
FIELDS: Final = (
    ("engine", "engine"),
    ("server", "server identifier"),
    ("host", "host name"),
    ("version", "server version"),
    ("ram_bytes", "RAM"),
    ("cpus", "CPUs"),
    ("device", "data device"),
)


class IdentityUnknown(Exception):
    """The server's identity cannot be read now (it is down, or not reachable from here)."""


def _shown(name: str, value: Any) -> str:
    if name == "ram_bytes" and isinstance(value, int):
        return f"{value / 1024**3:.1f} GiB"
    return str(value)


def read_identity(system: System) -> dict[str, Any]:
    """What the system's target is now (IdentityUnknown when it cannot be read)."""
    plan = system.plan
    if not uses_database(plan.workload.kind):  # no database: the host is what it runs on
        return _host_identity(system)
    from bench_gui.services.tuning import connection_for_plan, server_facts

    try:
        conn = connection_for_plan(plan.target, None)
    except (TuningError, SSHError, OSError) as exc:
        raise IdentityUnknown(str(exc)) from exc
    try:
        facts = conn.tuner.facts()
        machine = server_facts(conn)
        engine = conn.engine
    except (TuningError, SSHError, OSError) as exc:
        raise IdentityUnknown(str(exc)) from exc
    finally:
        conn.close()
    server = facts.get("system_identifier") or facts.get("identity")
    version = facts.get("server_version_num") or facts.get("version")
    return {
        "engine": engine,
        "server": str(server) if server else None,
        "version": str(version) if version else None,
        "ram_bytes": machine.ram_bytes,
        "cpus": machine.cpus,
        "device": machine.device,
    }


def _host_identity(system: System) -> dict[str, Any]:
    """A random-read system: the machine fio reads on (this one; an SSH driver host is not
    read from here, so its sessions are kept unchecked)."""
    plan = system.plan
    if plan.driver.target:
        raise IdentityUnknown(f"the driver host {plan.driver.target} is not read from here")
    from bench_gui.remote.host_access import LocalHost
    from bench_gui.services.tuning import host_side_facts

    folder = os.path.dirname(plan.workload.file) if plan.workload.file else None
    facts = host_side_facts(LocalHost(), folder if folder and os.path.isdir(folder) else None)
    return {
        "host": os.uname().nodename,
        "ram_bytes": facts.ram_bytes,
        "cpus": facts.cpus,
        "device": facts.device,
    }


def record_identity(store: SessionStore, session: int, identity: dict[str, Any]) -> None:
    """Keep the identity read before the run with the session."""
    store.update_inventory(session, {INVENTORY_KEY: identity})


def recorded_identity(store: SessionStore, session: int) -> dict[str, Any] | None:
    inventory = store.get_run(session).inventory or {}
    found = inventory.get(INVENTORY_KEY)
    return found if isinstance(found, dict) else None


def changes(recorded: dict[str, Any] | None, now: dict[str, Any]) -> list[str]:
    """What differs between the measured server and today's (empty: the same one). A session
    that recorded nothing comparable counts as a different server: it cannot be vouched for."""
    if not recorded:
        return ["the session does not record which server it measured"]
    found: list[str] = []
    compared = 0
    for name, words in FIELDS:
        before, after = recorded.get(name), now.get(name)
        if before is None or after is None:
            continue
        compared += 1
        if before != after:
            found.append(f"{words} {_shown(name, before)} -> {_shown(name, after)}")
    if not compared:
        return ["nothing the session records about its server can be read now"]
    return found
