"""Report charts drawn with QPainter: one drawing routine for PNG, SVG and the PDF.

Print style, as in the seed briefs: white background, thin grey grid, one colour per session
(the baseline blue, the first compared session green), user counts as categories on the x axis,
throughput as grouped bars and response times as lines. Every chart marks each session's
saturation point (a diamond, and a ring on lines) and says so in its legend; a sweep that
ended before saturating has its heaviest load marked apart (an open triangle, "not saturated"),
never as a saturation point.

Works without a display: :func:`ensure_app` starts an offscreen QGuiApplication when none runs
(the command line), and reuses the running one inside the desktop app.
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QGuiApplication,
    QImage,
    QPainter,
    QPainterPath,
    QPen,
    QPolygonF,
)
from PySide6.QtSvg import QSvgGenerator

from bench_gui.report.model import ChartSpec

FONT_FAMILY = "DejaVu Sans"
TEXT = QColor("#1d2330")
MUTED = QColor("#5d6779")
GRID = QColor("#e3e7ee")
AXIS = QColor("#8a94a6")
CHART_W, CHART_H = 900, 430  # logical pixels; PNGs are rendered at 2x

_app: QGuiApplication | None = None


def ensure_app() -> QGuiApplication:
    """The running Qt application, or an offscreen one for headless rendering."""
    global _app
    app = QGuiApplication.instance()
    if app is not None:
        return app  # type: ignore[return-value]
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    _app = QGuiApplication([sys.argv[0] if sys.argv else "bench-gui"])
    return _app


def font(pixels: float, bold: bool = False) -> QFont:
    f = QFont(FONT_FAMILY)
    f.setPixelSize(max(1, round(pixels)))
    f.setBold(bold)
    return f


def nice_step(span: float, target_ticks: int = 5) -> float:
    """A round tick step (1, 2, 2.5, 5 x 10^k) giving about ``target_ticks`` ticks."""
    if span <= 0 or not math.isfinite(span):
        return 1.0
    raw = span / target_ticks
    power = 10.0 ** math.floor(math.log10(raw))
    return next(m * power for m in (1.0, 2.0, 2.5, 5.0, 10.0) if m * power >= raw * 0.999)


def tick_text(value: float, unit: str) -> str:
    if unit == "":
        magnitude = abs(value)
        if magnitude >= 1_000_000:
            return f"{value / 1_000_000:g}M"
        if magnitude >= 1000:
            return f"{value / 1000:g}k"
    return f"{value:g}"


def _diamond(center: QPointF, radius: float) -> QPolygonF:
    x, y = center.x(), center.y()
    return QPolygonF(
        [
            QPointF(x, y - radius),
            QPointF(x + radius, y),
            QPointF(x, y + radius),
            QPointF(x - radius, y),
        ]
    )


def _triangle(center: QPointF, radius: float) -> QPolygonF:
    x, y = center.x(), center.y()
    return QPolygonF(
        [
            QPointF(x, y - radius),
            QPointF(x + radius, y + radius * 0.8),
            QPointF(x - radius, y + radius * 0.8),
        ]
    )


def log_ticks(values: list[float]) -> tuple[list[float], float, float]:
    """Decade ticks of a logarithmic axis holding ``values`` (all positive): (ticks, low,
    high)."""
    low = 10.0 ** math.floor(math.log10(min(values)))
    high = 10.0 ** math.ceil(math.log10(max(values)))
    if high <= low:
        high = low * 10
    ticks = []
    tick = low
    while tick <= high * 1.0001:
        ticks.append(tick)
        tick *= 10
    return ticks, low, high


REFERENCE = QColor("#b3261e")


def reference_pen() -> QPen:
    pen = QPen(REFERENCE, 1.4)
    pen.setStyle(Qt.PenStyle.DashLine)
    return pen


def paint_reference(painter: QPainter, plot: QRectF, y: float) -> None:
    """A dashed horizontal line across the plot at ``y`` (named in the legend)."""
    painter.save()
    painter.setPen(reference_pen())
    painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
    painter.restore()


def paint_chart(painter: QPainter, rect: QRectF, spec: ChartSpec, caption: bool = False) -> None:
    """Draw ``spec`` into ``rect`` (logical pixels) with ``painter``; ``caption`` draws the
    figure's caption under it (the PDF, where a caption must never leave its figure)."""
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
    painter.fillRect(rect, QColor("#ffffff"))
    left, top, width, height = rect.left(), rect.top(), rect.width(), rect.height()
    if caption:
        cap_font = font(15, bold=True)
        cap_h = QFontMetricsF(cap_font).height() + 10
        painter.setFont(cap_font)
        painter.setPen(QColor("#1f5fa8"))
        painter.drawText(
            QRectF(left, top + height - cap_h, width, cap_h),
            int(Qt.AlignmentFlag.AlignCenter),
            spec.caption,
        )
        height -= cap_h
    pad = 14.0

    # Legend: one entry per session, then the saturation marker.
    legend_font = font(14)
    fm = QFontMetricsF(legend_font)
    painter.setFont(legend_font)
    x = left + pad
    y = top + pad
    row_h = fm.height() + 6
    entries = [(s.label + (" (baseline)" if s.baseline else ""), s.color) for s in spec.series]
    for label, swatch_color in entries:
        w = 22 + 8 + fm.horizontalAdvance(label) + 22
        if x + w > left + width - pad and x > left + pad:
            x = left + pad
            y += row_h
        swatch = QRectF(x, y + row_h / 2 - 6, 22, 12)
        if spec.kind == "bars":
            painter.fillRect(swatch, QColor(swatch_color))
        else:
            painter.setPen(QPen(QColor(swatch_color), 3))
            painter.drawLine(
                QPointF(swatch.left(), swatch.center().y()),
                QPointF(swatch.right(), swatch.center().y()),
            )
            painter.setBrush(QColor(swatch_color))
            painter.drawEllipse(swatch.center(), 4, 4)
        painter.setPen(TEXT)
        painter.drawText(QPointF(x + 30, y + row_h / 2 + fm.ascent() / 2 - 2), label)
        x += w
    if spec.reference is not None and spec.reference_label:
        w = 22 + 8 + fm.horizontalAdvance(spec.reference_label) + 22
        if x + w > left + width - pad and x > left + pad:
            x = left + pad
            y += row_h
        painter.setPen(reference_pen())
        painter.drawLine(QPointF(x, y + row_h / 2), QPointF(x + 22, y + row_h / 2))
        painter.setPen(TEXT)
        painter.drawText(QPointF(x + 30, y + row_h / 2 + fm.ascent() / 2 - 2), spec.reference_label)
        x += w
    marks = []
    if any(s.saturation is not None for s in spec.series):
        marks.append(("saturation point", _diamond))
    if any(s.unsaturated is not None for s in spec.series):
        marks.append(("not saturated (heaviest load tested)", _triangle))
    for mark_label, shape in marks:
        w = 16 + 8 + fm.horizontalAdvance(mark_label) + 22
        if x + w > left + width - pad:
            x = left + pad
            y += row_h
        painter.setPen(QPen(TEXT, 1.2))
        painter.setBrush(QColor("#ffffff"))
        painter.drawPolygon(shape(QPointF(x + 8, y + row_h / 2), 6))
        painter.setPen(MUTED)
        painter.drawText(QPointF(x + 22, y + row_h / 2 + fm.ascent() / 2 - 2), mark_label)
        x += w
    legend_bottom = y + row_h + 8

    # Value range.
    values = [v for s in spec.series for v in s.values if v is not None and math.isfinite(v)]
    if spec.reference is not None:
        values.append(spec.reference)
    log_y = spec.log_y and any(v > 0 for v in values)
    if log_y:
        ticks, y_min, y_max = log_ticks([v for v in values if v > 0])
    else:
        top_value = max(values) if values else 1.0
        step = nice_step(top_value * 1.08 if top_value > 0 else 1.0)
        y_max = step * math.ceil(top_value * 1.08 / step) if top_value > 0 else step * 5
        ticks = [step * i for i in range(int(round(y_max / step)) + 1)]
        y_min = 0.0

    tick_font = font(13)
    tfm = QFontMetricsF(tick_font)
    label_w = max(tfm.horizontalAdvance(tick_text(t, spec.unit)) for t in ticks)
    axis_title_font = font(13)
    plot = QRectF(
        left + pad + 22 + label_w + 8,
        legend_bottom + 6,
        0,
        0,
    )
    plot.setRight(left + width - pad - 6)
    plot.setBottom(top + height - pad - 2 * tfm.height() - 10)

    def y_of(value: float) -> float:
        if log_y:
            low, high = math.log10(y_min), math.log10(y_max)
            share = (math.log10(max(value, y_min)) - low) / (high - low)
            return plot.bottom() - share * plot.height()
        return plot.bottom() - (value / y_max) * plot.height()

    # Grid and y ticks.
    painter.setFont(tick_font)
    for t in ticks:
        yy = y_of(t)
        painter.setPen(QPen(GRID, 1))
        painter.drawLine(QPointF(plot.left(), yy), QPointF(plot.right(), yy))
        painter.setPen(MUTED)
        text = tick_text(t, spec.unit)
        painter.drawText(
            QRectF(plot.left() - 8 - label_w, yy - tfm.height() / 2, label_w, tfm.height()),
            int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
            text,
        )
    painter.setPen(QPen(AXIS, 1.2))
    painter.drawLine(plot.bottomLeft(), plot.bottomRight())

    # Y axis title, rotated.
    painter.save()
    painter.setFont(axis_title_font)
    painter.setPen(MUTED)
    painter.translate(left + pad + tfm.height() / 2 + 2, plot.center().y())
    painter.rotate(-90)
    painter.drawText(
        QRectF(-plot.height() / 2, -tfm.height() / 2 - 4, plot.height(), tfm.height() + 8),
        int(Qt.AlignmentFlag.AlignCenter),
        spec.y_label,
    )
    painter.restore()

    # X categories.
    n = max(len(spec.categories), 1)
    band = plot.width() / n
    painter.setFont(tick_font)
    for i in range(len(spec.categories)):
        cx = plot.left() + band * (i + 0.5)
        painter.setPen(QPen(AXIS, 1))
        painter.drawLine(QPointF(cx, plot.bottom()), QPointF(cx, plot.bottom() + 5))
        painter.setPen(MUTED)
        painter.drawText(
            QRectF(cx - band / 2, plot.bottom() + 6, band, tfm.height()),
            int(Qt.AlignmentFlag.AlignCenter),
            spec.category_text(i),
        )
    painter.setFont(axis_title_font)
    painter.drawText(
        QRectF(plot.left(), plot.bottom() + 8 + tfm.height(), plot.width(), tfm.height() + 4),
        int(Qt.AlignmentFlag.AlignCenter),
        spec.x_label,
    )

    markers: list[tuple[QPointF, QColor]] = []
    open_marks: list[tuple[QPointF, QColor]] = []  # heaviest load of an unsaturated sweep
    series_n = max(len(spec.series), 1)
    if spec.kind == "bars":
        group = band * 0.74
        bar_w = group / series_n
        for k, s in enumerate(spec.series):
            color = QColor(s.color)
            for i, value in enumerate(s.values):
                if value is None or not math.isfinite(value):
                    continue
                bx = plot.left() + band * i + (band - group) / 2 + bar_w * k
                bar = QRectF(bx + 1, y_of(value), bar_w - 2, plot.bottom() - y_of(value))
                painter.fillRect(bar, color)
                if s.saturation == spec.categories[i]:
                    painter.setPen(QPen(color.darker(160), 1.6))
                    painter.setBrush(Qt.BrushStyle.NoBrush)
                    painter.drawRect(bar)
                    markers.append((QPointF(bar.center().x(), bar.top() - 10), color))
                elif s.unsaturated == spec.categories[i]:
                    open_marks.append((QPointF(bar.center().x(), bar.top() - 10), color))
    else:
        for s in spec.series:
            color = QColor(s.color)
            pen = QPen(color, 2.6)
            pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
            path = QPainterPath()
            started = False
            points = []
            # A user count a session did not measure is skipped, not a gap: the line joins
            # the counts it did measure.
            for i, value in enumerate(s.values):
                if value is None or not math.isfinite(value):
                    continue
                pt = QPointF(plot.left() + band * (i + 0.5), y_of(value))
                points.append((i, pt))
                if started:
                    path.lineTo(pt)
                else:
                    path.moveTo(pt)
                    started = True
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(path)
            painter.setBrush(QBrush(color))
            painter.setPen(QPen(QColor("#ffffff"), 1.2))
            for i, pt in points:
                painter.drawEllipse(pt, 4.2, 4.2)
                if s.saturation == spec.categories[i]:
                    painter.setBrush(Qt.BrushStyle.NoBrush)
                    painter.setPen(QPen(color, 2))
                    painter.drawEllipse(pt, 10, 10)
                    painter.setBrush(QBrush(color))
                    painter.setPen(QPen(QColor("#ffffff"), 1.2))
                    markers.append((QPointF(pt.x(), pt.y() - 20), color))
                elif s.unsaturated == spec.categories[i]:
                    open_marks.append((QPointF(pt.x(), pt.y() - 16), color))
    if spec.reference is not None:  # over the bars, so that its label stays readable
        paint_reference(painter, plot, y_of(spec.reference))
    for center, color in open_marks:
        painter.setPen(QPen(color.darker(140), 2))
        painter.setBrush(QColor("#ffffff"))
        painter.drawPolygon(_triangle(center, 6.5))
    for center, color in markers:
        painter.setPen(QPen(TEXT, 1.2))
        painter.setBrush(QColor("#ffffff"))
        painter.drawPolygon(_diamond(center, 6.5))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color)
        painter.drawPolygon(_diamond(center, 3.2))
    painter.restore()


