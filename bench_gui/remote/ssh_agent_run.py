"""An agent running detached on a driver host, followed through the spool file it writes.

:class:`SSHAgentRun` follows the spool (``tail -F`` on the host, or SFTP reads). When the link
drops, the follower reconnects with backoff and resumes from the last byte it had read, skipping
any event whose ``seq`` it has already passed on: no gap, no duplicate. The link's state reaches
the app through ``on_link_state(state, detail)`` rather than as synthetic events (the session
store keys events by ``seq``; an invented one would collide with the agent's). Stop and kill go
through a small shell script on the host that signals only the real agent (a pid can be reused).
Each probe of a quiet link (and of the agent) touches the desktop's heartbeat file beside the
spool (:func:`bench_gui.wire.go_file.beat_path`): an agent waiting at a start barrier of a run
on several hosts ends that run when no desktop has followed it for a while.

It needs of its transport only what :class:`FollowedHost` names (new sessions, the target, how
long an outage may last), so this module does not import
:mod:`~bench_gui.remote.ssh_transport`, which starts and attaches these runs.
"""

from __future__ import annotations

import logging
import shlex
import threading
import time
from collections.abc import Callable, Generator, Iterator
from typing import Final, Protocol

import paramiko

from bench_gui.core.events import SeqGuard, Verdict
from bench_gui.remote.connection import SSHConnection
from bench_gui.remote.errors import ConnectError, HostKeyError, SSHError
from bench_gui.remote.targets import SSHTarget
from bench_gui.remote.transport import AgentRun, BadLine
from bench_gui.wire.go_file import beat_path
from bench_gui.wire.protocol import MAX_LINE_BYTES, Event, ProtocolError, decode_line

log = logging.getLogger(__name__)

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
# stragglers of its group are (workers whose leader is gone). $2: the desktop's heartbeat file,
# touched first: an agent waiting at a start barrier sees that this desktop still follows it.
_ALIVE_SCRIPT: Final = r"""
[ -n "$2" ] && touch "$2" 2>/dev/null
grep -qa bench_gui.agent "/proc/$1/cmdline" 2>/dev/null && exit 0
ps -eo pgid=,stat= | awk -v g="$1" '$1 == g && $2 !~ /^Z/ {found = 1} END {exit found ? 2 : 1}'
"""


class FollowedHost(Protocol):
    """What a followed run needs of its transport
    (:class:`~bench_gui.remote.ssh_transport.SSHTransport`)."""

    target: SSHTarget
    max_outage: float | None
    on_link_state: Callable[[str, str], None] | None

    def connect(self) -> SSHConnection:
        """A new SSH session to the target."""
        ...


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
        transport: FollowedHost,
        run_dir: str,
        pid: int,
        session: SSHConnection | None,
        from_seq: int = 0,
        follow: str = "tail",
        have: frozenset[int] | None = None,
    ) -> None:
        self.transport = transport
        self.run_dir = run_dir
        self.pid = pid
        self.spool = f"{run_dir}/events.jsonl"
        # Touched by every probe of the run: the agents at a start barrier watch it.
        self.beat_file = beat_path(self.spool)
        self.stderr_path = f"{run_dir}/agent.stderr"
        self.follow = follow
        self.offset = 0  # bytes of the spool consumed (complete lines only)
        self.last_seq = from_seq
        # Places each event by its seq (bad lines for repeats and stray jumps); it outlives the
        # link, so a resumed follower goes on where it was.
        self._guard = SeqGuard(resume_after=from_seq, have=have)
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
        argv = ["sh", "-c", _ALIVE_SCRIPT, "sh", str(self.pid), self.beat_file]
        result = session.run(argv, timeout=timeout)
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
