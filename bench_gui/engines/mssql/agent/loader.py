"""Build a TPROC-C database on SQL Server through pyodbc: tables, rows, indexes, procedures.

Rows go in as parameterised INSERTs with ``fast_executemany`` (the driver sends a whole batch
of parameter rows in one round trip, as bcp would), with every column's type set by
``setinputsizes``: otherwise pyodbc guesses types from the first row, and a NULL there (an
undelivered order line) or a shorter decimal makes later rows fail or round. BULK INSERT from
a staged file is not used: it reads the file on the *server's* file system, and the driver
host is usually another machine.

Order of the build, as HammerDB's: tables (four with their clustered key), items, warehouses
(its rows table by table, the warehouse row last and committed last, so a committed warehouse
row means a complete warehouse), then the remaining clustered and secondary indexes, the
procedures, and sp_updatestats.

A warehouse is committed every :data:`COMMIT_ROWS` rows, not in one transaction: its ~500,000
rows at once would hold as many row locks (the tables' lock escalation is off) and keep the
whole warehouse in the active log, which a real server's lock memory and log may not hold. An
interrupted build leaves rows without their warehouse row, which the schema status reports as
a partial schema (a build drops the tables first). Warehouses load in parallel over ``workers``
connections, one thread each (pyodbc releases the GIL while the driver sends).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, Final

from bench_gui.agent import tpcc_rand
from bench_gui.engines.mssql.agent import procedures, rows, schema
from bench_gui.engines.mssql.shared.connect import connect
from bench_gui.wire.engine_errors import EngineError
from bench_gui.wire.tpcc_tables import ITEMS, TABLES

BATCH_ROWS: Final = 5_000  # parameter rows per executemany
COMMIT_ROWS: Final = 50_000  # rows per transaction at most while a warehouse loads
STOCK_CHUNK: Final = 25_000  # stock rows generated at a time
# Table order inside one warehouse's transaction: the warehouse row last.
WAREHOUSE_TABLES: Final = (
    "stock",
    "customer",
    "history",
    "orders",
    "new_order",
    "order_line",
    "district",
    "warehouse",
)


class BuildError(RuntimeError):
    """The build failed; the message says where."""


class Stopped(Exception):
    """The build was stopped on request between batches."""


def input_sizes(table: str) -> list[tuple[int, int, int]]:
    """setinputsizes() for one table's INSERT: (SQL type, size, decimal digits) per column."""
    import pyodbc

    out: list[tuple[int, int, int]] = []
    for _name, kind in rows.COLUMNS[table]:
        if kind[0] == "int":
            out.append((pyodbc.SQL_INTEGER, 0, 0))
        elif kind[0] == "char":
            out.append((pyodbc.SQL_VARCHAR, kind[1], 0))
        elif kind[0] == "dec":
            out.append((pyodbc.SQL_DECIMAL, kind[1], kind[2]))
        elif kind[0] == "datetime":
            out.append((pyodbc.SQL_TYPE_TIMESTAMP, 23, 3))
        else:
            raise ValueError(f"{table}: unknown column kind {kind!r}")
    return out


def insert_rows(
    cursor: Any,
    table: str,
    data: Iterable[tuple[Any, ...]],
    check: Callable[[], None],
    sent: Callable[[int], None] = lambda _n: None,
) -> int:
    """INSERT ``data`` into ``table`` in batches of :data:`BATCH_ROWS` (``sent`` is told each
    batch's row count); returns the row count."""
    sql = schema.insert_sql(table)
    cursor.fast_executemany = True
    cursor.setinputsizes(input_sizes(table))
    total = 0
    batch: list[tuple[Any, ...]] = []
    for row in data:
        batch.append(row)
        if len(batch) >= BATCH_ROWS:
            check()
            cursor.executemany(sql, batch)
            total += len(batch)
            sent(len(batch))
            batch = []
    if batch:
        check()
        cursor.executemany(sql, batch)
        total += len(batch)
        sent(len(batch))
    return total


def _warehouse_rows(gen: rows.RowGen, w: int) -> dict[str, Iterable[tuple[Any, ...]]]:
    """The rows of warehouse ``w`` by table, generated as they are consumed."""

    def stock() -> Iterable[tuple[Any, ...]]:
        for first in range(1, ITEMS + 1, STOCK_CHUNK):
            yield from gen.stock(w, first, min(first + STOCK_CHUNK - 1, ITEMS))

    districts = range(1, tpcc_rand.DISTRICTS_PER_WAREHOUSE + 1)
    orders = [gen.orders(w, d) for d in districts]
    return {
        "stock": stock(),
        "customer": (r for d in districts for r in gen.customer(w, d)),
        "history": (r for d in districts for r in gen.history(w, d)),
        "orders": (r for o in orders for r in o[0]),
        "new_order": (r for o in orders for r in o[1]),
        "order_line": (r for o in orders for r in o[2]),
        "district": gen.district(w),
        "warehouse": [gen.warehouse(w)],
    }


