"""Build a TPROC-C database: tables, data (COPY, warehouses in parallel), indexes, routines.

The load is CPU-bound on both sides of the connection, so the generator avoids per-value Python
work: random strings come from pools precomputed once per process (slices of one random
buffer), per-column values are drawn in bulk with ``random.choices`` over tables of
preformatted strings, and each table goes to the server as a few large COPY text writes. Every
warehouse is loaded in one transaction, so a warehouse is either all there or absent, which
lets :func:`schema.schema_status` recognise an interrupted build.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Final

import psycopg

from bench_gui.agent import tpcc_load, tpcc_rand
from bench_gui.agent.build_progress import BuildProgress
from bench_gui.agent.tpcc_data import CUSTOMER_COLUMNS, ORDER_LINE_COLUMNS, DataGen, rows_per_second
from bench_gui.engines.postgresql.agent import schema
from bench_gui.wire.tpcc_tables import ITEMS, TABLES

_CHUNK: Final = 4 << 20  # bytes per COPY write


class BuildError(RuntimeError):
    """The build failed; the message says why, ``details`` has the worker's traceback."""

    def __init__(self, message: str, details: str = "") -> None:
        super().__init__(message)
        self.details = details


def _rows(text: str) -> int:
    return text.count("\n")


def _copy(conn: psycopg.Connection, table: str, text: str, check: Callable[[], None]) -> int:
    """COPY preformatted text rows into table in large writes; returns the row count."""
    data = text.encode("ascii")
    with conn.cursor() as cur, cur.copy(f"COPY {table} FROM STDIN") as copy:
        for start in range(0, len(data), _CHUNK):
            check()
            copy.write(data[start : start + _CHUNK])
    return _rows(text)


def _session(conninfo: str) -> psycopg.Connection:
    conn = psycopg.connect(conninfo, autocommit=True, application_name=schema.APP_NAME)
    conn.execute("SET synchronous_commit = off")
    return conn


def load_items(conninfo: str, gen: DataGen | None = None) -> int:
    """Load the 100,000 items (once per database); returns the row count."""
    gen = gen or DataGen()
    with _session(conninfo) as conn, conn.transaction():
        return _copy(conn, "item", gen.item(1, ITEMS), lambda: None)


def load_warehouse(
    conn: psycopg.Connection,
    gen: DataGen,
    w: int,
    check: Callable[[], None],
    report: Callable[[int], None],
) -> int:
    """Load every row of warehouse w in one transaction; returns the row count."""
    total = 0
    with conn.transaction():
        for first in range(1, ITEMS + 1, 25_000):
            n = _copy(conn, "stock", gen.stock(w, first, first + 24_999), check)
            report(n)
            total += n
        for d in range(1, tpcc_rand.DISTRICTS_PER_WAREHOUSE + 1):
            orders, new_order, lines = gen.orders(w, d)
            parts = (
                (f"customer ({CUSTOMER_COLUMNS})", gen.customer(w, d)),
                ("history", gen.history(w, d)),
                ("orders", orders),
                ("new_order", new_order),
                (f"order_line ({ORDER_LINE_COLUMNS})", lines),
            )
            n = sum(_copy(conn, table, text, check) for table, text in parts)
            report(n)
            total += n
        n = _copy(conn, "district", gen.district(w), check)
        # The warehouse row last: a committed warehouse row means a complete warehouse.
        n += _copy(conn, "warehouse", gen.warehouse(w), check)
        report(n)
        total += n
    return total


@contextlib.contextmanager
def _warehouse_session(
    conninfo: str, seed: int, check: Callable[[], None], report: Callable[[int], None]
) -> Iterator[Callable[[int], int]]:
    """A worker process's session (:func:`bench_gui.agent.tpcc_load.worker_processes`): it
    reports rows as each part of a warehouse is sent."""
    gen = DataGen(seed)
    with _session(conninfo) as conn:
        yield lambda w: load_warehouse(conn, gen, w, check, report)


