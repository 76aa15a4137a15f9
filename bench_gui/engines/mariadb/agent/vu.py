"""MariaDB/MySQL virtual users: each transaction is one prepared ``CALL``, over pyodbc.

The worker process, the user threads and their counts are the ODBC engines' shared ones
(:mod:`bench_gui.agent.odbc_users`). What is MariaDB's own is here: the ``CALL`` of each
transaction, answered by the CALL's OK alone, New-Order's intended rollback signalled as
``TPC01`` after the procedure's ROLLBACK (:mod:`.procedures`), and the names of its errors.

A user keeps one cursor per transaction (:class:`Statements`), each re-executing its own
``CALL NEWORD(?,?,...)``: pyodbc prepares a statement once and re-executes it while the SQL
text stays the same object, so a transaction is one ``COM_STMT_EXECUTE`` with binary
parameters. A ``CALL`` sent as text (:func:`call_text`) goes through the Connector/ODBC's
``SQLExecDirect``, which prepares, executes and closes a server statement every time: two
sends and three wake-ups of the user per transaction instead of one and two.
"""

from __future__ import annotations

from typing import Any

from bench_gui.agent import odbc_users
from bench_gui.agent.profiles import params_for
from bench_gui.agent.users import WorkerSpec
from bench_gui.engines.mariadb.agent.procedures import ROLLBACK_MARK
from bench_gui.engines.mariadb.shared import odbc
from bench_gui.wire import odbc as wire_odbc

PROCEDURE = {
    "new_order": b"CALL NEWORD(",
    "payment": b"CALL PAYMENT(",
    "delivery": b"CALL DELIVERY(",
    "stock_level": b"CALL SLEV(",
    "order_status": b"CALL OSTAT(",
}
# The hammerdb profile's procedures (bench_gui.engines.mariadb.agent.hammerdb), same arguments'
# order.
HAMMERDB_PROCEDURE = {tx: text.replace(b"CALL ", b"CALL HDB_") for tx, text in PROCEDURE.items()}
# The transactions whose last parameter is a customer's last name (quoted in the call).
NAMED = frozenset({"payment", "order_status"})


def call_text(tx: str, params: list[bytes | None], procedures: dict[str, bytes] = PROCEDURE) -> str:
    """The CALL statement of one transaction from :class:`~bench_gui.agent.users.Params`
    (``procedures``: :data:`HAMMERDB_PROCEDURE` for the hammerdb profile)."""
    values = [p or b"" for p in params]
    if tx in NAMED:
        values[-1] = b"'" + values[-1] + b"'"
    return (procedures[tx] + b",".join(values) + b")").decode("ascii")


def call_sql(tx: str, count: int, procedures: dict[str, bytes] = PROCEDURE) -> str:
    """The prepared ``CALL`` of ``tx`` with ``count`` placeholders, one str object per
    (procedures, tx, count): pyodbc re-prepares when handed another object."""
    key = (id(procedures), tx, count)
    sql = _SQL.get(key)
    if sql is None:
        sql = _SQL[key] = procedures[tx].decode("ascii") + ",".join("?" * count) + ")"
    return sql


_SQL: dict[tuple[int, str, int], str] = {}


def call_args(tx: str, params: list[bytes | None]) -> list[int | str | None]:
    """The drawn parameters (libpq text) as the ``CALL``'s values: numbers as int, the last
    parameter of :data:`NAMED` transactions (a customer's last name, maybe empty) as str."""
    if tx in NAMED:
        *numbers, name = params
        return [None if p is None else int(p) for p in numbers] + [(name or b"").decode("ascii")]
    return [None if p is None else int(p) for p in params]


class Statements:
    """One user connection's cursors, one per transaction, each keeping its ``CALL``
    prepared (see the module's docstring)."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.cursors: dict[str, Any] = {}

    def cursor(self, tx: str) -> Any:
        cursor = self.cursors.get(tx)
        if cursor is None:
            cursor = self.cursors[tx] = self.conn.cursor()
        return cursor


def draw_call(
    params: Any, tx: str, w: int, stock_d: int, procedures: dict[str, bytes] = PROCEDURE
) -> tuple[str, list[int | str | None]]:
    """One transaction's prepared ``CALL`` and its values, drawn before the clock starts."""
    values = call_args(tx, params.params(tx, w, stock_d))
    return call_sql(tx, len(values), procedures), values


