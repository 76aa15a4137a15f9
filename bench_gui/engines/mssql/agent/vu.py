"""SQL Server virtual users: HammerDB's mix of transactions against the procedures, over pyodbc.

The worker process, the user threads and their counts are the ODBC engines' shared ones
(:mod:`bench_gui.agent.odbc_users`), as for MariaDB. What is SQL Server's own: the
parameters of :class:`bench_gui.engines.mssql.agent.transactions.Params`; a transaction is one ODBC
call escape of its procedure, every result set drained
(:func:`bench_gui.engines.mssql.agent.transactions.call`); New-Order's intended 1% rollback answers
``committed = 0`` and is counted as a rollback, never as an error or a commit.

Deadlocks are not retried. Our procedures (the spec profile) re-raise an error after their
ROLLBACK, so a deadlock victim (error 1205) is counted as an error ``deadlock_detected`` and
the user draws its next transaction. HammerDB's own (the hammerdb profile, :mod:`.hammerdb`)
catch it, roll back and answer it as a result set, which its driver prints before going on:
that answer is counted the same way here. A lost connection is reopened after a back-off
(:class:`bench_gui.agent.outages.Backoff`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench_gui.agent import odbc_users
from bench_gui.agent.profiles import HammerDbParams
from bench_gui.agent.users import WorkerSpec
from bench_gui.engines.mssql.agent import hammerdb, transactions
from bench_gui.engines.mssql.shared.connect import connect


def _values(drawn: list[bytes | None]) -> list[Any]:
    """HammerDB's draws (libpq text) as the ODBC parameters: numbers as int, names as str."""
    return [int(v) if v and v.isdigit() else (v or b"").decode("ascii") for v in drawn]


def _failure(exc: BaseException) -> str:
    import pyodbc

    if isinstance(exc, hammerdb.Caught):  # answered as a result set, HammerDB's way
        return transactions.ERROR_NAMES.get(exc.number, f"error {exc.number}")
    if isinstance(exc, pyodbc.Error):
        return transactions.error_kind(exc)
    if isinstance(exc, ValueError):  # an answer without the documented result sets
        return "unexpected_result"
    return type(exc).__name__


def user_calls(spec: WorkerSpec, opener: Callable[[], Any] | None = None) -> odbc_users.UserCalls:
    """SQL Server's side of a virtual user (:class:`bench_gui.agent.odbc_users.UserCalls`).
    ``opener`` opens a connection (default: :func:`bench_gui.engines.mssql.shared.connect.connect`
    on the spec's string). The hammerdb profile calls :mod:`.hammerdb`'s procedures with
    HammerDB's draws (:class:`bench_gui.agent.profiles.HammerDbParams`)."""
    if spec.profile == "hammerdb":
        return odbc_users.UserCalls(
            connect=opener or (lambda: connect(spec.conninfo)),
            params=lambda seed: HammerDbParams(spec.warehouses, seed),
            draw=lambda params, tx, w, stock_d: _values(params.params(tx, w, stock_d)),
            call=hammerdb.call,
            failure=_failure,
        )
    return odbc_users.UserCalls(
        connect=opener or (lambda: connect(spec.conninfo)),
        params=lambda seed: transactions.Params(spec.warehouses, seed),
        draw=lambda params, tx, w, stock_d: params.draw(tx, w, stock_d),
        call=lambda cursor, tx, args: transactions.call(cursor, tx, args).rolled_back,
        failure=_failure,
    )


def run_user(
    spec: WorkerSpec,
    index: int,
    conn: Any,
    counts: odbc_users.Counts,
    flags: Any,
    seed: int,
    opener: Callable[[], Any] | None = None,
) -> None:
    """One virtual user's loop until the stop flag (:func:`bench_gui.agent.odbc_users.run_user`).
    ``opener`` reopens a lost connection (default: :func:`.connection.connect`)."""
    odbc_users.run_user(spec, index, conn, counts, flags, seed, user_calls(spec, opener))


def worker_main(spec: WorkerSpec, counters: Any, flags: Any, pipe: Any) -> None:
    """Process entry point: :func:`bench_gui.agent.odbc_users.worker_main` with SQL Server's
    users."""
    odbc_users.worker_main(spec, counters, flags, pipe, user_calls)
