"""SQL Server virtual users: a thread per user in each worker process, over pyodbc.

Each user has one autocommit connection and draws HammerDB's mix (:data:`TX_BY_DRAW`) with
the parameters of :class:`bench_gui.agent.mssql.transactions.Params`; a transaction is one
ODBC call escape of its procedure, every result set drained
(:func:`bench_gui.agent.mssql.transactions.call`). New-Order's intended 1% rollback answers
``committed = 0`` and is counted as a rollback, never as an error or a commit.

Deadlocks, as HammerDB handles them: not retried. HammerDB's SQL Server procedures catch the
error, roll back and answer it; its driver prints the message and the user goes on with the
next transaction it draws (src/mssqlserver/mssqlsoltp.tcl, proc neword and the others). So
here a deadlock victim (error 1205, which the procedures re-raise after their ROLLBACK) is
counted as an error ``deadlock_detected`` and the user draws its next transaction. A lost
connection is reopened once a second.

The process speaks the pipe protocol and counts into the shared slots of PostgreSQL's users
(:func:`bench_gui.agent.pg.vu.worker_main`), through the same per-process counts as the
MariaDB users (:class:`bench_gui.agent.mysql.vu._Shared`).
"""

from __future__ import annotations

import math
import os
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

from bench_gui.agent.mssql import transactions
from bench_gui.agent.mssql.connection import connect
from bench_gui.agent.mysql.vu import _Shared
from bench_gui.agent.users import (
    KEYING_S,
    SLOTS,
    THINK_MEAN_S,
    TX_BY_DRAW,
    WorkerSpec,
    owned_warehouses,
)

# Seconds between two attempts to reopen a lost connection.
RECONNECT_S = 1.0


def choose_tx(params: transactions.Params) -> str:
    """The next transaction of HammerDB's mix, drawn from the user's own generator."""
    return TX_BY_DRAW[int(params.rng.random() * len(TX_BY_DRAW))]


def _wait(flags: Any, seconds: float) -> bool:
    """Sleep up to ``seconds`` in short naps; False when the stop flag came first."""
    until = time.perf_counter() + seconds
    while not flags[0] and time.perf_counter() < until:
        time.sleep(min(0.2, until - time.perf_counter()))
    return not flags[0]


def run_user(
    spec: WorkerSpec,
    index: int,
    conn: Any,
    shared: _Shared,
    flags: Any,
    seed: int,
    opener: Callable[[], Any] | None = None,
) -> None:
    """One virtual user's loop until the stop flag. ``opener`` reopens a lost connection
    (default: :func:`bench_gui.agent.mssql.connection.connect` on the spec's string)."""
    import pyodbc

    reopen = opener or (lambda: connect(spec.conninfo))
    params = transactions.Params(spec.warehouses, seed)
    rng = params.rng
    owned = owned_warehouses(index, spec.total_vus, spec.warehouses) if spec.all_warehouses else []
    home = owned[0] if owned else rng.randint(1, spec.warehouses)
    stock_d = rng.randint(1, 10)
    cursor = conn.cursor() if conn is not None else None
    previous = ""
    now = time.perf_counter
    while not flags[0]:
        if cursor is None:
            if not _wait(flags, RECONNECT_S):
                break
            try:
                conn = reopen()
                cursor = conn.cursor()
            except Exception:  # noqa: BLE001 - any failure: try again in a second
                continue
        tx = choose_tx(params)
        if spec.keying_thinking:
            delay = KEYING_S[tx]
            if previous:
                mean = THINK_MEAN_S[previous]
                delay += min(-math.log(1.0 - rng.random()) * mean, 10 * mean)
            if not _wait(flags, delay):
                break
        w = rng.choice(owned) if owned else home
        args = params.draw(tx, w, stock_d)
        started = now()
        try:
            outcome = transactions.call(cursor, tx, args)
        except pyodbc.Error as exc:
            kind = transactions.error_kind(exc)
            shared.failed(kind)
            if kind == "connection_lost":
                try:
                    conn.close()
                except pyodbc.Error:
                    pass
                cursor = None
            previous = tx
            continue
        except ValueError:  # an answer without the documented result sets
            shared.failed("unexpected_result")
            previous = tx
            continue
        except Exception as exc:  # noqa: BLE001 - a user thread must not die silently
            shared.failed(type(exc).__name__)
            previous = tx
            continue
        if outcome.rolled_back:
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
            conns.append(connect(spec.conninfo))
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which fails the step
        pipe.send(("error", f"virtual user {len(conns) + 1}: {exc}".strip()))
        for conn in conns:
            conn.close()
        return
    shared = _Shared(spec.worker * SLOTS, counters)
    threads = [
        threading.Thread(
            target=run_user,
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
