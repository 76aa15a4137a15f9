"""SSH targets for the runner: connect, test, and run the agent on a driver host.

:class:`SSHTransport` deploys the agent (:mod:`bench_gui.remote.deploy`), starts it detached in
its own session and process group (``setsid nohup``), so a dropped link does not stop a run, and
follows the spool file the agent writes on the host. When the link drops, the follower reconnects
with backoff and resumes from the last byte it had read, skipping any event whose ``seq`` it has
already passed on: no gap, no duplicate. The link's state reaches the app through
``on_link_state(state, detail)`` rather than as synthetic events (the session store keys events by
``seq``; an invented one would collide with the agent's).

Secrets reach the agent through a 0600 file it reads and deletes (``--env-file``), never through a
command line. One benchmark per database server at a time: the agent holds the server's run lock
in the host's shared lock folder (:mod:`bench_gui.agent.runlock`), the same one a local run on
that host takes.
"""

from __future__ import annotations

import json
import logging
import os
import shlex
import threading
import time
import uuid
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import paramiko

from bench_gui.agent.protocol import (
    INT64_MAX,
    MAX_LINE_BYTES,
    Event,
    ProtocolError,
    decode_line,
)
from bench_gui.agent.runlock import LOCK_DIR_ENV
from bench_gui.core.events import SeqGuard, Verdict, scrubbed
from bench_gui.remote.connection import (
    DEFAULT_TIMEOUT,
    CommandLogEntry,
    CommandResult,
    SSHConnection,
    connect,
)
from bench_gui.remote.deploy import (
    Deployment,
    check_python_version,
    deploy,
    probe_python,
)
from bench_gui.remote.errors import (
    AuthFailed,
    ChangedHostKey,
    CommandTimeout,
    ConnectError,
    ConnectionRefused,
    DeployError,
    HostKeyError,
    HostNotFound,
    KeyPassphraseNeeded,
    NoAnswer,
    NoSudo,
    RemotePythonUnsupported,
    SSHError,
    UnknownHostKey,
)
from bench_gui.remote.secrets import TargetSecrets
from bench_gui.remote.targets import SSHTarget
from bench_gui.remote.transport import (
    LOCK_HOLDER_ENV,
    AgentRun,
    BadLine,
    Transport,
    desktop_identity,
)

log = logging.getLogger(__name__)

__all__ = [
    "AuthFailed",
    "ChangedHostKey",
    "CommandLogEntry",
    "CommandResult",
    "CommandTimeout",
    "ConnectError",
    "ConnectionRefused",
    "DeployError",
    "HostKeyError",
    "HostNotFound",
    "KeyPassphraseNeeded",
    "NoAnswer",
    "NoSudo",
    "RemotePythonUnsupported",
    "RemoteRun",
    "SSHAgentRun",
    "SSHError",
    "SSHConnection",
    "SSHTransport",
    "TargetReport",
    "UnknownHostKey",
    "check_target",
    "connect",
    "default_remote_root",
    "desktop_identity",
    "test_target",
]

DEFAULT_REMOTE_ROOT: Final = "~/.cache/bench-gui"
# Where the agent and its runs go on every driver host instead, when set on the desktop (tests
# and CI give each test its own folder; a host whose home is small or shared can use another).
REMOTE_ROOT_ENV: Final = "BENCH_GUI_REMOTE_ROOT"
BACKOFF: Final = (0.5, 1.0, 2.0, 4.0, 8.0)
BACKOFF_CAP: Final = 10.0
LINK_LOST: Final = "link lost — the run continues on the target — reconnecting"
LINK_RESTORED: Final = "link restored"
# Exit codes reported by wait(), derived from the agent's ``done`` (it runs detached, so its
# real exit status is not collected); -1: it ended without a ``done`` (killed, crashed).
_DONE_CODES: Final = {"ok": 0, "stopped": 0, "failed": 2}
EXIT_LOCKED: Final = 4
EXIT_LOST: Final = -1

