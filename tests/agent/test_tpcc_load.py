"""The warehouse worker processes every engine's loader uses, on real spawned processes with
sessions that load no database: each warehouse once, progress, stop, a failure named."""

from __future__ import annotations

import contextlib
import functools
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bench_gui.agent import tpcc_load
from bench_gui.agent.build_progress import BuildProgress

Check = Callable[[], None]
Report = Callable[[int], None]


@contextlib.contextmanager
def files(folder: str, seed: int, check: Check, report: Report) -> Iterator[Callable[[int], None]]:
    """Loads warehouse ``w`` as a new file (a second load of it would fail) of ``w`` rows."""

    def load(w: int) -> None:
        check()
        with open(os.path.join(folder, str(w)), "x") as fh:
            fh.write(str(seed))
        report(w)

    yield load


def _until_stopped(check: Check) -> None:
    while True:
        check()
        time.sleep(0.01)


@contextlib.contextmanager
def endless(seed: int, check: Check, report: Report) -> Iterator[Callable[[int], None]]:
    """Every warehouse sends a row, then loads until the build is stopped, saying so now and
    then (no rows), so the parent keeps hearing from it whatever the timing."""

    def load(_w: int) -> None:
        report(1)
        while True:
            check()
            report(0)
            time.sleep(0.02)

    yield load


@contextlib.contextmanager
def failing(bad: int, seed: int, check: Check, report: Report) -> Iterator[Callable[[int], None]]:
    """Warehouse ``bad`` fails; the others load until the build is stopped."""

    def load(w: int) -> None:
        if w == bad:
            raise ValueError("no room for it\nsecond line")
        _until_stopped(check)

    yield load


@contextlib.contextmanager
def refused(seed: int, check: Check, report: Report) -> Iterator[Callable[[int], None]]:
    """The session cannot connect."""
    raise ConnectionError("refused")
    yield lambda _w: None


@contextlib.contextmanager
def dying(seed: int, check: Check, report: Report) -> Iterator[Callable[[int], None]]:
    """The process goes away without a word."""
    yield lambda _w: os._exit(3)


def _run(
    session: tpcc_load.Session,
    warehouses: int,
    workers: int,
    every: float | None = None,
    stop_at_rows: int = 0,
) -> tuple[tpcc_load.Loaded, list[dict[str, Any]], BuildProgress, list[int | None]]:
    """Loads through ``session``; with ``stop_at_rows``, stops once that many rows are in."""
    events: list[dict[str, Any]] = []
    stop = threading.Event()

    def progress(event: dict[str, Any]) -> None:
        events.append(event)
        if stop_at_rows and report.stats["rows"] >= stop_at_rows:
            stop.set()

    report = BuildProgress(progress, warehouses, workers)
    # A load that never ends is stopped after a while, so a broken loop fails, not hangs.
    hung = threading.Event()

    def give_up() -> None:
        hung.set()
        stop.set()

    watchdog = threading.Timer(60, give_up)
    watchdog.start()
    try:
        with tpcc_load.worker_processes(session, warehouses, workers) as loaders:
            loaded = loaders.wait(stop, report, lambda _now: 7.0, every)
            processes = loaders.processes
    finally:
        watchdog.cancel()
    assert not hung.is_set(), "the load did not end within 60 s"
    return loaded, events, report, [p.exitcode for p in processes]


def test_each_warehouse_loads_once_and_progress_follows(tmp_path: Path) -> None:
    session = functools.partial(files, str(tmp_path))
    loaded, events, report, exits = _run(session, 4, 2)
    assert loaded == tpcc_load.Loaded(4, None)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["1", "2", "3", "4"]
    assert len({p.read_text() for p in tmp_path.iterdir()}) <= 2  # a seed per worker
    assert report.stats["rows"] == 1 + 2 + 3 + 4
    assert [(e["stage"], e["done"], e["total"], e["message"]) for e in events] == [
        ("warehouses", 0, 4, "loading with 2 workers"),
        *[("warehouses", n, 4, f"{n} of 4 warehouses loaded") for n in (1, 2, 3, 4)],
    ]
    assert [e["rate"] for e in events] == [0.0, 7.0, 7.0, 7.0, 7.0]
    assert exits == [0, 0]


def test_progress_every_so_often_also_says_the_end(tmp_path: Path) -> None:
    session = functools.partial(files, str(tmp_path))
    loaded, events, _report, _exits = _run(session, 3, 2, every=0.25)
    assert loaded == tpcc_load.Loaded(3, None)
    assert events[-1]["done"] == 3
    assert [e for e in events if e["message"] == "3 of 3 warehouses loaded"]


def test_stop_ends_the_workers_in_the_middle_of_their_warehouses() -> None:
    started = time.monotonic()
    loaded, events, report, exits = _run(endless, 3, 2, every=0.001, stop_at_rows=2)
    assert loaded == tpcc_load.Loaded(0, None)
    assert report.stats["rows"] == 2  # both were loading
    assert {e["done"] for e in events} == {0}
    assert exits == [0, 0]  # each ended on its own, none was terminated
    assert time.monotonic() - started < 20


def test_a_failing_warehouse_is_named_and_stops_the_others() -> None:
    loaded, _events, _report, exits = _run(functools.partial(failing, 2), 3, 2)
    assert loaded.done == 0
    assert loaded.error is not None
    summary, details = loaded.error
    assert summary == "warehouse 2: ValueError: no room for it"
    assert "Traceback" in details
    assert "second line" in details
    assert exits == [0, 0]


def test_a_session_that_cannot_start_names_no_warehouse() -> None:
    loaded, _events, _report, _exits = _run(refused, 2, 1)
    assert loaded.error is not None
    assert loaded.error[0] == "ConnectionError: refused"


def test_a_worker_that_vanishes_is_an_error() -> None:
    loaded, _events, _report, exits = _run(dying, 2, 1)
    assert loaded.error == ("loader processes ended unexpectedly", "")
    assert exits == [3]


def test_worker_count_is_one_to_the_warehouses() -> None:
    assert tpcc_load.worker_count(3, 8) == 3
    assert tpcc_load.worker_count(10, 4) == 4
    assert tpcc_load.worker_count(2, 0) == 1
    with pytest.raises(ValueError, match="warehouses must be at least 1"):
        tpcc_load.worker_count(0, 2)
