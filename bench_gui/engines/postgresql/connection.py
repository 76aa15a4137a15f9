"""PostgreSQL's connection string: the kit's ``bench_gui.engines`` plugin, registered by entry
point like any third-party engine's."""

from __future__ import annotations

from psycopg.conninfo import make_conninfo

from bench_gui.core.plan_model import Target
from bench_gui.engines.postgresql.shared.liveness import with_liveness


class PostgresEngine:
    """PostgreSQL through psycopg/libpq; the agent drives it with server-side routines."""

    name = "postgresql"
    label = "PostgreSQL"
    default_port = 5432
    # Verified against a live server by this project's tests? (bench-gui engines says it.)
    verified_live = True
    verified_how = "by this project's tests, on a private PostgreSQL they start"

    def conninfo(self, target: Target, database: str) -> str:
        params: dict[str, str | int] = {
            "host": target.host,
            "port": target.port,
            "user": target.user,
            "dbname": database,
            "sslmode": target.sslmode or "prefer",
            "application_name": "bench-gui",
        }
        # No password here: it reaches the agent through its environment (PGPASSWORD), never
        # through the conninfo, which is echoed into events and stored with sessions.
        # Keepalives, a TCP user timeout and a connect timeout: a vanished server is given up
        # on by every connection made from this string, on the driver host and here.
        return with_liveness(make_conninfo("", **params))
