"""The random-read view's own charts, built on the shared chart cards.

- :class:`LatencyChart`: the current point's latency percentiles by second on a log scale (in
  RAM a read takes well under a microsecond, from the device milliseconds: a linear axis would
  flatten one of them to nothing).
- :class:`DatasetSizeChart`: the study's result filling in point by point: measured ops/s
  against the dataset size, log y, x in multiples of RAM (log 2, so 0.25x to 4x are evenly
  apart), the RAM marked, the device's raw IOPS as a dashed line once the pre-pass measured it.

Values go onto the log axes as their logarithms; :class:`LogAxis` writes them back as numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFont

from bench_gui.gui.widgets.charts import (
    AXIS_COLOR,
    BACKGROUND,
    FOREGROUND,
    GRID_ALPHA,
    LABEL_PX,
    MUTED,
    NOPM_COLOR,
    TICK_PX,
    VALUE_LABEL_PX,
    ChartCard,
    SeriesSpec,
    TimeSeriesChart,
    format_count,
)
from bench_gui.gui.widgets.label_place import place_label
from bench_gui.workloads.random_read.compare import multiplier_text

OPS_COLOR = NOPM_COLOR
RAW_COLOR = "#f1c21b"
RAM_LINE_COLOR = "#be95ff"
EMPTY_DATASET = "A point appears as each dataset size is measured"
# A dataset-size plot shorter than this labels its points with one line (ops/s only).
SHORT_PLOT_PX = 170
# Room kept between a value label and the edge of the plot, in pixels.
LABEL_MARGIN_PX = 4.0
ABOVE = 1.1  # a value label's anchor above its point: its foot a tenth of its height above
UNDER_PX = 10.0  # a label put under its point starts this far below it (clear of the marker)


def latency_text(us: float) -> str:
    """A latency in µs as an axis label: ``0.1 µs``, ``250 µs``, ``2 ms``."""
    if us >= 1000:
        return f"{us / 1000:g} ms"
    return f"{us:g} µs"


def multiple_text(ratio: float) -> str:
    """A RAM multiple as an axis label: ``0.25×``, ``2×``."""
    return f"{ratio:.3g}×"


def _font(pixels: int, bold: bool = False) -> QFont:
    font = QFont()
    font.setPixelSize(pixels)
    font.setBold(bold)
    return font


def style_axis(axis: pg.AxisItem, label: str) -> None:
    """An axis in the shared charts' look."""
    axis.setPen(pg.mkPen(AXIS_COLOR, width=1))
    axis.setTextPen(pg.mkPen(FOREGROUND))
    axis.setTickFont(_font(TICK_PX))
    axis.setStyle(tickTextOffset=8, tickLength=-6)
    axis.setLabel(label, **{"color": MUTED, "font-size": f"{LABEL_PX}px"})


class LogAxis(pg.AxisItem):  # type: ignore[misc]
    """An axis of log10 values labelled with the values: a tick at every power of ten, and at
    2 and 5 times it when the axis spans few decades."""

    def __init__(self, orientation: str, text: Callable[[float], str]) -> None:
        super().__init__(orientation)
        self.enableAutoSIPrefix(False)
        self.text = text
        self.px_per_label = 34.0 if orientation in ("left", "right") else 70.0

    def tickValues(  # noqa: N802 (pyqtgraph override)
        self, min_val: float, max_val: float, size: float
    ) -> list[tuple[float, list[float]]]:
        if not (math.isfinite(min_val) and math.isfinite(max_val)) or max_val <= min_val:
            return []
        first, last = math.floor(min_val), math.ceil(max_val)
        room = max(1.0, size / self.px_per_label)  # labels the axis has room for
        # Every decade while they fit, else every second, third... (never labels on labels).
        every = max(1, math.ceil((last - first) / room))
        steps = (1.0, 2.0, 5.0) if (last - first) * 3 <= room else (1.0,)
        values = sorted(
            v
            for d in range(first, last + 1)
            if d % every == 0
            for m in steps
            if min_val <= (v := d + math.log10(m)) <= max_val
        )
        return [(1.0, values)]

    def tickStrings(  # noqa: N802 (pyqtgraph override)
        self, values: list[float], scale: float, spacing: float
    ) -> list[str]:
        return [self.text(10.0 ** (v * scale)) for v in values]


def log10(values: np.ndarray) -> np.ndarray:
    """log10 of the positive values; NaN for the others (a gap, not a crash)."""
    out = np.full(len(values), np.nan)
    positive = np.isfinite(values) & (values > 0)
    out[positive] = np.log10(values[positive])
    return out


