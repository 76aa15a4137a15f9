"""Tuning, end to end: a target and a profile in; a diff, an applied change or a rollback out,
recorded in the tuning history. Shared by ``bench-gui tune`` and the Database page; Qt-free.

- target: ``demo`` (the embedded server), a plan file (its ``[target]``), or a connection
  string / URI; a server on this machine is restarted with the ``pg_ctl`` next to its binary,
  another one through ``--control`` (``systemctl:UNIT``, ``pg_ctlcluster:16/main``,
  ``pg_ctl:PATH``), run over SSH with ``--ssh TARGET``;
- profile: ``pgtune`` (the calculator; its inputs default to the server's machine: RAM, CPUs
  and storage read through the server, or from this machine when the server is local), the
  name of a preset (built-in or the user's), or a preset file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_gui.core.pgtune import (
    PgVersion,
    Proposal,
    TunedSetting,
    TuneInput,
    calculate,
)
from bench_gui.core.plan import PlanError, Target, load_plan
from bench_gui.core.tuning_presets import BUILTIN_OS_PRESETS, PresetError
from bench_gui.remote import osknobs
from bench_gui.remote.hostio import HostIO, LocalHost
from bench_gui.remote.pgtuning import (
    ApplyResult,
    DiffRow,
    HostFacts,
    PgTuner,
    Snapshot,
    TuningError,
    TuningTarget,
    conninfo_target,
    demo_target,
    parse_control_spec,
    parse_cpu_list,
    parse_meminfo_total,
    plan_target,
    storage_kind,
)
from bench_gui.store import SessionStore
from bench_gui.store.paths import data_dir
from bench_gui.store.presets import all_presets, load_preset_file
from bench_gui.store.tuning import TuningEntry, TuningHistory

PGTUNE = "pgtune"


def demo_path() -> Path:
    return data_dir() / "demo-postgres"


@dataclass
class Connection:
    """A resolved target, with what SSH opened for it (closed by :meth:`close`)."""

    target: TuningTarget
    tuner: PgTuner
    host: HostIO | None  # where the server runs, when this side can reach it
    closers: list[Any] = field(default_factory=list)

    def close(self) -> None:
        for item in self.closers:
            try:
                item.close()
            except Exception:  # noqa: BLE001 - closing
                pass


def _ssh_host(name: str) -> tuple[HostIO, Any]:
    from bench_gui.remote.hostio import SSHHost
    from bench_gui.remote.hostkeys import APP_KNOWN_HOSTS
    from bench_gui.remote.session import connect
    from bench_gui.remote.targets import TARGETS_FILE, get_target

    session = connect(
        get_target(name, data_dir() / TARGETS_FILE), known_hosts=data_dir() / APP_KNOWN_HOSTS
    )
    return SSHHost(session), session


def resolve_target(
    spec: str,
    *,
    control: str | None = None,
    data_directory: str | None = None,
    ssh: str | None = None,
) -> Connection:
    """``demo``, a plan file or a connection string -> a tuner for it (see module docstring)."""
    if spec == "demo":
        target = demo_target(demo_path())
    elif "=" in spec or spec.startswith(("postgresql://", "postgres://")):
        target = conninfo_target(spec, os.environ.get("PGPASSWORD"))
    else:
        path = Path(spec)
        if not path.is_file():
            raise TuningError(f"{spec!r} is neither 'demo', a plan file nor a connection string")
        try:
            plan = load_plan(path)
        except PlanError as exc:
            raise TuningError(str(exc)) from exc
        target = plan_target(plan.target, demo_path())
    closers: list[Any] = []
    host: HostIO | None = LocalHost() if target.local else None
    if ssh:
        host, session = _ssh_host(ssh)
        closers.append(session)
        target.local = False
    tuner = (
        target.tuner()
        if not ssh and not control
        else PgTuner(target.conninfo, None, password=target.password)
    )
    if control:
        where = data_directory or tuner.facts().get("data_directory")
        if not where:
            raise TuningError(
                "the server's data directory is unknown (it needs a superuser to read it):"
                " give --data-dir"
            )
        tuner.control = parse_control_spec(control, host or LocalHost(), str(where))
        target.control = tuner.control
    return Connection(target, tuner, host, closers)


def connection_for_plan(target: Target) -> Connection:
    """A connection to a plan's ``[target]`` (the Database page's default)."""
    resolved = plan_target(target, demo_path())
    tuner = resolved.tuner()
    return Connection(resolved, tuner, LocalHost() if resolved.local else None)


# -- profiles ----------------------------------------------------------------------------------


@dataclass
class Inputs:
    """Calculator inputs, any of which may be left to the server's machine."""

    ram_bytes: int | None = None
    cpus: int | None = None
    connections: int | None = None
    storage: str | None = None
    db_type: str = "oltp"
    version: PgVersion | None = None
    edition: str = "current"


