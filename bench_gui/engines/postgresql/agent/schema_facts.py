"""The test schema as a report prints it (seed 000's Table 8): the rows of each TPROC-C table
and the database's size, measured on the database itself.

The driver measures them once the schema is ready (after the build or the reset from the
template, before the first step's users start) and again after the run's last step, when the
orders have grown (see :func:`bench_gui.agent.driver.run_sweep`).

An exact ``count(*)`` reads every page of a table: a fraction of a second on a small database,
hours on seed 000's 800 GB one. So the tables are counted exactly, smallest first, while the
pages read stay within a budget (:data:`EXACT_BUDGET_BYTES`: a database under it is counted
whole); a table past the budget gets ``pg_class.reltuples`` right after an ``ANALYZE`` of it (a
sample of at most 300 x default_statistics_target pages). Each table says which it got.

A measurement never fails a run: what went wrong (a stop, a server that did not answer within
:data:`LIMIT_S`, a table without an estimate) is recorded in ``schema_facts_error`` instead.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

import psycopg
from psycopg import sql

from bench_gui.engines.postgresql.agent.connection import connect
from bench_gui.wire.engine_errors import EngineError
from bench_gui.wire.tpcc_tables import TABLES

# Pages an exact count may read in all (the heaps of the tables counted exactly).
EXACT_BUDGET_BYTES: Final = 2 * 1024**3
# The longest a measurement may take, and any one statement of it (the server's own timeout).
LIMIT_S: Final = 600.0
# The same for the size alone, measured when a run was stopped on request.
STOPPED_LIMIT_S: Final = 10.0
EXACT: Final = "exact"
ESTIMATE: Final = "estimate"
MIB: Final = 1024**2

_HEAPS_SQL: Final = (
    "SELECT c.relname, c.oid::regclass::text, pg_relation_size(c.oid) FROM pg_class c"
    " WHERE c.relname = ANY(%s) AND c.relkind = 'r' AND pg_table_is_visible(c.oid)"
)


@dataclass
class SchemaFacts:
    """One measurement: the database's size, the rows of each table and how each was had."""

    database_size_bytes: int | None = None
    table_rows: dict[str, int] = field(default_factory=dict)
    methods: dict[str, str] = field(default_factory=dict)  # table -> EXACT | ESTIMATE
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def fields(self) -> dict[str, Any]:
        """The fields a step summary carries (checked by :mod:`bench_gui.core.events`)."""
        out: dict[str, Any] = {}
        if self.database_size_bytes is not None:
            out["database_size_bytes"] = self.database_size_bytes
        if self.table_rows:
            out["table_rows"] = dict(self.table_rows)
            out["table_rows_method"] = dict(self.methods)
        if self.problems:
            out["schema_facts_error"] = "; ".join(self.problems)
        return out

    def describe(self, when: str) -> str:
        """One line for the run's log."""
        parts = [f"schema {when}:"]
        if self.database_size_bytes is not None:
            parts.append(f"database {self.database_size_bytes / MIB:,.1f} MiB;")
        if self.table_rows:
            exact = [t for t in self.table_rows if self.methods.get(t) == EXACT]
            estimated = [t for t in self.table_rows if self.methods.get(t) == ESTIMATE]
            rows = f"{len(exact)} tables counted exactly"
            if estimated:
                rows += f", {', '.join(estimated)} estimated after ANALYZE"
            parts.append(f"{rows};")
        parts.append(f"measured in {self.seconds:.1f} s")
        if self.problems:
            parts.append(f"({'; '.join(self.problems)})")
        return " ".join(parts)


def measure(
    conn: psycopg.Connection[Any],
    *,
    rows: bool = True,
    exact_budget_bytes: int = EXACT_BUDGET_BYTES,
) -> SchemaFacts:
    """The size and, with ``rows``, the rows of every TPROC-C table present, on ``conn``
    (autocommit). Raises EngineError when the database has none of the tables."""
    if exact_budget_bytes < 0:
        raise ValueError(f"exact_budget_bytes must be 0 or more, got {exact_budget_bytes}")
    started = time.monotonic()
    facts = SchemaFacts()
    size = conn.execute("SELECT pg_database_size(current_database())").fetchone()
    facts.database_size_bytes = int(size[0]) if size and size[0] is not None else None
    if rows:
        heaps = conn.execute(_HEAPS_SQL, (list(TABLES),)).fetchall()
        if not heaps:
            raise EngineError("no TPROC-C tables in the database: nothing to count")
        missing = sorted(set(TABLES) - {name for name, _, _ in heaps})
        if missing:
            facts.problems.append("tables missing: " + ", ".join(missing))
        spent = 0
        for name, qualified, heap_bytes in sorted(heaps, key=lambda h: (h[2], h[0])):
            if spent + int(heap_bytes) <= exact_budget_bytes:
                spent += int(heap_bytes)
                facts.table_rows[name] = _count(conn, qualified)
                facts.methods[name] = EXACT
                continue
            estimate = _estimate(conn, qualified)
            if estimate is None:
                facts.problems.append(
                    f"table {name} has no row estimate after ANALYZE (may this user analyze it?)"
                )
                continue
            facts.table_rows[name] = estimate
            facts.methods[name] = ESTIMATE
        order = {t: i for i, t in enumerate(TABLES)}
        facts.table_rows = dict(sorted(facts.table_rows.items(), key=lambda kv: order[kv[0]]))
        facts.methods = {t: facts.methods[t] for t in facts.table_rows}
    facts.seconds = round(time.monotonic() - started, 3)
    return facts


