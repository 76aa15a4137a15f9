"""Overlaid comparison charts: one line per session by user count, saturation points marked.

Draws a :class:`bench_gui.report.model.ChartSpec` (the same description the reports draw) in
the app's dark style, so the Compare page and the exported charts show the same series.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QWidget

from bench_gui.gui.widgets.charts import (
    AXIS_COLOR,
    BACKGROUND,
    GRID_ALPHA,
    MUTED,
    ChartCard,
    CountAxis,
    ValueAxis,
    _font,
)
from bench_gui.gui.widgets.label_place import place_label
from bench_gui.report.model import ChartSpec
from bench_gui.report.parts import SeriesSpec

# Session colours on the dark theme: the baseline blue, then green, as in the reports.
# The plot's top over its tallest point, raised step by step until every mark's label fits.
LABEL_HEADROOM = (1.22, 1.35, 1.5, 1.7)
LABEL_LEVELS = 5  # the heights a mark's label tries above its load's highest point

SESSION_COLORS = ("#33b1ff", "#42be65", "#ff832b", "#be95ff", "#ff7eb6", "#08bdba")


def session_color(index: int) -> str:
    return SESSION_COLORS[index % len(SESSION_COLORS)]


class OverlayChart(ChartCard):
    """Several sessions' values of one metric by user count, on one plot."""

    def __init__(
        self,
        title: str,
        y_label: str,
        count_axis: bool = True,
        empty_message: str = "Choose sessions and press Compare",
        parent: QWidget | None = None,
    ) -> None:
        left = CountAxis("left") if count_axis else ValueAxis("left")
        super().__init__(title, "Virtual users", y_label, pg.AxisItem("bottom"), left, parent)
        self.plot.showGrid(x=False, y=True, alpha=GRID_ALPHA)
        self.plot.setMouseEnabled(x=False, y=False)
        self.empty_message = empty_message
        self._items: list[pg.GraphicsObject] = []
        self.spec: ChartSpec | None = None
        self.saturation_marks: dict[str, int] = {}  # series label -> user count marked
        # series label -> the heaviest load of a sweep that never saturated (an open triangle)
        self.unsaturated_marks: dict[str, int] = {}
        self.mark_labels: list[pg.TextItem] = []  # the marks' labels, as placed
        self._top = 0.0  # the tallest point drawn
        self.plot.getViewBox().sigResized.connect(self._place_labels)
        self.clear()

    def clear(self) -> None:
        for item in self._items:
            self.plot.removeItem(item)
        self._items = []
        self.spec = None
        self.saturation_marks = {}
        self.unsaturated_marks = {}
        self.mark_labels.clear()
        self._top = 0.0
        self.set_legend([])
        self.plot.getAxis("bottom").setTicks([[], []])
        self._show_empty(self.empty_message, (-0.5, 4.5))

    def _add(self, item: pg.GraphicsObject) -> None:
        self.plot.addItem(item)
        self._items.append(item)

    def set_spec(self, spec: ChartSpec, colors: Sequence[str] | None = None) -> None:
        """Draw every series of ``spec`` (colours in series order; default: the theme's)."""
        self.clear()
        self.spec = spec
        self.set_title(spec.title)
        cats = spec.categories
        self.plot.getAxis("bottom").setTicks([[(i, str(u)) for i, u in enumerate(cats)], []])
        top = 0.0
        legend: list[tuple[str, str, str]] = []
        labels: list[tuple[int, str, str]] = []  # (category, text, colour) of each mark
        for k, series in enumerate(spec.series):
            color = colors[k] if colors is not None else session_color(k)
            xs = [i for i, v in enumerate(series.values) if v is not None and math.isfinite(v)]
            ys = [float(series.values[i]) for i in xs]  # type: ignore[arg-type]
            if ys:
                top = max(top, max(ys))
            pen = pg.mkPen(color, width=3)
            curve = pg.PlotDataItem(
                np.array(xs, dtype=float),
                np.array(ys, dtype=float),
                pen=pen,
                symbol="o",
                symbolSize=10,
                symbolBrush=pg.mkBrush(color),
                symbolPen=pg.mkPen(BACKGROUND, width=1.5),
            )
            self._add(curve)
            label = series.label + (" (baseline)" if series.baseline else "")
            legend.append((label, color, "marker"))
            vus = series.unsaturated
            if vus is not None and vus in cats and self._mark_unsaturated(vus, cats, series, color):
                labels.append((cats.index(vus), f"not reached by {vus} users", color))
                self.unsaturated_marks[series.label] = vus
            if series.saturation is not None and series.saturation in cats:
                i = cats.index(series.saturation)
                value = series.values[i]
                if value is None:
                    continue
                ring = pg.ScatterPlotItem(
                    [float(i)],
                    [float(value)],
                    symbol="o",
                    size=26,
                    brush=pg.mkBrush(0, 0, 0, 0),
                    pen=pg.mkPen(color, width=2.5),
                )
                self._add(ring)
                line = pg.InfiniteLine(
                    pos=i,
                    angle=90,
                    pen=pg.mkPen(QColor(color).darker(140), width=1, style=Qt.PenStyle.DashLine),
                )
                self._add(line)
                labels.append((i, f"saturation {series.saturation}", color))
                self.saturation_marks[series.label] = series.saturation
        for i, text, color in labels:
            item = pg.TextItem(text, color=color, anchor=(0.5, 1.6))
            item.setFont(_font(13, bold=True))
            # Above the highest point at its load, so no curve's point there is under it.
            here = [
                float(v)
                for series in spec.series
                if i < len(series.values) and (v := series.values[i]) is not None
                if math.isfinite(v)
            ]
            item.setPos(i, max(here, default=0.0))
            self._add(item)
            self.mark_labels.append(item)
        legend.append(("saturation point", MUTED, "ring"))
        if self.unsaturated_marks:
            legend.append(("not saturated (heaviest load tested)", MUTED, "triangle"))
        self.set_legend(legend)
        if top <= 0 or not cats:
            self._show_empty("No values to show", (-0.5, max(len(cats), 1) - 0.5))
            return
        self._show_data()
        self.plot.setXRange(-0.5, len(cats) - 0.5, padding=0)
        self._top = top
        self.plot.setYRange(0, top * LABEL_HEADROOM[0], padding=0)
        self._place_labels()

    def _mark_unsaturated(self, vus: int, cats: list[int], series: SeriesSpec, color: str) -> bool:
        """An open triangle over the heaviest load of a sweep that ended before saturating
        (its label "not reached by N users" placed by :meth:`_place_labels`): never drawn as a
        saturation point, as in the reports. False when that load has no value to mark."""
        i = cats.index(vus)
        value = series.values[i]
        if value is None or not math.isfinite(value):
            return False
        mark = pg.ScatterPlotItem(
            [float(i)],
            [float(value)],
            symbol="t1",  # a triangle pointing up: the load could have gone higher
            size=22,
            brush=pg.mkBrush(BACKGROUND),
            pen=pg.mkPen(color, width=2.5),
        )
        self._add(mark)
        return True

    def _place_labels(self) -> None:
        """Each mark's label above its point, or higher (or under it), at the first place
        where it covers no other label and no curve's point (two sessions both unsaturated at
        32 users, or a saturation under another curve's point, wrote over each other); the
        plot's top is raised, up to a limit, until every label has a place. Judged as drawn:
        again on a resize."""
        if self.spec is None or not self.mark_labels or self._top <= 0:
            return
        box = self.plot.getViewBox()
        last = len(self.spec.categories) - 1
        for headroom in LABEL_HEADROOM:
            self.plot.setYRange(0, self._top * headroom, padding=0)
            box.updateMatrix()  # the range just set, not the one of the last paint
            view = box.sceneBoundingRect()
            points = [
                box.mapViewToScene(QPointF(float(i), float(v)))
                for series in self.spec.series
                for i, v in enumerate(series.values)
                if v is not None and math.isfinite(v)
            ]
            taken: list[QRectF] = []
            placed = 0
            # Right to left: a label at the last load has the fewest places (it ends there).
            for item in sorted(self.mark_labels, key=lambda it: -float(it.pos().x())):
                i = round(float(item.pos().x()))
                # Centred on its load, or ending or starting there; at the right edge only
                # ending there, so it is never cut off.
                sides = (1.0,) if i == last and last > 0 else (0.5, 1.0, 0.0)
                above = [(x, 1.6 + 1.15 * k) for k in range(LABEL_LEVELS) for x in sides]
                under = [(x, -0.45) for x in sides]  # under its load's highest point
                anchors = above[: 2 * len(sides)] + under + above[2 * len(sides) :]
                placed += place_label(item, anchors, view, taken, points)
            if placed == len(self.mark_labels):
                return

    def set_legend(self, entries: Sequence[tuple[str, str, str]]) -> None:
        parts = []
        for label, color, kind in entries:
            glyph = {"ring": "◯", "triangle": "△"}.get(kind, "━●━")
            parts.append(
                f'<span style="color:{color}; font-size:17px;">{glyph}</span>'
                f'<span style="color:#c9d1e0;">&nbsp;{label}</span>'
            )
        self.legend_label.setText("&nbsp;&nbsp;&nbsp;".join(parts))


__all__ = ["AXIS_COLOR", "SESSION_COLORS", "OverlayChart", "session_color"]