def host_side_facts(host: HostIO, data_directory: str | None) -> HostFacts:
    """RAM, CPUs and the data directory's storage, read on the host itself (here or SSH)."""
    facts = HostFacts()
    found = host.read_many(["/proc/meminfo", "/sys/devices/system/cpu/online"])
    meminfo, online = found["/proc/meminfo"], found["/sys/devices/system/cpu/online"]
    if isinstance(meminfo, str):
        facts.ram_bytes = parse_meminfo_total(meminfo)
    if isinstance(online, str):
        facts.cpus = parse_cpu_list(online)
    if data_directory:
        try:
            devices, notes = osknobs.data_devices(host, data_directory)
        except OSError as exc:
            devices, notes = [], [str(exc)]
        facts.notes += notes
        if devices:
            rotational = host.read_many([f"/sys/block/{devices[0]}/queue/rotational"])
            value = next(iter(rotational.values()))
            facts.device = devices[0]
            facts.storage = storage_kind(devices[0], value if isinstance(value, str) else None)
    return facts


def server_facts(conn: Connection) -> HostFacts:
    """The server machine's RAM, CPUs and storage: read through the server (a superuser can
    read /proc with pg_read_file), else on the host itself when this side reaches it."""
    facts = conn.tuner.host_facts()
    missing = facts.ram_bytes is None or facts.cpus is None or facts.storage is None
    if missing and conn.host is not None:
        data_dir = None
        try:
            data_dir = conn.tuner.facts().get("data_directory")
        except TuningError:
            pass
        mine = host_side_facts(conn.host, data_dir)
        facts.ram_bytes = facts.ram_bytes or mine.ram_bytes
        facts.cpus = facts.cpus or mine.cpus
        if facts.storage is None:
            facts.storage, facts.device = mine.storage, mine.device
        facts.notes.append(f"read on {conn.host.label}")
    return facts


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
        version=inputs.version or version,
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


def server_version(conn: Connection) -> PgVersion:
    return PgVersion.parse(int(conn.tuner.facts()["server_version_num"]))


# -- apply, rollback, history ----------------------------------------------------------------


def changes_of(rows: list[DiffRow], result: ApplyResult) -> dict[str, Any]:
    by_name = {r.name: r for r in rows}
    return {
        name: {
            "from": by_name[name].current if name in by_name else None,
            "to": by_name[name].proposed if name in by_name else None,
            "rule": by_name[name].rule if name in by_name else "",
        }
        for name in result.changed
    }


