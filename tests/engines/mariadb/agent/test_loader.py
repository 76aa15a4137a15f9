"""The MariaDB loader's workers load side by side (issue 26): one worker's open warehouse
transaction never makes another wait, on the session's private MariaDB.

MariaDB 10.6+ locks a whole empty table until commit when a session inserts into it with
``unique_checks`` and ``foreign_key_checks`` off; the workers' sessions keep them on.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator

import pytest

from bench_gui.agent.tpcc_data import DataGen
from bench_gui.engines.mariadb.agent import loader, schema
from tests._fixtures.mariadb import MariaDbServer

DATABASE = "load_side_by_side"


@pytest.fixture
def empty_tables(mariadb_server: MariaDbServer) -> Iterator[str]:
    mariadb_server.sql(f"DROP DATABASE IF EXISTS {DATABASE}; CREATE DATABASE {DATABASE}")
    conn = loader._session(mariadb_server.conninfo(DATABASE), "mariadb", checks=False)
    try:
        schema.create_tables(conn.cursor())
    finally:
        conn.close()
    try:
        yield mariadb_server.conninfo(DATABASE)
    finally:
        mariadb_server.sql(f"DROP DATABASE IF EXISTS {DATABASE}")


def test_a_warehouse_loads_while_another_workers_warehouse_is_uncommitted(
    empty_tables: str, mariadb_server: MariaDbServer
) -> None:
    first = loader._session(empty_tables, "mariadb")
    second = loader._session(empty_tables, "mariadb")
    try:
        # The first worker is in the middle of warehouse 1: stock rows inserted, not committed.
        first.autocommit = False
        gen = DataGen(1)
        with tempfile.TemporaryDirectory() as folder:
            loader._load(first.cursor(), folder, "stock", gen.stock(1, 1, 1000), lambda: None)
        # The second loads all of warehouse 2 meanwhile; a table lock would make it wait (and
        # give up after a second: error 1205).
        second.cursor().execute("SET SESSION innodb_lock_wait_timeout = 1")
        with tempfile.TemporaryDirectory() as folder:
            rows = loader.load_warehouse(second, DataGen(2), 2, folder, lambda: None)
        assert rows > 400_000
        first.rollback()
    finally:
        first.close()
        second.close()
    counted = mariadb_server.sql("SELECT COUNT(*) FROM stock WHERE s_w_id = 2", DATABASE)
    assert int(counted) == 100_000
    assert (
        mariadb_server.sql("SELECT COUNT(*) FROM stock WHERE s_w_id = 1", DATABASE).strip() == "0"
    )