# $1 pid, $2 signal, $3 "group" or "one". Signals only a process that really is the agent (a
# pid can be reused); with "group", also members of its group left behind by a dead leader.
_SIGNAL_SCRIPT: Final = r"""
pid=$1; sig=$2; scope=$3
if grep -qa bench_gui.agent "/proc/$pid/cmdline" 2>/dev/null; then
    if [ "$scope" = group ]; then kill -s "$sig" -- "-$pid"; else kill -s "$sig" "$pid"; fi
    exit 0
fi
if [ "$scope" = group ]; then
    for p in $(ps -eo pid=,pgid= | awk -v g="$pid" '$2 == g {print $1}'); do
        grep -qa -e bench_gui -e multiprocessing "/proc/$p/cmdline" 2>/dev/null &&
            kill -s "$sig" "$p"
    done
fi
exit 3
"""
# $1 pid: exit 0 while the agent runs; 1 when no process of its group is left; 2 when only
# stragglers of its group are (workers whose leader is gone).
_ALIVE_SCRIPT: Final = r"""
grep -qa bench_gui.agent "/proc/$1/cmdline" 2>/dev/null && exit 0
ps -eo pgid=,stat= | awk -v g="$1" '$1 == g && $2 !~ /^Z/ {found = 1} END {exit found ? 2 : 1}'
"""
_LIST_SCRIPT: Final = r"""
import json, os, sys
runs = os.path.join(sys.argv[1], "runs")
out = []
for name in sorted(os.listdir(runs)) if os.path.isdir(runs) else []:
    d = os.path.join(runs, name)
    if not os.path.isdir(d):
        continue
    info = {"run_id": name, "run_dir": d, "meta": {}, "pid": None}
    isfile = lambda base: os.path.isfile(os.path.join(d, base))  # never open a FIFO
    try:
        with open(os.path.join(d, "meta.json") if isfile("meta.json") else os.devnull, "rb") as fh:
            meta = json.loads(fh.read(1048576))
        if isinstance(meta, dict):
            info["meta"] = meta
    except (OSError, ValueError, RecursionError):
        pass
    try:
        with open(os.path.join(d, "agent.pid") if isfile("agent.pid") else os.devnull) as fh:
            pid = int(fh.read(32).strip())
        if 0 < pid < 4194305:
            info["pid"] = pid
    except (OSError, ValueError):
        pass
    alive = False
    if info["pid"]:
        try:
            with open("/proc/%d/cmdline" % info["pid"], "rb") as fh:
                alive = b"bench_gui.agent" in fh.read()
        except (OSError, ValueError):
            alive = False
    size, done, last_seq = 0, None, 0
    spool = os.path.join(d, "events.jsonl")
    try:
        size = os.path.getsize(spool) if isfile("events.jsonl") else 0
        with open(spool if size else os.devnull, "rb") as fh:
            fh.seek(max(0, size - 262144))
            # A corrupt line (deep, huge, not JSON) is passed over, and a seq counts only when
            # it goes on from the line before it: a stray jump is not the run's last event.
            prev = 0 if size <= 262144 else None
            for line in fh.read().splitlines():
                try:
                    ev = json.loads(line)
                except (ValueError, RecursionError):
                    continue
                if not isinstance(ev, dict):
                    continue
                seq = ev.get("seq")
                if type(seq) is not int:
                    continue
                if prev is not None and seq == prev + 1 and seq > last_seq:
                    last_seq = seq
                prev = seq
                if ev.get("kind") == "done" and isinstance(ev.get("status"), str):
                    done = ev["status"][:40]
    except (OSError, MemoryError):
        pass
    info.update(spool_bytes=size, last_seq=last_seq, done=done,
                state="running" if alive else ("finished" if done else "ended"))
    out.append(info)
print(json.dumps(out))
"""


@dataclass
class RemoteRun:
    """A run directory on a driver host, for re-attaching."""

    run_id: str
    run_dir: str
    state: str  # running | finished (has a done) | ended (gone without a done)
    pid: int | None
    spool_bytes: int
    last_seq: int
    done: str | None
    meta: dict[str, Any] = field(default_factory=dict)


def _remote_run(row: Any) -> RemoteRun | None:
    """One row of the run listing, every field of the right type (a run's meta.json is whatever
    its file held: scrubbed like an event's payload); None for a row that names no run."""
    if not isinstance(row, dict):
        return None
    run_id, run_dir = row.get("run_id"), row.get("run_dir")
    if not isinstance(run_id, str) or not isinstance(run_dir, str):
        return None

    def whole(value: Any) -> int:
        return value if type(value) is int and 0 <= value <= INT64_MAX else 0

    pid, state, done, meta = row.get("pid"), row.get("state"), row.get("done"), row.get("meta")
    return RemoteRun(
        run_id=run_id,
        run_dir=run_dir,
        state=state if state in ("running", "finished", "ended") else "ended",
        pid=whole(pid) or None,
        spool_bytes=whole(row.get("spool_bytes")),
        last_seq=whole(row.get("last_seq")),
        done=done if isinstance(done, str) else None,
        meta=scrubbed(meta) if isinstance(meta, dict) else {},
    )


class _LinkLost(Exception):
    pass