def apply_profile(
    store: SessionStore,
    conn: Connection,
    proposal: Proposal | list[TunedSetting],
    *,
    profile: str,
    restart: bool = False,
    skip_invalid: bool = False,
    only: set[str] | None = None,
) -> tuple[ApplyResult, int | None]:
    """Apply and record it; a failure is recorded too (with no snapshot) and re-raised."""
    history = TuningHistory(store)
    rows = conn.tuner.diff(proposal)
    try:
        result = conn.tuner.apply(proposal, restart=restart, skip_invalid=skip_invalid, only=only)
    except TuningError as exc:
        history.record(
            target_key=conn.target.key,
            target_label=conn.target.label,
            kind="postgresql",
            action="apply",
            profile=profile,
            result={"ok": False, "error": str(exc), "error_type": type(exc).__name__},
        )
        raise
    entry = None
    if result.changed:
        entry = history.record(
            target_key=conn.target.key,
            target_label=conn.target.label,
            kind="postgresql",
            action="apply",
            profile=profile,
            changes=changes_of(rows, result),
            snapshot=result.snapshot.to_dict() if result.snapshot else None,
            result=result.to_dict(),
        )
    return result, entry


def rollback_last(
    store: SessionStore, conn: Connection, *, restart: bool = True
) -> tuple[ApplyResult, int, TuningEntry]:
    """Undo the newest apply of this target that is not undone yet."""
    history = TuningHistory(store)
    entry = history.last_open_apply(conn.target.key)
    if entry is None or entry.snapshot is None:
        raise TuningError(f"nothing to roll back on {conn.target.label}: no apply is recorded")
    result = conn.tuner.rollback(Snapshot.from_dict(entry.snapshot), restart=restart)
    rid = history.record(
        target_key=conn.target.key,
        target_label=conn.target.label,
        kind="postgresql",
        action="rollback",
        profile=entry.profile,
        changes={
            name: {"from": value.get("to"), "to": value.get("from")}
            for name, value in entry.changes.items()
        },
        result=result.to_dict(),
        undoes=entry.id,
    )
    return result, rid, entry


# -- OS knobs ----------------------------------------------------------------------------------


def os_target_key(host: HostIO) -> str:
    return f"os://{host.label}"


def os_changes(sets: list[str], preset: str | None) -> dict[str, str]:
    """``KEY=VALUE`` items and an OS preset's knobs -> a change set (items win)."""
    changes: dict[str, str] = {}
    if preset:
        if preset not in BUILTIN_OS_PRESETS:
            known = ", ".join(BUILTIN_OS_PRESETS)
            raise PresetError(f"no OS preset {preset!r} (known: {known})")
        changes.update(BUILTIN_OS_PRESETS[preset].knobs)
    for item in sets:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise PresetError(f"{item!r}: use KEY=VALUE, e.g. vm.dirty_ratio=40")
        changes[key.strip()] = value.strip()
    return changes


def apply_os(
    store: SessionStore,
    host: HostIO,
    changes: dict[str, str],
    devices: list[str],
    profile: str = "",
) -> tuple[osknobs.OsResult, int | None]:
    result = osknobs.apply(host, changes, devices)
    entry = None
    if result.changed:
        entry = TuningHistory(store).record(
            target_key=os_target_key(host),
            target_label=host.label,
            kind="os",
            action="apply",
            profile=profile or ", ".join(f"{k}={v}" for k, v in changes.items()),
            changes={k: {"from": a, "to": b} for k, (a, b) in result.changed.items()},
            snapshot=result.snapshot.to_dict() if result.snapshot else None,
            result=result.to_dict(),
        )
    return result, entry


def rollback_os(store: SessionStore, host: HostIO) -> tuple[osknobs.OsResult, int, TuningEntry]:
    history = TuningHistory(store)
    entry = history.last_open_apply(os_target_key(host), kind="os")
    if entry is None or entry.snapshot is None:
        raise TuningError(f"nothing to roll back on {host.label}: no OS knobs were applied")
    result = osknobs.rollback(host, osknobs.OsSnapshot.from_dict(entry.snapshot))
    rid = history.record(
        target_key=os_target_key(host),
        target_label=host.label,
        kind="os",
        action="rollback",
        profile=entry.profile,
        changes={k: {"from": v.get("to"), "to": v.get("from")} for k, v in entry.changes.items()},
        result=result.to_dict(),
        undoes=entry.id,
    )
    return result, rid, entry
