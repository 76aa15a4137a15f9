"""The MariaDB schema as the agent builds it: tables and rows, indexes, procedures, status,
consistency, the settings snapshot and the schema facts, on the session's private MariaDB."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from bench_gui.wire.engine_errors import EngineError
from bench_gui.wire.tpcc_tables import ROWS_PER_WAREHOUSE, TABLES
from tests._fixtures.mariadb import MariaDbServer


@pytest.fixture(scope="module")
def built(mariadb_server: MariaDbServer) -> Any:
    return mariadb_server.engine(mariadb_server.tpcc(1))


def test_a_built_schema_is_complete_with_the_rows_of_one_warehouse(built: Any) -> None:
    status = built.schema_status()
    assert (status.state, status.warehouses, status.problems) == ("complete", 1, [])
    logs: list[str] = []
    facts = built.schema_facts(
        lambda *_a, **kw: logs.append(kw["message"]), threading.Event(), "now"
    )
    rows = facts["table_rows"]
    assert list(rows) == list(TABLES)
    assert rows["item"] == 100_000
    for table in ("warehouse", "district", "customer", "stock"):
        assert rows[table] == ROWS_PER_WAREHOUSE[table]
    # Orders, lines and history grow with runs (the database is shared): at least the load.
    for table in ("orders", "history"):
        assert rows[table] >= ROWS_PER_WAREHOUSE[table]
    assert rows["order_line"] >= 0.8 * ROWS_PER_WAREHOUSE["order_line"]
    assert facts["database_size_bytes"] > 50 * 1024**2
    assert set(facts["table_rows_method"].values()) == {"exact"}
    assert logs
    assert logs[0].startswith("schema now:")


def test_the_consistency_conditions_hold(built: Any) -> None:
    results = built.consistency_checks()
    assert [r.name[0] for r in results] == ["1", "2", "3", "4"]
    assert all(r.ok for r in results), results


def test_a_broken_condition_is_reported_with_an_example(mariadb_server: MariaDbServer) -> None:
    database = mariadb_server.tpcc(1)
    mariadb_server.sql("UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1", database)
    try:
        results = mariadb_server.engine(database).consistency_checks()
    finally:
        mariadb_server.sql("UPDATE warehouse SET w_ytd = w_ytd - 1 WHERE w_id = 1", database)
    first = results[0]
    assert not first.ok
    assert first.violations == 1
    assert "warehouse 1: w_ytd" in first.detail
    assert all(r.ok for r in results[1:])


def test_a_missing_index_or_procedure_makes_the_schema_partial(
    mariadb_server: MariaDbServer,
) -> None:
    database = mariadb_server.tpcc(1)
    mariadb_server.sql("ALTER TABLE orders DROP INDEX orders_i2; DROP PROCEDURE SLEV", database)
    engine = mariadb_server.engine(database)
    try:
        status = engine.schema_status()
    finally:
        from bench_gui.engines.mariadb.agent import procedures, schema
        from bench_gui.engines.mariadb.shared.odbc import connect

        conn = connect(engine.conninfo, "mariadb")
        cursor = conn.cursor()
        cursor.execute(schema.INDEXES[1][2])
        procedures.create_procedures(cursor)
        conn.close()
    assert status.state == "partial"
    assert "missing indexes: orders_i2" in status.problems
    assert "missing procedures: SLEV" in status.problems
    assert engine.schema_status().state == "complete"


def test_an_empty_database_has_no_schema(mariadb_server: MariaDbServer) -> None:
    engine = mariadb_server.engine("tpcc_empty")
    engine.create_database()
    try:
        status = engine.schema_status()
        assert (status.state, status.warehouses) == ("missing", 0)
        assert engine.database_exists()
    finally:
        engine.drop_database("tpcc_empty")
    assert not engine.database_exists()


def test_the_settings_snapshot_has_innodb_sizes_in_bytes(built: Any) -> None:
    info = built.server_info()
    assert "MariaDB" in info["server"]
    assert info["server_version_num"] >= 100000
    pool = info["settings"]["innodb_buffer_pool_size"]
    assert (pool["value"], pool["value_unit"], pool["display"]) == (256 * 1024**2, "B", "256MB")
    assert info["settings"]["innodb_flush_log_at_trx_commit"]["value"] in (0, 1, 2)
    assert info["settings"]["innodb_file_per_table"]["value"] is True
    assert info["data_directory"]


def test_the_run_lock_identity_names_the_server_and_port(
    built: Any, mariadb_server: MariaDbServer
) -> None:
    identity = built.identity()
    assert identity.keys == built.identity().keys
    assert f"port={mariadb_server.port}" in identity.keys[0]


def test_a_wrong_password_is_one_clear_error(
    mariadb_server: MariaDbServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = mariadb_server.engine("tpcc_1w")
    monkeypatch.setenv("BENCH_GUI_DB_PASSWORD", "not-the-password")
    with pytest.raises(EngineError, match=r"^cannot connect to the server: Access denied"):
        engine.database_exists()


def test_no_template_between_steps(built: Any) -> None:
    assert built.supports_template is False
    with pytest.raises(EngineError, match="no template"):
        built.make_template()
