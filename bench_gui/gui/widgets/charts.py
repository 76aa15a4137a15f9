"""Chart widgets shared by the Live and Sessions pages (pyqtgraph, dark, readable from afar).

Following pyqtgraph's own advice for live plots: every curve, pen and brush is created once
when the chart is built; afterwards only data is passed (``setData``), clipped to the view,
peak-downsampled and without the per-call finite check. The caller decides when to redraw
(the Live page does it from one timer), so a chart never redraws per event.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetrics,
    QPainter,
    QResizeEvent,
    QShowEvent,
)
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

# ---- palette (matches resources/theme/theme.qss) --------------------------------------------

BACKGROUND = "#161a22"
FOREGROUND = "#c9d1e0"
GRID_ALPHA = 0.18
AXIS_COLOR = "#3a4357"
MUTED = "#93a0b8"

NOPM_COLOR = "#33b1ff"
TPM_COLOR = "#f1c21b"
DRIVER_COLOR = "#8a3ffc"
LATENCY_COLORS = {
    "avg": "#42be65",
    "p95": "#f1c21b",
    "p99": "#ff832b",
    "p999": "#fa4d56",
}
POWER_COLOR = "#ff7eb6"
EFFICIENCY_COLOR = "#08bdba"
IDLE_COLOR = "#93a0b8"
CPU_COLORS = {"user": "#33b1ff", "system": "#ff832b", "iowait": "#fa4d56", "idle": "#42be65"}
MEMORY_COLORS = {"used": "#be95ff", "cache": "#33b1ff", "dirty": "#ff832b"}
# One colour per block device / CPU socket, in the order they appear.
DEVICE_COLORS = (
    "#33b1ff",
    "#ff7eb6",
    "#42be65",
    "#f1c21b",
    "#be95ff",
    "#08bdba",
    "#ff832b",
    "#fa4d56",
    "#d4bbff",
    "#6fdc8c",
)

# A time series' curve breaks where consecutive samples are further apart than this.
GAP_S = 5.0

TICK_PX = 15
LABEL_PX = 16
LEGEND_PX = 15
VALUE_LABEL_PX = 16
MARKER_PX = 13
# A chart shorter than this drops its time axis' title ("Run time (m:ss)"): the ticks say it,
# and the plot keeps the room.
COMPACT_HEIGHT = 300
# The measured window of each step is shaded (what counts; the ramp-up before it does not).
WINDOW_COLOR = "#42be65"
WINDOW_ALPHA = 26

pg.setConfigOptions(antialias=False, background=BACKGROUND, foreground=FOREGROUND)


def format_count(value: float) -> str:
    """A rate for an axis or label: ``950``, ``66.0k``, ``150k``, ``1.25M``."""
    if value is None or not math.isfinite(value):
        return ""
    magnitude = abs(value)
    if magnitude >= 1_000_000:
        return f"{value / 1_000_000:.2f}M".replace(".00M", "M")
    if magnitude >= 100_000:
        return f"{value / 1000:.0f}k"
    if magnitude >= 1000:
        return f"{value / 1000:.1f}k".replace(".0k", "k")
    if magnitude >= 10 or magnitude == 0:
        return f"{value:.0f}"
    return f"{value:.1f}"


def format_duration(seconds: float) -> str:
    """Run time for the time axis: ``0:45``, ``12:05``, ``1:02:03``."""
    if not math.isfinite(seconds):
        return ""
    sign = "-" if seconds < 0 else ""
    total = int(round(abs(seconds)))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{sign}{hours}:{minutes:02d}:{secs:02d}"
    return f"{sign}{minutes}:{secs:02d}"


class CountAxis(pg.AxisItem):  # type: ignore[misc]
    """A value axis that prints 150k rather than pyqtgraph's ``x1e+05`` scale."""

    def __init__(self, orientation: str = "left", **kwargs: object) -> None:
        super().__init__(orientation, **kwargs)
        self.enableAutoSIPrefix(False)
        self.px_per_tick = 45.0  # the room a label needs (more with a larger tick font)

    def tickSpacing(  # noqa: N802 (pyqtgraph override)
        self, min_val: float, max_val: float, size: float
    ) -> list[tuple[float, float]]:
        # One level of round steps (1, 2, 2.5, 5 x 10^k), about one label per 45 px: a value
        # axis readable from afar rather than a dense ruler.
        span = max_val - min_val
        if span <= 0 or not math.isfinite(span):
            return list(super().tickSpacing(min_val, max_val, size))
        raw = span / max(2.0, size / self.px_per_tick)
        power = 10.0 ** math.floor(math.log10(raw))
        step = next(m * power for m in (1.0, 2.0, 2.5, 5.0, 10.0) if m * power >= raw)
        return [(step, 0.0)]

    def tickStrings(  # noqa: N802 (pyqtgraph override)
        self, values: list[float], scale: float, spacing: float
    ) -> list[str]:
        return [format_count(v * scale) for v in values]


