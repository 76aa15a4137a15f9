"""Consistency conditions 1-4: they hold after a load and catch each kind of damage."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from bench_gui.engines.postgresql.agent import check


def test_all_conditions_hold_after_the_load(build_conn: psycopg.Connection) -> None:
    results = check.consistency_checks(build_conn)
    assert len(results) == 4
    for result in results:
        assert result.ok, result.detail
        assert result.violations == 0
    assert results[0].detail == "holds for all 2 warehouses"
    assert results[1].detail == "holds for all 20 districts"


@pytest.fixture
def damage_conn(tpcc_build: Any) -> Iterator[psycopg.Connection]:
    """A connection in an open transaction on the build: damage done here is rolled back."""
    with psycopg.connect(tpcc_build.uri) as conn:
        yield conn
        conn.rollback()


@pytest.mark.parametrize(
    ("damage", "broken", "example"),
    [
        ("UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 2", {0}, "warehouse 2: w_ytd"),
        (
            "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = 1 AND d_id = 4",
            {1},
            "warehouse 1 district 4: d_next_o_id 3002",
        ),
        (
            "DELETE FROM new_order WHERE no_w_id = 2 AND no_d_id = 3 AND no_o_id = 2500",
            {2},
            "warehouse 2 district 3: no_o_id 2101..3000 but 899 rows",
        ),
        (
            "DELETE FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 7 AND ol_o_id = 10"
            " AND ol_number = 1",
            {3},
            "warehouse 1 district 7",
        ),
        ("DELETE FROM orders WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 3000", {1, 3}, ""),
    ],
)
def test_damage_is_reported(
    damage_conn: psycopg.Connection, damage: str, broken: set[int], example: str
) -> None:
    damage_conn.execute(damage)
    results = check.consistency_checks(damage_conn)
    assert {i for i, r in enumerate(results) if not r.ok} == broken
    for i in broken:
        assert results[i].violations == 1
        assert "violated in 1 of" in results[i].detail
    assert example in results[min(broken)].detail
