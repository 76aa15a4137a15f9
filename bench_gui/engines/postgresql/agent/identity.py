"""Which PostgreSQL server a connection reached, whatever name or address it was reached by.

The run lock (:mod:`bench_gui.agent.runlock`) is keyed on the server, not on how a plan spells
its host: ``127.0.0.1``, ``localhost``, the host's name, a Unix socket directory or an alias all
reach the same server, and two runs against it must meet at the same lock.

Two keys, both read from the server itself:

- the cluster's system identifier (``pg_control_system()``, set once by initdb) and the port it
  listens on: two clusters copied from one another share an identifier but not, on one host, a
  port. It stays the same across restarts. A server may revoke the function from ordinary
  users, so not every run can read it;
- the postmaster's start time and the port, which every user can read: every client of a
  running server reads the same instant, to the microsecond, whatever it connected through.

A run holds the lock of every key it could read, so a run that can read the identifier and one
that cannot still meet (at the second key).
"""

from __future__ import annotations

from typing import Any

import psycopg

from bench_gui.agent.engines import ServerIdentity
from bench_gui.wire.engine_errors import EngineError


def server_identity(conn: psycopg.Connection[Any]) -> ServerIdentity:
    """The identity of the server ``conn`` (an autocommit connection) is connected to."""
    try:
        row = conn.execute(
            "SELECT current_setting('port'), pg_postmaster_start_time()::text"
        ).fetchone()
        port, started = (str(row[0]), str(row[1])) if row else ("?", "?")
        try:
            row = conn.execute("SELECT system_identifier::text FROM pg_control_system()").fetchone()
        except psycopg.errors.InsufficientPrivilege:
            row = None
    except psycopg.Error as exc:
        raise EngineError(f"cannot tell which server this is: {exc}") from exc
    by_start = f"postgresql|started={started}|port={port}"
    if row and row[0]:
        return ServerIdentity(
            (f"postgresql|system={row[0]}|port={port}", by_start),
            f"the PostgreSQL server with system identifier {row[0]}, port {port}",
        )
    return ServerIdentity((by_start,), f"the PostgreSQL server started {started}, port {port}")
