"""One benchmark per database server at a time: the run lock, held by the agent (stdlib only).

The lock is a file whose name comes from the server's identity
(:mod:`bench_gui.engines.postgresql.agent.identity`), so every spelling of the server meets at one
file. It
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

A run on several driver hosts (``run_token`` in its configuration, the same for all its
agents) locks the server on every host it runs on, and two of its agents may share a host.
The first agent of the run on a host takes the lock, writes its name and the token, then holds
it *shared*; another agent of the run finds the token in the text, takes the lock shared too
and reads the text again (a run that took the lock over in between is not its own). Every
agent of the run holds the lock until it ends, so the lock lasts while any of them runs, even
when the first one died; a run without a token, or with another token, still meets a lock it
cannot take and is refused. Holding it shared is never a way in for another run: its text
cannot change while anyone holds it.
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

from bench_gui.wire.names import LOCK_DIR_ENV

LOCK_DIR_NAME: Final = "bench-gui-locks"
# Shared lock folders, in order of preference: the first whose parent is open to everyone.
LOCK_PARENTS: Final = ("/run/lock", "/tmp")
# How long an agent of a run waits for the run's lock to settle (the run's first agent on the
# host writing its name, or another run taking the lock over), in tries a pause apart.
SHARE_TRIES: Final = 150
SHARE_PAUSE_S: Final = 0.02


class LockError(RuntimeError):
    """The lock cannot be taken at all (not: someone else holds it); says where and why."""


@dataclass
class HeldLock:
    """The open lock file: the lock lasts as long as this object (and the process) does."""

    path: str
    fd: int
    # Who holds the lock with this agent, an agent of the same run on this host ("": nobody).
    shared_with: str = ""

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
        # The run this agent is part of (several driver hosts): its agents share the lock.
        "run_token": config.get("run_token") or None,
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


def describe_holder(text: str, run_holds: bool = False) -> str:
    """Who holds a lock, in words, from the lock file's text. ``run_holds``: the lock is known
    to be held shared, by the agents of the run the text names (its pid may have ended)."""
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
    ended = _alive(info.get("pid"), info.get("host")) is False
    if ended and run_holds:
        text = f"{text} (that agent has ended; the run's other agents on this host hold it)"
    elif ended:
        text = (
            "a run that is just starting (the lock file still names the previous holder, whose"
            f" process has ended: {text})"
        )
    return _printable(text)


def _token_of(text: str) -> str:
    """The run token a lock file's text names ("" for none, or for a text that is not an
    agent's)."""
    try:
        info = json.loads(text)
    except (ValueError, RecursionError):
        return ""
    token = info.get("run_token") if isinstance(info, dict) else None
    return token if isinstance(token, str) else ""


def _read(fd: int) -> str:
    return os.pread(fd, 65536, 0).decode("utf-8", errors="replace").strip()


def _flock(fd: int, how: int) -> bool:
    """``flock`` without waiting: whether it was granted."""
    try:
        fcntl.flock(fd, how | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _first(fd: int, writable: bool, holder: dict[str, Any]) -> tuple[str, str]:
    """The lock is ours alone: write our name; a run with a token then holds it shared."""
    if not writable:
        return "held", ""  # nobody can read our token: held alone, as without one
    data = (json.dumps(holder) + "\n").encode()
    os.ftruncate(fd, 0)
    os.pwrite(fd, data, 0)
    if holder.get("run_token") and not _flock(fd, fcntl.LOCK_SH):
        return "again", ""  # the kernel may drop a lock it turns shared: another took it
    return "held", ""


def _attempt(fd: int, writable: bool, holder: dict[str, Any]) -> tuple[str, str]:
    """One try at the lock: ("held", ""), ("shared", holder's text), ("refused", holder's
    text) or ("again", holder's text): the lock is changing hands, try again shortly."""
    if _flock(fd, fcntl.LOCK_EX):
        return _first(fd, writable, holder)
    text = _read(fd)
    token = holder.get("run_token") or ""
    if not token:
        return "refused", text
    if not _flock(fd, fcntl.LOCK_SH):
        # Held alone: by a run without a token, or by an agent between taking the lock and
        # writing its name (maybe the first agent of our run here): its text may be stale.
        return "again", text
    # Held shared: nobody writes the text while we hold it too, so read it as it is now.
    text = _read(fd)
    if _token_of(text) == token:
        return "shared", text
    if _flock(fd, fcntl.LOCK_EX):  # the others ended meanwhile: the lock is ours
        return _first(fd, writable, holder)
    return "refused", text  # the agents of the run the text names hold it


def _run_holds(fd: int, text: str) -> bool:
    """Whether a refused lock whose text names an agent that has ended is held, shared, by
    the other agents of that agent's run (a shared hold granted at once says so)."""
    try:
        info = json.loads(text)
    except (ValueError, RecursionError):
        return False
    if not isinstance(info, dict) or not info.get("run_token"):
        return False
    if _alive(info.get("pid"), info.get("host")) is not False:
        return False
    fcntl.flock(fd, fcntl.LOCK_UN)
    if not _flock(fd, fcntl.LOCK_SH):
        return False
    fcntl.flock(fd, fcntl.LOCK_UN)
    return True


def take_lock(path: str, holder: dict[str, Any]) -> tuple[HeldLock | None, str]:
    """Hold the lock on ``path`` until the process ends: (lock, "") when taken, (lock, who)
    when shared with an agent of the same run (``holder["run_token"]``, see the module
    docstring), or (None, who holds it). Raises :class:`LockError` when it cannot be taken at
    all."""
    folder = os.path.dirname(path) or "."
    _prepare_dir(folder)
    fd, writable = _open_lock(path)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise LockError(f"the lock file {path} is not a regular file")
        if st.st_uid == os.geteuid() and st.st_mode & 0o777 != 0o666:
            os.fchmod(fd, 0o666)  # whoever takes it next, as any user, says who they are
        for _ in range(SHARE_TRIES):
            outcome, text = _attempt(fd, writable, holder)
            if outcome != "again":
                break
            time.sleep(SHARE_PAUSE_S)
        else:
            outcome = "refused"
        run_holds = outcome == "refused" and _run_holds(fd, text)
    except BaseException:
        os.close(fd)
        raise
    if outcome == "held":
        return HeldLock(path, fd), ""
    if outcome == "shared":
        with_whom = describe_holder(text, run_holds=True)
        return HeldLock(path, fd, shared_with=with_whom), with_whom
    os.close(fd)
    return None, describe_holder(text, run_holds)
