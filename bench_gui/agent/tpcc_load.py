"""TPROC-C warehouses loaded in parallel worker processes, for every engine's loader.

The data generator is CPU-bound Python, so warehouses load in processes, not threads. The
processes, how they share out the warehouses, how they stop and how their rows, finished
warehouses and failures reach the build's progress are the same for every engine; the engine
gives only its *session*: what connects and loads one warehouse its own way (PostgreSQL's
COPY, MariaDB's LOAD DATA).

A session is called in the worker process as ``session(seed, check, report)`` and returns a
context manager giving a function that loads warehouse ``w``. It is a spawned process's
argument, so it must pickle: a module-level function or a :func:`functools.partial` of one.
The engine's code calls ``check()`` between chunks (it raises when the build is stopped or the
agent is gone, and the warehouse in flight is rolled back) and ``report(rows)`` for the rows
it has sent.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import queue
import random
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any, NamedTuple

from bench_gui.agent.build_progress import BuildProgress

Check = Callable[[], None]
Report = Callable[[int], None]
LoadWarehouse = Callable[[int], object]
Session = Callable[[int, Check, Report], AbstractContextManager[LoadWarehouse]]


def worker_count(warehouses: int, workers: int) -> int:
    """The worker processes a load of ``warehouses`` runs: ``workers``, at least one and never
    more than the warehouses; ValueError when there is no warehouse to load."""
    if warehouses < 1:
        raise ValueError("warehouses must be at least 1")
    return max(1, min(workers, warehouses))


class _Stopped(Exception):
    """Raised inside a worker by its check when the build is stopped or its parent is gone."""


class Loaded(NamedTuple):
    """How a warehouse load ended: warehouses done and the first failure (summary, traceback)."""

    done: int
    error: tuple[str, str] | None


def _worker(
    session: Session, warehouses: int, next_w: Any, events: Any, stop: Any, seed: int
) -> None:
    """Process body: take the next warehouse number until all are taken.

    ``next_w`` is a shared counter (a multiprocessing Value): unlike a queue's
    ``get_nowait``, it never reports "empty" just because another worker holds its lock.
    """
    parent = os.getppid()

    def check() -> None:
        if stop.is_set() or os.getppid() != parent:
            raise _Stopped

    def report(n: int) -> None:
        events.put(("rows", n))

    w = 0
    try:
        with session(seed, check, report) as load:
            while True:
                check()
                with next_w.get_lock():
                    w = next_w.value + 1
                    if w > warehouses:
                        break
                    next_w.value = w
                load(w)
                events.put(("warehouse", w))
    except _Stopped:
        events.put(("stopped", None))
    # The worker process's top level: any failure, an interrupt included, must reach the parent
    # as an error with its traceback, or the parent would only see the process go away.
    except BaseException as exc:  # noqa: BLE001 - sent to the parent with its traceback
        where = f"warehouse {w}: " if w else ""
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        summary = f"{where}{type(exc).__name__}: {first}"
        events.put(("error", (summary, traceback.format_exc())))
    finally:
        events.put(("exit", None))


class WarehouseWorkers:
    """The parent's side of running worker processes: their events and their stop flag."""

    def __init__(self, warehouses: int, events: Any, procs: list[Any], stop: Any) -> None:
        self.warehouses = warehouses
        self.processes = tuple(procs)
        self._events = events
        self._stop = stop

    def wait(
        self,
        stop: threading.Event,
        report: BuildProgress,
        rate: Callable[[float], float],
        every: float | None = None,
    ) -> Loaded:
        """Follow the workers until all have ended, adding their rows to the stats and
        emitting "warehouses" progress; ``stop`` stops them between chunks, a failure stops
        the others.

        Progress goes out after each warehouse and, with ``every`` (seconds), also on any
        event once that long has passed and when the last worker ends; ``rate`` gives the
        rows per second at a monotonic time.
        """
        warehouses = self.warehouses
        done = 0
        running = len(self.processes)
        error: tuple[str, str] | None = None
        last_emit = 0.0
        text = f"loading with {len(self.processes)} workers"
        report.emit("warehouses", 0, warehouses, "warehouses", 0.0, text)
        while running:
            if stop.is_set():
                self._stop.set()
            try:
                kind, value = self._events.get(timeout=0.1)
            except queue.Empty:
                if not any(p.is_alive() for p in self.processes):
                    error = error or ("loader processes ended unexpectedly", "")
                    break
                continue
            if kind == "rows":
                report.stats["rows"] += value
            elif kind == "warehouse":
                done += 1
            elif kind == "error":
                error = error or value
                self._stop.set()
            elif kind == "exit":
                running -= 1
            now = time.monotonic()
            timely = every is not None and (now - last_emit >= every or not running)
            if kind == "warehouse" or timely:
                last_emit = now
                text = f"{done} of {warehouses} warehouses loaded"
                report.emit("warehouses", done, warehouses, "warehouses", rate(now), text)
        return Loaded(done, error)


@contextlib.contextmanager
def worker_processes(session: Session, warehouses: int, workers: int) -> Iterator[WarehouseWorkers]:
    """``workers`` processes loading ``warehouses`` warehouses through ``session``, each with
    its own seed; on leaving, they are stopped and waited for (terminated after 30 s)."""
    ctx = mp.get_context("spawn")
    next_w = ctx.Value("i", 0)
    events = ctx.Queue()
    stop = ctx.Event()
    seed = random.SystemRandom().randrange(1 << 62)
    procs = [
        ctx.Process(
            target=_worker,
            args=(session, warehouses, next_w, events, stop, seed + i),
            name=f"tpcc-load-{i}",
            daemon=True,
        )
        for i in range(workers)
    ]
    for p in procs:
        p.start()
    try:
        yield WarehouseWorkers(warehouses, events, procs, stop)
    finally:
        stop.set()  # no-op after a normal end; stops the others after an error
        deadline = time.monotonic() + 30
        # Drain the events while waiting: a process does not exit before the queue's
        # background thread has written all it put, and nobody else reads them now.
        while any(p.is_alive() for p in procs) and time.monotonic() < deadline:
            try:
                events.get(timeout=0.1)
            except queue.Empty:
                pass
        for p in procs:
            if p.is_alive():
                p.terminate()
            p.join()
        events.close()
