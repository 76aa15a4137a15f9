"""Keepalives, a TCP user timeout and a connect timeout on every connection string, without
overriding what the string sets itself."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

from bench_gui.core.plan_model import Target
from bench_gui.engines.postgresql.agent.vu import _connect
from bench_gui.engines.postgresql.connection import PostgresEngine
from bench_gui.engines.postgresql.shared.liveness import (
    LIVENESS_OPTIONS,
    server_away,
    with_liveness,
)
from tests._fixtures.pg import Clone, PgServer


def test_the_options_are_added_to_a_plain_conninfo() -> None:
    params = conninfo_to_dict(with_liveness("host=db1 dbname=tpcc"))
    assert params["host"] == "db1"
    assert params["dbname"] == "tpcc"
    for key, value in LIVENESS_OPTIONS.items():
        assert params[key] == str(value)


def test_what_the_conninfo_sets_itself_is_kept() -> None:
    params = conninfo_to_dict(with_liveness("host=db1 keepalives_idle=60 connect_timeout=3"))
    assert params["keepalives_idle"] == "60"
    assert params["connect_timeout"] == "3"
    assert params["tcp_user_timeout"] == "30000"


def test_a_uri_and_a_second_pass() -> None:
    once = with_liveness("postgresql://bench@db1:5433/tpcc?sslmode=prefer")
    params = conninfo_to_dict(once)
    assert (params["host"], params["port"], params["user"]) == ("db1", "5433", "bench")
    assert params["keepalives"] == "1"
    assert with_liveness(once) == once


def test_the_engine_plugin_conninfo_carries_them() -> None:
    target = Target(kind="postgresql", host="db1.example.net", port=5432, user="bench")
    params = conninfo_to_dict(PostgresEngine().conninfo(target, "tpcc"))
    assert params["keepalives"] == "1"
    assert params["tcp_user_timeout"] == "30000"
    assert "password" not in params


def test_a_virtual_user_connection_gets_them(pg_server: PgServer, tpcc_db: Clone) -> None:
    conn = _connect(pg_server.uri(tpcc_db("liveness_vu")))
    try:
        options = {o.keyword: o.val for o in conn.info}
    finally:
        conn.finish()
    assert options[b"keepalives"] == b"1"
    assert options[b"tcp_user_timeout"] == b"30000"


def test_a_server_away_for_now_is_told_from_a_connection_that_cannot_work(
    pg_server: PgServer, tmp_path: Path
) -> None:
    """libpq's own words: no socket (a server restarting) is away for now; a database that
    does not exist is not (its user must not wait for it)."""
    with pytest.raises(psycopg.OperationalError) as no_socket:
        psycopg.connect(f"host={tmp_path} dbname=postgres connect_timeout=2")
    assert server_away(no_socket.value), str(no_socket.value)
    with pytest.raises(psycopg.OperationalError) as no_database:
        psycopg.connect(pg_server.uri("no_such_database_here"))
    assert not server_away(no_database.value), str(no_database.value)
