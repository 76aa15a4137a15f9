"""Remote work for the GUI (test a target, collect its inventory) in threads, never in slots.

A :class:`RemoteTask` runs one blocking call (an SSH connection, a few remote commands) in a
:class:`QThread` and hands its outcome to the GUI thread through one queued signal, ``done``:
by then :attr:`RemoteTask.result` or :attr:`RemoteTask.error` is set. The task never touches a
widget. Every task is joined: the receiver of ``done`` calls :meth:`RemoteTask.wait` (the
thread is returning), and the task also joins itself when its thread reports it has ended, so a
task whose page went away is still joined and released. :func:`live_tasks` lists the tasks
whose thread still runs, for shutdown and for tests.

paramiko cannot be interrupted in the middle of a handshake; every call here has a timeout,
so :meth:`RemoteTask.cancel` only marks the outcome as unwanted and :meth:`RemoteTask.shutdown`
waits for the thread to end.
"""

from __future__ import annotations

import logging
import traceback
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal

from bench_gui.remote.errors import SSHError
from bench_gui.remote.inventory import collect_inventory
from bench_gui.remote.secrets import SECRET_KINDS, TargetSecrets, get_secret
from bench_gui.remote.session import DEFAULT_TIMEOUT, connect
from bench_gui.remote.ssh import TargetReport, check_target
from bench_gui.remote.targets import SSHTarget

log = logging.getLogger(__name__)

_all: weakref.WeakSet[RemoteTask] = weakref.WeakSet()
# Started and not yet joined: a strong reference, so no QThread is destroyed while it runs.
_unjoined: set[RemoteTask] = set()


def live_tasks() -> list[RemoteTask]:
    """Tasks whose thread is still running."""
    return [t for t in list(_all) if t.is_running()]


def shutdown_all(timeout_s: float = 30.0) -> bool:
    """Cancel and join every task still running; True if all ended within the timeout."""
    ok = True
    for task in live_tasks():
        ok = task.shutdown(timeout_s) and ok
    return ok


class _Thread(QThread):
    def __init__(self, body: Callable[[], None], name: str) -> None:
        super().__init__()
        self._body = body
        self.setObjectName(name)

    def run(self) -> None:
        self._body()


class RemoteTask(QObject):
    """One blocking call in a thread; ``done`` (queued to the GUI thread) when it returned.

    ``kind`` names the work ("test", "inventory"); ``context`` is free for the caller (what the
    task was started for, to retry it or to label its result).
    """

    done = Signal()

    def __init__(
        self,
        kind: str,
        body: Callable[[], Any],
        context: Any = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.kind = kind
        self.context = context
        self._body = body
        self.result: Any = None
        self.error: BaseException | None = None
        self.error_details = ""
        self.cancelled = False
        self._started = False
        self._thread = _Thread(self._work, f"bench-remote-{kind}")
        # Queued to this object's thread (the GUI's): joins even if nobody listens to done.
        self._thread.finished.connect(self._joined)
        _all.add(self)

    # ---- GUI-thread API ------------------------------------------------------------------

    def start(self) -> None:
        if self._started:
            raise RuntimeError("a RemoteTask runs once; create a new one")
        self._started = True
        _unjoined.add(self)
        self._thread.start()

    def cancel(self) -> None:
        """Mark the outcome as unwanted (the call itself ends on its own timeout)."""
        self.cancelled = True

    def is_running(self) -> bool:
        return self._thread.isRunning()

    @property
    def succeeded(self) -> bool:
        return self._started and self.error is None and not self.is_running()

    def wait(self, timeout_s: float | None = None) -> bool:
        """Join the thread; True once it has ended (always True if it never started)."""
        if not self._started:
            return True
        if timeout_s is None:
            ended = bool(self._thread.wait())
        else:
            ended = bool(self._thread.wait(max(0, int(timeout_s * 1000))))
        if ended:
            _unjoined.discard(self)
        return ended

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        self.cancel()
        return self.wait(timeout_s)

    def _joined(self) -> None:
        self.wait()

    # ---- worker thread -------------------------------------------------------------------

    def _work(self) -> None:
        try:
            self.result = self._body()
        except Exception as exc:  # every failure becomes an outcome, never a dead thread
            self.error = exc
            self.error_details = traceback.format_exc()
            if not isinstance(exc, SSHError):
                log.warning("%s task failed unexpectedly: %s", self.kind, self.error_details)
        self.done.emit()

    def __repr__(self) -> str:
        state = "running" if self.is_running() else ("failed" if self.error else "idle")
        return f"<RemoteTask {self.kind} {state}>"


# ---- the work ------------------------------------------------------------------------------


@dataclass(frozen=True)
class SecretsRequest:
    """Secrets typed in a form (not saved yet) over those in the keyring under ``stored_as``.

    Resolved in the worker thread, since a keyring may block (an unlock prompt).
    """

    typed: tuple[tuple[str, str], ...] = ()
    stored_as: str = ""

    def resolve(self, target: SSHTarget) -> TargetSecrets | None:
        typed = dict(self.typed)
        stored_as = self.stored_as or target.name
        if not typed and stored_as == target.name:
            return None  # connect() looks each one up in the keyring when it needs it
        values: dict[str, str | None] = {}
        for kind in SECRET_KINDS:
            values[kind] = typed.get(kind) or get_secret(stored_as, kind)
        return TargetSecrets(**values)


@dataclass(frozen=True)
class DatabaseCheck:
    """The database to check from the target: a conninfo and its password (or none)."""

    conninfo: str
    password: str | None = None


def check_connection(
    target: SSHTarget,
    known_hosts: Path,
    secrets: SecretsRequest | None = None,
    database: DatabaseCheck | None = None,
    accept_fingerprint: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> TargetReport:
    """Blocking: :func:`check_target` with the app's known-hosts file (for a worker thread)."""
    return check_target(
        target,
        database.conninfo if database else None,
        accept_fingerprint,
        timeout,
        secrets=(secrets or SecretsRequest()).resolve(target),
        db_password=database.password if database else None,
        known_hosts=known_hosts,
    )


def inventory(
    target: SSHTarget,
    known_hosts: Path,
    secrets: SecretsRequest | None = None,
    accept_fingerprint: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> dict[str, Any]:
    """Blocking: connect and :func:`collect_inventory` (for a worker thread)."""
    session = connect(
        target,
        accept_fingerprint,
        timeout,
        secrets=(secrets or SecretsRequest()).resolve(target),
        known_hosts=known_hosts,
    )
    with session:
        return collect_inventory(session)


__all__ = [
    "DatabaseCheck",
    "RemoteTask",
    "SecretsRequest",
    "check_connection",
    "inventory",
    "live_tasks",
    "shutdown_all",
]
