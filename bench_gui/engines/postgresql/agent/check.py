"""TPC-C consistency conditions 1-4 (specification clause 3.3.2), checked after a load or run.

They catch a loader or a transaction routine that gets the bookkeeping wrong (a lost
d_next_o_id increment, a delivery that skips a row, a payment that misses a total), which a
throughput figure alone never shows. All four read one snapshot (REPEATABLE READ), so a
check taken while the benchmark runs does not report transactions in flight as violations.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import pq

from bench_gui.agent import tpcc_checks
from bench_gui.agent.engines import CheckResult


def _w_ytd(conn: psycopg.Connection) -> CheckResult:
    """Condition 1: W_YTD = sum(D_YTD) for each warehouse."""
    (total,) = conn.execute("SELECT count(*) FROM warehouse").fetchone() or (0,)
    rows = conn.execute(
        """
        SELECT w.w_id, w.w_ytd, d.ytd
        FROM warehouse w
        LEFT JOIN (SELECT d_w_id, sum(d_ytd) AS ytd FROM district GROUP BY d_w_id) d
            ON d.d_w_id = w.w_id
        WHERE d.ytd IS DISTINCT FROM w.w_ytd
        ORDER BY w.w_id
        """
    ).fetchall()
    return tpcc_checks.result(
        "1: w_ytd = sum(d_ytd)",
        "warehouses",
        total,
        rows,
        lambda r: f"warehouse {r[0]}: w_ytd {r[1]}, sum(d_ytd) {r[2]}",
    )


def _district_rows(conn: psycopg.Connection) -> list[tuple[Any, ...]]:
    """Per district: d_next_o_id, max(o_id), max/min/count of new_order (index probes)."""
    return conn.execute(
        """
        SELECT d.d_w_id, d.d_id, d.d_next_o_id,
               (SELECT max(o.o_id) FROM orders o
                WHERE o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id) AS max_o,
               n.max_no, n.min_no, n.cnt
        FROM district d
        CROSS JOIN LATERAL (
            SELECT max(no_o_id) AS max_no, min(no_o_id) AS min_no, count(*) AS cnt
            FROM new_order WHERE no_w_id = d.d_w_id AND no_d_id = d.d_id
        ) n
        ORDER BY d.d_w_id, d.d_id
        """
    ).fetchall()


def _order_lines(conn: psycopg.Connection) -> CheckResult:
    """Condition 4: sum(O_OL_CNT) = number of order_line rows, per district."""
    rows = conn.execute(
        """
        SELECT d.d_w_id, d.d_id, o.n, l.n
        FROM district d
        LEFT JOIN (SELECT o_w_id, o_d_id, sum(o_ol_cnt) AS n FROM orders
                   GROUP BY o_w_id, o_d_id) o ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
        LEFT JOIN (SELECT ol_w_id, ol_d_id, count(*) AS n FROM order_line
                   GROUP BY ol_w_id, ol_d_id) l ON l.ol_w_id = d.d_w_id AND l.ol_d_id = d.d_id
        ORDER BY d.d_w_id, d.d_id
        """
    ).fetchall()
    bad = [r for r in rows if (r[2] or 0) != (r[3] or 0)]
    return tpcc_checks.result(
        "4: sum(o_ol_cnt) = count(order_line)",
        "districts",
        len(rows),
        bad,
        lambda r: f"warehouse {r[0]} district {r[1]}: sum(o_ol_cnt) {r[2]}, order lines {r[3]}",
    )


def consistency_checks(conn: psycopg.Connection) -> list[CheckResult]:
    """Run consistency conditions 1-4 on one snapshot and return one result per condition.

    Conditions 1-3 use index probes per district; condition 4 scans orders and order_line
    once (seconds per hundred warehouses).
    """
    idle = conn.info.transaction_status == pq.TransactionStatus.IDLE
    with conn.transaction():
        if idle:
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        results = [_w_ytd(conn)]
        rows = _district_rows(conn)
        results.append(tpcc_checks.next_o_id(rows))
        results.append(tpcc_checks.new_order_span(rows))
        results.append(_order_lines(conn))
    return results
