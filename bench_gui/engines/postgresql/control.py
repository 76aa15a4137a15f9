"""Restarting a PostgreSQL server: ``pg_ctl``, ``systemctl`` or Debian's ``pg_ctlcluster``, each
over a :class:`~bench_gui.remote.host_access.HostIO`, found for a local data directory or
given as a spec; and reading a failed start's log for the setting to blame. Kept apart from
the tuner because it knows hosts and service managers, not SQL.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from bench_gui.engines.postgresql.settings import AUTO_CONF, parse_auto_conf
from bench_gui.remote.db_tuner import NoServerControl, TuningError
from bench_gui.remote.host_access import HostIO, LocalHost

log = logging.getLogger(__name__)

DEBIAN_CONF_ROOT: Final = "/etc/postgresql"  # postgresql-common's clusters: VERSION/NAME/
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
        return self._control("restart", timeout)

    def start(self, timeout: float = 120.0) -> ControlResult:
        return self._control("start", timeout)

    def stop(self, timeout: float = 120.0) -> ControlResult:
        return self._control("stop", timeout)

    def _control(self, action: str, timeout: float) -> ControlResult:
        """Run ``action`` (restart, start or stop): what each kind of control does."""
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

    def _control(self, action: str, timeout: float) -> ControlResult:
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

    def start(self, timeout: float = 120.0) -> ControlResult:
        # restart starts a stopped server too, with the options of its last start.
        return self._control("restart", timeout)


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

    def _control(self, action: str, timeout: float) -> ControlResult:
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

    def _control(self, action: str, timeout: float) -> ControlResult:
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


def first_fatal(log: str, fallback: str) -> str:
    """Why a start failed: the log's first FATAL or PANIC message, else the command's first line."""
    for line in log.splitlines():
        match = re.search(r"\b(FATAL|PANIC):\s*(.*)", line)
        if match:
            return match.group(2).strip()
    for line in (fallback or "").splitlines():
        if line.strip():
            return line.strip()
    return "no reason given"
