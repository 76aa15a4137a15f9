"""The hammerdb profile's SQL Server procedures (dbo.hdb_*): HammerDB 6.0's logic, parsed by
sqlglot statement by statement (no SQL Server runs here), and how its answers are read."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from bench_gui.agent.odbc_users import Counts
from bench_gui.agent.profiles import HammerDbParams
from bench_gui.agent.users import SLOT_ERRORS, SLOTS, TX_INDEX, WorkerSpec
from bench_gui.engines.mssql.agent import hammerdb, procedures, transactions, vu
from bench_gui.engines.mssql.agent.vu import _failure, _values
from bench_gui.wire.protocol import TX_KEYS
from tests.engines.mssql.agent.recording import Log, RecordingConnection, ResultSets
from tests.engines.mssql.agent.sent_check import check_sent
from tests.engines.mssql.agent.tsql_check import TsqlError, check_procedure, check_statement


def inner(name: str) -> list[str]:
    return check_procedure(hammerdb.create_sql(name), [p for p, _t in hammerdb.PARAMETERS[name]])


@pytest.mark.parametrize("name", hammerdb.PROCEDURES)
def test_procedure_bodies_parse_statement_by_statement(name: str) -> None:
    statements = inner(name)
    # HammerDB's handling: the error is answered as a result set and rolled back, never
    # re-raised; what is left open is committed at the end.
    assert not any(s.startswith("THROW") for s in statements)
    assert statements[-2:] == ["ROLLBACK TRANSACTION;", "COMMIT TRANSACTION;"]
    assert any(s.startswith("SELECT ERROR_NUMBER() AS ErrorNumber") for s in statements)


@pytest.mark.parametrize("sql", [*hammerdb.DROP_PROCEDURES, *hammerdb.CALLS.values()])
def test_drops_and_calls_parse(sql: str) -> None:
    if sql.startswith("{CALL"):
        name = sql.split()[1].removeprefix("dbo.")
        marks = sql.count("?")
        assert marks == len(hammerdb.PARAMETERS[name])
        sql = f"EXEC dbo.{name} " + ", ".join(f"@{p} = ?" for p, _t in hammerdb.PARAMETERS[name])
    check_statement(sql)


def test_new_order_rolls_back_after_its_inserts_as_hammerdb_does() -> None:
    statements = inner("hdb_neword")
    rollback = statements.index("ROLLBACK TRANSACTION;")
    inserts = [i for i, s in enumerate(statements) if s.startswith("INSERT INTO dbo.")]
    assert inserts
    assert max(inserts) < rollback  # orders and new_order first, then the rollback
    assert "SET @item = 100001;" in statements
    assert "SET @item = CAST(100000 * RAND() + 1 AS int);" in statements  # uniform items


def test_both_profiles_are_built_under_distinct_names() -> None:
    assert set(procedures.ALL_PROCEDURES) == set(procedures.PROCEDURES) | set(hammerdb.PROCEDURES)
    assert not set(procedures.PROCEDURES) & set(hammerdb.PROCEDURES)
    assert procedures.create_any_sql("hdb_slev") == hammerdb.create_sql("hdb_slev")
    assert procedures.create_any_sql("slev") == procedures.create_sql("slev")


def test_a_broken_hammerdb_procedure_is_rejected() -> None:
    text = hammerdb.create_sql("hdb_slev").replace("d_next_o_id - 20,", "d_next_o_id - ,")
    with pytest.raises(TsqlError):
        check_procedure(text, [p for p, _t in hammerdb.PARAMETERS["hdb_slev"]])


def test_an_error_answered_as_a_result_set_is_counted_by_name() -> None:
    columns = ["ErrorNumber", "ErrorSeverity", "ErrorState", "ErrorProcedure", "ErrorLine"]
    columns.append("ErrorMessage")
    row = (1205, 13, 51, "hdb_payment", 12, "Transaction was deadlocked")
    error = hammerdb.caught([(["c_id"], [(1,)]), (columns, [row])])
    assert error is not None
    assert error.number == 1205
    assert _failure(error) == "deadlock_detected"
    assert transactions.ERROR_NAMES[1205] == "deadlock_detected"
    assert hammerdb.caught([(["c_id", "c_last"], [(1, "BAR")])]) is None


def test_hammerdb_draws_become_odbc_values() -> None:
    drawn = HammerDbParams(2, seed=5).params("payment", 1, 1)
    values = _values(drawn)
    assert [type(v) for v in values] == [int] * 7 + [str]
    assert len(values) == len(hammerdb.PARAMETERS["hdb_payment"])
    assert len(_values(HammerDbParams(2, seed=5).params("new_order", 1, 1))) == 5


def test_recorded_hammerdb_user_calls_only_the_hdb_procedures() -> None:
    """Recorded statements (tests/engines/mssql/agent/recording.py, no server): a hammerdb-profile
    user sends only the hdb_* calls, each parsed, one typed parameter per marker."""
    flags = [0, 1]
    log = Log()
    sent = 0

    def answer(_sql: str, _params: Sequence[Any]) -> ResultSets:
        nonlocal sent
        sent += 1
        if sent >= 300:
            flags[0] = 1
        return [[(0,)]]

    spec = WorkerSpec(
        worker=0,
        conninfo="DRIVER={ODBC Driver 18 for SQL Server};SERVER=tcp:db1,1433;UID=sa",
        vus=[0],
        total_vus=1,
        warehouses=3,
        all_warehouses=False,
        keying_thinking=False,
        seed=3,
        profile="hammerdb",
    )
    counters = [0] * SLOTS
    vu.run_user(spec, 0, RecordingConnection(answer, log), Counts(0, counters), flags, 5)
    assert set(log.texts()) == set(hammerdb.CALLS.values())
    for text in set(log.texts()):
        check_sent(text)
    for call in log.sent:
        assert call.sql.count("?") == len(call.params)
        assert all(isinstance(p, (int, str)) for p in call.params)
    assert counters[SLOT_ERRORS] == 0
    assert sum(counters[TX_INDEX[k]] for k in TX_KEYS) == 300
