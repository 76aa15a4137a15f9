"""Which SQL Server the integration tests may use: ``BENCH_GUI_TEST_MSSQL``.

The variable takes one of two forms:

- an ODBC connection string, e.g. ``DRIVER={ODBC Driver 18 for SQL Server};SERVER=tcp:db,1433;
  UID=sa;Encrypt=yes;TrustServerCertificate=yes``; its password as ``PWD=`` in the string or,
  kept out of it, in ``BENCH_GUI_TEST_MSSQL_PASSWORD``; a string with neither DRIVER nor DSN
  gets this host's SQL Server driver (as the engine does);
- ``host:port,user,password`` (``host,user,password`` for port 1433), e.g.
  ``db1:1433,sa,Secret-Pw-1``: a SQL login over an encrypted connection whose certificate is
  not checked (``tls = "on"``, what a lab server with a self-signed certificate needs), with
  this host's SQL Server driver.

The login must be allowed to create and drop a database, read sys.dm_os_performance_counters
(VIEW SERVER STATE) and sys.configurations. The tests create ``bench_gui_test_<pid>`` and drop
it at the end. Unset, the tests are skipped with :data:`SKIP_REASON`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Final

from bench_gui.engines.mssql.shared.connect import join_params
from bench_gui.wire.odbc import parse

ENV: Final = "BENCH_GUI_TEST_MSSQL"
PASSWORD_ENV: Final = "BENCH_GUI_TEST_MSSQL_PASSWORD"
SKIP_REASON: Final = (
    "no SQL Server: BENCH_GUI_TEST_MSSQL is not set (an ODBC connection string, or"
    " host:port,user,password; see tests/engines/mssql/agent/live_server.py)"
)


@dataclass(frozen=True)
class LiveServer:
    """A server to test against: a connection string without password or database, and the
    password (None: the string or the DSN needs none)."""

    conninfo: str
    password: str | None

    def on(self, database: str) -> str:
        """The string on ``database``."""
        return f"{self.conninfo};DATABASE={database}"


def parse_live_server(value: str, password: str | None = None) -> LiveServer:
    """The server ``value`` names (see the module's docstring); ValueError naming the
    variable and what is wrong."""
    value = value.strip()
    if not value:
        raise ValueError(f"{ENV} is empty")
    if "=" in value:
        params = parse(value)
        secret = params.pop("PWD", None) or params.pop("PASSWORD", None) or password
        params.pop("DATABASE", None)
        if not ("SERVER" in params or "DSN" in params):
            raise ValueError(f"{ENV}: the connection string names neither SERVER nor DSN")
        return LiveServer(join_params(params), secret)
    parts = value.split(",", 2)
    if len(parts) != 3 or not all(parts):
        raise ValueError(
            f"{ENV}: expected an ODBC connection string or host:port,user,password,"
            f" got {len(parts)} comma-separated parts"
        )
    where, user, secret = parts
    host, colon, port = where.rpartition(":")
    if not colon:
        host, port = where, "1433"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{ENV}: port {port!r} is not a port number")
    params = {
        "SERVER": host,
        "PORT": port,
        "UID": user,
        "ENCRYPT": "yes",
        "TRUSTSERVERCERTIFICATE": "yes",
    }
    return LiveServer(join_params(params), secret)


def live_server() -> LiveServer | None:
    """The server of ``BENCH_GUI_TEST_MSSQL``, or None when it is not set."""
    value = os.environ.get(ENV, "")
    if not value.strip():
        return None
    return parse_live_server(value, os.environ.get(PASSWORD_ENV))
