"""Power arithmetic: integrated over exactly the window, never a last reading."""

from __future__ import annotations

import pytest

from bench_gui.core.power import (
    PowerReading,
    average_power,
    joules_per_new_order,
    mw_per_nopm,
    window_figures,
)
from bench_gui.wire.power_math import significant


def test_constant_power_is_itself() -> None:
    readings = [PowerReading(t, 300.0) for t in range(0, 11)]
    assert average_power(readings, 2.0, 8.0) == pytest.approx(300.0)


def test_ramp_is_integrated_with_edges_interpolated() -> None:
    # 100 W at t=0 rising linearly to 200 W at t=10: the mean over [0, 10] is 150 W, over
    # [5, 10] it is 175 W even though no reading falls on t=5.
    readings = [PowerReading(0.0, 100.0), PowerReading(10.0, 200.0)]
    assert average_power(readings, 0.0, 10.0) == pytest.approx(150.0)
    assert average_power(readings, 5.0, 10.0) == pytest.approx(175.0)


def test_uncovered_window_gives_no_figure() -> None:
    readings = [PowerReading(1.0, 100.0), PowerReading(5.0, 100.0)]
    assert average_power(readings, 0.0, 5.0) is None
    assert average_power(readings[:1], 1.0, 1.5) is None


def test_seed_003_style_figures() -> None:
    # 600 W at 100,000 NOPM: 6 mW per NOPM and 0.36 J per new order.
    assert mw_per_nopm(600.0, 100_000.0) == pytest.approx(6.0)
    assert joules_per_new_order(600.0, 100_000.0) == pytest.approx(0.36)
    with pytest.raises(ValueError, match="positive"):
        mw_per_nopm(600.0, 0.0)


def test_per_unit_figures_keep_their_significant_digits() -> None:
    """A fast system's joules per new order (0.0385) kept to 4 decimal places lost a tenth of a
    percent, which a run on a quiet machine showed; per-unit figures keep 6 significant digits,
    in the agent's step summary and in an import's figures alike."""
    nopm = 102_750.0  # 66 W: 0.038540 J per new order, 0.64234 mW per NOPM
    figures = window_figures(66.0, 4.0, nopm).as_summary()
    assert figures["j_per_new_order"] == pytest.approx(60 * 66.0 / nopm, rel=1e-5)
    assert figures["mw_per_nopm"] == pytest.approx(1000 * 66.0 / nopm, rel=1e-5)
    assert significant(0.000123456789) == 0.000123457
