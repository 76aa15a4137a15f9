"""MariaDB/MySQL virtual users: a thread per user in each worker process, over pyodbc.

ODBC calls block, so each user has a thread of its own (pyodbc releases the GIL while the
server works) and one autocommit connection; each transaction is one ``CALL`` sent as text
(the parameters are numbers and one of the thousand syllable names: nothing to escape), with
one result row ``(status, value)`` where status 1 is New-Order's intended rollback
(:mod:`.procedures`). The process speaks the same pipe protocol and counts into the same
shared slots as PostgreSQL's users (:func:`bench_gui.agent.pg.vu.worker_main`).
"""

from __future__ import annotations

import math
import os
import signal
import threading
import time
from typing import Any

from bench_gui.agent.mysql import odbc
from bench_gui.agent.protocol import TX_KEYS
from bench_gui.agent.users import (
    HIST_MAX_US,
    KEYING_S,
    SLOT_ERRORS,
    SLOT_ROLLBACK,
    SLOTS,
    THINK_MEAN_S,
    TX_INDEX,
    Params,
    WorkerSpec,
    owned_warehouses,
)

PROCEDURE = {
    "new_order": b"CALL NEWORD(",
    "payment": b"CALL PAYMENT(",
    "delivery": b"CALL DELIVERY(",
    "stock_level": b"CALL SLEV(",
    "order_status": b"CALL OSTAT(",
}
# The transactions whose last parameter is a customer's last name (quoted in the call).
NAMED = frozenset({"payment", "order_status"})


def call_text(tx: str, params: list[bytes | None]) -> str:
    """The CALL statement of one transaction from :class:`~bench_gui.agent.users.Params`."""
    values = [p or b"" for p in params]
    if tx in NAMED:
        values[-1] = b"'" + values[-1] + b"'"
    return (PROCEDURE[tx] + b",".join(values) + b")").decode("ascii")


def error_kind(exc: BaseException) -> str:
    """A short name for a failed transaction (as PostgreSQL's users name theirs)."""
    if odbc.is_lost(exc):
        return "connection_lost"
    args: tuple[Any, ...] = tuple(getattr(exc, "args", ()))
    state = str(args[0]) if args else "?????"
    text = odbc.message(exc)
    if "TPC02" in text:
        return "customer_not_found"
    if "TPC03" in text:
        return "item_or_stock_missing"
    if state == "40001" or "(1213)" in text:
        return "deadlock_detected"
    if "(1205)" in text:
        return "lock_wait_timeout"
    if "(1040)" in text:
        return "too_many_connections"
    return f"sqlstate {state}"


class _Shared:
    """The process's counts and this second's histograms, guarded by one lock."""

    def __init__(self, base: int, counters: Any) -> None:
        self.lock = threading.Lock()
        self.base = base
        self.counters = counters
        self.interval = self._new()
        self.sums = dict.fromkeys(TX_KEYS, 0)
        self.errors: dict[str, int] = {}

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
            self.counters[self.base + SLOT_ROLLBACK] += 1

    def failed(self, kind: str) -> None:
        with self.lock:
            self.counters[self.base + SLOT_ERRORS] += 1
            self.errors[kind] = self.errors.get(kind, 0) + 1

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


def _user(spec: WorkerSpec, index: int, conn: Any, shared: _Shared, flags: Any, seed: int) -> None:
    """One virtual user's loop until the stop flag."""
    import pyodbc

    params = Params(spec.warehouses, seed)
    rng = params.rng
    owned = owned_warehouses(index, spec.total_vus, spec.warehouses) if spec.all_warehouses else []
    home = owned[0] if owned else rng.randint(1, spec.warehouses)
    stock_d = rng.randint(1, 10)
    cursor = conn.cursor() if conn is not None else None
    previous = ""
    now = time.perf_counter
    while not flags[0]:
        if cursor is None:  # reconnect once a second after a lost connection
            time.sleep(1.0)
            try:
                conn = odbc.connect(spec.conninfo, "mariadb")
                cursor = conn.cursor()
            except Exception:  # noqa: BLE001 - any failure: try again in a second
                continue
        tx = params.choose_tx()
        if spec.keying_thinking:
            delay = KEYING_S[tx]
            if previous:
                mean = THINK_MEAN_S[previous]
                delay += min(-math.log(1.0 - rng.random()) * mean, 10 * mean)
            until = now() + delay
            while not flags[0] and now() < until:
                time.sleep(min(0.2, until - now()))
            if flags[0]:
                break
        w = rng.choice(owned) if owned else home
        text = call_text(tx, params.params(tx, w, stock_d))
        started = now()
        try:
            cursor.execute(text)
            row = cursor.fetchone()
            while cursor.nextset():
                pass
        except pyodbc.Error as exc:
            kind = error_kind(exc)
            shared.failed(kind)
            if kind == "connection_lost":
                try:
                    conn.close()
                except pyodbc.Error:
                    pass
                cursor = None
            previous = tx
            continue
        except Exception as exc:  # noqa: BLE001 - a user thread must not die silently
            shared.failed(type(exc).__name__)
            previous = tx
            continue
        if row is not None and int(row[0]) == 1:
            shared.rolled_back()
        else:
            shared.committed(tx, int((now() - started) * 1e6) or 1)
        previous = tx
    if cursor is not None:
        try:
            conn.close()
        except pyodbc.Error:
            pass


def worker_main(spec: WorkerSpec, counters: Any, flags: Any, pipe: Any) -> None:
    """Process entry point (the pipe protocol of :func:`bench_gui.agent.pg.vu.worker_main`):
    connect every user, say ready, run the user threads until the stop flag, and send a tick
    once a second and whenever the measuring flag flips."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    parent = os.getppid()
    conns: list[Any] = []
    try:
        for _ in spec.vus:
            conns.append(odbc.connect(spec.conninfo, "mariadb"))
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which fails the step
        pipe.send(("error", f"virtual user {len(conns) + 1}: {exc}".strip()))
        for conn in conns:
            conn.close()
        return
    shared = _Shared(spec.worker * SLOTS, counters)
    threads = [
        threading.Thread(
            target=_user,
            args=(spec, index, conn, shared, flags, spec.seed * 7919 + index),
            name=f"bench-gui-vu-{index}",
            daemon=True,
        )
        for index, conn in zip(spec.vus, conns, strict=True)
    ]
    pipe.send(("ready", len(threads)))
    for thread in threads:
        thread.start()
    was_measuring = False
    next_tick = time.monotonic() + 1.0
    try:
        while not flags[0]:
            if bool(flags[1]) != was_measuring:
                pipe.send(("tick", *shared.take(), was_measuring))
                was_measuring = not was_measuring
            if time.monotonic() >= next_tick:
                next_tick += 1.0
                pipe.send(("tick", *shared.take(), was_measuring))
                if os.getppid() != parent:
                    flags[0] = 1  # orphaned: the agent died, do not run on unsupervised
                    break
            time.sleep(0.02)
    finally:
        for thread in threads:
            thread.join(timeout=30)
        pipe.send(("tick", *shared.take(), was_measuring))
        pipe.send(("bye", None))
