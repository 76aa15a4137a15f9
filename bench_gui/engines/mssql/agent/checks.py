"""TPC-C consistency conditions 1-4 (clause 3.3.2) on SQL Server, as the PostgreSQL check does.

The queries are T-SQL; judging their rows is pure Python (the ``judge_*`` functions here and
the judgements every engine shares, :mod:`bench_gui.agent.tpcc_checks`), so the judgement is
tested without a server. All four read one snapshot when the database allows
SNAPSHOT isolation (ALLOW_SNAPSHOT_ISOLATION ON); otherwise they run at READ COMMITTED and
say so, because on a database under load a transaction in flight can then show up as a
violation. REPEATABLE READ is not used: on SQL Server it takes shared locks that would stall
the benchmark for the length of the check.
"""

from __future__ import annotations

from typing import Any, Final

from bench_gui.agent import tpcc_checks
from bench_gui.agent.engines import CheckResult

Row = tuple[Any, ...]

SNAPSHOT_ALLOWED_SQL: Final = (
    "SELECT snapshot_isolation_state FROM sys.databases WHERE database_id = DB_ID()"
)
SET_SNAPSHOT_SQL: Final = "SET TRANSACTION ISOLATION LEVEL SNAPSHOT"
SET_READ_COMMITTED_SQL: Final = "SET TRANSACTION ISOLATION LEVEL READ COMMITTED"
WAREHOUSE_COUNT_SQL: Final = "SELECT COUNT(*) FROM dbo.warehouse"

# Condition 1: warehouses whose w_ytd differs from the sum of their districts' d_ytd.
W_YTD_SQL: Final = (
    "SELECT w.w_id, w.w_ytd, d.ytd FROM dbo.warehouse AS w"
    " LEFT JOIN (SELECT d_w_id, SUM(d_ytd) AS ytd FROM dbo.district GROUP BY d_w_id) AS d"
    " ON d.d_w_id = w.w_id"
    " WHERE d.ytd IS NULL OR d.ytd <> w.w_ytd ORDER BY w.w_id"
)
# Conditions 2 and 3: per district, d_next_o_id, max(o_id) and new_order's max/min/count.
DISTRICT_SQL: Final = (
    "SELECT d.d_w_id, d.d_id, d.d_next_o_id,"
    " (SELECT MAX(o.o_id) FROM dbo.orders AS o"
    " WHERE o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id) AS max_o,"
    " n.max_no, n.min_no, n.cnt FROM dbo.district AS d"
    " CROSS APPLY (SELECT MAX(x.no_o_id) AS max_no, MIN(x.no_o_id) AS min_no,"
    " COUNT(*) AS cnt FROM dbo.new_order AS x"
    " WHERE x.no_w_id = d.d_w_id AND x.no_d_id = d.d_id) AS n"
    " ORDER BY d.d_w_id, d.d_id"
)
# Condition 4: per district, sum(o_ol_cnt) and the number of order lines.
ORDER_LINES_SQL: Final = (
    "SELECT d.d_w_id, d.d_id, o.n, l.n FROM dbo.district AS d"
    " LEFT JOIN (SELECT o_w_id, o_d_id, SUM(CAST(o_ol_cnt AS bigint)) AS n FROM dbo.orders"
    " GROUP BY o_w_id, o_d_id) AS o ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id"
    " LEFT JOIN (SELECT ol_w_id, ol_d_id, COUNT_BIG(*) AS n FROM dbo.order_line"
    " GROUP BY ol_w_id, ol_d_id) AS l ON l.ol_w_id = d.d_w_id AND l.ol_d_id = d.d_id"
    " ORDER BY d.d_w_id, d.d_id"
)

ALL_SQL: Final = (
    SNAPSHOT_ALLOWED_SQL,
    SET_SNAPSHOT_SQL,
    SET_READ_COMMITTED_SQL,
    WAREHOUSE_COUNT_SQL,
    W_YTD_SQL,
    DISTRICT_SQL,
    ORDER_LINES_SQL,
)


def judge_w_ytd(total: int, rows: list[Row]) -> CheckResult:
    """Condition 1 from W_YTD_SQL's rows (only the differing warehouses come back)."""
    return tpcc_checks.result(
        "1: w_ytd = sum(d_ytd)",
        "warehouses",
        total,
        list(rows),
        lambda r: f"warehouse {r[0]}: w_ytd {r[1]}, sum(d_ytd) {r[2]}",
    )


def judge_order_lines(rows: list[Row]) -> CheckResult:
    """Condition 4: sum(o_ol_cnt) = number of order_line rows, per district."""
    bad = [r for r in rows if (r[2] or 0) != (r[3] or 0)]
    return tpcc_checks.result(
        "4: sum(o_ol_cnt) = count(order_line)",
        "districts",
        len(rows),
        bad,
        lambda r: f"warehouse {r[0]} district {r[1]}: sum(o_ol_cnt) {r[2]}, order lines {r[3]}",
    )


def _rows(cursor: Any, sql: str) -> list[Row]:
    cursor.execute(sql)
    return [tuple(r) for r in cursor.fetchall()]


READ_COMMITTED_NOTE: Final = (
    " (read at READ COMMITTED: this database does not allow SNAPSHOT isolation, so a"
    " transaction in flight may show as a violation)"
)


def consistency_checks(connection: Any) -> list[CheckResult]:
    """Run conditions 1-4 and return one result per condition.

    ``connection`` is an autocommit pyodbc connection; it is left in autocommit at READ
    COMMITTED afterwards. Without SNAPSHOT isolation each detail says it was read at READ
    COMMITTED.
    """
    cursor = connection.cursor()
    try:
        allowed = _rows(cursor, SNAPSHOT_ALLOWED_SQL)
        snapshot = bool(allowed) and allowed[0][0] == 1
        if snapshot:
            cursor.execute(SET_SNAPSHOT_SQL)
        connection.autocommit = False
        try:
            (total,) = _rows(cursor, WAREHOUSE_COUNT_SQL)[0]
            results = [judge_w_ytd(int(total), _rows(cursor, W_YTD_SQL))]
            districts = _rows(cursor, DISTRICT_SQL)
            results.append(tpcc_checks.next_o_id(districts))
            results.append(tpcc_checks.new_order_span(districts))
            results.append(judge_order_lines(_rows(cursor, ORDER_LINES_SQL)))
            connection.commit()
        finally:
            if not connection.autocommit:
                connection.rollback()  # nothing left after commit; undoes a failed read
                connection.autocommit = True
            cursor.execute(SET_READ_COMMITTED_SQL)
    finally:
        cursor.close()
    if snapshot:
        return results
    return [
        CheckResult(r.name, r.ok, r.detail + READ_COMMITTED_NOTE, r.violations) for r in results
    ]
