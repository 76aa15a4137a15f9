"""The Compare chart's mark labels ("not reached by 32 users", "saturation 16") are read whole:
none writes over another's, nor over a curve's point (at 1280x720, where a chart is small)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF, QRectF
from pytestqt.qtbot import QtBot

from bench_gui.gui.widgets.compare_charts import OverlayChart
from bench_gui.report.parts import ChartSpec, SeriesSpec

pytestmark = pytest.mark.gui

USERS = [4, 8, 16, 32]


def _spec(*series: SeriesSpec) -> ChartSpec:
    return ChartSpec("nopm", "NOPM by users", "NOPM", list(USERS), list(series))


def _drawn(qtbot: QtBot, spec: ChartSpec, size: tuple[int, int]) -> OverlayChart:
    chart = OverlayChart("NOPM by users", "NOPM")
    qtbot.addWidget(chart)
    chart.resize(*size)
    chart.show()
    chart.set_spec(spec)
    qtbot.waitExposed(chart)
    qtbot.wait(50)  # the view lays out its items
    return chart


def _label_rects(chart: OverlayChart) -> list[QRectF]:
    return [item.sceneBoundingRect() for item in chart.mark_labels]


def _points(chart: OverlayChart, spec: ChartSpec) -> list[QPointF]:
    box = chart.plot.getViewBox()
    return [
        box.mapViewToScene(QPointF(i, v))
        for series in spec.series
        for i, v in enumerate(series.values)
        if v is not None
    ]


@pytest.mark.parametrize("size", [(600, 320), (900, 420)])
def test_two_sessions_unsaturated_at_the_same_load_label_apart(
    qtbot: QtBot, size: tuple[int, int]
) -> None:
    spec = _spec(
        SeriesSpec("HDD RAID 10", "#33b1ff", [900.0, 1700.0, 2900.0, 4000.0], unsaturated=32),
        SeriesSpec("SSD RAID 10", "#42be65", [1000.0, 1800.0, 3000.0, 4150.0], unsaturated=32),
        SeriesSpec("NVMe", "#ff832b", [3000.0, 5200.0, 5600.0, 5500.0], saturation=16),
    )
    chart = _drawn(qtbot, spec, size)
    rects = _label_rects(chart)
    assert len(rects) == 3
    for a in range(len(rects)):
        for b in range(a + 1, len(rects)):
            assert not rects[a].intersects(rects[b]), (a, b, rects[a], rects[b])
    for rect in rects:
        for point in _points(chart, spec):
            assert not rect.contains(point), (rect, point)
    view = chart.plot.getViewBox().sceneBoundingRect()
    for rect in rects:
        assert view.contains(rect), (rect, view)  # none cut at the plot's edges


def test_a_saturation_label_sits_above_another_curve_at_its_load(qtbot: QtBot) -> None:
    # The slow system saturates at 8 users under the fast one's curve: its label must not sit
    # on the fast system's point at 8 users.
    spec = _spec(
        SeriesSpec("Slow", "#33b1ff", [1000.0, 1500.0, 1400.0, 1300.0], saturation=8),
        SeriesSpec("Fast", "#42be65", [1200.0, 1650.0, 3000.0, 4000.0], unsaturated=32),
    )
    chart = _drawn(qtbot, spec, (600, 320))
    for rect in _label_rects(chart):
        for point in _points(chart, spec):
            assert not rect.contains(point), (rect, point)
