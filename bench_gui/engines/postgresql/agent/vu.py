"""PostgreSQL virtual users: one worker process drives many users over non-blocking libpq.

Each virtual user owns one connection and calls the server-side routines as prepared
statements. A worker process multiplexes its users with a selector instead of a thread per
user, so the driver's own CPU cost per transaction stays a few tens of microseconds and
Python's GIL never caps throughput (the sweep spreads users over several such processes).

Counts are kept in shared memory (one slot row per worker) so the parent reads them at the
same instant as it reads the database counters; latencies go into HDR histograms whose
per-second interval copies travel to the parent over a pipe.
"""

from __future__ import annotations

import heapq
import math
import os
import random
import select
import signal
import time
from typing import Any

import psycopg
from psycopg import pq

from bench_gui.agent import outages
from bench_gui.agent.profiles import params_for
from bench_gui.agent.users import (
    HIST_MAX_US,
    KEYING_S,
    SLOT_ERRORS,
    SLOT_ROLLBACK,
    SLOTS,
    THINK_MEAN_S,
    TX_BY_DRAW,
    TX_INDEX,
    Params,
    WorkerSpec,
    hold_until_started,
    owned_warehouses,
)
from bench_gui.engines.postgresql.agent import hammerdb
from bench_gui.engines.postgresql.shared.liveness import server_away, with_liveness
from bench_gui.wire.protocol import TX_KEYS

# The names other modules and the tests know this module by.
_Params = Params

STATEMENTS = {
    "new_order": b"SELECT neword($1,$2,$3,$4,$5,$6)",
    "payment": b"SELECT payment($1,$2,$3,$4,$5,$6,$7,$8)",
    "delivery": b"SELECT delivery($1,$2)",
    "stock_level": b"SELECT slev($1,$2,$3)",
    "order_status": b"SELECT ostat($1,$2,$3,$4,$5)",
}
STATEMENT_NAMES = {key: key.encode() for key in STATEMENTS}
ROLLBACK_SQLSTATE = b"TPC01"
ERROR_NAMES = {
    b"40001": "serialization_failure",
    b"40P01": "deadlock_detected",
    b"57014": "query_canceled",
    b"TPC02": "customer_not_found",
    b"53300": "too_many_connections",
    # The hammerdb profile's deadlock or serialization failure: HammerDB's handler ROLLBACKs
    # inside a function, which PostgreSQL refuses (bench_gui.engines.postgresql.agent.hammerdb).
    b"2D000": "invalid_transaction_termination",
}
# The one name of every error that broke a user's connection (any engine).
LOST = "connection_lost"
SESSION_ENDED = frozenset({b"57P01", b"57P02", b"57P03"})


class _User:
    __slots__ = (
        "conn",
        "fd",
        "index",
        "home_w",
        "stock_d",
        "owned",
        "tx",
        "started",
        "alive",
        "due",
    )

    def __init__(self, index: int) -> None:
        self.index = index
        self.conn: Any = None
        self.fd = -1
        self.home_w = 1
        self.stock_d = 1
        self.owned: list[int] = []
        self.tx = ""
        self.started = 0.0
        self.alive = False
        self.due = -1.0  # when its keying/thinking timer fires (-1: none pending)


class PrepareError(RuntimeError):
    """A virtual user's connection is up but the TPROC-C routines cannot be prepared."""


# What opening a virtual user's connection raises: no server or refused (ConnectionError),
# the routines missing (PrepareError), libpq's own failures (psycopg.Error).
CONNECT_ERRORS = (OSError, PrepareError, psycopg.Error)


def _connect(conninfo: str, statements: dict[str, bytes] = STATEMENTS) -> Any:
    """A user's connection with ``statements`` prepared (the hammerdb profile's:
    :data:`bench_gui.engines.postgresql.agent.hammerdb.STATEMENTS`)."""
    # Keepalives and timeouts: a user on a vanished server is counted lost, not waited on.
    conn = pq.PGconn.connect(with_liveness(conninfo).encode())
    if conn.status != pq.ConnStatus.OK:
        message = conn.get_error_message() if hasattr(conn, "get_error_message") else ""
        raise ConnectionError(message or conn.error_message.decode(errors="replace"))
    for key, sql in statements.items():
        res = conn.prepare(key.encode(), sql)
        if res.status != pq.ExecStatus.COMMAND_OK:
            text = res.error_message.decode(errors="replace").strip()
            conn.finish()
            raise PrepareError(f"cannot prepare {key}: {text}")
    return conn


