"""One benchmark per database server at a time: the run lock, held by the agent (stdlib only).

The lock is a file whose name comes from the server's identity
(:mod:`bench_gui.agent.pg.identity`), so every spelling of the server meets at one file. It
lives in one folder per host, the same for every user and every way the agent was started: a
local run of the desktop and a run started over SSH (as any account, by any desktop) take the
same lock. The folder is ``/run/lock/bench-gui-locks`` where ``/run/lock`` is open to everyone
(sticky and world-writable, as on Debian and Ubuntu), else ``/tmp/bench-gui-locks``; the choice
depends on the host alone, never on who asks.

The lock itself is ``flock``: the kernel drops it when the agent ends, however it ends, so a
dead run never leaves a stale lock behind. The file's text says who holds it (session, desktop,
agent pid, user, host, since when); a refused run reports that, after checking that the pid
written there is still alive (it may belong to a run that ended while the next one was taking
the lock over and has not written its name yet).
"""

from __future__ import annotations

import fcntl
import getpass
import hashlib
import json
import os
import socket
import stat
import time
from dataclasses import dataclass
from typing import Any, Final

LOCK_DIR_NAME: Final = "bench-gui-locks"
# Shared lock folders, in order of preference: the first whose parent is open to everyone.
LOCK_PARENTS: Final = ("/run/lock", "/tmp")


class LockError(RuntimeError):
    """The lock cannot be taken at all (not: someone else holds it); says where and why."""


@dataclass
class HeldLock:
    """The open lock file: the lock lasts as long as this object (and the process) does."""

    path: str
    fd: int

    def release(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _open_to_everyone(path: str) -> bool:
    try:
        st = os.stat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_mode & 0o1777 == 0o1777


LOCK_DIR_ENV: Final = "BENCH_GUI_LOCK_DIR"


def default_lock_dir() -> str:
    """This host's lock folder (the same for every user: see the module docstring).

    ``BENCH_GUI_LOCK_DIR`` names another one: a test suite keeps its locks to itself with it,
    so it never leaves lock files in the host's own folder."""
    override = os.environ.get(LOCK_DIR_ENV, "").strip()
    if override:
        return override
    for parent in LOCK_PARENTS:
        if _open_to_everyone(parent):
            return os.path.join(parent, LOCK_DIR_NAME)
    return os.path.join(LOCK_PARENTS[-1], LOCK_DIR_NAME)


def lock_path(lock_dir: str, key: str) -> str:
    """The lock file of a server identity key (hashed: the key never shows as a file name)."""
    return os.path.join(lock_dir, "lock-" + hashlib.sha256(key.encode()).hexdigest()[:24])


def _prepare_dir(lock_dir: str) -> None:
    """Create the folder open to every user (sticky: nobody removes another's lock file), or
    check that the existing one is a real folder."""
    try:
        os.mkdir(lock_dir, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        raise LockError(f"cannot create the lock folder {lock_dir}: {exc.strerror}") from exc
    else:
        os.chmod(lock_dir, 0o1777)
    try:
        st = os.lstat(lock_dir)
    except OSError as exc:
        raise LockError(f"cannot use the lock folder {lock_dir}: {exc.strerror}") from exc
    if not stat.S_ISDIR(st.st_mode):
        raise LockError(f"the lock folder {lock_dir} is not a folder (a link or a file?)")


def _open_lock(path: str) -> tuple[int, bool]:
    """(fd, writable): read-write if we may, read-only otherwise (flock needs no more)."""
    base = os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | base, 0o666), True
    except PermissionError:
        pass
    except OSError as exc:
        raise LockError(f"cannot open the lock file {path}: {exc.strerror}") from exc
    try:
        return os.open(path, os.O_RDONLY | base), False
    except OSError as exc:
        folder = os.path.dirname(path)
        try:
            st = os.stat(folder)
            owner = f" (the folder belongs to uid {st.st_uid}, mode {st.st_mode & 0o7777:o})"
        except OSError:
            owner = ""
        raise LockError(f"cannot open the lock file {path}: {exc.strerror}{owner}") from exc


def holder_info(
    spool: str | None, config: dict[str, Any], server: str, by: str = ""
) -> dict[str, Any]:
    """What the lock file says about its holder: this agent, its run and its desktop."""
    try:
        user = getpass.getuser()
    except (OSError, KeyError):  # no login name and no passwd entry for this uid
        user = f"uid {os.getuid()}"
    return {
        "pid": os.getpid(),
        "user": user,
        "host": socket.gethostname(),
        "since": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "spool": os.path.abspath(spool) if spool else None,
        "by": by,
        "session_id": config.get("session_id"),
        "session_name": config.get("session_name"),
        "action": config.get("action"),
        "server": server,
    }


def _alive(pid: Any, host: Any) -> bool | None:
    """Whether the holder's pid still runs (None: cannot tell, another host's pid)."""
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return None
    if host != socket.gethostname():
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's live process
    return True


def _printable(text: str) -> str:
    """The text with every control, format (bidirectional) or unassigned character shown as
    its escape: the lock file may have been written by anyone who can write to it."""
    return "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in text)


def describe_holder(text: str) -> str:
    """Who holds a lock, in words, from the lock file's text."""
    try:
        info = json.loads(text)
    except (ValueError, RecursionError):  # not what an agent writes: show it as it is
        return _printable(text[:500]) or "a process that has not said who it is"
    if not isinstance(info, dict):
        return _printable(text[:500])
    who = f"agent pid {info.get('pid')} of {info.get('user')} on {info.get('host')}"
    if info.get("by"):
        who += f" (started from {info['by']})"
    text = f"{who}, since {info.get('since')}"
    if info.get("spool"):
        text += f", spool {info.get('spool')}"
    session = info.get("session_id")
    if session is not None or info.get("session_name"):
        name = f' "{info["session_name"]}"' if info.get("session_name") else ""
        run = info.get("action") or "run"
        text = f"session {session}{name} ({run}): {text}"
    if _alive(info.get("pid"), info.get("host")) is False:
        text = (
            "a run that is just starting (the lock file still names the previous holder, whose"
            f" process has ended: {text})"
        )
    return _printable(text)


def take_lock(path: str, holder: dict[str, Any]) -> tuple[HeldLock | None, str]:
    """Hold an exclusive lock on ``path`` until the process ends: (lock, "") when taken, or
    (None, who holds it). Raises :class:`LockError` when it cannot be taken at all."""
    folder = os.path.dirname(path) or "."
    _prepare_dir(folder)
    fd, writable = _open_lock(path)
    taken: str | None = None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise LockError(f"the lock file {path} is not a regular file")
        if st.st_uid == os.geteuid() and st.st_mode & 0o777 != 0o666:
            os.fchmod(fd, 0o666)  # whoever takes it next, as any user, says who they are
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            taken = os.pread(fd, 65536, 0).decode("utf-8", errors="replace").strip()
    except BaseException:
        os.close(fd)
        raise
    if taken is not None:
        os.close(fd)
        return None, describe_holder(taken)
    if writable:
        data = (json.dumps(holder) + "\n").encode()
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)
    return HeldLock(path, fd), ""