class LatencyChart(TimeSeriesChart):
    """Latency percentiles by second on a log axis (µs to ms); values are given in ms."""

    def __init__(self, title: str, series: Sequence[SeriesSpec], empty_message: str) -> None:
        super().__init__(title, "Latency", series, empty_message=empty_message, manual_range=True)
        axis = LogAxis("left", latency_text)
        self.plot.setAxisItems({"left": axis})
        style_axis(axis, "Latency")
        axis.setWidth(86)
        axis.setStyle(showValues=not self.empty)
        self.plot.showGrid(x=True, y=True, alpha=GRID_ALPHA)
        self._baseline.hide()  # y = 0 is 1 µs on this axis: no line of its own

    def set_latency(self, key: str, x: np.ndarray, ms: np.ndarray) -> None:
        """One percentile's seconds, in ms (drawn as log10 of µs)."""
        self.set_data(key, x, log10(np.asarray(ms) * 1000.0))

    def fit(self) -> None:
        """Every curve in view, with a little room above and below (no zero on a log axis)."""
        extent = self._extent
        if not extent or self.empty:
            return
        x0 = min(e[0] for e in extent.values())
        x1 = max(e[1] for e in extent.values())
        lows = [e[2] for e in extent.values() if math.isfinite(e[2])]
        highs = [e[3] for e in extent.values() if math.isfinite(e[3])]
        if not lows or not highs:
            return
        low, high = min(lows), max(highs)
        if high - low < 1.0:  # at least a decade, centred on the data
            middle = (high + low) / 2
            low, high = middle - 0.5, middle + 0.5
        span = max(x1 - x0, 1.0)
        pad = 0.06 * (high - low)
        self.plot.setRange(
            xRange=(x0 - 0.02 * span, x1 + 0.02 * span),
            yRange=(low - pad, high + pad),
            padding=0,
        )


@dataclass(frozen=True)
class DatasetPoint:
    """One point of the dataset-size chart."""

    ratio: float  # dataset / RAM
    ops_s: float
    multiplier: float | None = None  # ops_s over the raw device IOPS
    complete: bool = True


def point_label(point: DatasetPoint, short: bool = False) -> str:
    """A point's value label. Beyond RAM the multiplier over raw IOPS is the point of the
    study (seed 004), so it comes first and stays on a short chart; within RAM the device is
    barely read and ops/s alone are shown (a multiplier there measures memory)."""
    ops = f"{format_count(point.ops_s)} ops/s"
    if point.multiplier is None or point.ratio <= 1.0 + 1e-9:
        return ops
    multiplier = f"{multiplier_text(point.multiplier)} raw"
    return multiplier if short else f"{multiplier}\n{ops}"


