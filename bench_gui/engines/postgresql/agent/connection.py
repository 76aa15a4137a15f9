"""Connecting to PostgreSQL as every part of the agent's engine does (the engine, its counters,
its schema facts): autocommit, liveness options, libpq's errors as one clear message."""

from __future__ import annotations

from typing import Any

import psycopg

from bench_gui.engines.postgresql.shared.liveness import with_liveness
from bench_gui.wire.engine_errors import EngineError


def connect(conninfo: str, *, what: str = "database") -> psycopg.Connection[Any]:
    """Open an autocommit connection, turning libpq's errors into one clear message.

    Keepalives, a TCP user timeout and a connect timeout come with it (:func:`with_liveness`).
    """
    try:
        return psycopg.connect(with_liveness(conninfo), autocommit=True)
    except psycopg.OperationalError as exc:
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
        raise EngineError(f"cannot connect to the {what}: {text}") from exc