class ValueAxis(CountAxis):
    """Round steps like :class:`CountAxis`, printed as plain numbers (``0.25``, ``7.5``)."""

    def tickStrings(  # noqa: N802 (pyqtgraph override)
        self, values: list[float], scale: float, spacing: float
    ) -> list[str]:
        return [f"{v * scale:.6g}" for v in values]


class TimeAxis(pg.AxisItem):  # type: ignore[misc]
    """A time axis in m:ss of run time."""

    def __init__(self, orientation: str = "bottom", **kwargs: object) -> None:
        super().__init__(orientation, **kwargs)
        self.enableAutoSIPrefix(False)
        self.px_per_tick = 110.0  # the room a label needs (more with a larger tick font)

    def tickSpacing(  # noqa: N802 (pyqtgraph override)
        self, min_val: float, max_val: float, size: float
    ) -> list[tuple[float, float]]:
        # Whole seconds, minutes and hours rather than decimal steps.
        span = max_val - min_val
        if span <= 0:
            return list(super().tickSpacing(min_val, max_val, size))
        steps = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400)
        target = span / max(2.0, size / self.px_per_tick)
        major = next((s for s in steps if s >= target), steps[-1])
        minor = next((s for s in reversed(steps) if s <= major / 4), major)
        return [(major, 0), (minor, 0)]

    def tickStrings(  # noqa: N802 (pyqtgraph override)
        self, values: list[float], scale: float, spacing: float
    ) -> list[str]:
        return [format_duration(v * scale) for v in values]


@dataclass(frozen=True)
class SeriesSpec:
    """One curve of a chart: its key (for :meth:`TimeSeriesChart.set_data`), legend, look."""

    key: str
    label: str
    color: str
    width: float = 2.0
    dashed: bool = False


def _font(pixels: int, bold: bool = False) -> QFont:
    font = QFont()
    font.setPixelSize(pixels)
    font.setBold(bold)
    return font


def _style_axis(axis: pg.AxisItem, label: str) -> None:
    axis.setPen(pg.mkPen(AXIS_COLOR, width=1))
    axis.setTextPen(pg.mkPen(FOREGROUND))
    axis.setTickFont(_font(TICK_PX))
    axis.setStyle(tickTextOffset=8, tickLength=-6)
    axis.setLabel(label, **{"color": MUTED, "font-size": f"{LABEL_PX}px"})


def _style_plot(plot: pg.PlotItem, x_label: str, y_label: str) -> None:
    plot.showGrid(x=True, y=True, alpha=GRID_ALPHA)
    plot.setClipToView(True)
    plot.setDownsampling(auto=True, mode="peak")
    plot.setMenuEnabled(False)
    plot.hideButtons()
    _style_axis(plot.getAxis("bottom"), x_label)
    _style_axis(plot.getAxis("left"), y_label)
    plot.getAxis("left").setWidth(72)
    plot.layout.setContentsMargins(6, 10, 14, 6)


def legend_html(entries: Sequence[tuple[str, str, str]], px: int = LEGEND_PX) -> str:
    """Rich text for a legend: (label, colour, kind) with kind ``line``, ``dashed``, ``bar``,
    ``marker``; shown in the chart's header so it never hides data. ``px``: the text's size."""
    glyphs = {"line": "━━", "dashed": "╍╍", "bar": "■", "marker": "━●━"}
    parts = []
    for label, color, kind in entries:
        glyph = glyphs.get(kind, "━━")
        text = html.escape(label).replace(" ", "&nbsp;")  # an entry never breaks in two
        parts.append(
            f'<span style="color:{color}; font-size:{px + 4}px;">{glyph}</span>'
            f'<span style="color:{FOREGROUND}; font-size:{px}px;">&nbsp;{text}</span>'
        )
    # Breakable between entries, when the legend wraps under the title.
    return "&nbsp;&nbsp;&nbsp; ".join(parts)


