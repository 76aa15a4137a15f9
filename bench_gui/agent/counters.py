"""The database's measuring counters, read in a thread of their own (any engine).

A hung server (its processes stopped, a storage stall, a swapping host) answers nothing and
closes nothing: a read of its counters waits as long as the server is stuck, however the
connection is set up. So the sampler never reads them itself. It asks this reader for a fresh
reading and waits a moment for it; when the server does not answer, the sample goes out
without the database's figures and with the time the database has not answered for, while the
host metrics and power keep flowing. The read under way is left to finish, or fail, in the
reader's thread, on the reader's own connection (which gets a statement timeout, so a server
that answers again cannot keep it busy for long).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Final

from bench_gui.agent.engines import Snapshot
from bench_gui.wire.engine_errors import EngineError

# How long a sampler waits for a fresh reading of a server that answered so far.
ANSWER_WAIT_S: Final = 0.5
# Between two failed attempts (connection refused, a lost connection, a cancelled read).
RETRY_S: Final = 1.0


class CounterReader:
    """Reads an engine's counters on request, in a daemon thread.

    An engine subclasses it with :meth:`_open` (a connection of the reader's own, with a
    statement timeout), :meth:`_read` (one :class:`~bench_gui.agent.engines.Snapshot`),
    :meth:`_close` and :attr:`errors` (what its driver raises).

    ``read()`` may be called from one thread at a time (the sampler); :meth:`not_answering_s`
    from any thread.
    """

    # What a failed read raises besides EngineError (the engine's driver errors).
    errors: tuple[type[BaseException], ...] = ()

    def __init__(self, conninfo: str) -> None:
        self.conninfo = conninfo
        self._cond = threading.Condition()
        self._asked = 0  # requests made so far
        self._answered = 0  # the latest request the latest reading answers
        self._snapshot: Snapshot | None = None
        # When the database was asked and has not answered since (None: it answered).
        self._since: float | None = None
        self._error = ""
        self._closed = False
        self._reading = False  # a read is under way (maybe stuck on the server)
        self._conn: Any = None  # the thread's own
        self._thread = threading.Thread(target=self._run, name="bench-gui-counters", daemon=True)
        self._thread.start()

    # -- the sampler's side ----------------------------------------------------------------------
    def read(self, wait: float = ANSWER_WAIT_S) -> Snapshot | None:
        """A reading begun after this call, if the server gives one in time; else None.

        The wait is ``wait`` seconds from when the server was first asked and did not answer:
        a server that has not answered for longer than that is not waited on again (the
        sampler must keep its one-a-second pace), while the request stays open for it.
        """
        with self._cond:
            now = time.monotonic()
            self._asked += 1
            ticket = self._asked
            if self._since is None:
                self._since = now
            self._cond.notify_all()
            timeout = max(0.0, self._since + wait - now)
            if not self._cond.wait_for(lambda: self._answered >= ticket, timeout):
                return None
            return self._snapshot

    def not_answering_s(self, now: float | None = None) -> float:
        """Seconds the database has been asked for its counters without answering (0: it
        answered the latest request)."""
        with self._cond:
            if self._since is None:
                return 0.0
            return max(0.0, (time.monotonic() if now is None else now) - self._since)

    @property
    def error(self) -> str:
        """Why the latest attempt failed ('' when it did not)."""
        with self._cond:
            return self._error

    def close(self) -> None:
        """End the thread; a read still waiting on a stuck server is abandoned (the thread is
        a daemon and drops its connection if the read ever returns)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            stuck = self._reading
        if not stuck:
            self._thread.join(timeout=1.0)

    # -- the thread ------------------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._closed or self._asked > self._answered)
                if self._closed:
                    break
                ticket = self._asked
                self._reading = True
            try:
                snap = self._read_once()
            except self._caught() as exc:
                self._drop()
                text = str(exc).strip().splitlines()
                with self._cond:
                    self._reading = False
                    self._error = text[0] if text else type(exc).__name__
                    # Ask again at the next request, at most once a RETRY_S.
                    self._cond.wait_for(lambda: self._closed, RETRY_S)
                continue
            with self._cond:
                self._reading = False
                self._snapshot = snap
                self._answered = ticket
                self._error = ""
                # Requests that came while reading wait for the next reading: from now.
                self._since = None if self._answered >= self._asked else time.monotonic()
                self._cond.notify_all()
        self._drop()

    def _read_once(self) -> Snapshot:
        if self._conn is None:
            self._conn = self._open()
        return self._read(self._conn)

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                self._close(conn)
            except self._caught():
                pass

    def _caught(self) -> tuple[type[BaseException], ...]:
        return (EngineError, *self.errors)

    # -- the engine's part -------------------------------------------------------------------
    def _open(self) -> Any:
        raise NotImplementedError

    def _read(self, conn: Any) -> Snapshot:
        raise NotImplementedError

    def _close(self, conn: Any) -> None:
        conn.close()
