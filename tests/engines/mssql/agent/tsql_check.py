"""A strict T-SQL syntax check built on sqlglot, for statements no server can run here.

sqlglot accepts more than it understands: a statement it cannot parse may come back as an
opaque ``exp.Command`` (with a logged warning), and a bare word parses as a column. So a
statement passes only when it parses with errors raised, logs no warning, holds no Command
node, has a statement (not an expression) at its root, calls only functions on a known list,
and uses nothing SQL Server 2017 lacks. The few statements sqlglot cannot represent at all
(``THROW``, ``RETURN``, ``RECONFIGURE``, ``RAISERROR``, ``ALTER DATABASE ... SET`` (recovery
model, target recovery time, or SINGLE_USER WITH ROLLBACK IMMEDIATE before a drop),
``ALTER DATABASE SCOPED CONFIGURATION SET MAXDOP`` and ``SET TRANSACTION ISOLATION LEVEL
SNAPSHOT``) must match a fixed pattern whole instead.

Procedure bodies are split by their layout (see bench_gui.engines.mssql.agent.procedures): control
lines are checked for structure (BEGIN/END balance, TRY followed by CATCH, IF/ELSE/WHILE
followed by a block), conditions are parsed as expressions, every other statement on its own,
and every variable used must be a parameter or declared.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager

import sqlglot
from sqlglot import exp

STATEMENT_ROOTS = (
    exp.Select,
    exp.Insert,
    exp.Update,
    exp.Delete,
    exp.Create,
    exp.Drop,
    exp.Alter,
    exp.Declare,
    exp.Set,
    exp.Transaction,
    exp.Commit,
    exp.Rollback,
    exp.Execute,
)

# Statements sqlglot cannot represent, each matched whole (after collapsing whitespace).
OPAQUE_FORMS: dict[str, re.Pattern[str]] = {
    "THROW": re.compile(r"THROW"),
    "RETURN": re.compile(r"RETURN"),
    "RECONFIGURE": re.compile(r"RECONFIGURE"),
    "RAISERROR": re.compile(r"RAISERROR\(N'(?:[^'%]|''|%[ds])*', 16, 1(?:, @\w+)*\)"),
    "ALTER DATABASE SET": re.compile(
        r"ALTER DATABASE \[(?:[^\]]|\]\])+\] SET (?:RECOVERY (?:SIMPLE|FULL|BULK_LOGGED)"
        r"|TARGET_RECOVERY_TIME = \d+ SECONDS|SINGLE_USER WITH ROLLBACK IMMEDIATE)"
    ),
    "SNAPSHOT ISOLATION": re.compile(r"SET TRANSACTION ISOLATION LEVEL SNAPSHOT"),
    "DATABASE SCOPED MAXDOP": re.compile(r"ALTER DATABASE SCOPED CONFIGURATION SET MAXDOP = \d+"),
}

# Functions sqlglot does not know by name (kept as exp.Anonymous): a misspelt one is caught.
KNOWN_FUNCTIONS = frozenset(
    {
        "REPLICATE",
        "DB_ID",
        "SCHEMA_ID",
        "SERVERPROPERTY",
        "ERROR_NUMBER",
        "ERROR_MESSAGE",
        "ERROR_SEVERITY",
        "ERROR_STATE",
        "ERROR_PROCEDURE",
        "ERROR_LINE",
        "ISNULL",
    }
)

# T-SQL reserved words that sqlglot may take for a table or column name (DELETE TOP (1) ...).
RESERVED = frozenset(
    [
        "ADD",
        "ALL",
        "ALTER",
        "AND",
        "AS",
        "BEGIN",
        "BY",
        "CASE",
        "CROSS",
        "DELETE",
        "DISTINCT",
        "ELSE",
        "END",
        "EXEC",
        "EXECUTE",
        "EXISTS",
        "FROM",
        "IF",
        "IN",
        "INSERT",
        "INTO",
        "IS",
        "JOIN",
        "NOT",
        "NULL",
        "ON",
        "OPTION",
        "OR",
        "ORDER",
        "OUTPUT",
        "PERCENT",
        "SELECT",
        "SET",
        "TABLE",
        "THEN",
        "TOP",
        "TRAN",
        "TRANSACTION",
        "UPDATE",
        "VALUES",
        "WHEN",
        "WHERE",
        "WHILE",
        "WITH",
    ]
)

# Valid in newer SQL Server versions (or other dialects) but not in SQL Server 2017.
NOT_IN_2017 = (
    (re.compile(r"\bIS\s+(NOT\s+)?DISTINCT\s+FROM\b", re.I), "IS DISTINCT FROM (2022)"),
    (re.compile(r"\b(GREATEST|LEAST)\s*\(", re.I), "GREATEST/LEAST (2022)"),
    (re.compile(r"\bGENERATE_SERIES\s*\(", re.I), "GENERATE_SERIES (2022)"),
    (re.compile(r"\bDATE_BUCKET\s*\(", re.I), "DATE_BUCKET (2022)"),
    (re.compile(r"\bLIMIT\s+\d", re.I), "LIMIT (not T-SQL)"),
    (re.compile(r"\bRETURNING\b", re.I), "RETURNING (not T-SQL)"),
)


class TsqlError(AssertionError):
    """A statement or procedure failed the check; the message says which and why."""


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextmanager
def _warnings() -> Iterator[list[str]]:
    handler = _Collect()
    logger = logging.getLogger("sqlglot")
    logger.addHandler(handler)
    try:
        yield handler.messages
    finally:
        logger.removeHandler(handler)


def _collapse(sql: str) -> str:
    return re.sub(r"\s+", " ", sql.strip().rstrip(";").strip())


def check_statement(sql: str) -> exp.Expression | None:
    """Check one statement; returns its tree, or None when it matched an opaque form."""
    text = _collapse(sql)
    if not text:
        raise TsqlError("empty statement")
    for pattern, what in NOT_IN_2017:
        if pattern.search(text):
            raise TsqlError(f"not in SQL Server 2017: {what}: {text[:120]}")
    for pattern in OPAQUE_FORMS.values():
        if pattern.fullmatch(text):
            return None
    with _warnings() as warned:
        try:
            trees = sqlglot.parse(text, read="tsql", error_level=sqlglot.ErrorLevel.RAISE)
        except sqlglot.errors.ParseError as exc:
            raise TsqlError(f"does not parse: {text[:160]}\n{exc}") from exc
    if warned:
        raise TsqlError(f"parser warnings {warned}: {text[:160]}")
    trees = [t for t in trees if t is not None]
    if len(trees) != 1:
        raise TsqlError(f"expected one statement, got {len(trees)}: {text[:160]}")
    tree = trees[0]
    if not isinstance(tree, STATEMENT_ROOTS):
        raise TsqlError(f"not a statement ({type(tree).__name__}): {text[:160]}")
    if tree.find(exp.Command) is not None:
        raise TsqlError(f"parsed only as an opaque command: {text[:160]}")
    for dtype in tree.find_all(exp.DataType):
        if dtype.this == exp.DataType.Type.USERDEFINED:
            raise TsqlError(f"unknown data type {dtype.sql('tsql')}: {text[:160]}")
    # sqlglot sometimes accepts by inventing structure (DELETE TOP (1) became an alias
    # named _t0): every identifier in the tree must come from the text.
    lowered = text.lower()
    for ident in tree.find_all(exp.Identifier):
        name = str(ident.this)
        if name.lower() not in lowered:
            raise TsqlError(f"misread: identifier {name!r} is not in {text[:160]}")
        if not ident.quoted and (name.upper() in RESERVED or name[:1].isdigit()):
            raise TsqlError(f"misread: {name!r} taken for a name in {text[:160]}")
    for func in tree.find_all(exp.Anonymous):
        name = str(func.name).upper()
        if name not in KNOWN_FUNCTIONS:
            raise TsqlError(f"unknown function {name}: {text[:160]}")
    return tree


def check_condition(condition: str) -> None:
    """An IF/WHILE condition, parsed as the predicate of a CASE."""
    check_statement(f"SELECT CASE WHEN {condition} THEN 1 END")


_CONTROL = re.compile(r"(BEGIN|END|BEGIN TRY|END TRY|BEGIN CATCH|END CATCH|ELSE)")
_COND = re.compile(r"(IF|WHILE) (.+)")
_VAR = re.compile(r"(?<![@\w])@(\w+)")


def _strip_strings(sql: str) -> str:
    return re.sub(r"N?'(?:[^']|'')*'", "''", sql)


def check_procedure(text: str, parameters: list[str]) -> list[str]:
    """Check one CREATE OR ALTER PROCEDURE batch; returns its inner statements.

    ``parameters``: the names (without @) the header must declare, in order.
    """
    lines = text.splitlines()
    try:
        as_line = lines.index("AS")
    except ValueError:
        raise TsqlError("no line 'AS' ends the procedure header") from None
    header = "\n".join(lines[: as_line + 1])
    tree = check_statement(f"{header} BEGIN SELECT 1; END")
    if not isinstance(tree, exp.Create) or str(tree.args.get("kind")).upper() != "PROCEDURE":
        raise TsqlError(f"the header does not create a procedure: {header[:120]}")
    declared_params = _VAR.findall(header)
    if declared_params != parameters:
        raise TsqlError(f"header parameters {declared_params}, expected {parameters}")
    body = lines[as_line + 1 :]
    if not body or body[0].strip() != "BEGIN" or body[-1].strip() != "END":
        raise TsqlError("the body must be BEGIN ... END, each on its own line")

    statements: list[str] = []
    conditions: list[str] = []
    stack: list[str] = []
    buffer: list[str] = []
    expect = ""  # the control line the next line must be
    pending = ""  # the kind of block the next BEGIN opens
    last_closed = ""
    for number, raw in enumerate(body[1:-1], start=as_line + 3):
        line = raw.strip()
        if not line or line.startswith("--"):
            continue
        if line == "END;":  # a block's end with the terminator THROW wants before it
            line = "END"
        where = f"line {number}: {line[:80]}"
        if buffer:
            buffer.append(line)
            if line.endswith(";"):
                statements.append(" ".join(buffer))
                buffer = []
            continue
        if expect and line != expect:
            raise TsqlError(f"{where}: expected {expect!r}")
        expect = ""
        cond = _COND.fullmatch(line)
        if _CONTROL.fullmatch(line):
            if line == "BEGIN":
                stack.append(pending or "BLOCK")
                pending = ""
            elif line == "BEGIN TRY":
                stack.append("TRY")
            elif line == "BEGIN CATCH":
                if last_closed != "TRY":
                    raise TsqlError(f"{where}: CATCH must follow END TRY")
                stack.append("CATCH")
            elif line == "ELSE":
                if last_closed != "IF":
                    raise TsqlError(f"{where}: ELSE must follow the END of an IF block")
                expect, pending = "BEGIN", "ELSE"
            else:
                want = {"END TRY": ("TRY",), "END CATCH": ("CATCH",)}.get(
                    line, ("IF", "WHILE", "ELSE", "BLOCK")
                )
                if not stack or stack[-1] not in want:
                    raise TsqlError(f"{where}: {line} closes {stack[-1] if stack else 'nothing'}")
                last_closed = stack.pop()
                if line == "END TRY":
                    expect = "BEGIN CATCH"
                continue
            last_closed = ""
        elif cond:
            conditions.append(cond.group(2))
            check_condition(cond.group(2))
            expect, pending = "BEGIN", cond.group(1)
            last_closed = ""
        else:
            last_closed = ""
            if line.endswith(";"):
                statements.append(line)
            else:
                buffer = [line]
    if buffer:
        raise TsqlError(f"statement not ended with ';': {' '.join(buffer)[:120]}")
    if stack or expect:
        raise TsqlError(f"unclosed blocks {stack} (or {expect!r} missing) at the end")
    for statement in statements:
        check_statement(statement)
    declared = set(parameters)
    for statement in statements:
        if statement.upper().startswith("DECLARE "):
            declared.update(_VAR.findall(_strip_strings(statement)))
    for used in [*statements, *conditions]:
        for name in _VAR.findall(_strip_strings(used)):
            if name not in declared:
                raise TsqlError(f"variable @{name} is neither a parameter nor declared: {used}")
    return statements
