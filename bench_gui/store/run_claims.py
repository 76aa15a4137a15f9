"""Which process is writing a run: a claim per run, so a starting app leaves live runs alone.

A run stays "running" in the store while some process follows it and stores its events: the
``bench-gui run`` of a terminal, another window of the app, an ``attach``. An app that starts
closes what a crashed app left "running" (:meth:`SessionStore.mark_stale_running`), and must
tell those apart from runs that are still being written. The store cannot: its rows say
nothing about who is alive. So the process that writes a run holds a claim on it: an
exclusive ``flock`` on a file of its own in a folder beside the session database
(``sessions.sqlite3.live/run-<id>``). The kernel drops the lock when that process ends,
however it ends, so a crashed writer never leaves a claim behind, and a claim held means a
live writer on this machine.

Anyone may ask whether a run is claimed (:meth:`RunClaims.held`): a shared lock that cannot be
had means an exclusive one is held. A writer that meets such a look tries again a moment
later; a writer that meets another writer is refused (one run, one writer).
"""

from __future__ import annotations

import fcntl
import logging
import os
import threading
import time
from pathlib import Path

log = logging.getLogger(__name__)


_ATTEMPTS = 200  # at 10 ms: two seconds of other processes looking at the same moment


def _try_exclusive(fd: int) -> bool | None:
    """Take the exclusive lock: True; False when a writer holds it; None when it is only
    held shared for a moment (someone asking :meth:`RunClaims.held`)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        pass
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    fcntl.flock(fd, fcntl.LOCK_UN)
    return None


def _same_file(fd: int, path: Path) -> bool:
    try:
        st = os.stat(path)
    except OSError:
        return False
    own = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (own.st_dev, own.st_ino)


class RunClaims:
    """The claims of one session database (``folder``: its ``.live`` folder)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._held: dict[int, int] = {}  # run id -> the fd holding its lock
        self._lock = threading.Lock()

    def path(self, run_id: int) -> Path:
        return self.folder / f"run-{int(run_id)}"

    def claim(self, run_id: int) -> bool:
        """Hold ``run_id`` for this process until :meth:`release` (or the process ends).

        False when another process holds it (it is writing the run), or the claim cannot be
        made at all (a read-only folder: logged; the run then goes unclaimed).
        """
        with self._lock:
            if run_id in self._held:
                return True
            for _attempt in range(_ATTEMPTS):
                try:
                    self.folder.mkdir(mode=0o700, exist_ok=True)
                    fd = os.open(self.path(run_id), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
                except OSError as exc:
                    log.warning("cannot claim run %s in %s: %s", run_id, self.folder, exc)
                    return False
                taken = _try_exclusive(fd)
                if taken is None:  # somebody was only looking: look again in a moment
                    os.close(fd)
                    time.sleep(0.01)
                    continue
                if not taken:
                    os.close(fd)
                    return False  # a writer holds it
                if _same_file(fd, self.path(run_id)):
                    self._held[run_id] = fd
                    return True
                os.close(fd)  # its last holder removed the file meanwhile: take a new one
            return False

    def release(self, run_id: int) -> None:
        """Let go of a run this process claimed (nothing if it holds none)."""
        with self._lock:
            fd = self._held.pop(run_id, -1)
        if fd >= 0:
            try:
                self.path(run_id).unlink()  # while still held (a new claimer checks the file)
            except OSError:
                pass
            os.close(fd)

    def release_all(self) -> None:
        with self._lock:
            ids = list(self._held)
        for run_id in ids:
            self.release(run_id)

    def mine(self, run_id: int) -> bool:
        """Whether this process holds the claim (it writes the run itself)."""
        with self._lock:
            return run_id in self._held

    def held(self, run_id: int) -> bool:
        """Whether a live process (this one included) is writing ``run_id``."""
        with self._lock:
            if run_id in self._held:
                return True
        try:
            fd = os.open(self.path(run_id), os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return False  # never claimed, or released
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)  # also drops the shared lock if it was taken
        return False


__all__ = ["RunClaims"]
