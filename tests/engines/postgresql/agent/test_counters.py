"""The counter reader against a real PostgreSQL whose processes are stopped (SIGSTOP): it never
makes its caller wait on the hung server, says for how long it has not answered, and reads
again as soon as the server goes on."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from bench_gui.engines.postgresql.agent.counters import STATEMENT_TIMEOUT_MS, CounterReader
from tests._fixtures.pg import PgServer
from tests._fixtures.pg_hang import frozen
from tests._fixtures.wait import wait_until


@pytest.fixture(scope="module")
def counters_uri(hang_pg: PgServer) -> str:
    """A database with just what the counters read: district's d_next_o_id."""
    hang_pg.drop("counters")
    with psycopg.connect(hang_pg.uri(), autocommit=True) as conn:
        conn.execute("CREATE DATABASE counters")
    uri = hang_pg.uri("counters")
    with psycopg.connect(uri, autocommit=True) as conn:
        conn.execute("CREATE TABLE district (d_next_o_id int)")
        conn.execute("INSERT INTO district VALUES (3001), (3001)")
    return uri


@pytest.fixture
def reader(counters_uri: str) -> Iterator[CounterReader]:
    opened = CounterReader(counters_uri)
    yield opened
    opened.close()


def test_a_server_that_answers_gives_fresh_readings(reader: CounterReader) -> None:
    first = wait_until(lambda: reader.read(), what="a first reading")
    second = wait_until(lambda: reader.read(), what="a second reading")
    assert first.new_orders == second.new_orders == 6002
    assert second.t > first.t  # a new reading each time, not the last one again
    assert reader.not_answering_s() == 0.0
    assert reader.error == ""


def test_the_counter_connection_has_a_statement_timeout_and_keepalives(
    reader: CounterReader,
) -> None:
    wait_until(lambda: reader.read(), what="a first reading")
    conn = reader._conn  # idle between readings; psycopg's lock guards it anyway
    assert conn is not None
    row = conn.execute("SELECT setting FROM pg_settings WHERE name = 'statement_timeout'")
    assert row.fetchone() == (str(STATEMENT_TIMEOUT_MS),)
    params = conn.info.get_parameters()
    assert params["keepalives"] == "1"
    assert params["tcp_user_timeout"] == "30000"
    assert params["connect_timeout"] == "10"


def test_a_hung_server_is_not_waited_on(hang_pg: PgServer, reader: CounterReader) -> None:
    wait_until(lambda: reader.read(), what="a first reading")
    with frozen(hang_pg):
        assert reader.read(wait=0.2) is None
        silent = wait_until(lambda: reader.not_answering_s() > 1.0 and reader.not_answering_s())
        # Asked again while the first request is still unanswered: no wait, no reading.
        assert reader.read() is None
        assert reader.not_answering_s() >= silent
    back = wait_until(lambda: reader.read(), what="a reading once the server goes on")
    assert back.new_orders == 6002
    assert reader.not_answering_s() == 0.0
