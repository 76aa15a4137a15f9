"""The worker process of the ODBC engines' virtual users (MariaDB/MySQL, SQL Server).

ODBC calls block, so each user has a thread of its own (pyodbc releases the GIL while the
server works) and one autocommit connection. What differs between the engines is behind
:class:`UserCalls`: how a user connects, draws a transaction's parameters, calls its
procedure and names a failure. Everything else is here, once: the per-process counts
(:class:`Counts`), a user's loop (:func:`run_user`: HammerDB's mix, keying and thinking
times, a lost connection reopened after a back-off, :class:`bench_gui.agent.outages.Backoff`)
and the process around the users (:func:`worker_main`), which speaks the pipe protocol and
counts into the shared slots of PostgreSQL's users
(:func:`bench_gui.engines.postgresql.agent.vu.worker_main`).
"""

from __future__ import annotations

import math
import os
import random
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench_gui.agent import outages, users
from bench_gui.agent.users import HIST_MAX_US, TX_INDEX, WorkerSpec
from bench_gui.wire.protocol import TX_KEYS


class Counts:
    """The process's counts and this second's histograms, guarded by one lock."""

    def __init__(self, base: int, counters: Any) -> None:
        self.lock = threading.Lock()
        self.base = base
        self.counters = counters
        self.interval = self._new()
        self.sums = dict.fromkeys(TX_KEYS, 0)
        self.errors: dict[str, int] = {}
        self.notices: list[tuple[str, int, float]] = []  # users lost and back, for the parent

    @staticmethod
    def _new() -> dict[str, Any]:
        from hdrh.histogram import HdrHistogram

        return {key: HdrHistogram(1, HIST_MAX_US, 3) for key in TX_KEYS}

    def committed(self, tx: str, elapsed_us: int) -> None:
        with self.lock:
            self.counters[self.base + TX_INDEX[tx]] += 1
            self.interval[tx].record_value(min(elapsed_us, HIST_MAX_US))
            self.sums[tx] += elapsed_us

    def rolled_back(self) -> None:
        with self.lock:
            self.counters[self.base + users.SLOT_ROLLBACK] += 1

    def failed(self, kind: str) -> None:
        with self.lock:
            self.counters[self.base + users.SLOT_ERRORS] += 1
            self.errors[kind] = self.errors.get(kind, 0) + 1

    def notice(self, message: tuple[str, int, float]) -> None:
        """A user lost its connection or got it back (:func:`outages.lost`, ``back``)."""
        with self.lock:
            self.notices.append(message)

    def take_notices(self) -> list[tuple[str, int, float]]:
        with self.lock:
            notices, self.notices = self.notices, []
        return notices

    def take(self) -> tuple[dict[str, bytes], dict[str, int], dict[str, int]]:
        """This interval's histograms (encoded), sums and errors; a new interval begins."""
        with self.lock:
            hists, sums, errors = self.interval, self.sums, self.errors
            self.interval, self.sums, self.errors = (
                self._new(),
                dict.fromkeys(TX_KEYS, 0),
                {},
            )
        encoded = {k: h.encode() for k, h in hists.items() if h.get_total_count()}
        return encoded, sums, errors


@dataclass(frozen=True)
class UserCalls:
    """One engine's side of a virtual user.

    - ``connect()``: a new autocommit connection (at the start and after a lost one);
    - ``params(seed)``: the user's parameter generator; its ``rng`` draws the mix too;
    - ``draw(params, tx, w, stock_d)``: what one call of ``tx`` sends (drawn before the
      clock starts);
    - ``call(cursor, tx, drawn)``: run it, every result drained; True for New-Order's
      intended rollback (counted apart, never as an error or a commit);
    - ``failure(exc)``: the error's short name (``connection_lost`` reopens the connection);
    - ``cursor(conn)``: what ``call`` is handed for a connection (a pyodbc cursor unless the
      engine keeps more, e.g. one prepared statement per transaction).
    """

    connect: Callable[[], Any]
    params: Callable[[int], Any]
    draw: Callable[[Any, str, int, int], Any]
    call: Callable[[Any, str, Any], bool]
    failure: Callable[[BaseException], str]
    cursor: Callable[[Any], Any] = lambda conn: conn.cursor()


def choose_tx(rng: Any) -> str:
    """The next transaction of HammerDB's mix, drawn from the user's own generator."""
    return users.TX_BY_DRAW[int(rng.random() * len(users.TX_BY_DRAW))]


def wait(flags: Any, seconds: float) -> bool:
    """Sleep up to ``seconds`` in short naps; False when the stop flag came first."""
    until = time.perf_counter() + seconds
    while not flags[0] and time.perf_counter() < until:
        time.sleep(min(0.2, until - time.perf_counter()))
    return not flags[0]


def _close(conn: Any) -> None:
    import pyodbc

    try:
        conn.close()
    except pyodbc.Error:
        pass


