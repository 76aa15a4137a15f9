"""The MariaDB/MySQL kit's tuning service: a connection to a plan's target (with the server's
machine when this side reaches it, for the option file: here for a local server, the SSH host
with ``--ssh``; restarted through ``--control systemctl:UNIT``), and its profile ``innodb``
(the InnoDB rules of :mod:`bench_gui.engines.mariadb.innodb`, the planned users from the plan)."""

from __future__ import annotations

from typing import Any

from bench_gui.core.plan_model import Target
from bench_gui.engines.mariadb.innodb import DbVersion, InnoDbInput, InnoDbProposal
from bench_gui.engines.mariadb.innodb import calculate as innodb_calculate
from bench_gui.engines.mariadb.tuner import (
    DEFAULT_CONFIG_FILE,
    parse_service_control,
    plan_mariadb_target,
)
from bench_gui.engines.tuning_terms import PresetError
from bench_gui.remote.db_tuner import HostFacts, TuningError
from bench_gui.services.tuning_parts import NO_OPTIONS, Connection, Inputs, Options, server_host

INNODB = "innodb"


def connect(
    target: Target, planned_users: int | None = None, options: Options = NO_OPTIONS
) -> Connection:
    """A MariaDB/MySQL target: its tuner, with the server's machine when this side reaches it
    (here for a local server, the SSH host with ``options.ssh``) for the option file."""
    control, ssh = options.control, options.ssh
    resolved = plan_mariadb_target(target)
    host, closers = server_host(resolved, ssh)
    tuner = resolved.tuner(host, options.config_file or DEFAULT_CONFIG_FILE)
    if control:
        if host is None:
            raise TuningError("--control needs the server's machine: give --ssh")
        tuner.control = parse_service_control(control, host)
    return Connection(resolved, tuner, host, closers, planned_users)


def version(facts: dict[str, Any]) -> DbVersion:
    """The server's release from the tuner's facts."""
    return DbVersion.parse(str(facts["version"]))


def innodb_input(
    inputs: Inputs, facts: HostFacts | None, version: DbVersion | None, flavour: str,
    planned_users: int | None = None,
) -> InnoDbInput:  # fmt: skip
    """The InnoDB rules' inputs: the given ones, the rest from ``facts`` and the plan."""
    ram = inputs.ram_bytes if inputs.ram_bytes is not None else (facts.ram_bytes if facts else None)
    if not ram:
        raise TuningError("the server's RAM is unknown (its machine cannot be read): give --ram")
    storage = inputs.storage or (facts.storage if facts else None) or "ssd"
    return InnoDbInput(
        ram_bytes=ram,
        cpus=inputs.cpus if inputs.cpus is not None else (facts.cpus if facts else None),
        connections=inputs.connections or planned_users,
        storage=storage,
        flavour=flavour,
        version=version,
        server=inputs.server,
        durability=inputs.durability,
    )


def proposal(
    conn: Connection, spec: str, inputs: Inputs | None = None, facts: HostFacts | None = None
) -> InnoDbProposal:
    """``innodb`` -> the InnoDB proposal for this MariaDB/MySQL server."""
    if spec != INNODB:
        raise PresetError(
            f"no profile {spec!r} for a {conn.engine} server: use innodb (the InnoDB rules)"
        )
    release = version(conn.tuner.facts())
    return innodb_calculate(
        innodb_input(inputs or Inputs(), facts, release, conn.engine, conn.planned_users)
    )
