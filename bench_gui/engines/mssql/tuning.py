"""The SQL Server kit's tuning service: a connection to a plan's target (the server's machine
is never needed: nothing of it is written, and the service is never restarted from here), and
its profiles: ``mssql-seed-003`` (seed 003's MAXDOP, recovery model, target recovery time and,
with the server's RAM known, max server memory) or a SQL Server preset file."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from bench_gui.core.plan_model import Target
from bench_gui.engines.mssql.proposal import MssqlProposal, load_mssql_preset, seed_003_proposal
from bench_gui.engines.mssql.tuner import PROFILE, plan_mssql_target
from bench_gui.engines.tuning_terms import PresetError, format_bytes
from bench_gui.remote.connection import SSHConnection
from bench_gui.remote.db_tuner import HostFacts, TuningError
from bench_gui.remote.host_access import HostIO, LocalHost
from bench_gui.services.tuning_parts import NO_OPTIONS, Connection, Inputs, Options

SMALLEST_MB: Final = 8192  # seed 003's max server memory rule needs at least this much RAM


def connect(
    target: Target, planned_users: int | None = None, options: Options = NO_OPTIONS
) -> Connection:
    """A SQL Server target: its tuner. The options of a server's machine are refused."""
    given = options.given()
    if given:
        raise TuningError(
            f"{', '.join(given)}: not for a SQL Server target (its options are set"
            " through SQL; bench-gui never restarts SQL Server)"
        )
    resolved = plan_mssql_target(target)
    host: HostIO | None = LocalHost() if resolved.local else None
    return Connection(resolved, resolved.tuner(), host, [], planned_users)


def version(facts: dict[str, Any]) -> str:
    """SQL Server's product version (text) from the tuner's facts."""
    return str(facts["version"])


def proposal(
    conn: Connection, spec: str, inputs: Inputs | None = None, facts: HostFacts | None = None
) -> MssqlProposal:
    """``mssql-seed-003`` (seed 003's settings; max server memory from ``--ram`` or the
    server's RAM when known) or a SQL Server preset file -> a proposal for this server."""
    release = version(conn.tuner.facts())
    if spec == PROFILE:
        given = (inputs or Inputs()).ram_bytes
        ram = given if given is not None else (facts.ram_bytes if facts else None)
        ram_mb = ram // 1024**2 if ram else None
        proposal = seed_003_proposal(None, release)
        if ram_mb is not None and (given is not None or ram_mb >= SMALLEST_MB):
            try:
                proposal = seed_003_proposal(ram_mb, release)
            except ValueError as exc:
                raise PresetError(f"--ram: {exc}") from exc
        elif ram_mb is not None:
            proposal.notes.append(
                f"max server memory is left alone: the server has {ram_mb} MB, less than"
                f" the {SMALLEST_MB} MB the seed's rule assumes"
            )
        return proposal
    path = Path(spec)
    if path.suffix == ".toml" and path.is_file():
        proposal = load_mssql_preset(path)
        proposal.version = release
        return proposal
    raise PresetError(
        f"no profile {spec!r} for a SQL Server: use {PROFILE} (seed 003's settings)"
        ' or a SQL Server preset file (.toml with engine = "mssql")'
    )


MAX_MEMORY: Final = "max server memory (MB)"


def memory_warnings(
    values: Mapping[str, str], ram_bytes: int, *, fatal_only: bool = False
) -> dict[str, str]:
    """max server memory above the machine's RAM: a cap the server never reaches, so the
    operating system pages it out under load (never fatal: the server starts); the engine
    kit's ``memory_warnings``."""
    value = values.get(MAX_MEMORY)
    if fatal_only or value is None:
        return {}
    try:
        mb = int(str(value).strip())
    except ValueError:
        return {}
    if mb * 1024**2 <= ram_bytes:
        return {}
    return {MAX_MEMORY: f"{mb:,} MB is more than the machine's {format_bytes(ram_bytes)} of RAM"}


def database_check(
    session: SSHConnection, conninfo: str, password: str | None, python: str, kind: str
) -> tuple[bool | None, str]:
    """Not checked (None): no probe of a SQL Server from a target was ever run against a live
    server here, so the check says so instead of passing an ODBC string to another engine's
    probe; a run connects when it starts and names what fails."""
    return None, (
        "not checked from the target: SQL Server's connection is tried when a run starts"
        " (no SQL Server here to verify a check against)"
    )
