"""The measuring counters on SQL Server, read as HammerDB reads them (mssqlsoltp.tcl).

- TPM: ``Batch Requests/sec`` from ``sys.dm_os_performance_counters``. Despite its name the
  DMV holds a cumulative raw count for this counter (cntr_type 272696576, a "per second"
  counter whose rate is the difference of two samples over their interval). So
  TPM = (b2 - b1) x 60 / seconds. Every batch and RPC counts, the monitor's own reads
  included, which is why TPM is engine-specific and never compared across engines.
- NOPM: ``SUM(CAST(d_next_o_id AS bigint))`` over district: each committed New-Order adds
  one, a rolled-back one nothing. NOPM = (n2 - n1) x 60 / seconds.

Reading the DMV needs VIEW SERVER STATE (SQL Server 2017; VIEW SERVER PERFORMANCE STATE from
2022): without it the counter comes back empty, and :func:`read_counters` says so rather than
reporting a TPM of zero. The object name is ``SQLServer:SQL Statistics`` on a default
instance and ``MSSQL$NAME:SQL Statistics`` on a named one, hence the LIKE.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Final

from bench_gui.agent.counters import CounterReader
from bench_gui.agent.engines import Snapshot
from bench_gui.wire.engine_errors import EngineError

COUNTERS_SQL: Final = (
    "SELECT (SELECT SUM(CAST(d_next_o_id AS bigint)) FROM dbo.district) AS new_orders,"
    " (SELECT MAX(cntr_value) FROM sys.dm_os_performance_counters"
    " WHERE counter_name = N'Batch Requests/sec'"
    " AND object_name LIKE N'%:SQL Statistics%') AS batch_requests"
)
# A counter read the server has not answered in this time is cancelled by the driver.
QUERY_TIMEOUT_S: Final = 10


class CounterError(EngineError):
    """The counters cannot be read or do not add up; the message says why."""


@dataclass(frozen=True)
class Rates:
    """Per-minute rates over the window between two snapshots."""

    seconds: float
    nopm: float
    tpm: float
    new_orders: int  # committed New-Orders in the window
    batch_requests: int


def snapshot_from_row(row: Any, t: float) -> Snapshot:
    """The shared :class:`~bench_gui.agent.engines.Snapshot` from the row of
    :data:`COUNTERS_SQL` (``transactions`` holds Batch Requests); errors name what is missing.
    """
    if row is None or len(row) != 2:
        raise CounterError("the counter query answered no row")
    new_orders, batches = row[0], row[1]
    if new_orders is None:
        raise CounterError("district is empty: no TPROC-C schema in this database")
    if batches is None:
        raise CounterError(
            "sys.dm_os_performance_counters has no 'Batch Requests/sec' row for this login:"
            " grant VIEW SERVER STATE to it"
        )
    return Snapshot(t=t, new_orders=int(new_orders), transactions=int(batches))


def read_counters(connection: Any) -> Snapshot:
    """One reading on ``connection`` (autocommit), timed at the read's midpoint."""
    cursor = connection.cursor()
    try:
        before = time.monotonic()
        cursor.execute(COUNTERS_SQL)
        row = cursor.fetchone()
        after = time.monotonic()
        while cursor.nextset():
            pass
    finally:
        cursor.close()
    return snapshot_from_row(row, (before + after) / 2)


def rates(first: Snapshot, last: Snapshot) -> Rates:
    """NOPM and TPM between two readings, as HammerDB computes them.

    Raises :class:`CounterError` when the window is empty or a counter went backwards (the
    server restarted, or the schema was rebuilt, between the readings).
    """
    seconds = last.t - first.t
    if seconds <= 0:
        raise CounterError(f"the second reading is not later than the first ({seconds:.3f} s)")
    orders = last.new_orders - first.new_orders
    batches = last.transactions - first.transactions
    if orders < 0:
        raise CounterError(
            f"SUM(d_next_o_id) went back from {first.new_orders} to {last.new_orders}:"
            " the schema was reloaded during the window"
        )
    if batches < 0:
        raise CounterError(
            f"'Batch Requests/sec' went back from {first.transactions} to"
            f" {last.transactions}: the server restarted during the window"
        )
    return Rates(
        seconds=seconds,
        nopm=orders * 60.0 / seconds,
        tpm=batches * 60.0 / seconds,
        new_orders=orders,
        batch_requests=batches,
    )


class MssqlCounterReader(CounterReader):
    """:class:`~bench_gui.agent.counters.CounterReader` on a pyodbc connection of its own.

    ``password``: None takes it from the environment (see
    :func:`bench_gui.engines.mssql.shared.connect.connect`).
    """

    def __init__(self, conninfo: str, password: str | None = None) -> None:
        import pyodbc

        self.password = password
        self.errors = (pyodbc.Error,)
        super().__init__(conninfo)

    def _open(self) -> Any:
        from bench_gui.engines.mssql.shared.connect import connect

        conn = connect(self.conninfo, password=self.password)
        conn.timeout = QUERY_TIMEOUT_S  # SQL_ATTR_QUERY_TIMEOUT for every statement
        return conn

    def _read(self, conn: Any) -> Snapshot:
        return read_counters(conn)
