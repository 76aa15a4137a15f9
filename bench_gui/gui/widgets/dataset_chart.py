"""A comparison chart by dataset size: one series per session over labelled categories
("0.5x", "1x", "2x" RAM), as lines or grouped bars, on a linear or a logarithmic value axis.

Draws a :class:`bench_gui.report.parts.ChartSpec` (the same description the random-read
report draws), so the Compare page and the exported report show the same series. On the log
axis the values are drawn as their base-10 logarithm with ticks at each decade (1, 10, 100,
1k...): a slow device's hundreds of reads a second stay visible beside millions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from bench_gui.gui.widgets.charts import (
    BACKGROUND,
    GRID_ALPHA,
    LABEL_PX,
    MUTED,
    ChartCard,
    CountAxis,
    format_count,
)
from bench_gui.gui.widgets.compare_charts import session_color
from bench_gui.report.parts import ChartSpec

X_LABEL = "Dataset size, as a multiple of RAM"
LABEL_STYLE = {"color": MUTED, "font-size": f"{LABEL_PX}px"}


def _value_text(value: float) -> str:
    """An axis value: ``375``, ``150k``, ``3.1M``, ``4.5`` (a multiplier), ``0.001``."""
    if value == 0 or abs(value) >= 10:
        return format_count(value)
    return f"{value:.3g}"


class ScaleAxis(CountAxis):
    """A value axis in round steps (linear) or in decades (``log``: the plotted values are
    base-10 logarithms; the labels print the values themselves)."""

    def __init__(self, orientation: str = "left", **kwargs: object) -> None:
        super().__init__(orientation, **kwargs)
        self.log = False

    def tickSpacing(  # noqa: N802 (pyqtgraph override)
        self, min_val: float, max_val: float, size: float
    ) -> list[tuple[float, float]]:
        if not self.log:
            return super().tickSpacing(min_val, max_val, size)
        decades = max(1.0, math.ceil((max_val - min_val) / max(1.0, size / 40.0)))
        return [(decades, 0.0)]

    def tickStrings(  # noqa: N802 (pyqtgraph override)
        self, values: list[float], scale: float, spacing: float
    ) -> list[str]:
        if not self.log:
            return [_value_text(v * scale) for v in values]
        return [_value_text(10.0**v) for v in values]


class DatasetChart(ChartCard):
    """Several sessions' values of one metric by dataset size, on one plot."""

    def __init__(
        self,
        title: str = "",
        y_label: str = "",
        empty_message: str = "Choose sessions and press Compare",
        parent: QWidget | None = None,
    ) -> None:
        self.axis = ScaleAxis("left")
        super().__init__(title, X_LABEL, y_label, pg.AxisItem("bottom"), self.axis, parent)
        self.plot.showGrid(x=False, y=True, alpha=GRID_ALPHA)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.empty_message = empty_message
        self._items: list[pg.GraphicsObject] = []
        self.spec: ChartSpec | None = None
        self.clear()

    @property
    def log_y(self) -> bool:
        """Whether the value axis is logarithmic."""
        return self.axis.log

    def clear(self) -> None:
        for item in self._items:
            self.plot.removeItem(item)
        self._items = []
        self.spec = None
        self.axis.log = False
        self.set_legend([])
        self.plot.getAxis("bottom").setTicks([[], []])
        self._show_empty(self.empty_message, (-0.5, 4.5))

    def _add(self, item: pg.GraphicsObject) -> None:
        self.plot.addItem(item)
        self._items.append(item)

    def plotted(self, index: int) -> list[float | None]:
        """The values of series ``index`` as drawn (on a log axis: only the positive ones)."""
        assert self.spec is not None
        out: list[float | None] = []
        for v in self.spec.series[index].values:
            ok = v is not None and math.isfinite(v) and (v > 0 or not self.spec.log_y)
            out.append(float(v) if ok and v is not None else None)
        return out

    def set_spec(self, spec: ChartSpec, colors: Sequence[str] | None = None) -> None:
        """Draw every series of ``spec`` (colours in series order; default: the theme's)."""
        self.clear()
        self.spec = spec
        self.axis.log = spec.log_y
        self.set_title(spec.title)
        for side, text in (("left", spec.y_label), ("bottom", spec.x_label or X_LABEL)):
            self.plot.getAxis(side).setLabel(text, **LABEL_STYLE)
        count = len(spec.categories)
        ticks = [(float(i), spec.category_text(i)) for i in range(count)]
        self.plot.getAxis("bottom").setTicks([ticks, []])

        def y(value: float) -> float:
            return math.log10(value) if spec.log_y else value

        drawn: list[float] = []
        legend: list[tuple[str, str, str]] = []
        n = max(1, len(spec.series))
        width = 0.8 / n
        for k, series in enumerate(spec.series):
            color = colors[k] if colors is not None else session_color(k)
            values = self.plotted(k)
            xs = [i for i, v in enumerate(values) if v is not None]
            ys = [y(values[i] or 0.0) for i in xs]
            drawn += ys
            if spec.kind == "bars":
                offset = -0.4 + width * (k + 0.5)
                base = 0.0
                if spec.log_y and ys:  # bars grow from the bottom decade, not from 10^0
                    base = math.floor(min(ys))
                self._add(
                    pg.BarGraphItem(
                        x=np.array(xs, dtype=float) + offset,
                        y0=base,
                        height=np.array(ys, dtype=float) - base,
                        width=width * 0.9,
                        brush=pg.mkBrush(color),
                        pen=pg.mkPen(BACKGROUND, width=1),
                    )
                )
            else:
                self._add(
                    pg.PlotDataItem(
                        np.array(xs, dtype=float),
                        np.array(ys, dtype=float),
                        pen=pg.mkPen(color, width=3),
                        symbol="o",
                        symbolSize=10,
                        symbolBrush=pg.mkBrush(color),
                        symbolPen=pg.mkPen(BACKGROUND, width=1.5),
                    )
                )
            label = series.label + (" (baseline)" if series.baseline else "")
            legend.append((label, color, "bar" if spec.kind == "bars" else "marker"))
        if spec.reference is not None and (spec.reference > 0 or not spec.log_y):
            ref = y(spec.reference)
            drawn.append(ref)
            self._add(
                pg.InfiniteLine(
                    pos=ref, angle=0, pen=pg.mkPen(MUTED, width=1.5, style=Qt.PenStyle.DashLine)
                )
            )
            legend.append((spec.reference_label, MUTED, "dashed"))  # named there, not on bars
        self.set_legend(legend)
        if not drawn or count == 0:
            self._show_empty("No values to show", (-0.5, max(count, 1) - 0.5))
            return
        self._show_data()
        self.plot.setXRange(-0.5, count - 0.5, padding=0)
        if spec.log_y:
            low, high = math.floor(min(drawn)), math.ceil(max(drawn))
            self.plot.setYRange(low, max(high, low + 1) + 0.15, padding=0)
        else:
            self.plot.setYRange(min(0.0, min(drawn)), max(drawn) * 1.15 or 1.0, padding=0)


__all__ = ["X_LABEL", "DatasetChart", "ScaleAxis"]