class ChartCard(QFrame):
    """A titled card holding one pyqtgraph plot, its legend in the header.

    While the chart has no data it shows a short message instead of empty axes.
    """

    def __init__(
        self,
        title: str,
        x_label: str,
        y_label: str,
        bottom_axis: pg.AxisItem,
        left_axis: pg.AxisItem,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("chartCard")
        # The labels sit on the card's colour, not the window's.
        self.setStyleSheet("QLabel { background-color: transparent; }")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 10, 8)
        layout.setSpacing(4)
        header = QHBoxLayout()
        header.setSpacing(12)
        self.title_label = QLabel(title)
        self.title_label.setObjectName("sectionTitle")
        # A long title is clipped on a narrow chart rather than widening the page.
        self.title_label.setMinimumWidth(60)
        header.addWidget(self.title_label)
        self.legend_label = QLabel("")
        self.legend_label.setObjectName("chartLegend")
        self.legend_label.setTextFormat(Qt.TextFormat.RichText)
        self.legend_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        # The legend takes the room the title leaves; when it does not fit there it moves to
        # a line of its own under the title (never widening the page, never clipped).
        self.legend_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        header.addWidget(self.legend_label, 1)
        layout.addLayout(header)
        self.legend_below = QLabel("")
        self.legend_below.setObjectName("chartLegend")
        self.legend_below.setTextFormat(Qt.TextFormat.RichText)
        self.legend_below.setWordWrap(True)
        self.legend_below.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.legend_below.hide()
        layout.addWidget(self.legend_below)
        self.plot_widget = pg.PlotWidget(
            background=BACKGROUND, axisItems={"bottom": bottom_axis, "left": left_axis}
        )
        self.plot_widget.setFrameShape(QFrame.Shape.NoFrame)
        self.plot_widget.setMinimumHeight(150)
        self.plot_widget.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # not an empty tab stop
        layout.addWidget(self.plot_widget, 1)
        self.plot: pg.PlotItem = self.plot_widget.getPlotItem()
        _style_plot(self.plot, x_label, y_label)
        # On the background colour: a grid line through the middle never strikes the message out.
        self._placeholder = pg.TextItem("", color=MUTED, anchor=(0.5, 0.5), fill=BACKGROUND)
        self._placeholder.setFont(_font(17))
        # A long message wraps, centred, within the plot instead of running off its edges.
        option = self._placeholder.textItem.document().defaultTextOption()
        option.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._placeholder.textItem.document().setDefaultTextOption(option)
        self.plot.addItem(self._placeholder, ignoreBounds=True)
        self.plot.getViewBox().sigResized.connect(self._fit_left_label)
        # An empty chart's message stays in the middle whatever ranges the plot later (an
        # autoRange over a session's step markers put it on the top edge, half cut).
        self.plot.getViewBox().sigRangeChanged.connect(self._centre_placeholder)
        self.empty = False
        self.legend_px = LEGEND_PX

    def set_title(self, title: str) -> None:
        self.title_label.setText(title)

    def clear(self) -> None:
        """Forget the data (the subclasses know what they hold)."""

    def set_legend(self, entries: Sequence[tuple[str, str, str]]) -> None:
        html = legend_html(entries, self.legend_px)
        if html == self.legend_label.text():
            return  # laying out rich text is not free: skip when nothing changed
        self.legend_label.setText(html)
        self.legend_below.setText(html)
        self._place_legend()

    def _place_legend(self) -> None:
        """Inline next to the title when it fits, else on its own line below it."""
        room = self.width() - 48 - self.title_label.sizeHint().width()
        # Rich text's size hint runs a few pixels short of what it paints: keep a margin.
        fits = self.legend_label.sizeHint().width() + 12 <= room or not self.isVisible()
        self.legend_label.setVisible(fits)
        self.legend_below.setVisible(not fits and bool(self.legend_below.text()))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self._place_legend()
        self._wrap_placeholder()
        bottom = self.plot.getAxis("bottom")
        if bottom.labelText:
            compact = event.size().height() < COMPACT_HEIGHT
            if bottom.label.isVisible() == compact:
                bottom.showLabel(not compact)

    def _fit_left_label(self, *_args: object) -> None:
        """The y axis's title only when the plot is tall enough for it whole (the card's
        title says what the values are): never "Per minut" or "Latency (m"."""
        left = self.plot.getAxis("left")
        if not left.labelText:
            return
        text = f"{left.labelText} ({left.labelUnits})" if left.labelUnits else left.labelText
        wide = QFontMetrics(_font(LABEL_PX)).horizontalAdvance(text)
        fits = wide + 8 <= left.geometry().height()
        if left.label.isVisible() != fits:
            left.showLabel(fits)

    def _wrap_placeholder(self) -> None:
        width = max(120.0, 0.8 * (self.plot_widget.width() - 70))
        if self._placeholder.textItem.textWidth() != width:
            self._placeholder.setTextWidth(width)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        # Sized while hidden, the legend was placed inline unchecked: place it for real now.
        super().showEvent(event)
        self._place_legend()

    @property
    def legend_text(self) -> str:
        return self.legend_label.text()

    def _show_empty(self, message: str, x_range: tuple[float, float]) -> None:
        """No data: fixed ranges, no y values, a message in the middle."""
        self.empty = True
        self.plot.getAxis("left").setStyle(showValues=False)
        self.plot.setXRange(*x_range, padding=0)
        self.plot.setYRange(0, 1, padding=0)
        self._placeholder.setText(message)
        self._wrap_placeholder()
        self._placeholder.setPos((x_range[0] + x_range[1]) / 2, 0.5)
        self._placeholder.show()

    def _centre_placeholder(self, *_args: object) -> None:
        if not self.empty:
            return
        (x0, x1), (y0, y1) = self.plot.getViewBox().viewRange()
        centre = ((x0 + x1) / 2, (y0 + y1) / 2)
        if (self._placeholder.pos().x(), self._placeholder.pos().y()) != centre:
            self._placeholder.setPos(*centre)

    def note_empty(self, message: str) -> None:
        """Replace the message of an empty chart until it is cleared (e.g. why a finished run
        left it empty); a chart with data is left alone."""
        if self.empty:
            self._placeholder.setText(message)

    def _show_data(self) -> None:
        if self.empty:
            self.empty = False
            self.plot.getAxis("left").setStyle(showValues=True)
            self._placeholder.hide()


