"""The MariaDB loader on the session's private MariaDB: its workers load side by side (issue
26): one worker's open warehouse transaction never makes another wait; a stopped build keeps
its whole warehouses; a failing warehouse is named.

MariaDB 10.6+ locks a whole empty table until commit when a session inserts into it with
``unique_checks`` and ``foreign_key_checks`` off; the workers' sessions keep them on.
"""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from bench_gui.agent.tpcc_data import DataGen
from bench_gui.engines.mariadb.agent import loader, schema
from bench_gui.wire.engine_errors import EngineError
from tests._fixtures.mariadb import MariaDbServer

DATABASE = "load_side_by_side"


@pytest.fixture
def empty_database(mariadb_server: MariaDbServer) -> Iterator[str]:
    name = "load_build"
    mariadb_server.sql(f"DROP DATABASE IF EXISTS {name}; CREATE DATABASE {name}")
    try:
        yield name
    finally:
        mariadb_server.sql(f"DROP DATABASE IF EXISTS {name}")


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


class StopAfter:
    """A build's progress sink that keeps the events and stops the build once ``done``
    warehouses are loaded."""

    def __init__(self, done: int) -> None:
        self.done = done
        self.stop = threading.Event()
        self.events: list[dict[str, Any]] = []

    def __call__(self, event: dict[str, Any]) -> None:
        self.events.append(event)
        if event["stage"] == "warehouses" and event["done"] >= self.done:
            self.stop.set()


def test_a_stopped_build_keeps_its_whole_warehouses(
    empty_database: str, mariadb_server: MariaDbServer
) -> None:
    sink = StopAfter(1)
    conninfo = mariadb_server.conninfo(empty_database)
    stats = loader.build(conninfo, "mariadb", 2, 1, sink, sink.stop)
    events = sink.events
    assert stats["status"] == "stopped"
    loading = [(e["done"], e["total"], e["message"]) for e in events if e["stage"] == "warehouses"]
    assert loading == [(0, 2, "loading with 1 workers"), (1, 2, "1 of 2 warehouses loaded")]
    assert "indexes" not in {e["stage"] for e in events}
    # the warehouse in flight was rolled back
    assert mariadb_server.sql("SELECT COUNT(*) FROM warehouse", empty_database).strip() == "1"
    assert mariadb_server.sql("SELECT COUNT(*) FROM stock", empty_database).strip() == "100000"


def test_a_failing_warehouse_is_named(
    empty_database: str, mariadb_server: MariaDbServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    create_tables = schema.create_tables

    def broken_tables(cursor: Any) -> None:
        create_tables(cursor)
        # LOAD DATA LOCAL ignores bad rows (a CHECK constraint too), not a trigger's error.
        cursor.execute(
            "CREATE TRIGGER no_stock BEFORE INSERT ON stock FOR EACH ROW"
            " SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no_stock'"
        )

    monkeypatch.setattr(schema, "create_tables", broken_tables)
    conninfo = mariadb_server.conninfo(empty_database)
    with pytest.raises(
        EngineError, match=r"loading warehouses failed: warehouse 1: \w+: .*no_stock"
    ):
        loader.build(conninfo, "mariadb", 1, 1, lambda _e: None)
