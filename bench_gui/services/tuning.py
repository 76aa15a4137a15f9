"""Tuning, end to end: a target and a profile in; a diff, an applied change or a rollback out,
recorded in the tuning history. Shared by ``bench-gui tune`` and the Database page; Qt-free.

- target: ``demo`` (the embedded server), a plan file (its ``[target]``), or a connection
  string / URI; a server on this machine is restarted with the ``pg_ctl`` next to its binary,
  another one through ``--control`` (``systemctl:UNIT``, ``pg_ctlcluster:16/main``,
  ``pg_ctl:PATH``), run over SSH with ``--ssh TARGET``;
- profile: the engine's calculated one (``pgtune``, ``innodb``, ``mssql-seed-003``: its inputs
  default to the server's machine: RAM, CPUs and storage read through the server, or on its
  host when this side reaches it), or a preset.

What differs by engine is its kit's (:mod:`bench_gui.engines`): a plan's ``[target]`` is
tuned by the kit serving its kind (:func:`bench_gui.engines.base.kit_for`), which makes the
connection, reads the release, builds the proposal and reads back a stored snapshot; diff,
apply, rollback and the history work the same way for every engine, each apply recorded under
its engine's kind (``postgresql``, ``mariadb``, ``mysql``, ``mssql``).

OS knobs (:mod:`bench_gui.remote.osknobs`) go the same way: applied and recorded with the
snapshot to undo them; :class:`OsRun` does it for a run (applied before the agent starts,
rolled back when the run ends, the snapshot kept in the history should the rollback fail).
"""

from __future__ import annotations

import logging
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

from bench_gui.core.os_presets import BUILTIN_OS_PRESETS
from bench_gui.core.plan import load_plan
from bench_gui.core.plan_model import OsKnobs, Plan, PlanError, Target
from bench_gui.engines.base import EngineKit
from bench_gui.engines.postgresql.targets import conninfo_target, demo_target
from bench_gui.engines.postgresql.tuner import PgTuner
from bench_gui.engines.postgresql.tuning import demo_path, server_connection
from bench_gui.engines.registry import UnknownEngine, kit_for
from bench_gui.engines.tuning_terms import PresetError
from bench_gui.remote import osknobs
from bench_gui.remote.db_tuner import ApplyResult, DiffRow, HostFacts, TuningError
from bench_gui.remote.errors import SSHError
from bench_gui.remote.host_access import HostIO, LocalHost
from bench_gui.remote.machine_facts import parse_cpu_list, parse_meminfo_total, storage_kind
from bench_gui.services.tuning_parts import Connection, Inputs, Options, close_all, ssh_host
from bench_gui.store import SessionStore, StoreError
from bench_gui.store.tuning_history import TuningEntry, TuningHistory

log = logging.getLogger(__name__)

# What changing or restoring OS knobs can raise: the host refused (OsKnobError, OSError), the
# SSH link (SSHError), the tuning history (StoreError, TuningError), a local command that hung.
OS_KNOB_ERRORS = (
    osknobs.OsKnobError,
    OSError,
    SSHError,
    StoreError,
    TuningError,
    subprocess.SubprocessError,
)


def engine_kit(kind: str) -> EngineKit:
    """The kit tuning ``kind`` targets; TuningError naming the tuned ones when none does."""
    try:
        return kit_for(kind)
    except UnknownEngine as exc:
        raise TuningError(str(exc)) from exc


def resolve_target(
    spec: str,
    *,
    control: str | None = None,
    data_directory: str | None = None,
    ssh: str | None = None,
    config_file: str | None = None,
) -> Connection:
    """``demo``, a plan file or a connection string -> a tuner for it (see module docstring)."""
    options = Options(control, ssh, config_file, data_directory)
    is_conninfo = "=" in spec or spec.startswith(("postgresql://", "postgres://"))
    if spec != "demo" and not is_conninfo:
        path = Path(spec)
        if not path.is_file():
            raise TuningError(f"{spec!r} is neither 'demo', a plan file nor a connection string")
        try:
            plan = load_plan(path)
        except PlanError as exc:
            raise TuningError(str(exc)) from exc
        users = max(plan.workload.virtual_users, default=0) or None
        connect = engine_kit(plan.target.kind).face("connect")
        conn: Connection = connect(plan.target, users, options)
        return conn
    if config_file:
        raise TuningError("--config-file is for MariaDB/MySQL targets")
    if spec == "demo":
        target = demo_target(demo_path())
    else:
        target = conninfo_target(spec, os.environ.get("PGPASSWORD"))
    return server_connection(target, options)