def break_gaps(x: np.ndarray, y: np.ndarray, gap_s: float) -> tuple[np.ndarray, np.ndarray]:
    """``x``, ``y`` with a NaN point in every gap wider than ``gap_s`` (x in time order): a
    curve drawn with ``connect="finite"`` then breaks where there was no sample (between
    steps, a reconnect) instead of a straight line across seconds nobody measured."""
    if len(x) < 2 or not math.isfinite(gap_s):
        return x, y
    wide = np.flatnonzero(np.diff(x) > gap_s) + 1
    if not len(wide):
        return x, y
    at = (x[wide - 1] + x[wide]) / 2.0
    return np.insert(x, wide, at), np.insert(np.asarray(y, dtype=float), wide, np.nan)


class WindowShade(pg.GraphicsObject):  # type: ignore[misc]
    """Bands over the plot's whole height, one per (start, end) span in data x: the steps'
    measured windows. One item for all of them, drawn behind the curves."""

    def __init__(self, brush: QBrush) -> None:
        super().__init__()
        self.spans: list[tuple[float, float]] = []
        self.brush = brush
        self.y_range = (0.0, 1.0)
        self.setZValue(-20)

    def set_spans(self, spans: Sequence[tuple[float, float]]) -> None:
        self.prepareGeometryChange()
        self.spans = list(spans)
        self.update()

    def follow_y(self, _view: object, y_range: Sequence[float]) -> None:
        """The view's y range changed: the bands span it."""
        low, high = float(y_range[0]), float(y_range[1])
        if (low, high) != self.y_range:
            self.prepareGeometryChange()
            self.y_range = (low, high)

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt override)
        if not self.spans:
            return QRectF()
        x0 = min(a for a, _b in self.spans)
        x1 = max(b for _a, b in self.spans)
        low, high = self.y_range
        return QRectF(x0, low, x1 - x0, high - low)

    def paint(self, painter: QPainter, *_args: object) -> None:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self.brush)
        low, high = self.y_range
        for start, end in self.spans:
            painter.drawRect(QRectF(start, low, end - start, high - low))


