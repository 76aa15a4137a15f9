"""TPC-C consistency conditions 1-4 on MariaDB/MySQL, on one consistent snapshot.

The same conditions and wording as PostgreSQL's (the row-level judgements of
:mod:`bench_gui.agent.tpcc_checks`); only the SQL differs (no LATERAL, ``<=>`` for IS NOT
DISTINCT FROM).
"""

from __future__ import annotations

from typing import Any

from bench_gui.agent import tpcc_checks
from bench_gui.agent.engines import CheckResult


def _w_ytd(cursor: Any) -> CheckResult:
    cursor.execute("SELECT COUNT(*) FROM warehouse")
    (total,) = cursor.fetchone()
    cursor.execute(
        "SELECT w.w_id, w.w_ytd, d.ytd FROM warehouse w"
        " LEFT JOIN (SELECT d_w_id, SUM(d_ytd) AS ytd FROM district GROUP BY d_w_id) d"
        " ON d.d_w_id = w.w_id WHERE NOT (d.ytd <=> w.w_ytd) ORDER BY w.w_id"
    )
    rows = cursor.fetchall()
    return tpcc_checks.result(
        "1: w_ytd = sum(d_ytd)",
        "warehouses",
        int(total),
        rows,
        lambda r: f"warehouse {r[0]}: w_ytd {r[1]}, sum(d_ytd) {r[2]}",
    )


def _district_rows(cursor: Any) -> list[tuple[Any, ...]]:
    where = "WHERE n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id"
    cursor.execute(
        "SELECT d.d_w_id, d.d_id, d.d_next_o_id,"
        " (SELECT MAX(o.o_id) FROM orders o WHERE o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id),"
        f" (SELECT MAX(n.no_o_id) FROM new_order n {where}),"
        f" (SELECT MIN(n.no_o_id) FROM new_order n {where}),"
        f" (SELECT COUNT(*) FROM new_order n {where})"
        " FROM district d ORDER BY d.d_w_id, d.d_id"
    )
    return [tuple(r) for r in cursor.fetchall()]


def _order_lines(cursor: Any) -> CheckResult:
    cursor.execute(
        "SELECT d.d_w_id, d.d_id, o.n, l.n FROM district d"
        " LEFT JOIN (SELECT o_w_id, o_d_id, SUM(o_ol_cnt) AS n FROM orders"
        " GROUP BY o_w_id, o_d_id) o ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id"
        " LEFT JOIN (SELECT ol_w_id, ol_d_id, COUNT(*) AS n FROM order_line"
        " GROUP BY ol_w_id, ol_d_id) l ON l.ol_w_id = d.d_w_id AND l.ol_d_id = d.d_id"
        " ORDER BY d.d_w_id, d.d_id"
    )
    rows = cursor.fetchall()
    bad = [r for r in rows if (r[2] or 0) != (r[3] or 0)]
    return tpcc_checks.result(
        "4: sum(o_ol_cnt) = count(order_line)",
        "districts",
        len(rows),
        bad,
        lambda r: f"warehouse {r[0]} district {r[1]}: sum(o_ol_cnt) {r[2]}, order lines {r[3]}",
    )


def consistency_checks(conn: Any) -> list[CheckResult]:
    """Conditions 1-4 on one REPEATABLE READ snapshot of ``conn`` (an autocommit pyodbc
    connection); one result per condition."""
    cursor = conn.cursor()
    cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
    cursor.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY")
    try:
        results = [_w_ytd(cursor)]
        rows = _district_rows(cursor)
        results.append(tpcc_checks.next_o_id(rows))
        results.append(tpcc_checks.new_order_span(rows))
        results.append(_order_lines(cursor))
    finally:
        cursor.execute("COMMIT")
    return results
