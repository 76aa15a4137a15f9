"""The NOPM cross-check rule: the database's count against the driver's, 2% and the orders in
flight at the window's edges."""

from __future__ import annotations

import math

import pytest

from bench_gui.core.crosscheck import ANOTHER_LOAD, COUNTERS_OFF, nopm_doubt


def test_agreeing_counts_are_not_doubtful() -> None:
    assert nopm_doubt(10_000, 10_000) is None
    assert nopm_doubt(10_200, 10_000) is None  # exactly 2%
    assert nopm_doubt(9_800, 10_000) is None
    assert nopm_doubt(0, 0) is None


@pytest.mark.parametrize("db", [18_000.0, 24_000.0])
def test_another_load_is_named(db: float) -> None:
    """The issue's case: three runs at once, each database NOPM 1.8-2.4x the run's own."""
    doubt = nopm_doubt(db, 10_000.0, 60.0, 8)
    assert doubt is not None
    assert doubt.endswith(ANOTHER_LOAD)
    assert f"the database counted {db:,.0f}, the driver 10,000" in doubt
    assert f"({db / 10_000:.1f}x)" in doubt


def test_just_past_two_percent_is_doubtful_either_way() -> None:
    more = nopm_doubt(10_201, 10_000)
    assert more is not None
    assert "(+2%)" in more
    assert more.endswith(ANOTHER_LOAD)
    fewer = nopm_doubt(9_700, 10_000)
    assert fewer is not None
    assert "(-3%)" in fewer
    assert fewer.endswith(COUNTERS_OFF)


def test_orders_in_flight_at_the_edges_are_allowed_for() -> None:
    """4 users, 6 s: 4 orders apart are what in-flight orders can explain (one per user per
    edge allows 8), 12 are not."""
    assert nopm_doubt(1_040, 1_000, 6.0, 4) is None  # 4% but 4 orders
    doubt = nopm_doubt(1_120, 1_000, 6.0, 4)  # 12% and 12 orders
    assert doubt is not None
    assert doubt.endswith(ANOTHER_LOAD)
    # Without the window and the users, the 2% rule alone.
    assert nopm_doubt(1_040, 1_000) is not None


def test_driver_that_counted_nothing() -> None:
    doubt = nopm_doubt(600, 0, 10.0, 1)
    assert doubt is not None
    assert "none counted by the driver" in doubt


@pytest.mark.parametrize(
    ("db", "driver"),
    [(None, 100.0), (100.0, None), (math.nan, 100.0), (100.0, math.inf), (-5.0, 100.0)],
)
def test_missing_or_odd_figures_are_not_judged(db: float | None, driver: float | None) -> None:
    assert nopm_doubt(db, driver) is None


def test_odd_types_are_not_judged() -> None:
    assert nopm_doubt("24000", 10_000) is None  # type: ignore[arg-type]
    assert nopm_doubt(True, 10_000) is None
    assert nopm_doubt(24_000, 10_000, "60", "8") is not None  # type: ignore[arg-type]