def worker_main(spec: WorkerSpec, counters: Any, flags: Any, pipe: Any) -> None:
    """Process entry point: run the users until the parent sets the stop flag.

    ``flags``: shared array [stop, measuring]. ``counters``: shared array of SLOTS per worker.
    Messages to the parent over ``pipe``: ("ready", n) once connected, ("error", text) when
    the users cannot start, ("tick", {tx: hist_b64}, {tx: sum_us}, {error: n}, in_window)
    once a second and at once whenever the measuring flag flips (so every interval lies
    wholly inside or outside the measured window and the parent can add the window's
    intervals up exactly), and ("bye", None) at the end.
    """
    # The parent decides when to stop: an interrupt of the whole process group must let it
    # end the step cleanly rather than kill the users mid-transaction.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    from hdrh.histogram import HdrHistogram

    parent = os.getppid()
    base = spec.worker * SLOTS
    # The profile's routines and draws (HammerDB's pass no last name: see .hammerdb).
    statements = hammerdb.STATEMENTS if spec.profile == "hammerdb" else STATEMENTS
    params = params_for(spec.profile, spec.warehouses, spec.seed, names=False)
    users: list[_User] = []
    away = False  # a user found the server away: the others do not wait on it now
    try:
        for index in spec.vus:
            user = _User(index)
            try:
                if not away:
                    user.conn = _connect(spec.conninfo, statements)
                    user.alive = True
            except CONNECT_ERRORS as exc:
                if not server_away(exc):
                    raise
                # The server restarts or is away for now: the user starts without a
                # connection and opens one with back-off, as one whose connection broke.
                away = True
            if spec.all_warehouses:
                user.owned = owned_warehouses(index, spec.total_vus, spec.warehouses)
                user.home_w = user.owned[0]
            else:
                user.home_w = params.rng.randint(1, spec.warehouses)
            user.stock_d = params.rng.randint(1, 10)
            users.append(user)
    except CONNECT_ERRORS as exc:
        pipe.send(("error", f"virtual user {len(users) + 1}: {exc}".strip()))
        for user in users:
            if user.alive:
                user.conn.finish()
        return
    pipe.send(("ready", len(users)))
    hold_until_started(flags, parent)

    def new_hists() -> dict[str, Any]:
        return {key: HdrHistogram(1, HIST_MAX_US, 3) for key in TX_KEYS}

    interval = new_hists()
    sums = dict.fromkeys(TX_KEYS, 0)
    errors: dict[str, int] = {}
    was_measuring = False
    # epoll directly rather than the selectors module: its per-call bookkeeping is a
    # measurable share of the driver's few microseconds per transaction.
    poller = select.epoll()
    fd_pos: dict[int, int] = {}
    timers: list[tuple[float, int]] = []  # (due, user position) for keying/thinking
    by_pos = users
    now = time.perf_counter
    rng = params.rng

    def lose(pos: int) -> None:
        """The user's connection broke: forget its socket, count it, try again later."""
        user = by_pos[pos]
        if fd_pos.get(user.fd) == pos:  # (a number libpq closed may be another's by now)
            del fd_pos[user.fd]
            try:
                poller.unregister(user.fd)
            except OSError:
                pass  # libpq already closed the socket, so epoll dropped it itself
        user.conn.finish()
        user.alive = False
        user.fd = -1
        user.due = -1.0
        down[0] += 1
        backoffs[pos].failed(now())
        pipe.send(outages.lost(user.index))

    def send(pos: int, tx: str) -> None:
        user = by_pos[pos]
        w = rng.choice(user.owned) if user.owned else user.home_w
        user.tx = tx
        user.started = now()
        try:
            user.conn.send_query_prepared(STATEMENT_NAMES[tx], params.params(tx, w, user.stock_d))
        except psycopg.Error:  # the connection broke while the user was keying or thinking
            counters[base + SLOT_ERRORS] += 1
            errors[LOST] = errors.get(LOST, 0) + 1
            lose(pos)

    def schedule(pos: int, previous: str) -> None:
        """Start the user's next transaction, after keying and thinking time when enabled."""
        tx = params.choose_tx()
        if not spec.keying_thinking:
            send(pos, tx)
            return
        delay = KEYING_S[tx]
        if previous:
            mean = THINK_MEAN_S[previous]
            delay += min(-math.log(1.0 - rng.random()) * mean, 10 * mean)
        by_pos[pos].tx = tx
        due = now() + delay
        by_pos[pos].due = due
        heapq.heappush(timers, (due, pos))

    def attach(pos: int) -> None:
        user = by_pos[pos]
        user.fd = user.conn.socket
        fd_pos[user.fd] = pos
        poller.register(user.fd, select.EPOLLIN)

    def reconnect(t: float) -> None:
        """Users whose back-off is over try again (a failure doubles their delay, and puts
        off the others due now: one wait on a server that is away is enough)."""
        if not down[0]:
            return  # every user connected: nothing to walk through after each wake-up
        failed = False
        for pos, user in enumerate(users):
            if user.alive or backoffs[pos].due > t:
                continue
            if failed:
                backoffs[pos].failed(t)
                continue
            try:
                user.conn = _connect(spec.conninfo, statements)
            except CONNECT_ERRORS:
                backoffs[pos].failed(now())
                failed = True
                continue
            user.alive = True
            down[0] -= 1
            backoffs[pos].reset()
            pipe.send(outages.back(user.index))
            attach(pos)
            schedule(pos, "")

    backoffs = [outages.Backoff(random.Random(spec.seed + pos)) for pos in range(len(users))]
    down = [sum(1 for user in users if not user.alive)]  # users without a connection now
    for pos, user in enumerate(users):
        if user.alive:
            attach(pos)
            schedule(pos, "")
        else:
            backoffs[pos].failed(now())
            pipe.send(outages.lost(user.index))

    next_tick = now() + 1.0
    tuples_ok = pq.ExecStatus.TUPLES_OK
    conn_ok = pq.ConnStatus.OK
    sqlstate_field = pq.DiagnosticField.SQLSTATE
    try:
        while not flags[0]:
            if bool(flags[1]) != was_measuring:
                # The window opened or closed: close the interval on the edge.
                pipe.send(("tick", _encode(interval), sums, errors, was_measuring))
                interval, sums, errors = new_hists(), dict.fromkeys(TX_KEYS, 0), {}
                was_measuring = not was_measuring
            timeout = 0.2
            if timers:
                timeout = max(0.0, min(timeout, timers[0][0] - now()))
            for fd, _mask in poller.poll(timeout):
                pos = fd_pos.get(fd, -1)
                if pos < 0:
                    continue  # a socket dropped earlier in this round
                user = by_pos[pos]
                conn = user.conn
                try:
                    conn.consume_input()
                    if conn.is_busy():
                        continue
                    res = conn.get_result()
                    while conn.get_result() is not None:
                        pass
                except psycopg.Error:  # a lost connection: counted, not fatal
                    res = None
                elapsed_us = int((now() - user.started) * 1e6) or 1
                tx = user.tx
                if res is not None and res.status == tuples_ok:
                    counters[base + TX_INDEX[tx]] += 1
                    interval[tx].record_value(min(elapsed_us, HIST_MAX_US))
                    sums[tx] += elapsed_us
                elif res is not None and res.error_field(sqlstate_field) == ROLLBACK_SQLSTATE:
                    counters[base + SLOT_ROLLBACK] += 1
                else:
                    counters[base + SLOT_ERRORS] += 1
                    state = b"" if res is None else res.error_field(sqlstate_field) or b"?????"
                    if res is None or conn.status != conn_ok or _ends_session(state):
                        kind = LOST
                    else:
                        kind = ERROR_NAMES.get(state, "sqlstate " + state.decode())
                    errors[kind] = errors.get(kind, 0) + 1
                    if kind == LOST:
                        lose(pos)
                        continue
                schedule(pos, tx)
            t = now()
            while timers and timers[0][0] <= t:
                due, pos = heapq.heappop(timers)
                # A timer of a connection since lost (and maybe reopened) is stale.
                if by_pos[pos].alive and by_pos[pos].due == due:
                    send(pos, by_pos[pos].tx)
            reconnect(t)
            if t >= next_tick:
                next_tick = t + 1.0
                pipe.send(("tick", _encode(interval), sums, errors, was_measuring))
                interval, sums, errors = new_hists(), dict.fromkeys(TX_KEYS, 0), {}
                if os.getppid() != parent:
                    break  # orphaned: the agent died, do not run on unsupervised
    finally:
        pipe.send(("tick", _encode(interval), sums, errors, was_measuring))
        for user in users:
            if user.alive:
                user.conn.finish()  # libpq's PQfinish: never fails
        poller.close()
        pipe.send(("bye", None))


def _ends_session(state: bytes) -> bool:
    """An error after which the server closes the session: class 08 (connection exception)
    and 57P01-57P03 (administrator command, crash shutdown, cannot connect now)."""
    return state.startswith(b"08") or state in SESSION_ENDED


def _encode(hists: dict[str, Any]) -> dict[str, bytes]:
    return {key: h.encode() for key, h in hists.items() if h.get_total_count()}


__all__ = [
    "SLOTS",
    "SLOT_ERRORS",
    "SLOT_ROLLBACK",
    "TX_BY_DRAW",
    "PrepareError",
    "WorkerSpec",
    "owned_warehouses",
    "worker_main",
]
