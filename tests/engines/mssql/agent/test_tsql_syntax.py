"""Every statement the SQL Server engine can send, through sqlglot's T-SQL parser.

No SQL Server runs here, so this is the line of defence against a syntax slip: see
tsql_check for what counts as parsed. The broken statements and procedures at the end prove
the check can fail.
"""

from __future__ import annotations

import re

import pytest
from sqlglot import exp

from bench_gui.engines.mssql.agent import checks, counters, procedures, schema
from bench_gui.engines.mssql.agent.transactions import CALLS, PROCEDURE_OF
from bench_gui.engines.mssql.shared import settings
from tests.engines.mssql.agent.tsql_check import TsqlError, check_procedure, check_statement


def _snapshot() -> settings.SettingsSnapshot:
    def cfg(value: int, maximum: int = 2_147_483_647) -> settings.ConfigValue:
        return settings.ConfigValue(value, value, 0, maximum, True, True)

    return settings.SettingsSnapshot(
        configurations={
            "show advanced options": settings.ConfigValue(0, 0, 0, 1, True, False),
            "max degree of parallelism": cfg(0, 32767),
            "max server memory (MB)": cfg(2_147_483_647),
            "cost threshold for parallelism": cfg(5, 32767),
        },
        recovery_model="FULL",
        target_recovery_time_s=0,
    )


def _settings_statements() -> list[str]:
    preset = settings.seed_003_preset(ram_mb=393_216)
    snap = _snapshot()
    return [
        settings.CONFIGURATIONS_SQL,
        settings.DATABASE_SQL,
        settings.VERSION_SQL,
        *settings.apply_statements(preset, snap, "tpcc"),
        *settings.rollback_statements(preset, snap, "tpcc"),
    ]


STATEMENTS = [
    *schema.all_statements(),
    *procedures.DROP_PROCEDURES,
    *(procedures.exec_sql(name) for name in procedures.PROCEDURES),
    counters.COUNTERS_SQL,
    *checks.ALL_SQL,
    *_settings_statements(),
]


@pytest.mark.parametrize("sql", STATEMENTS, ids=[s[:60] for s in STATEMENTS])
def test_statement_parses_as_tsql(sql: str) -> None:
    check_statement(sql)


@pytest.mark.parametrize("name", procedures.PROCEDURES)
def test_procedure_bodies_parse_statement_by_statement(name: str) -> None:
    params = [p for p, _t in procedures.PARAMETERS[name]]
    inner = check_procedure(procedures.create_sql(name), params)
    text = " ".join(inner)
    # The transaction rules every procedure keeps.
    assert "BEGIN TRANSACTION;" in inner
    assert "COMMIT TRANSACTION;" in inner
    assert inner[-1] == "THROW;"
    assert inner[-2] == "ROLLBACK TRANSACTION;"
    assert "SET XACT_ABORT ON;" in inner
    assert "SET NOCOUNT ON;" in inner
    # The SELECTs that answer (no variable assignment) give exactly the documented sets.
    answered: list[tuple[str, ...]] = []
    for statement in inner:
        tree = check_statement(statement)
        if isinstance(tree, exp.Select) and not any(
            isinstance(e, exp.EQ) for e in tree.expressions
        ):
            columns = tuple(e.alias_or_name for e in tree.expressions)
            if columns not in answered:
                answered.append(columns)
    assert tuple(answered) == procedures.RESULT_SETS[name], text[:200]


def test_neword_rolls_back_the_invalid_item_for_real() -> None:
    inner = check_procedure(
        procedures.create_sql("neword"), [p for p, _t in procedures.PARAMETERS["neword"]]
    )
    rollback = inner.index("ROLLBACK TRANSACTION;")
    # The rollback answers committed = 0 and returns before anything is inserted.
    assert inner[rollback + 1].startswith("SELECT CAST(0 AS int) AS committed")
    assert inner[rollback + 2] == "RETURN;"
    first_insert = next(i for i, s in enumerate(inner) if s.startswith("INSERT INTO dbo."))
    assert rollback < first_insert
    assert "SET @item = 100001;" in inner


@pytest.mark.parametrize("kind", sorted(PROCEDURE_OF))
def test_call_escape_matches_the_procedure(kind: str) -> None:
    name = PROCEDURE_OF[kind]
    match = re.fullmatch(r"\{CALL dbo\.(\w+) \(((?:\?, )*\?)\)\}", CALLS[kind])
    assert match is not None, CALLS[kind]
    assert match.group(1) == name
    assert match.group(2).count("?") == len(procedures.PARAMETERS[name])


def test_every_procedure_documents_its_result_sets() -> None:
    assert set(procedures.RESULT_SETS) == set(procedures.PARAMETERS) == set(procedures.BODIES)
    assert procedures.RESULT_SETS["ostat"][1][0] == "ol_i_id"


# -- the check can fail ---------------------------------------------------------------------

BROKEN = [
    "SELEC 1",  # a typo in a keyword
    "UPDATE dbo.district SET d_ytd = WHERE d_id = 1",  # a missing expression
    "RECONFIGUR",  # a bare word parses as a column: not a statement
    "ALTER DATABASE [tpcc] SET RECOVERY SIMPL",  # would fall back to an opaque Command
    "UPDATE STATISTICS dbo.customer",  # valid T-SQL, but only an opaque Command to sqlglot
    "SELECT RNAD()",  # a misspelt function
    "DECLARE @x intt",  # a misspelt type
    "DELETE TOP (1) FROM dbo.new_order",  # misread by sqlglot (TOP as a table name)
    "SELECT 1 FROM dbo.t WHERE a IS DISTINCT FROM b",  # SQL Server 2022 only
    "INSERT INTO dbo.item (i_id) VALUES (1",
    "THROW 50001, 'x', 1",  # only the bare re-raise is allowed
]


@pytest.mark.parametrize("sql", BROKEN)
def test_broken_statement_is_rejected(sql: str) -> None:
    with pytest.raises(TsqlError):
        check_statement(sql)


def _mutate(name: str, old: str, new: str) -> str:
    text = procedures.create_sql(name)
    assert text.count(old) >= 1, old
    return text.replace(old, new, 1)


MUTATIONS = [
    ("neword", "SET @i = @i + 1;", "SET @i = @i +;"),  # a broken inner statement
    ("neword", "SET @i = @i + 1;", "SET @i = @i + 1"),  # a missing ';' swallows the END
    ("payment", "END CATCH", "END"),  # unbalanced TRY/CATCH
    ("delivery", "SET @d = @d + 1;", "SET @dd = @d + 1;"),  # an undeclared variable
    ("slev", "OPTION (LOOP JOIN, MAXDOP 1);", "OPTION (LOOP JOIN, MAXDOP 1;"),
    ("ostat", "IF @os_byname = 1", "IF @os_byname = = 1"),  # a broken condition
    ("neword", "ELSE\nBEGIN\nSET @item = 0;", "ELSE\nSET @item = 0;"),  # ELSE without block
]


@pytest.mark.parametrize(("name", "old", "new"), MUTATIONS)
def test_broken_procedure_is_rejected(name: str, old: str, new: str) -> None:
    params = [p for p, _t in procedures.PARAMETERS[name]]
    check_procedure(procedures.create_sql(name), params)  # the original passes
    with pytest.raises(TsqlError):
        check_procedure(_mutate(name, old, new), params)


def test_procedure_with_wrong_parameters_is_rejected() -> None:
    with pytest.raises(TsqlError):
        check_procedure(procedures.create_sql("slev"), ["st_w_id", "st_d_id"])
