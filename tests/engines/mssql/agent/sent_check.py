"""Scripted answers of a complete one-warehouse TPROC-C database on SQL Server, and the check of
every recorded statement through the T-SQL parser (see :mod:`tests.engines.mssql.agent.recording`:
recorded statements, not a server's behaviour)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from bench_gui.engines.mssql.agent import checks, counters, engine, hammerdb, procedures, schema
from bench_gui.engines.mssql.shared import settings
from tests.engines.mssql.agent.recording import ResultSets
from tests.engines.mssql.agent.tsql_check import TsqlError, check_procedure, check_statement

_CALL = re.compile(r"\{CALL dbo\.(\w+) \(((?:\?, )*\?)\)\}")
# Both profiles' procedures and their parameters.
PARAMETERS = {**procedures.PARAMETERS, **hammerdb.PARAMETERS}


def check_sent(sql: str) -> None:
    """One recorded text through the parser: a procedure batch statement by statement, an
    ODBC call escape as the EXEC it stands for (its markers counted), anything else whole."""
    call = _CALL.fullmatch(sql)
    if call is not None:
        name = call.group(1)
        if name not in PARAMETERS:
            raise TsqlError(f"a call of an unknown procedure: {sql}")
        if call.group(2).count("?") != len(PARAMETERS[name]):
            raise TsqlError(f"{sql}: not one marker per parameter of {name}")
        names = ", ".join(f"@{p} = ?" for p, _t in PARAMETERS[name])
        check_statement(f"EXEC dbo.{name} {names}")
        return
    if sql.startswith("{"):
        raise TsqlError(f"an ODBC escape that is no procedure call: {sql}")
    created = re.match(r"CREATE OR ALTER PROCEDURE dbo\.(\w+)\n", sql)
    if created is not None:
        name = created.group(1)
        check_procedure(sql, [p for p, _t in PARAMETERS[name]])
        return
    check_statement(sql)


CONFIG_ROWS = [
    ("cost threshold for parallelism", 5, 5, 0, 32767, 1, 1),
    ("max degree of parallelism", 1, 0, 0, 32767, 1, 1),  # configured, RECONFIGURE pending
    ("max server memory (MB)", 2_147_483_647, 2_147_483_647, 128, 2_147_483_647, 1, 1),
    ("show advanced options", 0, 0, 0, 1, 1, 0),
]
SIZES = {  # table -> (rows, data pages, all pages)
    "warehouse": (1, 1, 2),
    "district": (10, 10, 12),
    "customer": (30_000, 2_300, 3_100),
    "history": (30_000, 200, 260),
    "orders": (30_000, 100, 180),
    "new_order": (9_000, 20, 22),
    "order_line": (300_000, 3_000, 3_010),
    "item": (100_000, 1_000, 1_002),
    "stock": (100_000, 4_000, 4_010),
}
DISTRICTS = [(1, d, 3001, 3000, 3000, 2101, 900) for d in range(1, 11)]


def complete_database(sql: str, params: Sequence[Any]) -> ResultSets:
    """What a complete, consistent one-warehouse database answers; AssertionError for a query
    this script does not know (so a new query cannot slip past the parser unseen)."""
    fixed: dict[str, ResultSets] = {
        schema.TABLES_PRESENT_SQL: [[(t,) for t in schema.TABLES]],
        engine.PROCEDURES_PRESENT_SQL: [[(p,) for p in procedures.ALL_PROCEDURES]],
        engine.INDEXES_PRESENT_SQL: [[(i.name,) for i in schema.INDEXES]],
        engine.WAREHOUSE_RANGE_SQL: [[(1, 1, 1)]],
        engine.DISTRICT_COUNT_SQL: [[(10,)]],
        engine.ITEM_COUNT_SQL: [[(100_000,)]],
        engine.STOCK_OF_WAREHOUSE_SQL: [[(100_000,)]],
        engine.SERVER_SQL: [
            [
                (
                    "14.0.3456.2",
                    "Developer Edition (64-bit)",
                    "Microsoft SQL Server 2017 (RTM-CU31) (KB5016884) - 14.0.3456.2 (X64)\n"
                    "\tCopyright (C) 2017 Microsoft Corporation",
                    "/var/opt/mssql/data/",
                )
            ]
        ],
        engine.IDENTITY_SQL: [[("db1", "DB1", "/var/opt/mssql/data/")]],
        engine.DATABASE_OPTIONS_SQL: [[("SIMPLE", 60, "OFF", 0)]],
        engine.TABLE_SIZES_SQL: [[(t, r, d, a) for t, (r, d, a) in SIZES.items()]],
        settings.CONFIGURATIONS_SQL: [CONFIG_ROWS],
        settings.DATABASE_MAXDOP_SQL: [[(0,)]],
        settings.AVAILABILITY_GROUP_SQL: [[]],
        counters.COUNTERS_SQL: [[(30_010, 123_456)]],
        checks.SNAPSHOT_ALLOWED_SQL: [[(0,)]],
        checks.WAREHOUSE_COUNT_SQL: [[(1,)]],
        checks.W_YTD_SQL: [[]],
        checks.DISTRICT_SQL: [DISTRICTS],
        checks.ORDER_LINES_SQL: [[(1, d, 30_000, 30_000) for d in range(1, 11)]],
    }
    if sql in fixed:
        return fixed[sql]
    if sql in engine.HIGHEST_WAREHOUSE_SQL.values():
        return [[(1,)]]
    for table, query in engine.COUNT_SQL.items():
        if sql == query:
            return [[(SIZES[table][0],)]]
    if sql.startswith("SELECT DB_ID(N'"):
        return [[(7,)]]
    if sql.startswith("SELECT session_id, login_name") and "sys.dm_exec_sessions" in sql:
        return [[]]  # nobody else on the database
    if sql.startswith("SELECT"):
        raise AssertionError(f"the scripted database does not know this query: {sql}")
    return []


def neword_answer(rbk: int) -> ResultSets:
    if rbk:
        return [[(0, None, 6, None, None, None, None, None, None)]]
    return [[(1, 3001, 6, Decimal("120.50"), "BARBARBAR", "GC", 0.1, 0.05, 0.07)]]


PROCEDURE_ANSWERS: dict[str, ResultSets] = {
    "payment": [[(7, "f", "OE", "BARBARBAR", Decimal("-10"), "GC", 0.1, "w", "d", 10)]],
    "ostat": [[(7, "f", "OE", "BARBARBAR", 1, 12, None, 3)], [(1, 1, 5, 1, None)] * 5],
    "delivery": [[(10,)]],
    "slev": [[(3,)]],
}


def answer_call(sql: str, params: Sequence[Any]) -> ResultSets:
    """The documented result sets of each procedure (procedures.RESULT_SETS)."""
    call = _CALL.fullmatch(sql)
    assert call is not None, sql
    name = call.group(1)
    if name == "neword":
        return neword_answer(int(params[-1]))
    return PROCEDURE_ANSWERS[name]