def load_warehouse(
    connection: Any,
    gen: rows.RowGen,
    w: int,
    check: Callable[[], None],
    report: Callable[[str, int], None],
) -> int:
    """Load every row of warehouse ``w``, committing every :data:`COMMIT_ROWS` rows and
    after the warehouse row; returns the row count."""
    connection.autocommit = False
    cursor = connection.cursor()
    total = 0
    open_rows = [0]

    def sent(n: int) -> None:
        open_rows[0] += n
        if open_rows[0] >= COMMIT_ROWS:
            connection.commit()
            open_rows[0] = 0

    try:
        data = _warehouse_rows(gen, w)
        for table in WAREHOUSE_TABLES:
            n = insert_rows(cursor, table, data[table], check, sent)
            report(table, n)
            total += n
        connection.commit()
    except BaseException:
        connection.rollback()
        raise
    finally:
        cursor.close()
        connection.autocommit = True
    return total


def load_items(connection: Any, gen: rows.RowGen) -> int:
    """The 100,000 items, once per database, in one transaction."""
    connection.autocommit = False
    cursor = connection.cursor()
    try:
        n = insert_rows(cursor, "item", gen.item(), lambda: None)
        connection.commit()
    except BaseException:
        connection.rollback()
        raise
    finally:
        cursor.close()
        connection.autocommit = True
    return n


def ensure_database(admin_connection: Any, database: str) -> bool:
    """Create ``database`` unless it exists (autocommit connection to master); True if made."""
    exists_sql, create_sql = schema.database_sql(database)
    cursor = admin_connection.cursor()
    try:
        cursor.execute(exists_sql)
        row = cursor.fetchone()
        if row is not None and row[0] is not None:
            return False
        cursor.execute(create_sql)
        return True
    finally:
        cursor.close()


def build(
    connection_string: str,
    warehouses: int,
    workers: int,
    progress: Callable[[dict[str, Any]], None],
    stop: threading.Event | None = None,
    *,
    password: str | None = None,
    seed: int | None = None,
) -> dict[str, Any]:
    """Create and load a schema of ``warehouses`` warehouses in the connection's database.

    The tables must not exist yet (see :func:`schema.drop_tables`). ``progress`` gets dicts
    like the PostgreSQL build's (task, stage, done, total, unit, message). Returns stats with
    ``status`` "ok" or "stopped"; a failure raises :class:`BuildError`.
    """
    if warehouses < 1:
        raise ValueError(f"warehouses must be at least 1, got {warehouses}")
    workers = max(1, min(workers, warehouses))
    stop = stop or threading.Event()
    t0 = time.monotonic()
    stats: dict[str, Any] = {"warehouses": warehouses, "workers": workers, "rows": 0}
    lock = threading.Lock()

    def emit(stage: str, done: int, total: int, unit: str, message: str) -> None:
        progress(
            {
                "task": "build",
                "stage": stage,
                "done": done,
                "total": total,
                "unit": unit,
                "message": message,
            }
        )

    def check() -> None:
        if stop.is_set():
            raise Stopped

    def finish(status: str) -> dict[str, Any]:
        stats["status"] = status
        stats["seconds"] = time.monotonic() - t0
        return stats

    main = connect(connection_string, password=password)
    try:
        cursor = main.cursor()
        emit("tables", 0, len(TABLES), "tables", "creating tables")
        schema.create_tables(cursor.execute)
        emit("items", 0, ITEMS, "rows", "loading items")
        stats["rows"] += load_items(main, rows.RowGen(seed))
        cursor = main.cursor()

        next_w = [0]
        done = [0]
        errors: list[str] = []

        def worker(index: int) -> None:
            gen = rows.RowGen(None if seed is None else seed + 1 + index)
            try:
                conn = connect(connection_string, password=password)
            except EngineError as exc:
                with lock:
                    errors.append(str(exc))
                stop.set()
                return
            try:
                while True:
                    with lock:
                        if next_w[0] >= warehouses or stop.is_set():
                            return
                        next_w[0] += 1
                        w = next_w[0]

                    def report(_table: str, n: int) -> None:
                        with lock:
                            stats["rows"] += n

                    try:
                        load_warehouse(conn, gen, w, check, report)
                    except Stopped:
                        return
                    except Exception as exc:  # noqa: BLE001 - handed to the caller's thread
                        with lock:
                            errors.append(f"warehouse {w}: {type(exc).__name__}: {exc}")
                        stop.set()
                        return
                    with lock:  # progress goes out from one thread at a time
                        done[0] += 1
                        emit(
                            "warehouses",
                            done[0],
                            warehouses,
                            "warehouses",
                            f"{done[0]} of {warehouses} warehouses loaded",
                        )
            finally:
                conn.close()

        threads = [
            threading.Thread(target=worker, args=(i,), name=f"mssql-load-{i}", daemon=True)
            for i in range(workers)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise BuildError(f"loading warehouses failed: {errors[0]}")
        if stop.is_set() or done[0] < warehouses:
            return finish("stopped")

        def index_done(index: schema.IndexDef) -> None:
            emit(
                "indexes",
                schema.INDEXES.index(index) + 1,
                len(schema.INDEXES),
                "indexes",
                f"built {index.name}",
            )

        schema.create_indexes(cursor.execute, index_done)
        for name in procedures.ALL_PROCEDURES:
            cursor.execute(procedures.create_any_sql(name))
        emit(
            "routines",
            len(procedures.ALL_PROCEDURES),
            len(procedures.ALL_PROCEDURES),
            "routines",
            "procedures created",
        )
        cursor.execute(schema.UPDATE_STATISTICS_SQL)
        while cursor.nextset():
            pass
        emit("analyze", 1, 1, "steps", "build complete")
        return finish("ok")
    finally:
        main.close()