def build(
    conninfo: str,
    warehouses: int,
    workers: int,
    progress: Callable[[dict[str, Any]], None],
    stop: threading.Event | None = None,
) -> dict[str, Any]:
    """Create and load a TPROC-C schema of ``warehouses`` warehouses; returns stats.

    The schema must not exist yet (see :func:`schema.drop_schema`). On ``stop`` the load ends
    between chunks, the warehouse in flight is rolled back and the partial schema is left for
    :func:`schema.schema_status` to report; the result then has ``status`` ``"stopped"``.
    """
    workers = tpcc_load.worker_count(warehouses, workers)
    stop = stop or threading.Event()
    report = BuildProgress(progress, warehouses, workers)
    stats, emit, finish = report.stats, report.emit, report.finish
    stage_times: dict[str, float] = {}
    stats["stages"] = stage_times

    # Tables. Autovacuum stays off while loading: it would only compete for the CPU and get
    # in the way of the index builds (it is switched back on at the end).
    ts = time.monotonic()
    emit("tables", 0, len(TABLES), "tables", 0.0, "creating tables")
    with psycopg.connect(conninfo, autocommit=True) as conn:
        schema.create_tables(conn)
        schema.set_autovacuum(conn, False)
    emit("tables", len(TABLES), len(TABLES), "tables", 0.0, "tables created")
    stage_times["tables"] = time.monotonic() - ts

    session = functools.partial(_warehouse_session, conninfo)
    with tpcc_load.worker_processes(session, warehouses, workers) as loaders:
        # Items load here while the worker processes start and load warehouses: their rows
        # count from now, so their rate does too.
        loading_since = ts = time.monotonic()
        emit("items", 0, ITEMS, "rows", 0.0, "loading items")
        rows = load_items(conninfo)
        stats["rows"] += rows
        took = time.monotonic() - ts
        stage_times["items"] = took
        emit("items", rows, rows, "rows", rows_per_second(rows, took), "items loaded")

        ts = time.monotonic()
        done, error = loaders.wait(
            stop,
            report,
            lambda now: rows_per_second(stats["rows"] - rows, now - loading_since),
            every=0.25,
        )
        stage_times["warehouses"] = time.monotonic() - ts
    if error is not None:
        raise BuildError(f"loading warehouses failed: {error[0]}", error[1])
    if stop.is_set() or done < warehouses:
        return finish("stopped")

    ts = time.monotonic()
    built = 0
    emit("indexes", 0, len(schema.INDEXES), "indexes", 0.0, "building indexes")

    def index_done(index: schema.IndexDef) -> None:
        nonlocal built
        built += 1
        emit("indexes", built, len(schema.INDEXES), "indexes", 0.0, f"built {index.name}")

    try:
        schema.create_indexes(conninfo, workers, analyze=False, on_done=index_done, stop=stop)
    except schema.Stopped:
        return finish("stopped")
    stage_times["indexes"] = time.monotonic() - ts

    ts = time.monotonic()
    emit("routines", 0, len(schema.ROUTINES), "routines", 0.0, "creating routines")
    with psycopg.connect(conninfo, autocommit=True) as conn:
        schema.create_routines(conn)
    emit("routines", len(schema.ROUTINES), len(schema.ROUTINES), "routines", 0.0, "created")
    stage_times["routines"] = time.monotonic() - ts

    # VACUUM rather than a bare ANALYZE: it also sets the visibility map and resets the
    # insert counters, so autovacuum does not start on every table during the first run.
    ts = time.monotonic()
    vacuumed = 0
    emit("analyze", 0, len(TABLES), "tables", 0.0, "vacuum and analyze")

    def table_done(table: str) -> None:
        nonlocal vacuumed
        vacuumed += 1
        emit("analyze", vacuumed, len(TABLES), "tables", 0.0, f"analysed {table}")

    try:
        schema.vacuum_analyze(conninfo, workers, on_done=table_done, stop=stop)
    except schema.Stopped:
        return finish("stopped")
    with psycopg.connect(conninfo, autocommit=True) as conn:
        schema.set_autovacuum(conn, True)
    stage_times["analyze"] = time.monotonic() - ts
    emit("analyze", len(TABLES), len(TABLES), "tables", 0.0, "build complete")
    return finish("ok")