class TimeSeriesChart(ChartCard):
    """Values over run time: one curve per :class:`SeriesSpec`, step markers, y from zero."""

    def __init__(
        self,
        title: str,
        y_label: str,
        series: Sequence[SeriesSpec],
        count_axis: bool = True,
        empty_message: str = "Waiting for the first samples…",
        parent: QWidget | None = None,
        y_max: float | None = None,
        manual_range: bool = False,
    ) -> None:
        left = CountAxis("left") if count_axis else ValueAxis("left")
        super().__init__(title, "Run time (m:ss)", y_label, TimeAxis("bottom"), left, parent)
        self.specs: list[SeriesSpec] = list(series)
        self._legend_extra: list[tuple[str, str, str]] = []
        # The shaded measured windows (one region per step) and whether the legend says so.
        self._window_spans: list[tuple[float, float]] = []
        self.window_legend = False
        self.legend_override: list[tuple[str, str, str]] | None = None
        self._update_legend()
        self.empty_message = empty_message
        # A fixed top (percentages): the y axis then never rescales.
        self.y_max = y_max
        # A curve breaks where no sample came for this long (samples come every second).
        self.gap_s = GAP_S
        # Manual range: the caller calls fit() after its set_data calls and the view is set
        # once, from the data's extent; pyqtgraph's auto-range settles over two or three extra
        # repaints per update, which a page of live charts cannot afford.
        self.manual_range = manual_range
        self._extent: dict[str, tuple[float, float, float, float]] = {}
        # A horizontal base line at zero: it keeps y = 0 inside the automatic range.
        self._baseline = pg.InfiniteLine(pos=0, angle=0, pen=pg.mkPen(AXIS_COLOR, width=1))
        self.plot.addItem(self._baseline)
        self.curves: dict[str, pg.PlotDataItem] = {}
        for spec in series:
            self._add_curve(spec)
        self._markers: list[pg.InfiniteLine] = []
        self.marker_px = MARKER_PX
        self._marker_pen = pg.mkPen("#56607a", width=1, style=Qt.PenStyle.DotLine)
        self._reference: pg.InfiniteLine | None = None
        color = QColor(WINDOW_COLOR)
        color.setAlpha(WINDOW_ALPHA)
        self._shade = WindowShade(pg.mkBrush(color))
        self.plot.addItem(self._shade, ignoreBounds=True)
        view = self.plot.getViewBox()
        view.sigXRangeChanged.connect(self._place_marker_labels)
        view.sigResized.connect(self._place_marker_labels)
        view.sigYRangeChanged.connect(self._shade.follow_y)
        self.clear()

    def _add_curve(self, spec: SeriesSpec) -> None:
        pen = pg.mkPen(
            spec.color,
            width=spec.width,
            style=Qt.PenStyle.DashLine if spec.dashed else Qt.PenStyle.SolidLine,
        )
        pen.setCosmetic(True)
        curve = self.plot.plot(name=spec.label, pen=pen, connect="finite", skipFiniteCheck=True)
        # About one sample per pixel column (peak mode keeps each column's min and max, so
        # nothing visible is lost); pyqtgraph's default keeps five, five times the drawing.
        curve.opts["autoDownsampleFactor"] = 1.0
        self.curves[spec.key] = curve

    def _update_legend(self) -> None:
        if self.legend_override is not None:
            entries = list(self.legend_override)
        else:
            entries = [(s.label, s.color, "dashed" if s.dashed else "line") for s in self.specs]
        if self.window_legend and self._window_spans:
            entries.append(("measured", WINDOW_COLOR, "bar"))
        self.set_legend(entries + self._legend_extra)

    def set_legend_entries(self, entries: Sequence[tuple[str, str, str]] | None) -> None:
        """A legend of its own (None: one entry per curve), e.g. one per device."""
        self.legend_override = None if entries is None else list(entries)
        self._update_legend()

    def add_series(self, spec: SeriesSpec) -> None:
        """A curve that was not known when the chart was built (a device that appeared)."""
        if spec.key in self.curves:
            return
        self.specs.append(spec)
        self._add_curve(spec)
        self._update_legend()

    def set_reference(self, value: float | None, label: str = "", color: str = MUTED) -> None:
        """A dashed horizontal line (e.g. the idle power baseline); None removes it."""
        if value is None or not math.isfinite(value):
            if self._reference is not None:
                self.plot.removeItem(self._reference)
                self._reference = None
                self._legend_extra = []
                self._update_legend()
            return
        if self._reference is None:
            pen = pg.mkPen(color, width=1.5, style=Qt.PenStyle.DashLine)
            pen.setCosmetic(True)
            self._reference = pg.InfiniteLine(pos=value, angle=0, movable=False, pen=pen)
            self.plot.addItem(self._reference)
        self._reference.setPos(value)
        self._legend_extra = [(label, color, "dashed")] if label else []
        self._update_legend()

    def set_data(self, key: str, x: np.ndarray, y: np.ndarray) -> None:
        # Columns of NaN (a series the run does not have, e.g. no power meter) keep the
        # chart's message up instead of showing empty axes.
        if self.empty and len(x) and bool(np.isfinite(y).any()):
            self._show_data()
            if self.manual_range:
                self.plot.disableAutoRange()
            else:
                self.plot.enableAutoRange()
                if self.y_max is not None:
                    self.plot.setYRange(0, self.y_max, padding=0.05)
                    self.plot.enableAutoRange(y=False)
        gx, gy = break_gaps(x, y, self.gap_s)
        self.curves[key].setData(gx, gy, connect="finite", skipFiniteCheck=True)
        if self.manual_range and len(x):
            # x is in time order; fmin/fmax skip NaN (gaps) without a warning.
            self._extent[key] = (
                float(x[0]),
                float(x[-1]),
                float(np.fmin.reduce(y)),
                float(np.fmax.reduce(y)),
            )

    def fit(self) -> None:
        """Show all the data (manual range): x from the first to the last sample, y from zero
        (or below, for negative values) to a little above the highest value. With step
        markers, the top keeps a band free for their labels, so no curve runs under them."""
        if not self._extent or self.empty:
            return
        x0 = min(e[0] for e in self._extent.values())
        x1 = max(e[1] for e in self._extent.values())
        lows = [e[2] for e in self._extent.values() if math.isfinite(e[2])]
        highs = [e[3] for e in self._extent.values() if math.isfinite(e[3])]
        low = min([0.0, *lows])
        high = self.y_max if self.y_max is not None else max([*highs, 0.0])
        if high <= low:
            high = low + 1.0
        span = max(x1 - x0, 1.0)
        margin = 0.02 * span
        bottom = low - 0.04 * (high - low)
        head = self._label_band()
        self.plot.setRange(
            xRange=(x0 - margin, x0 + span + margin),
            yRange=(bottom, bottom + (high - bottom) / (1.0 - head)),
            padding=0,
        )

    def _label_band(self) -> float:
        """The share of the plot's height kept free above the data: room for the markers'
        labels (a line of text and a gap), else a small margin."""
        height = float(self.plot.getViewBox().height())
        if not self._markers or height <= 0:
            return 0.06
        return min(0.4, max(0.06, (1.8 * self.marker_px + 6) / height))

    def add_marker(self, x: float, text: str) -> None:
        """A vertical line where a sweep step begins, labelled (e.g. ``16 VU``)."""
        line = pg.InfiniteLine(
            pos=x,
            angle=90,
            movable=False,
            pen=self._marker_pen,
            label=text,
            labelOpts={"position": 0.95, "color": MUTED, "anchors": [(0, 0.5), (0, 0.5)]},
        )
        line.label.setFont(_font(self.marker_px, bold=True))
        self.plot.addItem(line)
        self._markers.append(line)
        self._place_marker_labels()

    def _place_marker_labels(self, *_args: object) -> None:
        """Place the step markers' labels in the band at the top (see :meth:`fit`), newest
        first: right of its line, or left of it at the right edge; a label that would run into
        one already placed, or whose line is out of view, is hidden (no stray letters at the
        edges, no label over another)."""
        view = self.plot.getViewBox()
        x0, x1 = view.viewRange()[0]
        width, height = view.width(), view.height()
        if not self._markers or x1 <= x0 or width <= 0 or height <= 0:
            return
        px_per_unit = width / (x1 - x0)
        position = 1.0 - (0.9 * self.marker_px + 4) / height
        taken: list[tuple[float, float]] = []  # pixel spans of the labels placed so far
        for marker in reversed(self._markers):
            label = marker.label
            at = (float(marker.value()) - x0) * px_per_unit  # the line's column in the view
            text_px = label.boundingRect().width()
            anchor = (0.0, 0.5)
            span = (at, at + text_px + 4)
            if span[1] > width:
                anchor, span = (1.0, 0.5), (at - text_px - 4, at)
            shown = 0 <= at <= width and span[0] >= 0 and span[1] <= width
            shown = shown and all(span[1] + 8 <= a or span[0] >= b + 8 for a, b in taken)
            if shown:
                taken.append(span)
            if label.anchors[0] != anchor:
                label.anchors = [anchor, anchor]
                label.setAnchor(anchor)
            if label.orthoPos != position:
                label.setPosition(position)
            if label.isVisible() != shown:
                label.setVisible(shown)

    @property
    def marker_count(self) -> int:
        return len(self._markers)

    def marker_labels(self) -> list[tuple[float, str, bool]]:
        """Each marker's place, label and whether the label shows (for tests)."""
        return [
            (float(m.value()), m.label.toPlainText(), m.label.isVisible()) for m in self._markers
        ]

    def clear_markers(self) -> None:
        for line in self._markers:
            self.plot.removeItem(line)
        self._markers.clear()

    def set_windows(self, spans: Sequence[tuple[float, float]]) -> None:
        """Shade the steps' measured windows, (start, end) in run time; the last one may still
        grow. One item draws them all (a region item per window costs every redraw)."""
        new = [(float(a), float(b)) for a, b in spans]
        if new == self._window_spans:
            return
        had = bool(self._window_spans)
        self._window_spans = new
        self._shade.set_spans(new)
        if self.window_legend and had != bool(new):
            self._update_legend()

    @property
    def windows(self) -> list[tuple[float, float]]:
        """The measured windows shaded now."""
        return list(self._window_spans)

    def set_text_sizes(self, tick_px: int, label_px: int, legend_px: int, marker_px: int) -> None:
        """Larger (or smaller) text: the axes' ticks and titles, the legend, the step labels
        (the Present view's chart is read from 3 m)."""
        for name in ("bottom", "left"):
            axis = self.plot.getAxis(name)
            axis.setTickFont(_font(tick_px))
            axis.setLabel(axis.labelText, **{"color": MUTED, "font-size": f"{label_px}px"})
            if isinstance(axis, TimeAxis | CountAxis):
                axis.px_per_tick = (7.5 if name == "bottom" else 3.0) * tick_px
        self.plot.getAxis("left").setWidth(int(tick_px * 3.6 + label_px + 16))
        self.legend_px = legend_px
        self.legend_label.setText("")  # the legend's HTML has its size: make it again
        self._update_legend()
        self.marker_px = marker_px
        for line in self._markers:
            line.label.setFont(_font(marker_px, bold=True))
        self._place_marker_labels()

    def clear(self) -> None:
        empty = np.empty(0)
        for curve in self.curves.values():
            curve.setData(empty, empty)
        self._extent = {}
        self.clear_markers()
        self.set_windows([])
        self._show_empty(self.empty_message, (0.0, 60.0))


