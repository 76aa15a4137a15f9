"""Calling the five TPROC-C procedures through pyodbc, and what each call gave.

A call is the ODBC call escape ``{CALL dbo.neword (?, ...)}`` (one RPC, no batch to parse),
on an autocommit connection: the procedures run their own transactions. Every result set is
drained (``nextset()`` until it returns False): an unread result set keeps the request open
on the server, and an error raised after a result set only surfaces while draining.

The driver-side New-Order count (the cross-check of NOPM) is :attr:`Caller.new_orders`: a
NEWORD whose result says ``committed = 1``. The intended 1% rollback answers ``committed = 0``
and is counted apart, never as an error. Errors are classified by SQL Server's error number
(1205 deadlock, 1222 lock timeout) or the procedures' own messages.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from bench_gui.agent import tpcc_rand
from bench_gui.engines.mssql.agent import procedures
from bench_gui.wire.protocol import TX_KEYS

# The protocol's transaction keys and the procedures behind them.
PROCEDURE_OF: Final[dict[str, str]] = {
    "new_order": "neword",
    "payment": "payment",
    "order_status": "ostat",
    "delivery": "delivery",
    "stock_level": "slev",
}
assert set(PROCEDURE_OF) == set(TX_KEYS)

CALLS: Final[dict[str, str]] = {key: procedures.call_sql(p) for key, p in PROCEDURE_OF.items()}

# SQL Server error numbers a run meets, by the names the PostgreSQL driver uses.
ERROR_NAMES: Final[dict[int, str]] = {
    1205: "deadlock_detected",
    1222: "lock_timeout",
    3960: "serialization_failure",  # snapshot update conflict
    701: "out_of_memory",
}
# SQLSTATEs of a connection that is gone (communication link failure, not connected).
_LOST_STATES: Final = ("08S01", "08001", "08003", "08007", "HYT00", "HYT01")
_NATIVE_RE: Final = re.compile(r"\((\d+)\)")


@dataclass
class TxOutcome:
    """One call: which transaction, whether it committed, and the rows it answered."""

    kind: str
    committed: bool
    result_sets: list[list[tuple[Any, ...]]] = field(default_factory=list)

    @property
    def rolled_back(self) -> bool:
        """The intended New-Order rollback (no error; committed = 0)."""
        return self.kind == "new_order" and not self.committed


def drain(cursor: Any) -> list[list[tuple[Any, ...]]]:
    """Every result set of the current statement, rows as tuples, until nextset() is False."""
    sets: list[list[tuple[Any, ...]]] = []
    while True:
        if cursor.description is not None:
            sets.append([tuple(row) for row in cursor.fetchall()])
        if not cursor.nextset():
            return sets


def call(cursor: Any, kind: str, params: Sequence[Any]) -> TxOutcome:
    """Call the procedure of transaction ``kind`` with ``params`` and drain its answer.

    Raises the driver's error as it comes (see :func:`error_kind`), and ValueError when the
    answer does not have the result sets :data:`procedures.RESULT_SETS` documents.
    """
    name = PROCEDURE_OF.get(kind)
    if name is None:
        raise ValueError(f"unknown transaction {kind!r}; expected one of {tuple(PROCEDURE_OF)}")
    expected = procedures.PARAMETERS[name]
    if len(params) != len(expected):
        raise ValueError(f"{name} takes {len(expected)} parameters, got {len(params)}")
    cursor.execute(CALLS[kind], *params)
    sets = drain(cursor)
    shape = procedures.RESULT_SETS[name]
    if len(sets) != len(shape):
        raise ValueError(f"{name} answered {len(sets)} result sets, expected {len(shape)}")
    committed = True
    if name == "neword":
        if len(sets[0]) != 1:
            raise ValueError(f"neword answered {len(sets[0])} rows, expected 1")
        committed = sets[0][0][0] == 1
    return TxOutcome(kind, committed, sets)


def error_kind(exc: BaseException) -> str:
    """A short name for a failed call: deadlock_detected, connection_lost, customer_not_found,
    ``error 1234`` for other server errors."""
    args: tuple[Any, ...] = tuple(getattr(exc, "args", ()))
    state = str(args[0]) if args else ""
    text = str(args[1]) if len(args) > 1 else str(exc)
    if state in _LOST_STATES:
        return "connection_lost"
    numbers = [int(n) for n in _NATIVE_RE.findall(text)]
    for number in numbers:
        if number in ERROR_NAMES:
            return ERROR_NAMES[number]
    if "customer not found" in text:
        return "customer_not_found"
    if "item or stock rows missing" in text:
        return "data_damaged"
    return f"error {numbers[-1]}" if numbers else f"sqlstate {state or '?'}"


class Params:
    """Draws each transaction's parameters as the PostgreSQL driver does for the spec profile
    (vu.py's rules: NURand customers); the hammerdb profile's are
    :class:`bench_gui.agent.profiles.HammerDbParams`."""

    def __init__(self, warehouses: int, seed: int | None = None) -> None:
        if warehouses < 1:
            raise ValueError(f"warehouses must be at least 1, got {warehouses}")
        self.rng = random.Random(seed)
        self.warehouses = warehouses

    def _other_warehouse(self, w: int) -> int:
        other = self.rng.randint(1, self.warehouses - 1)
        return other if other < w else other + 1

    def draw(self, kind: str, w: int, stock_d: int) -> list[Any]:
        rng = self.rng
        if kind == "new_order":
            rbk = 1 if rng.random() < 0.01 else 0
            return [
                w,
                self.warehouses,
                rng.randint(1, 10),
                tpcc_rand.run_customer_id(rng),
                rng.randint(5, 15),
                rbk,
            ]
        if kind in ("payment", "order_status"):
            d = rng.randint(1, 10)
            byname = rng.random() < 0.6
            name = tpcc_rand.run_last_name(rng) if byname else ""
            c_id = tpcc_rand.run_customer_id(rng)
            if kind == "order_status":
                return [w, d, c_id, int(byname), name]
            if self.warehouses > 1 and rng.random() < 0.15:
                c_w, c_d = self._other_warehouse(w), rng.randint(1, 10)
            else:
                c_w, c_d = w, d
            amount = rng.randint(1, 5000)
            return [w, d, c_w, c_d, c_id, int(byname), amount, name]
        if kind == "delivery":
            return [w, rng.randint(1, 10)]
        if kind == "stock_level":
            return [w, stock_d, rng.randint(10, 20)]
        raise ValueError(f"unknown transaction {kind!r}; expected one of {tuple(PROCEDURE_OF)}")


class Caller:
    """One virtual user's calls on one connection, with its counts."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.cursor = connection.cursor()
        self.committed: dict[str, int] = dict.fromkeys(PROCEDURE_OF, 0)
        self.new_orders = 0  # committed New-Orders: the driver-side NOPM cross-check
        self.rollbacks = 0  # intended New-Order rollbacks
        self.errors: dict[str, int] = {}

    def run(self, kind: str, params: Sequence[Any]) -> TxOutcome | None:
        """Call one transaction; count it. None when it failed (counted in ``errors``).

        Only the driver's own error class is caught: a bug in the caller still raises.
        """
        import pyodbc

        try:
            outcome = call(self.cursor, kind, params)
        except pyodbc.Error as exc:
            name = error_kind(exc)
            self.errors[name] = self.errors.get(name, 0) + 1
            return None
        if outcome.rolled_back:
            self.rollbacks += 1
        else:
            self.committed[kind] += 1
            if kind == "new_order":
                self.new_orders += 1
        return outcome

    def close(self) -> None:
        self.cursor.close()
        self.connection.close()