class SSHAgentRun(AgentRun):
    """An agent running detached on a driver host, followed through its spool file.

    ``events()`` is a blocking generator (for a worker thread). ``stop()``, ``kill()``,
    ``wait()`` and ``close()`` may be called from other threads. ``on_link_state`` is called
    from the thread that reads the events, with ``state`` one of ``lost``, ``reconnecting``,
    ``restored``, ``failed``.
    """

    def __init__(
        self,
        transport: SSHTransport,
        run_dir: str,
        pid: int,
        session: SSHConnection | None,
        from_seq: int = 0,
        follow: str = "tail",
    ) -> None:
        self.transport = transport
        self.run_dir = run_dir
        self.pid = pid
        self.spool = f"{run_dir}/events.jsonl"
        self.stderr_path = f"{run_dir}/agent.stderr"
        self.follow = follow
        self.offset = 0  # bytes of the spool consumed (complete lines only)
        self.last_seq = from_seq
        # Places each event by its seq (bad lines for repeats and stray jumps); it outlives the
        # link, so a resumed follower goes on where it was.
        self._guard = SeqGuard(resume_after=from_seq)
        # A longer line is skipped as it streams in (never buffered whole), then reported.
        self.max_line_bytes = MAX_LINE_BYTES
        self._skipping = 0  # bytes of an over-long line dropped so far (0: not skipping)
        self._skipped_head = b""
        self.final: Event | None = None
        self.error_code: str | None = None
        self.on_link_state: Callable[[str, str], None] | None = transport.on_link_state
        self.link_log: list[tuple[float, str, str]] = []
        self.reconnects = 0
        self._session = session
        self._session_lock = threading.Lock()
        self._cancel = threading.Event()
        self._killed = False
        self._pending_signal: str | None = None
        self._channel: paramiko.Channel | None = None
        self._tail_failures = 0
        # After this long without a byte, a round trip checks the link (and the agent).
        self.idle_probe_s = 5.0
        self.probe_timeout = 5.0
        self.poll_interval = 0.1

    @property
    def local_port(self) -> int | None:
        """The local TCP port of the link being followed (None while it is down)."""
        session = self._current()
        return session.local_port if session is not None else None

    # -- link ---------------------------------------------------------------------------------

    def _link(self, state: str, detail: str) -> None:
        self.link_log.append((time.time(), state, detail))
        if self.on_link_state is not None:
            try:
                self.on_link_state(state, detail)
            except Exception:  # the caller's hook (a page): it must not break the stream
                log.warning("the link state hook failed on %r", state, exc_info=True)

    def _current(self) -> SSHConnection | None:
        with self._session_lock:
            session = self._session
        if session is not None and session.is_active():
            return session
        return None

    def _drop_session(self) -> None:
        with self._session_lock:
            session, self._session = self._session, None
        if session is not None:
            session.close()

    def _reconnect(self) -> SSHConnection:
        """Connect again, with backoff, until it works, the run is cancelled (:meth:`close`) or
        the transport's ``max_outage`` has passed."""
        attempt = 0
        lost_at = time.monotonic()
        while not self._cancel.is_set():
            delay = BACKOFF[attempt] if attempt < len(BACKOFF) else BACKOFF_CAP
            if self._cancel.wait(delay):
                break
            attempt += 1
            try:
                session = self.transport.connect()
            except HostKeyError as exc:
                # Never retry past a host key problem: it needs a person.
                self._link("failed", str(exc))
                raise
            except SSHError as exc:
                nxt = BACKOFF[attempt] if attempt < len(BACKOFF) else BACKOFF_CAP
                limit = self.transport.max_outage
                if self._killed or (limit is not None and time.monotonic() - lost_at > limit):
                    self._link("failed", f"gave up reconnecting: {exc}")
                    raise ConnectError(
                        f"the link to {self.transport.target.name} has been down for"
                        f" {time.monotonic() - lost_at:.0f} s ({exc}); the run goes on on the"
                        f" host and can be re-attached ({self.run_dir})"
                    ) from None
                self._link("reconnecting", f"attempt {attempt} failed: {exc}; next in {nxt:g} s")
                continue
            with self._session_lock:
                current = self._session
                if current is not None and current is not session and current.is_active():
                    # stop()/wait() reconnected meanwhile: share theirs.
                    session.close()
                    session = current
                else:
                    self._session = session
            self.reconnects += 1
            self._link("restored", LINK_RESTORED)
            if self._pending_signal:
                sig, self._pending_signal = self._pending_signal, None
                self._send_signal(session, sig, "group" if sig == "KILL" else "one")
            return session
        raise _LinkLost("cancelled")

    def _session_for_control(self) -> SSHConnection:
        """The follower's session if it is alive, else a new one (stop/kill/wait)."""
        session = self._current()
        if session is not None:
            return session
        session = self.transport.connect()
        with self._session_lock:
            if self._session is None:
                self._session = session
                return session
        return session

    # -- events -------------------------------------------------------------------------------

    def events(self) -> Iterator[Event | BadLine]:
        if self.final is not None:
            return
        while not self._cancel.is_set():
            try:
                session = self._current()
                if session is None:
                    self._drop_session()
                    session = self._reconnect()
                if self.follow == "sftp" or self._tail_failures >= 3:
                    finished = yield from self._follow_sftp(session)
                else:
                    finished = yield from self._follow_tail(session)
            except _LinkLost:
                if self._cancel.is_set():
                    return
                self._link("lost", LINK_LOST)
                self._drop_session()
                continue
            if finished:
                if self.final is None and not self._cancel.is_set():
                    # The stream is over: an event held for its seq is settled now.
                    for verdict in self._guard.flush():
                        yield self._verdict(verdict)
                return

    def _parse(self, buffer: bytearray) -> Iterator[Event | BadLine]:
        """Complete lines out of ``buffer`` (consumed in place), as events not seen yet.

        Never raises on what the spool holds: a line that is not an event, that repeats or
        jumps its seq (:class:`~bench_gui.core.events.SeqGuard`) or that is longer than
        :attr:`max_line_bytes` is one :class:`BadLine`, and the lines after it are read on.
        """
        while True:
            end = buffer.find(b"\n")
            if end < 0:
                if self._skipping or len(buffer) > self.max_line_bytes:
                    self._skip(buffer, len(buffer))
                return
            if self._skipping or end > self.max_line_bytes:
                self._skip(buffer, end + 1)
                size, self._skipping = self._skipping - 1, 0
                if not self._guard.replaying:
                    head = self._skipped_head.decode("utf-8", errors="replace")
                    yield BadLine(
                        f"{head}…",
                        ProtocolError(
                            f"line of {size:,} bytes, longer than {self.max_line_bytes:,}: skipped"
                        ),
                    )
                continue
            raw = bytes(buffer[:end])
            del buffer[: end + 1]
            self.offset += end + 1
            text = raw.decode("utf-8", errors="replace")
            if not text.strip():
                continue
            try:
                event = decode_line(text)
            except ProtocolError as exc:
                if not self._guard.replaying:  # else reported when it was first read
                    yield BadLine(text, exc)
                continue
            for verdict in self._guard.push(event, text):
                yield self._verdict(verdict)

    def _skip(self, buffer: bytearray, n: int) -> None:
        """Drop ``n`` bytes of an over-long line (its first 200 are kept for the report)."""
        if not self._skipping:
            self._skipped_head = bytes(buffer[:200])
        self._skipping += n
        self.offset += n
        del buffer[:n]

    def _verdict(self, verdict: Verdict) -> Event | BadLine:
        """An event the guard passed on (the run's end when it is the ``done``), or its line
        as a bad line."""
        if verdict.problem is not None:
            return BadLine(verdict.line, ProtocolError(verdict.problem))
        event = verdict.event
        self.last_seq = event.seq
        if event.kind == "error" and event.get("code") == "locked":
            self.error_code = "locked"
        if event.kind == "done":
            self.final = event
        return event

    def _follow_tail(self, session: SSHConnection) -> Generator[Event | BadLine, None, bool]:
        """Follow with ``tail -F`` on the host: inotify wakes it, so lines arrive at once.

        ``--pid`` makes tail end (after reading what is left) when the agent has ended.
        """
        if self.offset == 0 and not self._wait_for_spool(session):
            return (yield from self._after_follower(session, quick=False))
        tail = ["tail", "-c", f"+{self.offset + 1}", "-F", f"--pid={self.pid}", "-s", "0.5"]
        command = shlex.join([*tail, self.spool])
        started = time.time()
        t0 = time.monotonic()
        try:
            chan = session.exec_channel(command)
        except ConnectError as exc:
            raise _LinkLost(str(exc)) from None
        self._channel = chan
        chan.settimeout(0.2)
        buffer = bytearray()
        last_data = time.monotonic()
        try:
            while True:
                if self._cancel.is_set():
                    return True
                try:
                    data = chan.recv(65536)
                except TimeoutError:
                    while chan.recv_stderr_ready():
                        chan.recv_stderr(65536)
                    if not session.is_active():
                        raise _LinkLost("transport closed") from None
                    if time.monotonic() - last_data > self.idle_probe_s:
                        # Quiet for a while: a round trip tells whether the link is alive (a
                        # dead Wi-Fi link sends no FIN), and whether the agent is (tail's
                        # --pid takes a zombie for a live process).
                        last_data = time.monotonic()
                        if self._probe_alive(session) != 0:
                            return (yield from self._after_follower(session, quick=False))
                    continue
                except (OSError, EOFError, paramiko.SSHException) as exc:
                    raise _LinkLost(str(exc)) from None
                if data:
                    last_data = time.monotonic()
                    buffer.extend(data)
                    for item in self._parse(buffer):
                        yield item
                        if self.final is not None:
                            return True
                    continue
                # EOF: the link went down, or tail ended (the agent has ended, or tail failed).
                deadline = time.monotonic() + 1.0
                while session.is_active() and time.monotonic() < deadline:
                    if chan.exit_status_ready() and chan.exit_status >= 0:
                        break
                    time.sleep(0.02)
                if not session.is_active():
                    raise _LinkLost("transport closed")
                return (yield from self._after_follower(session, quick=time.monotonic() - t0 < 2))
        finally:
            self._channel = None
            chan.close()
            status = chan.exit_status if chan.exit_status_ready() else None
            session.log_command(command, status, time.monotonic() - t0, started)

    def _wait_for_spool(self, session: SSHConnection) -> bool:
        """Wait until the spool exists (False: the agent ended first).

        GNU tail -F falls back to polling every -s seconds when the file is missing at its
        start, which would cost a quarter of a second per event: so it starts only once the
        file is there.
        """
        last_check = 0.0
        while not self._cancel.is_set():
            try:
                session.sftp().stat(self.spool)
                return True
            except FileNotFoundError:
                pass
            except (OSError, EOFError, paramiko.SSHException, ConnectError) as exc:
                raise _LinkLost(str(exc)) from None
            if time.monotonic() - last_check > 1.0:
                last_check = time.monotonic()
                if self._probe_alive(session) != 0:
                    return False
            time.sleep(self.poll_interval)
        return False

    def _follow_sftp(self, session: SSHConnection) -> Generator[Event | BadLine, None, bool]:
        """Follow by reading the spool over SFTP every ``poll_interval`` (no tail needed)."""
        buffer = bytearray()
        last_check = time.monotonic()
        try:
            sftp = session.sftp()
            fh = sftp.open(self.spool, "rb")
        except FileNotFoundError:
            fh = None
        except (OSError, EOFError, paramiko.SSHException, ConnectError) as exc:
            raise _LinkLost(str(exc)) from None
        try:
            while not self._cancel.is_set():
                try:
                    if fh is None:
                        try:
                            fh = session.sftp().open(self.spool, "rb")
                        except FileNotFoundError:
                            fh = None
                    data = b""
                    if fh is not None:
                        fh.seek(self.offset + len(buffer))
                        data = fh.read(1 << 20)
                except (OSError, EOFError, paramiko.SSHException, ConnectError) as exc:
                    if not session.is_active() or isinstance(exc, ConnectError | EOFError):
                        raise _LinkLost(str(exc)) from None
                    raise SSHError(f"cannot read {self.spool} on {session.label}: {exc}") from None
                if data:
                    buffer.extend(data)
                    for item in self._parse(buffer):
                        yield item
                        if self.final is not None:
                            return True
                    continue
                now = time.monotonic()
                if now - last_check > 1.0:
                    last_check = now
                    if not session.is_active():
                        raise _LinkLost("transport closed")
                    if self._probe_alive(session) != 0:
                        return (yield from self._after_follower(session, quick=False))
                time.sleep(self.poll_interval)
            return True
        finally:
            if fh is not None:
                try:
                    fh.close()
                except (OSError, EOFError, paramiko.SSHException):
                    pass  # closing on a dead link

    def _after_follower(
        self, session: SSHConnection, quick: bool
    ) -> Generator[Event | BadLine, None, bool]:
        """The follower ended with the link up: read what is left; True if the stream is over."""
        alive = self._probe_alive(session)
        if alive == 0:
            # The agent runs but tail ended: it failed (no GNU tail?) — try again, then SFTP.
            self._tail_failures += 1 if quick else 0
            return False
        try:
            rest = session.read_bytes(self.spool, self.offset)
        except FileNotFoundError:
            rest = b""
        except ConnectError as exc:
            raise _LinkLost(str(exc)) from None
        buffer = bytearray(rest)
        if buffer and not buffer.endswith(b"\n"):
            buffer.extend(b"\n")  # a last line cut short by a crash: parse it as it is
        for item in self._parse(buffer):
            yield item
            if self.final is not None:
                break
        return True

    # -- control ------------------------------------------------------------------------------

    def _alive(self, session: SSHConnection, timeout: float = 20.0) -> int:
        """0: the agent runs; 1: nothing of it is left; 2: only stragglers of its group are."""
        result = session.run(["sh", "-c", _ALIVE_SCRIPT, "sh", str(self.pid)], timeout=timeout)
        return result.exit_status if result.exit_status in (0, 1, 2) else 0

    def _probe_alive(self, session: SSHConnection) -> int:
        """:meth:`_alive` as a link probe: no answer in ``probe_timeout`` s: the link is gone."""
        try:
            return self._alive(session, timeout=self.probe_timeout)
        except SSHError as exc:
            raise _LinkLost(str(exc)) from None

    def _send_signal(self, session: SSHConnection, sig: str, scope: str) -> None:
        session.run(["sh", "-c", _SIGNAL_SCRIPT, "sh", str(self.pid), sig, scope], timeout=20)

    def _signal(self, sig: str, scope: str) -> None:
        """Send a signal now, or as soon as the follower has the link back. Never raises:
        stop and kill are called from error paths, which must not be masked."""
        try:
            session = self._session_for_control()
            self._send_signal(session, sig, scope)
        except HostKeyError as exc:
            self._pending_signal = sig
            self._link("failed", f"cannot send SIG{sig} to the agent: {exc}")
        except SSHError:
            # The link is down: the follower sends it as soon as it is back.
            self._pending_signal = sig

    def stop(self) -> None:
        """SIGTERM to the agent: it ends its step, reports what it measured, then ``done``.

        Only the agent's main process gets it (its workers are stopped by the agent, cleanly);
        what is left of its process group once it has ended is killed by :meth:`wait`.
        """
        self._signal("TERM", "one")

    def kill(self) -> None:
        """SIGKILL to the agent's whole process group, now."""
        self._killed = True
        self._signal("KILL", "group")

    def close(self) -> None:
        """Stop following (the run goes on on the host; :meth:`SSHTransport.attach` resumes)."""
        self._cancel.set()
        chan = self._channel
        if chan is not None:
            chan.close()
        self._drop_session()

    def wait(self, timeout: float | None = None) -> int | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        stragglers_killed = False
        while True:
            try:
                session = self._session_for_control()
                state = self._alive(session)
                if state == 1 or (
                    state == 2
                    and stragglers_killed
                    and deadline is not None
                    and time.monotonic() >= deadline
                ):
                    return self._exit_code(session)
                if state == 2:
                    # The agent has ended; what is left of its group would run unsupervised.
                    self._send_signal(session, "KILL", "group")
                    stragglers_killed = True
            except HostKeyError:
                return None
            except SSHError:
                pass
            if deadline is not None and time.monotonic() >= deadline:
                return None
            time.sleep(0.1)

    def _exit_code(self, session: SSHConnection) -> int:
        final = self.final
        if final is None:
            # Not followed to the end (or not at all): look for the done in the spool.
            try:
                size = session.sftp().stat(self.spool).st_size or 0
                tail = session.read_bytes(self.spool, max(0, size - 65536))
            except (OSError, SSHError):
                tail = b""
            for line in tail.splitlines():
                try:
                    event = decode_line(line)
                except ProtocolError:
                    continue
                if event.kind == "error" and event.get("code") == "locked":
                    self.error_code = "locked"
                if event.kind == "done":
                    final = event
        if final is None:
            return EXIT_LOST
        if self.error_code == "locked":
            return EXIT_LOCKED
        return _DONE_CODES.get(str(final.get("status")), 2)

    def diagnostics(self) -> str:
        try:
            session = self._session_for_control()
            size = session.sftp().stat(self.stderr_path).st_size or 0
            data = session.read_bytes(self.stderr_path, max(0, size - 4000))
        except (OSError, SSHError):
            return ""
        return data.decode("utf-8", errors="replace")