class ScalingChart(ChartCard):
    """Throughput by virtual users: bars for one series, optionally a line for a second.

    User counts are categories (evenly spaced, labelled with the count), so a sweep of
    8, 16, 32, 64 users reads as four bars side by side. Categories can be set before any
    value exists (the planned sweep), and bars fill in as steps end.
    """

    def __init__(
        self,
        title: str,
        y_label: str,
        bar: SeriesSpec,
        line: SeriesSpec | None = None,
        empty_message: str = "A bar appears as each step ends",
        parent: QWidget | None = None,
        value_format: Callable[[float], str] = format_count,
    ) -> None:
        bottom = pg.AxisItem("bottom")
        bottom.enableAutoSIPrefix(False)  # user counts, never "(x0.001)" on an empty axis
        super().__init__(title, "Virtual users", y_label, bottom, CountAxis("left"), parent)
        self.value_format = value_format
        self.plot.showGrid(x=False, y=True, alpha=GRID_ALPHA)
        self.plot.setMouseEnabled(x=False, y=False)
        legend = [(bar.label, bar.color, "bar")]
        if line is not None:
            legend.append((line.label, line.color, "marker"))
        self.set_legend(legend)
        self.empty_message = empty_message
        color = QColor(bar.color)
        self.bars = pg.BarGraphItem(
            x=np.empty(0),
            height=np.empty(0),
            width=0.62,
            brush=pg.mkBrush(color),
            pen=pg.mkPen(color.lighter(130), width=1),
            name=bar.label,
        )
        self.plot.addItem(self.bars)
        self.line: pg.PlotDataItem | None = None
        if line is not None:
            self.line = self.plot.plot(
                name=line.label,
                pen=pg.mkPen(line.color, width=line.width),
                symbol="o",
                symbolSize=11,
                symbolBrush=pg.mkBrush(line.color),
                symbolPen=pg.mkPen(BACKGROUND, width=1.5),
            )
        self._labels: list[pg.TextItem] = []
        self._top = 0.0  # the tallest bar or line point
        self._categories: list[int] = []
        self.values: dict[int, tuple[float | None, float | None]] = {}
        self.partial: set[int] = set()
        self._brush = pg.mkBrush(color)
        self._partial_brush = pg.mkBrush(color.darker(190))
        self.plot.getViewBox().sigResized.connect(self._fit_value_labels)
        self._redraw()

    def set_categories(self, users: Sequence[int]) -> None:
        """The user counts on the x axis (in sweep order); values are kept by user count."""
        self._categories = list(dict.fromkeys(int(u) for u in users if u))
        self._redraw()

    def set_points(
        self,
        users: Sequence[int],
        bar_values: Sequence[float | None],
        line_values: Sequence[float | None] | None = None,
        partial: Sequence[bool] | None = None,
    ) -> None:
        """Replace the values: one bar (and line point) per user count. A ``partial`` bar (a
        step stopped before its window ended) is drawn dimmer and labelled as such."""
        lines = list(line_values) if line_values is not None else [None] * len(users)
        self.values = {int(u): (b, t) for u, b, t in zip(users, bar_values, lines, strict=False)}
        flags = list(partial) if partial is not None else [False] * len(users)
        self.partial = {int(u) for u, p in zip(users, flags, strict=False) if p}
        for u in self.values:
            if u not in self._categories:
                self._categories.append(u)
        self._redraw()

    def clear(self) -> None:
        self._categories = []
        self.values = {}
        self.partial = set()
        self._redraw()

    def _redraw(self) -> None:
        cats = self._categories
        axis = self.plot.getAxis("bottom")
        axis.setTicks([[(i, str(u)) for i, u in enumerate(cats)], []])
        xs, heights, line_x, line_y = [], [], [], []
        brushes, notes = [], []
        for i, users in enumerate(cats):
            bar_value, line_value = self.values.get(users, (None, None))
            if bar_value is not None:
                xs.append(i)
                heights.append(bar_value)
                brushes.append(self._partial_brush if users in self.partial else self._brush)
                notes.append(" (partial)" if users in self.partial else "")
            if line_value is not None:
                line_x.append(i)
                line_y.append(line_value)
        self.bars.setOpts(
            x=np.array(xs, dtype=float), height=np.array(heights, dtype=float), brushes=brushes
        )
        if self.line is not None:
            self.line.setData(np.array(line_x, dtype=float), np.array(line_y, dtype=float))
        for item in self._labels:
            self.plot.removeItem(item)
        self._labels = []
        for x, h, note in zip(xs, heights, notes, strict=True):
            label = pg.TextItem(self.value_format(h) + note, color="#ffffff", anchor=(0.5, 1.15))
            label.setPos(x, h)
            self.plot.addItem(label)
            self._labels.append(label)
        self._fit_value_labels()
        top = max([*heights, *line_y, 0.0])
        self._top = top
        n = max(len(cats), 1)
        if top <= 0:
            self._show_empty(self.empty_message, (-0.6, n - 0.4))
            return
        self._show_data()
        self.plot.setXRange(-0.6, n - 0.4, padding=0)
        self._fit_height()

    def _fit_height(self) -> None:
        """The y range: room above the tallest bar for its value label, however short the
        chart (a label is a fixed number of pixels: on a short chart that is more of the
        range than on a tall one)."""
        top = self._top
        if top <= 0:
            return
        height = self.plot.getViewBox().height()
        # The pixels a label takes above its bar's top (its text, and the anchor's gap).
        above = max((-label.boundingRect().top() for label in self._labels), default=0.0)
        share = 0.22 if height <= 0 else min(0.6, max(0.22, (above + 4.0) / height))
        self.plot.setYRange(0, top / (1.0 - share), padding=0)

    def _fit_value_labels(self, *_args: object) -> None:
        """The bars' value labels as large as the bars are apart (up to VALUE_LABEL_PX): on a
        narrow chart they shrink rather than run into each other."""
        n = max(len(self._categories), 1)
        per_bar = self.plot.getViewBox().width() / n if self.plot.getViewBox().width() > 0 else 0
        px = VALUE_LABEL_PX if per_bar <= 0 else int(min(VALUE_LABEL_PX, max(9, per_bar / 3.4)))
        font = _font(px, bold=True)
        for label in self._labels:
            if label.textItem.font().pixelSize() != px:
                label.setFont(font)
        self._fit_height()

    @property
    def categories(self) -> list[int]:
        return list(self._categories)