def connection_for_plan(target: Target, planned_users: int | None = None) -> Connection:
    """A connection to a plan's ``[target]`` (the Database page's default)."""
    conn: Connection = engine_kit(target.kind).face("connect")(target, planned_users)
    return conn


# -- the server and its machine ----------------------------------------------------------------


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
    facts: HostFacts = conn.tuner.host_facts()
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


def server_version(conn: Connection) -> Any:
    """The server's release as its engine's rules take it: a PgVersion, a DbVersion for
    MariaDB/MySQL, SQL Server's product version (text)."""
    return engine_kit(conn.engine).face("version")(conn.tuner.facts())


# -- profiles ----------------------------------------------------------------------------------


def calculated(conn: Connection, spec: str) -> bool:
    """Whether ``spec`` is the engine's calculated profile (its inputs read off the machine)."""
    return spec == engine_kit(conn.engine).profile


def proposal_for(
    conn: Connection, spec: str, inputs: Inputs | None = None, facts: HostFacts | None = None
) -> Any:
    """The profile ``spec`` (the engine's calculated one, or a preset) as a proposal for this
    server; PresetError naming the profiles the engine knows."""
    return engine_kit(conn.engine).face("proposal")(conn, spec, inputs, facts)


def history_snapshot(conn: Connection, data: dict[str, Any]) -> Any:
    """A stored snapshot back as the connection's tuner takes it."""
    return engine_kit(conn.engine).face("snapshot")(data)


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
    proposal: Any,  # the engine's proposal (proposal_for), or a list of TunedSetting
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
            kind=conn.engine,
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
            kind=conn.engine,
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
    entry = history.last_open_apply(conn.target.key, kind=conn.engine)
    if entry is None or entry.snapshot is None:
        raise TuningError(f"nothing to roll back on {conn.target.label}: no apply is recorded")
    result = conn.tuner.rollback(history_snapshot(conn, entry.snapshot), restart=restart)
    rid = history.record(
        target_key=conn.target.key,
        target_label=conn.target.label,
        kind=conn.engine,
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
        try:
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
        except Exception:
            # Never leave knobs changed that no history entry could undo later.
            assert result.snapshot is not None
            osknobs.rollback(host, result.snapshot)
            raise
    return result, entry


def rollback_os(
    store: SessionStore, host: HostIO, entry_id: int | None = None
) -> tuple[osknobs.OsResult, int, TuningEntry]:
    """Undo the newest OS apply on this host not undone yet (or the apply ``entry_id``)."""
    history = TuningHistory(store)
    if entry_id is None:
        entry = history.last_open_apply(os_target_key(host), kind="os")
    else:
        entry = history.get(entry_id)
        if entry is not None and (entry.undone_by is not None or entry.action != "apply"):
            raise TuningError(f"OS tuning #{entry_id} is already rolled back")
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


# -- OS knobs for a run ------------------------------------------------------------------------


class OsRunError(RuntimeError):
    """A run's OS knobs could not be applied; the host is left as it was."""


LogLine = tuple[str, str]  # (level, message) for the session log


@dataclass
class OsRun:
    """A run's ``[os]`` knobs: applied before the agent starts, rolled back when it ends.

    The apply is recorded in the OS tuning history with its snapshot (as ``bench-gui tune os
    apply`` records it), so when the rollback cannot happen (the SSH link is down, the app was
    killed) ``bench-gui tune os rollback`` or the Database page restores the host later.
    ``open_host`` is called again for the rollback: a link that dropped may be back by then.
    """

    store: SessionStore
    section: OsKnobs
    where: str  # "local" or the SSH target's name
    open_host: Callable[[], HostIO]
    profile: str
    server_data_dir: Callable[[], str | None] | None = None
    label: str = ""
    devices: list[str] = field(default_factory=list)
    result: osknobs.OsResult | None = None
    entry: int | None = None
    restored: bool = False
    closers: list[Any] = field(default_factory=list)

    # ---- apply ---------------------------------------------------------------------------

    def apply(self) -> list[LogLine]:
        """Apply the knobs; log lines for the session, one per knob. Raises OsRunError."""
        try:
            host = self.open_host()
        except (SSHError, OSError) as exc:
            raise OsRunError(f"OS knobs: cannot reach {self.where}: {exc}") from exc
        self.label = host.label
        changes = self.section.changes()
        lines: list[LogLine] = []
        try:
            lines += self._find_devices(host, changes)
            self.result, self.entry = apply_os(
                self.store, host, changes, self.devices, profile=self.profile
            )
        except OS_KNOB_ERRORS as exc:  # a refused value, no root, the link, the store
            raise OsRunError(f"OS knobs not applied on {host.label}: {exc}") from exc
        result = self.result
        for key, (before, after) in result.changed.items():
            lines.append(("info", f"OS knob {key}: {before} → {after} on {host.label}"))
        for key in result.unchanged:
            lines.append(("info", f"OS knob {key}: already {self._wanted(key)}"))
        for key, why in result.missing.items():
            lines.append(("warning", f"OS knob {key}: not on this kernel ({why})"))
        where = f" (history #{self.entry})" if self.entry is not None else ""
        lines.append(("info", f"OS knobs for the run on {host.label}: {result.summary()}{where}"))
        return lines

    def _wanted(self, key: str) -> str:
        return osknobs.expand_changes(self.section.changes(), self.devices).get(key, "")

    def _find_devices(self, host: HostIO, changes: dict[str, str]) -> list[LogLine]:
        """The data devices, when a knob needs them (``read_ahead_kb`` without a device)."""
        if not any(key in osknobs.DEVICE_KNOBS for key in changes):
            return []
        if self.section.devices:
            self.devices = list(self.section.devices)
            return []
        data_directory, source = self.section.data_dir, "os.data_dir"
        if not data_directory and self.server_data_dir is not None:
            try:
                data_directory, source = self.server_data_dir() or "", "the server's data directory"
            except (TuningError, psycopg.Error):  # only a default: every disk then
                data_directory = ""
        if data_directory:
            self.devices, notes = osknobs.data_devices(host, data_directory)
            if self.devices:
                return [("info", f"OS knobs: data devices {', '.join(self.devices)}"
                                 f" (under {source} {data_directory})")]  # fmt: skip
            why = "; ".join(notes) or "no block device"
            return [("warning", f"OS knobs: no data device under {data_directory} ({why}):"
                                " the device knobs are left out")]  # fmt: skip
        self.devices = osknobs.block_devices(host)
        return [("info", f"OS knobs: no os.devices or os.data_dir, so every disk:"
                         f" {', '.join(self.devices) or 'none'}")]  # fmt: skip

    # ---- the end of the run ------------------------------------------------------------

    @property
    def pending(self) -> bool:
        """Knobs were changed (or a resumed run's were) and are not restored yet."""
        changed = self.entry is not None or bool(self.result and self.result.changed)
        return changed and not self.restored

    def how_to_restore(self) -> str:
        ssh = "" if self.where == "local" else f" --ssh {self.where}"
        entry = f" (#{self.entry})" if self.entry is not None else ""
        return (
            f"the snapshot is kept in the OS tuning history{entry}: restore it with"
            f" `bench-gui tune os rollback{ssh}` or Rollback on the Database page's OS knobs"
        )

    def restore(self) -> list[LogLine]:
        """Roll back what the apply changed; a host, link or history failure is a log line."""
        if not self.pending:
            return []
        if self.entry is not None:
            entry = TuningHistory(self.store).get(self.entry)
            if entry is not None and entry.undone_by is not None:
                self.restored = True  # by hand meanwhile, or by a re-attached follower
                return [("info", f"OS knobs already restored (#{entry.undone_by})")]
        try:
            host = self.open_host()
            self.label = host.label
            if self.entry is not None:
                done = rollback_os(self.store, host, self.entry)[0]
            else:
                assert self.result is not None
                assert self.result.snapshot is not None
                done = osknobs.rollback(host, self.result.snapshot)
        except OS_KNOB_ERRORS as exc:  # reported, with the way to do it later
            return [("error", f"OS knobs not restored on {self.label or self.where}: {exc}; "
                              + self.how_to_restore())]  # fmt: skip
        self.restored = True
        back = ", ".join(f"{key} = {value}" for key, (_old, value) in done.changed.items())
        return [("info", f"OS knobs restored on {self.label}: {back}")]

    def keep(self, reason: str) -> list[LogLine]:
        """The knobs stay (the run may go on where the link cannot reach): say how to undo."""
        if not self.pending:
            return []
        return [("warning", f"OS knobs left applied on {self.label}: {reason}; "
                            + self.how_to_restore())]  # fmt: skip

    def end(self, keep: str = "") -> list[LogLine]:
        """Restore the knobs (with ``keep``: leave them, saying why and how to restore them
        later), then close; never raises. It runs while the run's own outcome (maybe an
        exception) is on its way out, which nothing here may replace; :meth:`restore` reports
        the expected failures itself."""
        try:
            return self.keep(keep) if keep else self.restore()
        except Exception as exc:
            log.exception("OS knobs: restoring the run's knobs failed unexpectedly")
            return [("error", f"OS knobs: {exc}; {self.how_to_restore()}")]
        finally:
            self.close()

    def record(self) -> dict[str, Any]:
        """What was applied, for the session's inventory (``os_tuning``)."""
        data: dict[str, Any] = {
            "host": self.label,
            "where": self.where,
            "preset": self.section.preset,
            "knobs": self.section.changes(),
            "devices": list(self.devices),
            "history_id": self.entry,
        }
        if self.result is not None:
            data.update(self.result.to_dict())
        return data

    def close(self) -> None:
        close_all(self.closers)


def os_run_for_plan(
    store: SessionStore,
    plan: Plan,
    session_id: int | None = None,
    *,
    driver_host: Callable[[], HostIO] | None = None,
    conninfo: str | None = None,
    password: str | None = None,
    history_id: int | None = None,
) -> OsRun | None:
    """The :class:`OsRun` of a plan's ``[os]`` section (None without one).

    The knobs go to ``os.host``: empty means the database host, which is the driver's SSH
    target (through ``driver_host``, the run's own session) or, without one, this machine.
    ``conninfo`` reaches the server from this machine (to find its data directory).
    ``history_id`` resumes a run whose knobs were applied earlier (to restore them).
    """
    section = plan.os
    if not section.enabled:
        return None
    where = section.host or plan.driver.target or "local"
    closers: list[Any] = []
    open_host: Callable[[], HostIO]
    if where == "local":
        open_host = LocalHost
    elif where == plan.driver.target and driver_host is not None:
        open_host = driver_host
    else:
        opened: list[HostIO] = []

        def open_host() -> HostIO:
            from bench_gui.remote.host_access import SSHHost

            if opened:
                current = opened[-1]
                if not isinstance(current, SSHHost) or current.session.is_active():
                    return current
            host, session = ssh_host(where)
            closers.append(session)
            opened.append(host)
            return host

    data_dir_of_server = None
    if where == "local" and not plan.driver.target and conninfo:

        def data_dir_of_server() -> str | None:
            found = PgTuner(conninfo, None, password=password).facts().get("data_directory")
            return str(found) if found else None

    what = section.preset or ", ".join(f"{k}={v}" for k, v in section.knobs.items())
    run = f"run #{session_id}" if session_id is not None else "a run"
    return OsRun(
        store,
        section,
        where,
        open_host,
        profile=f"for {run}: {what}",
        server_data_dir=data_dir_of_server,
        entry=history_id,
        closers=closers,
    )


def resumed_os_run(
    store: SessionStore,
    plan: Plan,
    session_id: int,
    driver_host: Callable[[], HostIO] | None = None,
) -> OsRun | None:
    """The :class:`OsRun` of a re-attached run whose knobs are still applied (its session's
    inventory names the history entry, not undone yet), to restore them at its end; None
    when there is nothing to restore."""
    inventory = store.get_run(session_id).inventory or {}
    record = inventory.get("os_tuning") if isinstance(inventory, dict) else None
    entry_id = record.get("history_id") if isinstance(record, dict) else None
    if not isinstance(entry_id, int):
        return None
    entry = TuningHistory(store).get(entry_id)
    if entry is None or entry.undone_by is not None:
        return None
    return os_run_for_plan(store, plan, session_id, driver_host=driver_host, history_id=entry_id)