def _count(conn: psycopg.Connection[Any], qualified: str) -> int:
    query = sql.SQL("SELECT count(*) FROM {}").format(sql.SQL(qualified))
    row = conn.execute(query).fetchone()
    return int(row[0]) if row else 0


def _estimate(conn: psycopg.Connection[Any], qualified: str) -> int | None:
    """reltuples after a fresh ANALYZE; None when the table has none (-1: never analysed)."""
    conn.execute(sql.SQL("ANALYZE {}").format(sql.SQL(qualified)))
    row = conn.execute("SELECT reltuples FROM pg_class WHERE oid = %s::regclass", (qualified,))
    value = row.fetchone()
    if value is None or value[0] is None or float(value[0]) < 0:
        return None
    return round(float(value[0]))


class _Worker:
    """One measurement in a thread of its own, so that a stop or a silent server does not hold
    the run: the caller waits, and cancels the statement under way when it must give up."""

    def __init__(self, conninfo: str, rows: bool, budget: int, limit_s: float) -> None:
        self.conninfo, self.rows, self.budget, self.limit_s = conninfo, rows, budget, limit_s
        self.conn: psycopg.Connection[Any] | None = None
        self.facts: SchemaFacts | None = None
        self.error = ""
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, name="bench-gui-schema-facts", daemon=True)

    def _run(self) -> None:
        try:
            with connect(self.conninfo) as conn:
                self.conn = conn
                conn.execute(f"SET statement_timeout = {int(self.limit_s * 1000)}")
                self.facts = measure(conn, rows=self.rows, exact_budget_bytes=self.budget)
        except (psycopg.Error, EngineError) as exc:
            text = str(exc).strip()
            self.error = text.splitlines()[0] if text else type(exc).__name__
        finally:
            self.conn = None
            self.done.set()

    def cancel(self) -> None:
        conn = self.conn
        if conn is not None:
            try:
                conn.cancel_safe(timeout=5.0)
            except (psycopg.Error, OSError):
                pass


def record(
    conninfo: str,
    stop: threading.Event | None = None,
    *,
    rows: bool = True,
    limit_s: float = LIMIT_S,
    exact_budget_bytes: int = EXACT_BUDGET_BYTES,
) -> SchemaFacts:
    """:func:`measure` on a connection of its own; never raises for the database's sake.

    Gives up (the statement under way cancelled) when ``stop`` is set or after ``limit_s``
    seconds; the facts then say why in ``problems``.
    """
    if limit_s <= 0:
        raise ValueError(f"limit_s must be more than 0, got {limit_s}")
    started = time.monotonic()
    worker = _Worker(conninfo, rows, exact_budget_bytes, limit_s)
    worker.thread.start()
    deadline = started + limit_s
    reason = ""
    while not worker.done.wait(0.1):
        if stop is not None and stop.is_set():
            reason = "stopped before the schema was measured"
        elif time.monotonic() >= deadline:
            reason = f"the database did not finish measuring the schema in {limit_s:g} s"
        if reason:
            worker.cancel()
            worker.done.wait(10.0)
            break
    if worker.done.is_set():
        worker.thread.join()
    facts = worker.facts if worker.facts is not None and not reason else SchemaFacts()
    problem = reason or worker.error
    if problem:
        facts.problems.append(problem)
    facts.seconds = round(time.monotonic() - started, 3)
    return facts


def step_fields(
    conninfo: str,
    emit: Callable[..., Any],
    stop: threading.Event | None,
    when: str,
    *,
    rows: bool = True,
    limit_s: float = LIMIT_S,
) -> dict[str, Any]:
    """:func:`record`, said in the run's log through ``emit`` (an EventWriter's), as the fields
    a step summary carries."""
    facts = record(conninfo, stop, rows=rows, limit_s=limit_s)
    emit("log", level="warning" if facts.problems else "info", message=facts.describe(when))
    return facts.fields()


def after_run_fields(
    conninfo: str, emit: Callable[..., Any], stop: threading.Event
) -> dict[str, Any]:
    """:func:`step_fields` after the run's last step. A run stopped on request gets the size
    only (a catalog read, within :data:`STOPPED_LIMIT_S`): it is to end now."""
    if stop.is_set():
        return step_fields(
            conninfo, emit, None, "after the run", rows=False, limit_s=STOPPED_LIMIT_S
        )
    return step_fields(conninfo, emit, stop, "after the run")


__all__ = [
    "ESTIMATE",
    "EXACT",
    "EXACT_BUDGET_BYTES",
    "LIMIT_S",
    "STOPPED_LIMIT_S",
    "SchemaFacts",
    "after_run_fields",
    "measure",
    "record",
    "step_fields",
]
