"""PostgreSQL's measuring counters, read in a thread of their own.

The thread and its rules (never wait on a hung server, a statement timeout on the reader's own
connection) are :class:`bench_gui.agent.counters.CounterReader`'s; this is the PostgreSQL
connection and query (:data:`~bench_gui.agent.pg.engine.COUNTERS_SQL`), and the probe of the server
between steps (:class:`ServerProbe`).
"""

from __future__ import annotations

import time
from typing import Any, Final

import psycopg

from bench_gui.agent.counters import ANSWER_WAIT_S, RETRY_S
from bench_gui.agent.counters import CounterReader as _Reader
from bench_gui.agent.pg.engine import Snapshot, connect, read_counters

# A reading the server cannot give in this time is cancelled by the server itself.
STATEMENT_TIMEOUT_MS: Final = 10_000


class CounterReader(_Reader):
    """Reads :data:`~bench_gui.agent.pg.engine.COUNTERS_SQL` on request, in a daemon thread."""

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


__all__ = ["ANSWER_WAIT_S", "RETRY_S", "STATEMENT_TIMEOUT_MS", "CounterReader", "ServerProbe"]