def default_remote_root() -> str:
    """The folder of the agent's copies and run directories on a driver host:
    ``$BENCH_GUI_REMOTE_ROOT`` of this desktop when set (``~/`` is the remote home), else
    ``~/.cache/bench-gui``."""
    return os.environ.get(REMOTE_ROOT_ENV, "").strip() or DEFAULT_REMOTE_ROOT


class SSHTransport(Transport):
    """Starts agents on a driver host reached over SSH, and re-attaches to their runs.

    ``known_hosts`` is the app's known-hosts file (see :func:`connect`); ``remote_root`` the
    cache on the host (agent copies, run directories; None: :func:`default_remote_root`);
    ``lock_dir`` the folder of the run
    locks on the host (None: the host's shared one, which every local and SSH run there uses).
    A follower whose link is down keeps reconnecting (the run goes on on the host) until
    ``max_outage`` seconds have passed (None: for ever; :meth:`SSHAgentRun.close` gives up).
    ``on_command`` receives every command run on the host (secrets redacted), for the session's
    command log; ``on_started`` receives each :class:`SSHAgentRun` as soon as it exists (to
    record its ``run_dir`` with the session, for re-attaching).
    """

    name = "ssh"

    def __init__(
        self,
        target: SSHTarget,
        *,
        accept_fingerprint: str | None = None,
        known_hosts: Path | None = None,
        remote_root: str | None = None,
        connect_timeout: float = DEFAULT_TIMEOUT,
        max_outage: float | None = None,
        secrets: TargetSecrets | None = None,
        ssh_config: Path | None = None,
        follow: str = "tail",
        on_link_state: Callable[[str, str], None] | None = None,
        on_command: Callable[[CommandLogEntry], None] | None = None,
        on_started: Callable[[SSHAgentRun], None] | None = None,
        lock_dir: str | None = None,
    ) -> None:
        if follow not in ("tail", "sftp"):
            raise ValueError("follow must be 'tail' or 'sftp'")
        self.target = target
        self.accept_fingerprint = accept_fingerprint
        self.known_hosts = known_hosts
        self.remote_root = remote_root or default_remote_root()
        self.connect_timeout = connect_timeout
        self.max_outage = max_outage
        self.secrets = secrets
        self.ssh_config = ssh_config
        self.follow = follow
        self.on_link_state = on_link_state
        self.on_command = on_command
        self.on_started = on_started
        # BENCH_GUI_LOCK_DIR, when the desktop has it, names the driver hosts' lock folder too
        # (a test suite keeps its locks to itself); otherwise the agent picks the host's own.
        self.lock_dir = lock_dir or os.environ.get(LOCK_DIR_ENV, "").strip() or None
        self.command_log: list[CommandLogEntry] = []
        self.deployment: Deployment | None = None
        self._control: SSHConnection | None = None
        self._lock = threading.Lock()

    # -- sessions -----------------------------------------------------------------------------

    def _record(self, entry: CommandLogEntry) -> None:
        self.command_log.append(entry)
        if self.on_command is not None:
            self.on_command(entry)

    def connect(self) -> SSHConnection:
        """A new SSH session to the target (its commands land in :attr:`command_log`)."""
        return connect(
            self.target,
            accept_fingerprint=self.accept_fingerprint,
            timeout=self.connect_timeout,
            known_hosts=self.known_hosts,
            secrets=self.secrets,
            ssh_config=self.ssh_config,
            on_command=self._record,
        )

    def session(self) -> SSHConnection:
        """The transport's own session for short commands, reopened if the link dropped."""
        with self._lock:
            if self._control is None or not self._control.is_active():
                if self._control is not None:
                    self._control.close()
                self._control = self.connect()
            return self._control

    def close(self) -> None:
        with self._lock:
            if self._control is not None:
                self._control.close()
                self._control = None

    def root(self, session: SSHConnection) -> str:
        return session.abspath(self.remote_root)

    # -- agent --------------------------------------------------------------------------------

    def deploy(self) -> Deployment:
        """Make sure the agent is on the host (uploaded once per version and dependencies)."""
        session = self.session()
        self.deployment = deploy(session, self.target.python, self.remote_root)
        return self.deployment

    def start_agent(self, config: dict[str, Any], env: dict[str, str]) -> SSHAgentRun:
        session = self.session()
        deployment = self.deploy()
        root = self.root(session)
        run_id = time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + uuid.uuid4().hex[:6]
        run_dir = f"{root}/runs/{run_id}"
        for value in env.values():
            session.redact.add(value)
        session.run(["mkdir", "-p", "-m", "700", run_dir], check=True)
        session.put_bytes(b"", f"{run_dir}/events.jsonl", 0o600)  # for tail -F from the start
        meta = {
            "run_id": run_id,
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "desktop": desktop_identity(),
            "target": self.target.name,
            "action": config.get("action"),
            "engine": config.get("engine"),
            "database": config.get("database"),
            "session_id": config.get("session_id"),
            "agent_dir": deployment.agent_dir,
        }
        session.put_bytes(json.dumps(config, indent=1).encode(), f"{run_dir}/config.json", 0o600)
        session.put_bytes(json.dumps(meta, indent=1).encode(), f"{run_dir}/meta.json", 0o600)
        secrets = dict(env)
        secrets[LOCK_HOLDER_ENV] = desktop_identity()
        session.put_bytes(json.dumps(secrets).encode(), f"{run_dir}/env.json", 0o600)
        lock_args = ["--lock-dir", session.abspath(self.lock_dir)] if self.lock_dir else []
        agent = deployment.command(
            "--config",
            "config.json",
            "--spool",
            "events.jsonl",
            *lock_args,
            "--env-file",
            "env.json",
        )
        # setsid: its own session and process group, so a dropped link (or a closed channel)
        # never reaches it; nohup: no SIGHUP either. $! is the agent itself: a background job
        # of a non-interactive shell is no group leader, so setsid does not fork.
        script = (
            f"cd {shlex.quote(run_dir)} || exit 1\n"
            f"setsid nohup {shlex.join(agent)} >/dev/null 2>agent.stderr </dev/null &\n"
            "echo $! > agent.pid\necho $!\n"
        )
        result = session.run(["sh", "-c", script], timeout=30)
        try:
            pid = int(result.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            raise DeployError(
                f"the agent did not start on {session.host}: {result.first_error_line()}"
            ) from None
        run = SSHAgentRun(self, run_dir, pid, session, follow=self.follow)
        if self.on_started is not None:
            self.on_started(run)
        return run

    def list_runs(self) -> list[RemoteRun]:
        """Run directories on the host, newest last, with their state (for re-attaching)."""
        session = self.session()
        python = self.target.python
        result = session.run([python, "-c", _LIST_SCRIPT, self.root(session)], timeout=60)
        if not result.ok:
            raise SSHError(f"cannot list the runs on {session.host}: {result.first_error_line()}")
        try:
            rows = json.loads(result.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError, RecursionError):
            return []
        runs = (_remote_run(r) for r in rows) if isinstance(rows, list) else ()
        return [r for r in runs if r is not None]

    def attach(self, run_dir: str, from_seq: int = 0) -> SSHAgentRun:
        """Follow a run already on the host, passing on only events after ``from_seq``."""
        session = self.session()
        run_dir = session.abspath(run_dir)
        try:
            pid = int(session.read_bytes(f"{run_dir}/agent.pid").decode().strip())
        except FileNotFoundError:
            raise SSHError(f"{run_dir} on {session.host} is not a run directory") from None
        except ValueError:
            raise SSHError(f"{run_dir}/agent.pid on {session.host} is unreadable") from None
        run = SSHAgentRun(self, run_dir, pid, self.connect(), from_seq=from_seq, follow=self.follow)
        if self.on_started is not None:
            self.on_started(run)
        return run

    def remove_run(self, run_dir: str) -> None:
        """Delete a finished run's directory on the host (refused while it runs)."""
        session = self.session()
        run_dir = session.abspath(run_dir)
        root = self.root(session)
        if not run_dir.startswith(f"{root}/runs/") or "/../" in run_dir:
            raise SSHError(f"{run_dir} is not a run directory of bench-gui")
        for run in self.list_runs():
            if run.run_dir == run_dir and run.state == "running":
                raise SSHError(f"the run in {run_dir} is still going on")
        session.run(["rm", "-rf", "--", run_dir], check=True)


# -- testing a target ------------------------------------------------------------------------

_DB_PROBE: Final = r"""
import json, os, shutil, socket, subprocess, sys
req = json.loads(sys.stdin.read())
if req.get("password"):
    os.environ["PGPASSWORD"] = req["password"]
def done(ok, method, detail):
    print(json.dumps({"ok": ok, "method": method, "detail": detail}))
    sys.exit(0)
try:
    import psycopg
except ImportError:
    psycopg = None
if psycopg is not None:
    try:
        with psycopg.connect(req["conninfo"], connect_timeout=5) as conn:
            version = conn.execute("SELECT current_setting('server_version')").fetchone()[0]
        done(True, "psycopg", "PostgreSQL " + version)
    except Exception as exc:
        done(False, "psycopg", str(exc).strip())
# The port libpq would use: Debian's pg_isready wrapper otherwise fills in its default cluster's.
port = str(req.get("port") or os.environ.get("PGPORT") or 5432)
exe = shutil.which("pg_isready")
if exe:
    r = subprocess.run([exe, "-d", req["conninfo"], "-p", port, "-t", "5"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    done(r.returncode == 0, "pg_isready", r.stdout.strip())
host = (req.get("host") or "localhost").split(",")[0]
try:
    port = int(port.split(",")[0])
except ValueError:
    done(False, "tcp", "port %r is not a number" % port)
try:
    if host.startswith("/"):
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(5)
        s.connect(os.path.join(host, ".s.PGSQL.%d" % port))
    else:
        s = socket.create_connection((host, port), 5)
    s.close()
    done(True, "tcp", "%s:%d accepts connections (server not identified)" % (host, port))
except OSError as exc:
    done(False, "tcp", "%s:%d: %s" % (host, port, exc))
"""


@dataclass
class TargetReport:
    """What :func:`test_target` found, one line per check in ``lines``."""

    target: str
    connected: bool = False
    login: str = ""
    python: str = ""
    python_ok: bool = False
    sudo: str = "unknown"  # root | passwordless | password | none
    sudo_ok: bool = False
    database: str = ""  # detail of the database check ("" when not checked)
    database_ok: bool | None = None
    lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.connected and self.python_ok and not self.problems

    def format(self) -> str:
        return "\n".join(self.lines)

    def _good(self, text: str) -> None:
        self.lines.append(f"ok: {text}")

    def _bad(self, text: str) -> None:
        self.lines.append(f"PROBLEM: {text}")
        self.problems.append(text)


def _check_sudo(session: SSHConnection, report: TargetReport) -> None:
    if session.user == "root":
        report.sudo, report.sudo_ok = "root", True
        report._good("logged in as root: no sudo needed")
        return
    if not session.run(["sh", "-c", "command -v sudo"], timeout=20).ok:
        report.sudo = "none"
        report._bad(
            f"no sudo: sudo is not installed on {session.host}, and {session.user} is not root"
            " (storage preparation and tuning need root)"
        )
        return
    if session.run(["sudo", "-n", "true"], timeout=20).ok:
        report.sudo, report.sudo_ok = "passwordless", True
        hint = "" if session.target.sudo == "passwordless" else " (set sudo = passwordless)"
        report._good(f"sudo works without a password{hint}")
        return
    password = session.secrets.get("sudo_password")
    if not password:
        report.sudo = "none"
        report._bad(
            f"no sudo: sudo asks {session.user} for a password and none is stored in the keyring"
            " for this target"
        )
        return
    session.redact.add(password)
    result = session.run(["sudo", "-S", "-p", "", "true"], input=password + "\n", timeout=30)
    if result.ok:
        report.sudo, report.sudo_ok = "password", True
        hint = "" if session.target.sudo == "password" else " (set sudo = password)"
        report._good(f"sudo works with the password from the keyring{hint}")
        return
    report.sudo = "none"
    reason = session.redact(result.first_error_line()).removeprefix("sudo: ")
    report._bad(f"no sudo for {session.user} on {session.host}: {reason}")


def check_database(
    session: SSHConnection,
    conninfo: str,
    password: str | None = None,
    python: str = "python3",
    pythonpath: str | None = None,
) -> tuple[bool, str]:
    """Can the driver host reach this database? (psycopg there, else pg_isready, else TCP)."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    host, port = "", ""
    try:
        params = conninfo_to_dict(conninfo)
        host, port = str(params.get("host", "")), str(params.get("port", ""))
    except (psycopg.Error, ValueError):
        pass  # a conninfo psycopg cannot parse: the probe over there reports the problem
    if password:
        session.redact.add(password)
    argv = [python, "-c", _DB_PROBE]
    if pythonpath:
        argv = ["env", f"PYTHONPATH={pythonpath}", *argv]
    request = json.dumps({"conninfo": conninfo, "password": password, "host": host, "port": port})
    result = session.run(argv, input=request, timeout=40)
    try:
        answer = json.loads(result.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return False, f"the check did not run: {result.first_error_line()}"
    detail = session.redact(str(answer.get("detail", "")))
    return bool(answer.get("ok")), f"{detail} (checked with {answer.get('method')})"


def check_target(
    target: SSHTarget,
    conninfo: str | None = None,
    accept_fingerprint: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    *,
    secrets: TargetSecrets | None = None,
    db_password: str | None = None,
    known_hosts: Path | None = None,
    ssh_config: Path | None = None,
) -> TargetReport:
    """Connect and check what a benchmark needs: Python, sudo, the database from over there.

    Host-key problems are raised (the caller must show the fingerprint and ask); every other
    failure is a line of the report.
    """
    report = TargetReport(target=target.name)
    try:
        session = connect(
            target,
            accept_fingerprint,
            timeout,
            secrets=secrets,
            known_hosts=known_hosts,
            ssh_config=ssh_config,
        )
    except HostKeyError:
        raise
    except SSHError as exc:
        report._bad(str(exc))
        return report
    with session:
        report.connected = True
        report.login = session.label
        report._good(f"connected to {session.label}")
        try:
            info = probe_python(session, target.python)
            report.python = info.version_text
            check_python_version(info, session.host)
            report.python_ok = True
            deps = (
                "has psycopg and hdrhistogram"
                if info.has_deps
                else ("lacks psycopg/hdrhistogram (the app will copy its own)")
            )
            report._good(f"{target.python} is Python {info.describe()}; {deps}")
        except SSHError as exc:
            report._bad(str(exc))
        try:
            _check_sudo(session, report)
        except SSHError as exc:
            report._bad(f"sudo check failed: {exc}")
        if conninfo:
            try:
                ok, detail = check_database(session, conninfo, db_password, target.python)
            except SSHError as exc:
                ok, detail = False, str(exc)
            report.database, report.database_ok = detail, ok
            if ok:
                report._good(f"the database answers from {session.host}: {detail}")
            else:
                report._bad(f"the database is not reachable from {session.host}: {detail}")
    return report


check_target.__test__ = False  # type: ignore[attr-defined]  # not a pytest test
# The name the issue uses; pytest does not collect it (see __test__ above).
test_target = check_target