def run_user(
    spec: WorkerSpec,
    index: int,
    conn: Any,
    counts: Counts,
    flags: Any,
    seed: int,
    calls: UserCalls,
) -> None:
    """One virtual user's loop until the stop flag. A failed transaction is counted under
    its name and not retried: the user draws its next one, as HammerDB's drivers do."""
    params = calls.params(seed)
    rng = params.rng
    owned = (
        users.owned_warehouses(index, spec.total_vus, spec.warehouses)
        if spec.all_warehouses
        else []
    )
    home = owned[0] if owned else rng.randint(1, spec.warehouses)
    stock_d = rng.randint(1, 10)
    cursor = calls.cursor(conn) if conn is not None else None
    previous = ""
    now = time.perf_counter
    backoff = outages.Backoff(random.Random(seed))
    if cursor is None:  # the server was away as the step started
        backoff.failed(now())
        counts.notice(outages.lost(index))
    while not flags[0]:
        if cursor is None:
            if not wait(flags, backoff.due - now()):
                break
            try:
                conn = calls.connect()
                cursor = calls.cursor(conn)
            except Exception:  # noqa: BLE001 - any failure: try again after a longer delay
                backoff.failed(now())
                continue
            backoff.reset()
            counts.notice(outages.back(index))
        tx = choose_tx(rng)
        if spec.keying_thinking:
            delay = users.KEYING_S[tx]
            if previous:
                mean = users.THINK_MEAN_S[previous]
                delay += min(-math.log(1.0 - rng.random()) * mean, 10 * mean)
            if not wait(flags, delay):
                break
        w = rng.choice(owned) if owned else home
        try:
            # Drawing is inside: a failure there is a user's error like any other, reported
            # through the counts, never a thread ending silently.
            drawn = calls.draw(params, tx, w, stock_d)
            started = now()
            rolled_back = calls.call(cursor, tx, drawn)
        except Exception as exc:  # noqa: BLE001 - a user thread must not die silently
            kind = calls.failure(exc)
            counts.failed(kind)
            if kind == "connection_lost":
                _close(conn)
                cursor = None
                backoff.failed(now())
                counts.notice(outages.lost(index))
            previous = tx
            continue
        if rolled_back:
            counts.rolled_back()
        else:
            counts.committed(tx, int((now() - started) * 1e6) or 1)
        previous = tx
    if cursor is not None:
        _close(conn)


def _server_away(calls: UserCalls, exc: BaseException) -> bool:
    """Whether a failed connect says the server is away for now: the engine names the driver's
    error (or the one an EngineError wraps) ``connection_lost``."""
    return any(
        calls.failure(error) == "connection_lost"
        for error in (exc, exc.__cause__)
        if error is not None
    )


def worker_main(
    spec: WorkerSpec,
    counters: Any,
    flags: Any,
    pipe: Any,
    calls: Callable[[WorkerSpec], UserCalls],
) -> None:
    """Process body (the pipe protocol of
    :func:`bench_gui.engines.postgresql.agent.vu.worker_main`):
    connect every user, say ready, run the user threads until the stop flag, and send a tick
    once a second and whenever the measuring flag flips. ``calls`` gives the engine's side."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    parent = os.getppid()
    engine = calls(spec)
    conns: list[Any] = []
    away = False  # a user found the server away: the others do not wait on it now
    try:
        for _ in spec.vus:
            if away:
                conns.append(None)
                continue
            try:
                conns.append(engine.connect())
            except Exception as exc:  # named by the engine's failure()
                if not _server_away(engine, exc):
                    raise
                # The server restarts or is away for now: the user starts without a
                # connection and opens one with back-off (run_user), as one that lost it.
                conns.append(None)
                away = True
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which fails the step
        pipe.send(("error", f"virtual user {len(conns) + 1}: {exc}".strip()))
        for conn in conns:
            if conn is not None:
                conn.close()
        return
    counts = Counts(spec.worker * users.SLOTS, counters)
    threads = [
        threading.Thread(
            target=run_user,
            args=(spec, index, conn, counts, flags, spec.seed * 7919 + index, engine),
            name=f"bench-gui-vu-{index}",
            daemon=True,
        )
        for index, conn in zip(spec.vus, conns, strict=True)
    ]
    pipe.send(("ready", len(threads)))
    users.hold_until_started(flags, parent)
    for thread in threads:
        thread.start()
    was_measuring = False
    next_tick = time.monotonic() + 1.0
    try:
        while not flags[0]:
            for notice in counts.take_notices():
                pipe.send(notice)
            if bool(flags[1]) != was_measuring:
                pipe.send(("tick", *counts.take(), was_measuring))
                was_measuring = not was_measuring
            if time.monotonic() >= next_tick:
                next_tick += 1.0
                pipe.send(("tick", *counts.take(), was_measuring))
                if os.getppid() != parent:
                    flags[0] = 1  # orphaned: the agent died, do not run on unsupervised
                    break
            time.sleep(0.02)
    finally:
        for thread in threads:
            thread.join(timeout=30)
        for notice in counts.take_notices():
            pipe.send(notice)
        pipe.send(("tick", *counts.take(), was_measuring))
        pipe.send(("bye", None))
