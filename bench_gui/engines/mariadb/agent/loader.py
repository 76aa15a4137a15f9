"""Build a TPROC-C database on MariaDB/MySQL: tables, LOAD DATA LOCAL INFILE per warehouse in
parallel processes, secondary indexes, procedures, ANALYZE.

The rows are PostgreSQL's loader's (:class:`bench_gui.agent.tpcc_data.DataGen`: tab-separated
text with ``\\N`` for NULL, which is also LOAD DATA's default format), written to a temporary
file and loaded by the server in one statement per part: far faster than INSERTs. Each
warehouse loads in one transaction with its warehouse row last, so a warehouse is either all
there or absent and :func:`.schema.schema_status` recognises an interrupted build.

The warehouse workers keep ``unique_checks`` and ``foreign_key_checks`` on: with both off,
MariaDB 10.6+ turns an insert into an empty table into a "bulk insert" that locks the whole
table until commit, so a second worker would wait for the first's whole warehouse (and fail
with a lock wait timeout on a slow disk). With the checks on, each worker takes row locks on
its own warehouse's keys only and the workers load side by side, as on MySQL 8, where the
two settings never lock a table. Only the single session that loads ``item`` turns them off.
"""

from __future__ import annotations

import contextlib
import functools
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from bench_gui.agent import tpcc_load, tpcc_rand
from bench_gui.agent.build_progress import BuildProgress
from bench_gui.agent.tpcc_data import CUSTOMER_COLUMNS, ORDER_LINE_COLUMNS, DataGen
from bench_gui.agent.tpcc_data import rows_per_second as _rate
from bench_gui.engines.mariadb.agent import procedures, schema
from bench_gui.engines.mariadb.shared import odbc
from bench_gui.wire.engine_errors import EngineError
from bench_gui.wire.tpcc_tables import ITEMS, TABLES


def _session(conninfo: str, flavour: str, checks: bool = True) -> Any:
    """A loading session; ``checks=False`` only where no other session loads the same table
    (see the module's docstring: the checks off lock an empty table until commit)."""
    conn = odbc.connect(conninfo, flavour, ENABLE_LOCAL_INFILE="1")
    cur = conn.cursor()
    on = 1 if checks else 0
    cur.execute(f"SET SESSION unique_checks = {on}, foreign_key_checks = {on}")
    return conn


def _load(cursor: Any, folder: str, table: str, text: str, check: Callable[[], None]) -> int:
    """LOAD DATA LOCAL INFILE of text rows into ``table`` ("name (columns)" allowed)."""
    check()
    path = os.path.join(folder, "rows.tsv")
    with open(path, "w", encoding="ascii") as fh:
        fh.write(text)
    name, _, columns = table.partition(" ")
    cursor.execute(f"LOAD DATA LOCAL INFILE '{path}' INTO TABLE {name} {columns}")
    return text.count("\n")


def load_warehouse(conn: Any, gen: DataGen, w: int, folder: str, check: Callable[[], None]) -> int:
    """Every row of warehouse ``w`` in one transaction; returns the row count."""
    cur = conn.cursor()
    conn.autocommit = False
    total = 0
    try:
        for first in range(1, ITEMS + 1, 25_000):
            total += _load(cur, folder, "stock", gen.stock(w, first, first + 24_999), check)
        for d in range(1, tpcc_rand.DISTRICTS_PER_WAREHOUSE + 1):
            orders, new_order, lines = gen.orders(w, d)
            total += _load(cur, folder, f"customer ({CUSTOMER_COLUMNS})", gen.customer(w, d), check)
            total += _load(cur, folder, "history", gen.history(w, d), check)
            total += _load(cur, folder, "orders", orders, check)
            total += _load(cur, folder, "new_order", new_order, check)
            total += _load(cur, folder, f"order_line ({ORDER_LINE_COLUMNS})", lines, check)
        total += _load(cur, folder, "district", gen.district(w), check)
        total += _load(cur, folder, "warehouse", gen.warehouse(w), check)
        conn.commit()
    except BaseException:
        conn.rollback()
        raise
    finally:
        conn.autocommit = True
    return total


@contextlib.contextmanager
def _warehouse_session(
    conninfo: str, flavour: str, seed: int, check: Callable[[], None], report: Callable[[int], None]
) -> Iterator[Callable[[int], None]]:
    """A worker process's session (:func:`bench_gui.agent.tpcc_load.worker_processes`): it
    reports each warehouse's rows at once, when the warehouse is committed."""
    gen = DataGen(seed)
    conn = _session(conninfo, flavour)
    with tempfile.TemporaryDirectory(prefix="bench-gui-load-") as folder:
        try:
            yield lambda w: report(load_warehouse(conn, gen, w, folder, check))
        finally:
            conn.close()


def build(
    conninfo: str,
    flavour: str,
    warehouses: int,
    workers: int,
    progress: Callable[[dict[str, Any]], None],
    stop: threading.Event | None = None,
) -> dict[str, Any]:
    """Create and load the schema of ``warehouses`` warehouses; returns stats (``status``
    "ok" or "stopped"). Raises EngineError when a loader process fails."""
    workers = tpcc_load.worker_count(warehouses, workers)
    stop = stop or threading.Event()
    report = BuildProgress(progress, warehouses, workers)
    stats, emit, finish = report.stats, report.emit, report.finish

    emit("tables", 0, len(TABLES), "tables", 0.0, "creating tables")
    conn = _session(conninfo, flavour, checks=False)
    try:
        schema.create_tables(conn.cursor())
        emit("tables", len(TABLES), len(TABLES), "tables", 0.0, "tables created")
        gen = DataGen()
        with tempfile.TemporaryDirectory(prefix="bench-gui-load-") as folder:
            conn.autocommit = False
            stats["rows"] += _load(conn.cursor(), folder, "item", gen.item(1, ITEMS), lambda: None)
            conn.commit()
            conn.autocommit = True
    finally:
        conn.close()
    emit("items", stats["rows"], ITEMS, "rows", 0.0, "items loaded")

    session = functools.partial(_warehouse_session, conninfo, flavour)
    with tpcc_load.worker_processes(session, warehouses, workers) as loaders:
        since = time.monotonic()
        done, error = loaders.wait(stop, report, lambda now: _rate(stats["rows"], now - since))
    if error is not None:
        raise EngineError(f"loading warehouses failed: {error[0]}")
    if stop.is_set() or done < warehouses:
        return finish("stopped")

    conn = odbc.connect(conninfo, flavour)
    try:
        cur = conn.cursor()
        for number, (name, _table, ddl) in enumerate(schema.INDEXES, 1):
            if stop.is_set():
                return finish("stopped")
            cur.execute(ddl)
            emit("indexes", number, len(schema.INDEXES), "indexes", 0.0, f"built {name}")
        procedures.create_procedures(cur)
        emit("routines", 5, 5, "routines", 0.0, "procedures created")
        for number, table in enumerate(TABLES, 1):
            cur.execute(f"ANALYZE TABLE {table}")
            while True:
                cur.fetchall()
                if not cur.nextset():
                    break
            emit("analyze", number, len(TABLES), "tables", 0.0, f"analysed {table}")
    finally:
        conn.close()
    return finish("ok")
