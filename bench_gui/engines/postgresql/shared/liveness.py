"""Connection options that keep a dead or unreachable server from holding a connection forever.

A PostgreSQL server whose host vanishes (a pulled cable, a crashed VM, a firewall that drops
packets) never closes its TCP connections: without keepalives a client waits on them for
hours. Every connection the agent and the desktop open gets TCP keepalives, a TCP user
timeout (how long sent data may stay unacknowledged) and a connect timeout, unless the
connection string already sets them. They do nothing for Unix sockets and cannot notice a
server whose processes are stopped while its kernel still answers (that is the sampler's job:
:mod:`bench_gui.engines.postgresql.agent.counters`). :func:`server_away` tells a server that is
away for now
(restarting, refusing) from a connection that can never work (a wrong password or database).

Pure (psycopg's conninfo parser only, imported where it is called), so the agent and the
desktop's tuner and connection strings use it as is: it is the PostgreSQL kit's shared code.
"""

from __future__ import annotations

from typing import Final

# libpq parameters (seconds, except tcp_user_timeout in milliseconds): a silent peer is given
# up after about idle + interval x count = 25 s, unacknowledged data after 30 s.
LIVENESS_OPTIONS: Final[dict[str, int]] = {
    "connect_timeout": 10,
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
    "tcp_user_timeout": 30_000,
}


def with_liveness(conninfo: str) -> str:
    """``conninfo`` with :data:`LIVENESS_OPTIONS` added where it does not set them itself.

    Idempotent; a URI comes back as a key=value string (libpq reads both).
    """
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    present = conninfo_to_dict(conninfo)
    missing = {k: v for k, v in LIVENESS_OPTIONS.items() if k not in present}
    if not missing:
        return conninfo
    return make_conninfo(conninfo, **missing)


# libpq's and the server's words for a server that restarts, shuts down or cannot be reached
# for now (not a wrong password, database or schema).
AWAY_WORDS: Final = (
    "connection refused",
    "no such file or directory",
    "is starting up",
    "is shutting down",
    "not yet accepting connections",
    "in recovery mode",
    "timeout expired",
    "closed the connection unexpectedly",
    "terminating connection",
    "connection reset",
    "too many clients",
)


def server_away(exc: BaseException) -> bool:
    """Whether a failed connection or statement says the server is away for now (try again
    later), not that it can never work."""
    text = str(exc).lower()
    return any(words in text for words in AWAY_WORDS)
