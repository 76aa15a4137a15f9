"""The PostgreSQL kit's tuning service: a connection to a plan's target, the embedded demo or a
connection string (restarted with the ``pg_ctl`` next to its binary, or through ``--control``:
``systemctl:UNIT``, ``pg_ctlcluster:16/main``, ``pg_ctl:PATH``, over SSH with ``--ssh``), and
its profiles: ``pgtune`` (the calculator; its inputs default to the server's machine) or a
preset (built-in, the user's, or a file)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench_gui.core.plan_model import Target
from bench_gui.engines.postgresql.control import parse_control_spec
from bench_gui.engines.postgresql.pgtune import PgVersion, Proposal, TuneInput, calculate
from bench_gui.engines.postgresql.targets import TuningTarget, plan_target
from bench_gui.engines.postgresql.tuner import PgTuner
from bench_gui.engines.tuning_terms import PresetError
from bench_gui.remote.db_tuner import HostFacts, TuningError
from bench_gui.remote.host_access import LocalHost
from bench_gui.services.tuning_parts import NO_OPTIONS, Connection, Inputs, Options, server_host
from bench_gui.store.paths import data_dir
from bench_gui.store.user_presets import all_presets, load_preset_file

PGTUNE = "pgtune"


def demo_path() -> Path:
    """Where the embedded demo server keeps its data."""
    return data_dir() / "demo-postgres"


def connect(
    target: Target, planned_users: int | None = None, options: Options = NO_OPTIONS
) -> Connection:
    """A plan's ``[target]`` (the demo or a PostgreSQL server)."""
    if options.config_file:
        raise TuningError("--config-file is for MariaDB/MySQL targets")
    conn = server_connection(plan_target(target, demo_path()), options)
    conn.planned_users = planned_users
    return conn


def server_connection(target: TuningTarget, options: Options = NO_OPTIONS) -> Connection:
    """A tuner for ``target``: over SSH with ``options.ssh``, restarted through
    ``options.control`` (which needs the data directory: given, or read through the server)."""
    control, ssh = options.control, options.ssh
    host, closers = server_host(target, ssh)
    tuner = (
        target.tuner()
        if not ssh and not control
        else PgTuner(target.conninfo, None, password=target.password)
    )
    if control:
        where = options.data_directory or tuner.facts().get("data_directory")
        if not where:
            raise TuningError(
                "the server's data directory is unknown (it needs a superuser to read it):"
                " give --data-dir"
            )
        tuner.control = parse_control_spec(control, host or LocalHost(), str(where))
        target.control = tuner.control
    return Connection(target, tuner, host, closers)


def version(facts: dict[str, Any]) -> PgVersion:
    """The server's release from the tuner's facts."""
    return PgVersion.parse(int(facts["server_version_num"]))


def tune_input(inputs: Inputs, facts: HostFacts | None, version: PgVersion) -> TuneInput:
    """Calculator inputs: the given ones, the rest from ``facts``."""
    ram = inputs.ram_bytes if inputs.ram_bytes is not None else (facts.ram_bytes if facts else None)
    if not ram:
        raise TuningError(
            "the server's RAM is unknown (reading /proc/meminfo through PostgreSQL needs a"
            " superuser): give --ram"
        )
    storage = inputs.storage or (facts.storage if facts else None) or "ssd"
    if inputs.edition == "classic" and storage == "nvme":
        storage = "ssd"
    return TuneInput(
        ram_bytes=ram,
        cpus=inputs.cpus if inputs.cpus is not None else (facts.cpus if facts else None),
        connections=inputs.connections,
        storage=storage,
        db_type=inputs.db_type,
        version=PgVersion.parse(inputs.version) if inputs.version else version,
        edition=inputs.edition,
    )


def resolve_profile(
    spec: str, version: PgVersion, inputs: Inputs | None = None, facts: HostFacts | None = None
) -> Proposal:
    """``pgtune``, a preset name or a preset file -> a proposal for ``version``."""
    if spec == PGTUNE:
        return calculate(tune_input(inputs or Inputs(), facts, version))
    presets = all_presets()
    if spec in presets:
        return presets[spec].proposal(version)
    path = Path(spec)
    if path.suffix == ".toml" and path.is_file():
        return load_preset_file(path).proposal(version)
    known = ", ".join(sorted(presets)) or "none"
    raise PresetError(f"no profile {spec!r}: use pgtune, a preset ({known}) or a preset file")


def proposal(
    conn: Connection, spec: str, inputs: Inputs | None = None, facts: HostFacts | None = None
) -> Proposal:
    """The profile ``spec`` for this server's release."""
    return resolve_profile(spec, version(conn.tuner.facts()), inputs, facts)
