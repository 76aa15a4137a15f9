"""PostgreSQL's measuring counters, read in a thread of their own.

The thread and its rules (never wait on a hung server, a statement timeout on the reader's own
connection) are :class:`bench_gui.agent.counters.CounterReader`'s; this is the PostgreSQL
connection and query (:data:`COUNTERS_SQL`), and the probe of the server
between steps (:class:`ServerProbe`).
"""

from __future__ import annotations

import time
from typing import Any, Final

import psycopg

from bench_gui.agent.counters import CounterReader as _Reader
from bench_gui.agent.engines import Snapshot
from bench_gui.engines.postgresql.agent.connection import connect

# What HammerDB reads at the edges of the measured window: every committed New-Order
# increments one district's d_next_o_id; the TPM source is the database's commits and rollbacks.
COUNTERS_SQL: Final = (
    "SELECT (SELECT sum(d_next_o_id) FROM district),"
    " (SELECT sum(xact_commit + xact_rollback) FROM pg_stat_database)"
)
# A reading the server cannot give in this time is cancelled by the server itself.
STATEMENT_TIMEOUT_MS: Final = 10_000


def read_counters(conn: psycopg.Connection[Any]) -> Snapshot:
    """One reading of the measuring counters on ``conn``, timed at the read's midpoint."""
    before = time.monotonic()
    row = conn.execute(COUNTERS_SQL).fetchone()
    after = time.monotonic()
    assert row is not None
    return Snapshot(
        t=(before + after) / 2, new_orders=int(row[0] or 0), transactions=int(row[1] or 0)
    )


class CounterReader(_Reader):
    """Reads :data:`COUNTERS_SQL` on request, in a daemon thread."""

    errors = (psycopg.Error,)

    def _open(self) -> psycopg.Connection[Any]:
        conn = connect(self.conninfo)
        conn.execute(f"SET statement_timeout = {STATEMENT_TIMEOUT_MS}")
        return conn

    def _read(self, conn: psycopg.Connection[Any]) -> Snapshot:
        return read_counters(conn)


class ServerProbe(CounterReader):
    """Asks the server itself (``SELECT 1`` on the admin connection) whether it answers: what
    the run watches between steps, while the test database is being dropped and copied."""

    def _read(self, conn: psycopg.Connection[Any]) -> Snapshot:
        before = time.monotonic()
        conn.execute("SELECT 1").fetchone()
        return Snapshot(t=(before + time.monotonic()) / 2, new_orders=0, transactions=0)


__all__ = [
    "COUNTERS_SQL",
    "STATEMENT_TIMEOUT_MS",
    "CounterReader",
    "ServerProbe",
    "read_counters",
]
