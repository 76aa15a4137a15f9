"""The server's identity, read through every spelling of its host and by ordinary users."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import psycopg
import pytest

from bench_gui.engines.postgresql.agent.identity import ServerIdentity, server_identity
from tests._fixtures.pg import PgServer
from tests._fixtures.pg_tcp import PgTcp


def identity(conninfo: str) -> ServerIdentity:
    with psycopg.connect(conninfo, autocommit=True) as conn:
        return server_identity(conn)


def test_every_spelling_of_the_host_gives_one_identity(pg_server: PgServer, pg_tcp: PgTcp) -> None:
    by_socket = identity(pg_server.uri())
    assert by_socket.keys[0].startswith("postgresql|system=")
    assert by_socket.keys[0].endswith("|port=5432")
    assert by_socket.keys[1].startswith("postgresql|started=")
    assert "system identifier" in by_socket.label
    spellings = ["127.0.0.1", "localhost"]
    name = socket.gethostname()
    try:
        if socket.gethostbyname(name) == "127.0.0.1":
            spellings.append(name)  # the host's own name, where it resolves to loopback
    except OSError:
        pass  # a machine whose own name is not in its /etc/hosts (a fresh minimal one)
    for host in spellings:
        assert identity(pg_tcp.uri(host=host)) == by_socket, host
    # Another database of the same server: the same server.
    assert identity(pg_server.uri("template1")) == by_socket


@pytest.fixture
def plain_role(pg_server: PgServer) -> Iterator[str]:
    """A login role without superuser rights (trust authentication: no password)."""
    pg_server.psql("DROP ROLE IF EXISTS bench_plain; CREATE ROLE bench_plain LOGIN")
    yield f"host={pg_server.socket_dir} dbname=postgres user=bench_plain"
    pg_server.psql("DROP ROLE IF EXISTS bench_plain")


def test_a_user_who_may_not_read_the_identifier_still_meets_the_others(
    pg_server: PgServer, plain_role: str
) -> None:
    """With ``pg_control_system()`` revoked from ordinary users, such a user's run locks the
    start-time key only, which a superuser's run holds too: the two still meet."""
    superuser = identity(pg_server.uri())
    assert identity(plain_role) == superuser  # the function is open to everyone by default
    pg_server.psql("REVOKE EXECUTE ON FUNCTION pg_control_system() FROM PUBLIC")
    try:
        plain = identity(plain_role)
    finally:
        pg_server.psql("GRANT EXECUTE ON FUNCTION pg_control_system() TO PUBLIC")
    assert plain.keys == superuser.keys[1:]
    assert plain.label.startswith("the PostgreSQL server started ")
    assert plain.label.endswith(", port 5432")