class DatasetSizeChart(ChartCard):
    """Measured ops/s by dataset size (multiples of RAM), filling in as the points end."""

    def __init__(self, title: str = "Operations per second by dataset size") -> None:
        bottom = pg.AxisItem("bottom")
        bottom.enableAutoSIPrefix(False)
        left = LogAxis("left", format_count)
        super().__init__(title, "Dataset size (× RAM)", "ops/s", bottom, left)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.getAxis("left").setWidth(72)
        self.empty_message = EMPTY_DATASET
        self.planned: list[float] = []
        self.points: list[DatasetPoint] = []
        self.raw_iops: float | None = None
        self.live: tuple[float, float] | None = None  # (ratio, ops/s) of the point running
        self._x_range = (-1.0, 1.0)
        self._drawn_short = False
        self.curve = self.plot.plot(
            pen=pg.mkPen(OPS_COLOR, width=2),
            symbol="o",
            symbolSize=13,
            symbolBrush=pg.mkBrush(OPS_COLOR),
            symbolPen=pg.mkPen(BACKGROUND, width=1.5),
        )
        self.partial = pg.ScatterPlotItem(
            size=13, brush=pg.mkBrush(BACKGROUND), pen=pg.mkPen(OPS_COLOR, width=2)
        )
        self.plot.addItem(self.partial)
        self.running = pg.ScatterPlotItem(
            size=15,
            brush=pg.mkBrush(None),
            pen=pg.mkPen(OPS_COLOR, width=2, style=Qt.PenStyle.DotLine),
        )
        self.plot.addItem(self.running)
        raw_pen = pg.mkPen(RAW_COLOR, width=1.5, style=Qt.PenStyle.DashLine)
        raw_pen.setCosmetic(True)
        self.raw_line = pg.InfiniteLine(angle=0, movable=False, pen=raw_pen)
        self.raw_line.hide()
        self.plot.addItem(self.raw_line, ignoreBounds=True)
        ram_pen = pg.mkPen(RAM_LINE_COLOR, width=1, style=Qt.PenStyle.DotLine)
        self.ram_line = pg.InfiniteLine(
            pos=0.0,
            angle=90,
            movable=False,
            pen=ram_pen,
            label="RAM",
            # At the foot of the line: the points' value labels are above them.
            labelOpts={"position": 0.06, "color": RAM_LINE_COLOR, "anchors": [(0, 0.5), (0, 0.5)]},
        )
        self.ram_line.label.setFont(_font(13, bold=True))
        self.plot.addItem(self.ram_line, ignoreBounds=True)
        self._labels: list[pg.TextItem] = []
        self._label_texts: dict[int, tuple[str, str]] = {}  # a label's full and one-line text
        self._y_data: tuple[float, float] | None = None  # log10 of the lowest, highest value
        self.plot.getViewBox().sigResized.connect(self._fit)
        self._redraw()

    # ---- data ----------------------------------------------------------------------------

    def set_planned(self, ratios: Sequence[float]) -> None:
        """The dataset sizes the run will measure (their ticks show before any point)."""
        planned = sorted({float(r) for r in ratios if r > 0})
        if planned != self.planned:
            self.planned = planned
            self._redraw()

    def set_points(self, points: Sequence[DatasetPoint]) -> None:
        new = [p for p in points if p.ratio > 0 and p.ops_s > 0]
        if new != self.points:
            self.points = new
            self._redraw()

    def set_raw(self, iops: float | None) -> None:
        value = iops if iops is not None and iops > 0 else None
        if value != self.raw_iops:
            self.raw_iops = value
            self._redraw()

    def set_live(self, ratio: float | None, ops_s: float | None) -> None:
        """The point running now, as a hollow marker at its latest ops/s (None: none)."""
        live = (ratio, ops_s) if ratio and ops_s and ratio > 0 and ops_s > 0 else None
        if live != self.live:
            self.live = live
            self._redraw()

    def clear(self) -> None:
        self.planned, self.points, self.raw_iops, self.live = [], [], None, None
        self._redraw()

    @property
    def legend_entries(self) -> list[tuple[str, str, str]]:
        entries = [("measured ops/s", OPS_COLOR, "marker")]
        if self.raw_iops is not None:
            entries.append((f"raw device IOPS {format_count(self.raw_iops)}", RAW_COLOR, "dashed"))
        return entries

    # ---- drawing -------------------------------------------------------------------------

    def _redraw(self) -> None:
        ratios = sorted({*self.planned, *(p.ratio for p in self.points)})
        if self.live is not None:
            ratios = sorted({*ratios, self.live[0]})
        xs_all = [math.log2(r) for r in ratios] or [-1.0, 1.0]
        x0, x1 = min([*xs_all, 0.0]) - 0.45, max([*xs_all, 0.0]) + 0.45
        self.plot.getAxis("bottom").setTicks([[(math.log2(r), multiple_text(r)) for r in ratios]])
        self.set_legend(self.legend_entries)
        done = [p for p in self.points if p.complete]
        stopped = [p for p in self.points if not p.complete]
        self.curve.setData(
            np.array([math.log2(p.ratio) for p in done]),
            np.array([math.log10(p.ops_s) for p in done]),
        )
        self.partial.setData(
            [math.log2(p.ratio) for p in stopped], [math.log10(p.ops_s) for p in stopped]
        )
        live = [] if self.live is None else [self.live]
        self.running.setData([math.log2(r) for r, _ in live], [math.log10(v) for _, v in live])
        for item in self._labels:
            self.plot.removeItem(item)
        self._labels = []
        self._label_texts = {}
        short = self._drawn_short = self._short()
        for p in self.points:
            text, one_line = point_label(p, short), point_label(p, True)
            if not p.complete:
                text += " (partial)" if short else "\n(partial)"
                one_line += " (partial)"
            label = pg.TextItem(text, color="#ffffff", anchor=(0.5, ABOVE))
            self._label_texts[id(label)] = (text, one_line)
            label.setFont(_font(VALUE_LABEL_PX - 2, bold=True))
            label.setPos(math.log2(p.ratio), math.log10(p.ops_s))
            self.plot.addItem(label)
            self._labels.append(label)
        values = [p.ops_s for p in self.points] + [v for _, v in live]
        if self.raw_iops is not None:
            values.append(self.raw_iops)
            self.raw_line.setPos(math.log10(self.raw_iops))
            self.raw_line.show()
        else:
            self.raw_line.hide()
        if not values:
            self._y_data = None
            self._show_empty(self.empty_message, (x0, x1))
            self.ram_line.setVisible(bool(self.planned))
            return
        self._show_data()
        self.ram_line.show()
        self._x_range = (x0, x1)
        self._y_data = (math.log10(min(values)), math.log10(max(values)))
        self._fit()

    def _fit(self, *_args: object) -> None:
        """The view: every point, the raw line, and room above the highest point for its
        value label (two lines of text, however tall the chart is)."""
        if self._y_data is None or self.empty:
            return
        low, high = self._y_data
        low = math.floor(low * 2) / 2 - 0.15
        if high - low < 1.0:
            low = high - 1.0
        height = float(self.plot.getViewBox().height())
        if self._short() != self._drawn_short:
            self._redraw()  # the labels lose (or get back) their second line
            return
        lines = 1 if self._drawn_short else 3 if any(not p.complete for p in self.points) else 2
        share = (lines * 1.25 * (VALUE_LABEL_PX - 2) + 10) / height if height > 0 else 0.3
        share = min(0.6, max(0.1, share))
        top = high + (high - low) * share / (1.0 - share)
        x_range = self._label_room()
        self.plot.setRange(xRange=x_range, yRange=(low, top), padding=0)
        self._place_labels()

    def _place_labels(self) -> None:
        """Each value label above its point or, where that would cover the label of a point
        to its right (1.5x and 2x RAM, close in size and ops/s, wrote over each other), under
        it or beside it; then the same in its one-line form; a label with no free place at
        all is hidden (the table under the chart has every figure). Judged as drawn."""
        box = self.plot.getViewBox()
        box.updateMatrix()  # the range just set, not the one of the last paint
        view = box.sceneBoundingRect()
        placed: list[QRectF] = []
        # Right to left: the points furthest past RAM (2x, 4x: the seed's figures) come first.
        for label in sorted(self._labels, key=lambda item: -float(item.pos().x())):
            label.show()
            chosen = False
            for text in dict.fromkeys(self._label_texts.get(id(label), ())):
                label.setText(text)
                width = max(label.boundingRect().width(), 1.0)
                height = max(label.boundingRect().height(), 1.0)
                spots = (  # above, under, to the left of, to the right of the point
                    (0.5, ABOVE),
                    (0.5, -UNDER_PX / height),
                    (1.0 + UNDER_PX / width, 0.5),
                    (-UNDER_PX / width, 0.5),
                )
                if place_label(label, spots, view, placed):
                    chosen = True
                    break
            if not chosen:
                label.hide()

    def _label_room(self) -> tuple[float, float]:
        """The x range widened so that every value label, centred on its point, is drawn
        whole: the first point's label was cut at the chart's left edge on a narrow chart."""
        x0, x1 = self._x_range
        width = float(self.plot.getViewBox().width())
        halves = [
            (float(label.pos().x()), label.boundingRect().width() / 2 + LABEL_MARGIN_PX)
            for label in self._labels
        ]
        if width <= 0 or not halves or 2 * max(h for _, h in halves) >= width:
            return x0, x1
        left, right = x0, x1
        for _ in range(20):  # a contraction: the labels take less than the width
            per_px = (right - left) / width
            new = (
                min(x0, *(x - h * per_px for x, h in halves)),
                max(x1, *(x + h * per_px for x, h in halves)),
            )
            if abs(new[0] - left) < 1e-6 and abs(new[1] - right) < 1e-6:
                break
            left, right = new
        return left, right

    def _short(self) -> bool:
        """A chart too short for two-line labels: each point says only its ops/s."""
        height = float(self.plot.getViewBox().height())
        return 0 < height < SHORT_PLOT_PX

    def marker_values(self) -> list[tuple[float, float]]:
        """(RAM multiple, ops/s) of every complete point's marker as drawn (for tests)."""
        xs, ys = self.curve.getData()
        if xs is None:
            return []
        return [(2.0**x, 10.0**y) for x, y in zip(xs, ys, strict=True)]


__all__ = [
    "DatasetPoint",
    "DatasetSizeChart",
    "LatencyChart",
    "LogAxis",
    "latency_text",
    "log10",
    "multiple_text",
    "point_label",
]