def error_kind(exc: BaseException) -> str:
    """A short name for a failed transaction (as PostgreSQL's users name theirs)."""
    if wire_odbc.is_lost(exc):
        return "connection_lost"
    args: tuple[Any, ...] = tuple(getattr(exc, "args", ()))
    state = str(args[0]) if args else "?????"
    text = wire_odbc.message(exc)
    if "TPC02" in text:
        return "customer_not_found"
    if "TPC03" in text:
        return "item_or_stock_missing"
    if state == "40001" or "(1213)" in text:
        return "deadlock_detected"
    if "(1205)" in text:
        return "lock_wait_timeout"
    if "(1040)" in text:
        return "too_many_connections"
    return f"sqlstate {state}"


def _failure(exc: BaseException) -> str:
    import pyodbc

    return error_kind(exc) if isinstance(exc, pyodbc.Error) else type(exc).__name__


def _call(statements: Statements, tx: str, drawn: tuple[str, list[int | str | None]]) -> bool:
    """Run one prepared CALL on the transaction's own cursor; True when New-Order rolled back.

    The ``spec`` procedures answer a commit with the CALL's OK alone (no result set to read)
    and the intended rollback with ``TPC01`` raised after their ROLLBACK
    (:mod:`.procedures`); HammerDB's own (the ``hammerdb`` profile) answer with rows, drained
    here, whose status 1 is their rollback."""
    import pyodbc

    cursor = statements.cursor(tx)
    try:
        cursor.execute(drawn[0], drawn[1])
    except pyodbc.Error as exc:
        if ROLLBACK_MARK in wire_odbc.message(exc) and not wire_odbc.is_lost(exc):
            return True
        raise
    if cursor.description is None:
        return False
    row = cursor.fetchone()
    while cursor.nextset():
        pass
    return row is not None and int(row[0]) == 1


def hammerdb_connect(conninfo: str) -> Any:
    """A user's connection as HammerDB opens it: on MariaDB 11.6 and later (where the
    variable exists) with ``innodb_snapshot_isolation`` off for the session, as its driver sets
    it, so its unlocked reads do not fail with "record has changed" where HammerDB's do not."""
    conn = odbc.connect(conninfo, "mariadb")
    cursor = conn.cursor()
    cursor.execute("SHOW VARIABLES LIKE 'innodb_snapshot_isolation'")
    if cursor.fetchall():
        cursor.execute("SET SESSION innodb_snapshot_isolation = 0")
    return conn


def user_calls(spec: WorkerSpec) -> odbc_users.UserCalls:
    """MariaDB's side of a virtual user (:class:`bench_gui.agent.odbc_users.UserCalls`), with
    the procedures and parameter draws of the spec's profile (:mod:`bench_gui.agent.profiles`)."""
    hammerdb = spec.profile == "hammerdb"
    procedures = HAMMERDB_PROCEDURE if hammerdb else PROCEDURE
    return odbc_users.UserCalls(
        connect=lambda: (
            hammerdb_connect(spec.conninfo) if hammerdb else odbc.connect(spec.conninfo, "mariadb")
        ),
        params=lambda seed: params_for(spec.profile, spec.warehouses, seed),
        draw=lambda params, tx, w, stock_d: draw_call(params, tx, w, stock_d, procedures),
        call=_call,
        failure=_failure,
        cursor=Statements,
    )


def worker_main(spec: WorkerSpec, counters: Any, flags: Any, pipe: Any) -> None:
    """Process entry point: :func:`bench_gui.agent.odbc_users.worker_main` with MariaDB's
    users."""
    odbc_users.worker_main(spec, counters, flags, pipe, user_calls)
