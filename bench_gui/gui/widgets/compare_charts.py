"""Overlaid comparison charts: one line per session by user count, saturation points marked.

Draws a :class:`bench_gui.report.model.ChartSpec` (the same description the reports draw) in
the app's dark style, so the Compare page and the exported charts show the same series.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
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
from bench_gui.report.model import ChartSpec

# Session colours on the dark theme: the baseline blue, then green, as in the reports.
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
        self.clear()

    def clear(self) -> None:
        for item in self._items:
            self.plot.removeItem(item)
        self._items = []
        self.spec = None
        self.saturation_marks = {}
        self.unsaturated_marks = {}
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
            if series.unsaturated is not None and series.unsaturated in cats:
                self._mark_unsaturated(series.label, series.unsaturated, cats, series.values, color)
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
                text = pg.TextItem(
                    f"saturation {series.saturation}", color=color, anchor=(0.5, 1.6)
                )
                text.setFont(_font(13, bold=True))
                text.setPos(i, value)
                self._add(text)
                self.saturation_marks[series.label] = series.saturation
        legend.append(("saturation point", MUTED, "ring"))
        if self.unsaturated_marks:
            legend.append(("not saturated (heaviest load tested)", MUTED, "triangle"))
        self.set_legend(legend)
        if top <= 0 or not cats:
            self._show_empty("No values to show", (-0.5, max(len(cats), 1) - 0.5))
            return
        self._show_data()
        self.plot.setXRange(-0.5, len(cats) - 0.5, padding=0)
        self.plot.setYRange(0, top * 1.22, padding=0)

    def _mark_unsaturated(
        self, label: str, vus: int, cats: list[int], values: list[float | None], color: str
    ) -> None:
        """An open triangle over the heaviest load of a sweep that ended before saturating,
        labelled "not reached by N users": never drawn as a saturation point (as the reports)."""
        i = cats.index(vus)
        value = values[i]
        if value is None or not math.isfinite(value):
            return
        mark = pg.ScatterPlotItem(
            [float(i)],
            [float(value)],
            symbol="t1",  # a triangle pointing up: the load could have gone higher
            size=22,
            brush=pg.mkBrush(BACKGROUND),
            pen=pg.mkPen(color, width=2.5),
        )
        self._add(mark)
        # At the right edge the label ends at the point, so it is never cut off.
        anchor = (1.0, 1.6) if i == len(cats) - 1 and len(cats) > 1 else (0.5, 1.6)
        text = pg.TextItem(f"not reached by {vus} users", color=color, anchor=anchor)
        text.setFont(_font(13, bold=True))
        text.setPos(i, value)
        self._add(text)
        self.unsaturated_marks[label] = vus

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
