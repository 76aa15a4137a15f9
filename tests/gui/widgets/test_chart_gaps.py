"""A time series' curve breaks where no sample came (between steps, a reconnect), instead of
a straight line across seconds nobody measured."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QPainterPath
from pytestqt.qtbot import QtBot

from bench_gui.gui.widgets.charts import NOPM_COLOR, SeriesSpec, TimeSeriesChart, break_gaps

pytestmark = pytest.mark.gui


def _pieces(path: QPainterPath) -> int:
    """How many separate lines a curve's path draws (one per move-to)."""
    return sum(
        1
        for i in range(path.elementCount())
        if path.elementAt(i).type == QPainterPath.ElementType.MoveToElement
    )


def test_a_curve_breaks_across_a_gap_without_samples(qtbot: QtBot) -> None:
    chart = TimeSeriesChart("Throughput", "NOPM", [SeriesSpec("nopm", "NOPM", NOPM_COLOR)])
    qtbot.addWidget(chart)
    chart.resize(800, 400)
    chart.show()
    # Two steps measured a second apart, 16 s with no sample between them.
    x = np.concatenate([np.arange(0.0, 11.0), np.arange(27.0, 38.0)])
    y = np.full(len(x), 1000.0)
    chart.set_data("nopm", x, y)
    curve = chart.curves["nopm"].curve
    assert _pieces(curve.getPath()) == 2
    # Seconds one after another stay one line.
    chart.set_data("nopm", np.arange(0.0, 30.0), np.full(30, 1000.0))
    assert _pieces(curve.getPath()) == 1


def test_break_gaps_puts_one_missing_point_in_each_gap() -> None:
    x = np.array([0.0, 1.0, 2.0, 18.0, 19.0, 40.0])
    y = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    gx, gy = break_gaps(x, y, 5.0)
    assert list(gx) == [0.0, 1.0, 2.0, 10.0, 18.0, 19.0, 29.5, 40.0]
    assert np.isnan(gy[3])
    assert np.isnan(gy[6])
    assert list(gy[~np.isnan(gy)]) == list(y)
    same_x, _same_y = break_gaps(x[:3], y[:3], 5.0)
    assert list(same_x) == [0.0, 1.0, 2.0]