def chart_image(
    spec: ChartSpec,
    width: int = CHART_W,
    height: int = CHART_H,
    scale: float = 2.0,
    caption: bool = False,
) -> QImage:
    """The chart as an image, ``scale`` device pixels per logical pixel."""
    ensure_app()
    image = QImage(round(width * scale), round(height * scale), QImage.Format.Format_ARGB32)
    image.setDotsPerMeterX(round(96 * scale / 0.0254))
    image.setDotsPerMeterY(round(96 * scale / 0.0254))
    image.fill(QColor("#ffffff"))
    painter = QPainter(image)
    painter.scale(scale, scale)
    paint_chart(painter, QRectF(0, 0, width, height), spec, caption)
    painter.end()
    return image


def chart_png(
    spec: ChartSpec, width: int = CHART_W, height: int = CHART_H, scale: float = 2.0
) -> bytes:
    """PNG bytes of the chart."""
    image = chart_image(spec, width, height, scale)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")  # type: ignore[call-overload]  # the stubs want bytes; only str works
    buffer.close()
    return bytes(data.data())


def chart_svg(spec: ChartSpec, width: int = CHART_W, height: int = CHART_H) -> bytes:
    """SVG bytes of the chart (vector: text stays text)."""
    ensure_app()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(QSize(width, height))
    generator.setViewBox(QRectF(0, 0, width, height))
    generator.setTitle(spec.label)
    generator.setDescription(spec.caption)
    painter = QPainter(generator)
    paint_chart(painter, QRectF(0, 0, width, height), spec)
    painter.end()
    buffer.close()
    return bytes(data.data())


def write_charts(specs: list[ChartSpec], directory: Path, fmt: str = "png") -> list[Path]:
    """Write every chart as ``figure-N-KEY.png`` (or .svg) into ``directory``."""
    if fmt not in ("png", "svg"):
        raise ValueError(f"chart format must be png or svg, got {fmt!r}")
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for spec in specs:
        path = directory / f"figure-{spec.number}-{spec.key.replace('_', '-')}.{fmt}"
        path.write_bytes(chart_png(spec) if fmt == "png" else chart_svg(spec))
        written.append(path)
    return written
