"""Judging the consistency conditions from the rows the T-SQL queries return."""

from __future__ import annotations

from decimal import Decimal

from bench_gui.agent import tpcc_checks
from bench_gui.engines.mssql.agent import checks


def _district(
    w: int, d: int, next_o: int, max_o: int, max_no: int | None, min_no: int | None, cnt: int
) -> tuple[object, ...]:
    return (w, d, next_o, max_o, max_no, min_no, cnt)


def test_consistent_districts_pass() -> None:
    rows = [_district(1, d, 3001, 3000, 3000, 2101, 900) for d in range(1, 11)]
    assert tpcc_checks.next_o_id(rows).ok
    assert tpcc_checks.new_order_span(rows).ok
    assert checks.judge_w_ytd(1, []).ok
    assert checks.judge_order_lines([(1, 1, 30_000, 30_000)]).ok


def test_lost_increment_is_reported() -> None:
    rows = [
        _district(1, 1, 3001, 3000, 3000, 2101, 900),
        _district(1, 2, 3002, 3000, 3000, 2101, 900),
    ]
    result = tpcc_checks.next_o_id(rows)
    assert not result.ok
    assert result.violations == 1
    assert "warehouse 1 district 2: d_next_o_id 3002" in result.detail


def test_delivered_everything_is_not_a_violation() -> None:
    # No new_order rows left: condition 2 compares orders only, condition 3 has nothing.
    rows = [_district(1, 1, 3001, 3000, None, None, 0)]
    assert tpcc_checks.next_o_id(rows).ok
    assert tpcc_checks.new_order_span(rows).ok


def test_gap_in_new_orders() -> None:
    result = tpcc_checks.new_order_span([_district(1, 3, 3001, 3000, 3000, 2101, 899)])
    assert not result.ok
    assert "no_o_id 2101..3000 but 899 rows" in result.detail


def test_w_ytd_and_lines() -> None:
    bad = checks.judge_w_ytd(2, [(2, Decimal("300010.00"), Decimal("300000.00"))])
    assert not bad.ok
    assert bad.detail.startswith("violated in 1 of 2 warehouses")
    lines = checks.judge_order_lines([(1, 1, 30_010, 30_000), (1, 2, None, None)])
    assert not lines.ok
    assert lines.violations == 1
