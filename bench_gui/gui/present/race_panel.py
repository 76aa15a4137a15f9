"""The race side by side: this run's NOPM against the rival storage's, and the curves.

A booth screen of its own for a race (or a replayed race): the ratio ("4.2X vs HDD RAID 10")
on top, the two NOPM figures side by side under it, and one throughput chart with this run's
curve and the rival's ghost. It takes a run's events like the Live page and the Present view
(``begin_run``, ``handle_event``, ``run_finished``, ``run_failed``) and the booth's calls
(``set_ghost``, ``set_ratio_text``, ``show_corner_error``, ``show_overlay``); Esc asks to
leave (``leave_requested``), and no other key does anything.
"""

from __future__ import annotations

import math
import time

import numpy as np
from PySide6.QtCore import QEasingCurve, QPropertyAnimation, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QKeyEvent, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QGraphicsOpacityEffect,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from bench_gui.core.plan import Plan
from bench_gui.gui.present.headline import HeadlineLabel, tone_rules
from bench_gui.gui.present.phase_line import COUNTDOWN_DONE_S
from bench_gui.gui.present.style import SCRIM_RULE
from bench_gui.gui.widgets.charts import (
    NOPM_COLOR,
    SeriesSpec,
    TimeSeriesChart,
    format_duration,
)
from bench_gui.services.live_model import LiveModel
from bench_gui.services.race import Headline, headline_of
from bench_gui.services.session_view import COLLECTING, user_count
from bench_gui.wire.protocol import Event

REDRAW_MS = 250
CORNER_ERROR_S = 12.0  # how long a corner error stays before it fades
GHOST_COLOR = "#a8b3c7"

STYLE = """
QWidget#racePanel { background-color: #12161d; }
QLabel { background-color: transparent; }
QLabel#raceTitle { color: #ffffff; font-weight: 700; }
QLabel#racePhase { color: #c9d1e0; font-weight: 600; }
QLabel#raceRatio { font-weight: 800; }
QFrame#raceSide { background-color: #1a1f29; border: 1px solid #2a3140; border-radius: 14px; }
QLabel#sideTitle { color: #93a0b8; font-weight: 600; }
QLabel#sideValue { color: #ffffff; font-weight: 800; }
QLabel#sideValue[ghost="true"] { color: #a8b3c7; }
QLabel#cornerError {
    background-color: #3a1217; color: #ffffff; border: 1px solid #fa4d56;
    border-radius: 10px; padding: 10px 16px;
}
"""
STYLE += SCRIM_RULE + tone_rules("QLabel#raceRatio")


def _label(name: str, text: str = "") -> QLabel:
    label = QLabel(text)
    label.setObjectName(name)
    # Text never widens the panel: long lines are clipped, the layout keeps the screen's size.
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    return label


class Side(QFrame):
    """One side of the race: whose it is and its NOPM now."""

    def __init__(self, title: str, ghost: bool) -> None:
        super().__init__()
        self.setObjectName("raceSide")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 12, 24, 12)
        layout.setSpacing(0)
        self.title = _label("sideTitle", title)
        self.value = _label("sideValue", "—")
        self.value.setProperty("ghost", ghost)
        layout.addWidget(self.title)
        layout.addWidget(self.value)

    def show_value(self, title: str, nopm: float | None) -> None:
        self.title.setText(title)
        ok = nopm is not None and math.isfinite(nopm)
        self.value.setText(f"{nopm:,.0f} NOPM" if ok else "—")


class RacePanel(QWidget):
    """A race on one screen.

    Signals:
        leave_requested(): Esc was pressed.
    """

    leave_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("racePanel")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setStyleSheet(STYLE)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.model = LiveModel()
        self.ghost_label = ""
        self.ghost_points: list[tuple[float, float]] = []
        self.ratio_text: str | None = None
        self.overlay: QWidget | None = None
        # The race's own figures (live NOPM, stored NOPM) when the booth gives them.
        self.race_figures: tuple[float | None, float | None] | None = None
        self._drawn = -1
        self._ghost_dirty = False
        self._sample_clock: float | None = None
        self._size_rules = ""

        layout = QVBoxLayout(self)
        layout.setContentsMargins(28, 20, 28, 20)
        layout.setSpacing(12)
        self.title = _label("raceTitle", "Waiting for a run")
        self.phase = _label("racePhase")
        self.ratio = HeadlineLabel()
        self.ratio.setObjectName("raceRatio")
        self.ratio.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.ratio.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(self.title)
        layout.addWidget(self.phase)
        layout.addWidget(self.ratio)
        sides = QHBoxLayout()
        sides.setSpacing(18)
        self.live_side = Side("This run", ghost=False)
        self.ghost_side = Side("Stored session", ghost=True)
        sides.addWidget(self.live_side)
        sides.addWidget(self.ghost_side)
        layout.addLayout(sides)
        self.chart = TimeSeriesChart(
            "Throughput",
            "NOPM",
            [
                SeriesSpec("live", "This run", NOPM_COLOR, width=4.0),
                SeriesSpec("ghost", "Stored session", GHOST_COLOR, width=3.0, dashed=True),
            ],
            manual_range=True,
        )
        layout.addWidget(self.chart, 1)

        # Dims the race behind an overlay, so the card reads on its own.
        self.scrim = QWidget(self)
        self.scrim.setObjectName("scrim")
        self.scrim.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.scrim.hide()
        self.corner = _label("cornerError")
        self.corner.setParent(self)
        self.corner.setWordWrap(True)
        self.corner.hide()
        self._fade_effect = QGraphicsOpacityEffect(self.corner)
        self.corner.setGraphicsEffect(self._fade_effect)
        self._fade = QPropertyAnimation(self._fade_effect, b"opacity", self)
        self._fade.setDuration(1500)
        self._fade.setStartValue(1.0)
        self._fade.setEndValue(0.0)
        self._fade.setEasingCurve(QEasingCurve.Type.InQuad)
        self._fade.finished.connect(self.corner.hide)
        self._corner_timer = QTimer(self)
        self._corner_timer.setSingleShot(True)
        self._corner_timer.timeout.connect(self._fade.start)

        self.timer = QTimer(self)
        self.timer.setInterval(REDRAW_MS)
        self.timer.timeout.connect(self.refresh)
        self._scale()

    # ---- the run -------------------------------------------------------------------------

    def begin_run(self, plan: Plan) -> None:
        wl = plan.workload
        self.model.begin(wl.virtual_users, wl.rampup_s, wl.duration_s, plan.name)
        self.title.setText(plan.name)
        self.chart.clear()
        self.ghost_points = []
        self.ghost_label = ""
        self.ratio_text = None
        self.race_figures = None
        self._drawn = -1
        self._sample_clock = None
        self.refresh()
        self.timer.start()

    def handle_event(self, event: Event) -> None:
        self.model.feed(event)
        if event.kind == "sample":
            self._sample_clock = time.monotonic()

    def run_finished(self, status: str) -> None:
        if not self.model.ended:
            self.model.phase = status if status in ("ok", "stopped", "failed") else "ok"
            self.model.version += 1
        self.timer.stop()
        self.refresh()

    def run_failed(self, message: str) -> None:
        self.model.fail(message)
        self.timer.stop()
        self.refresh()

    # ---- what the booth sets -------------------------------------------------------------

    def set_ghost(self, label: str, points: list[tuple[float, float]] | None) -> None:
        self.ghost_label = label
        self.ghost_points = list(points or [])
        self._ghost_dirty = True

    def set_ratio_text(self, text: str | None) -> None:
        self.set_headline(headline_of(text))

    def set_headline(self, headline: Headline | None) -> None:
        """The race's headline in the longest words that fit (smaller when even the shortest
        would be cut), green when ahead and amber when behind; None for none."""
        self.ratio_text = headline.text if headline is not None else None
        self.ratio.set_headline(headline)

    def set_title(self, text: str) -> None:
        """What the top line says instead of the plan's name ("" for the name again)."""
        self.title.setText(text or self.model.name or "Waiting for a run")

    def set_race_figures(self, live_nopm: float | None, stored_nopm: float | None) -> None:
        """The two NOPM the ratio sets against each other (the sides show them)."""
        self.race_figures = (live_nopm, stored_nopm)
        self._ghost_dirty = True

    def show_corner_error(self, text: str) -> None:
        """A message in the bottom-right corner that fades by itself (never a dialog)."""
        self._fade.stop()
        self._fade_effect.setOpacity(1.0)
        self.corner.setText(text)
        self.corner.show()
        self._place_corner()
        self.corner.raise_()
        self._corner_timer.start(int(CORNER_ERROR_S * 1000))

    def show_overlay(self, widget: QWidget | None) -> None:
        """A widget over the race (the result card), or None to take it away."""
        if self.overlay is not None and self.overlay is not widget:
            self.overlay.hide()
            self.overlay.deleteLater()
        self.overlay = widget
        self.scrim.setVisible(widget is not None)
        if widget is not None:
            widget.setParent(self)
            self._place_overlay()
            self.scrim.raise_()
            widget.show()
            widget.raise_()
            if self.corner.isVisible():
                self.corner.raise_()

    # ---- drawing -------------------------------------------------------------------------

    def refresh(self) -> None:
        model = self.model
        if model.version != self._drawn:
            self._drawn = model.version
            n = len(model.samples)
            if n:
                self.chart.set_data("live", model.samples.column("t"), model.samples.column("nopm"))
            for t, _step, vus in model.markers[self.chart.marker_count :]:
                self.chart.add_marker(t, user_count(vus))
            self._ghost_dirty = True
        if self._ghost_dirty:
            self._ghost_dirty = False
            if self.ghost_points:
                xs = np.fromiter((p[0] for p in self.ghost_points), float)
                ys = np.fromiter((p[1] for p in self.ghost_points), float)
                self.chart.set_data("ghost", xs, ys)
            label = self.ghost_label or "Stored session"
            self.chart.set_legend_entries(
                [("This run", NOPM_COLOR, "line"), (label, GHOST_COLOR, "dashed")]
            )
            live, stored = self.race_figures or (None, None)
            if live is None:
                live = model.tiles().nopm
            if stored is None and self.ghost_points:
                stored = self.ghost_points[-1][1]
            self.live_side.show_value("This run", live)
            self.ghost_side.show_value(label, stored)
            self.chart.fit()
        self.phase.setText(self._phase_line())

    def _phase_line(self) -> str:
        model = self.model
        parts = [model.phase_label]
        if model.phase == "starting" and model.build is not None:
            parts.append(model.build.text)  # a first run's schema build: how far it is
        if model.step_number is not None:
            of = f" of {model.step_count}" if model.step_count else ""
            parts.append(f"step {model.step_number}{of}")
        if model.vus:
            parts.append(user_count(model.vus))
        if model.db_warning:  # not a countdown over a zero: the database does not answer
            parts.insert(1, model.db_warning)
            return "  ·  ".join(parts)
        left = model.phase_remaining()
        if left is not None and self._sample_clock is not None and self.timer.isActive():
            left = max(0.0, left - (time.monotonic() - self._sample_clock))
            done = model.phase == "measure" and left < COUNTDOWN_DONE_S
            parts.append(COLLECTING if done else f"{format_duration(left)} left")
        return "  ·  ".join(parts)

    # ---- layout --------------------------------------------------------------------------

    def _scale(self) -> None:
        """Text sized from the panel's size. Through the style sheet: the application's theme
        sets every widget's font size, which a widget's own font would not override."""
        height = max(400, self.height())
        width = max(600, self.width())

        def px(of_height: float, of_width: float) -> int:
            return max(12, int(min(height * of_height, width * of_width)))

        sizes = {
            "raceTitle": px(0.04, 0.025),
            "racePhase": px(0.032, 0.02),
            "raceRatio": px(0.075, 0.04),  # room for "4.2X vs HDD RAID 10 at 16 users"
            "sideTitle": px(0.028, 0.017),
            "sideValue": px(0.075, 0.04),
            "cornerError": px(0.026, 0.015),
            "sectionTitle": px(0.026, 0.016),
        }
        self.chart.legend_px = px(0.022, 0.013)
        rules = "".join(
            f"QLabel#{name} {{ font-size: {size}px; }}\n" for name, size in sizes.items()
        )
        if rules != self._size_rules:
            self._size_rules = rules
            self.setStyleSheet(STYLE + rules)
        self.ratio.set_base_px(sizes["raceRatio"])
        tick = QFont()
        tick.setPixelSize(max(14, int(height * 0.022)))
        for axis in ("bottom", "left"):
            self.chart.plot.getAxis(axis).setTickFont(tick)

    def _place_overlay(self) -> None:
        self.scrim.setGeometry(self.rect())
        if self.overlay is None:
            return
        w, h = int(self.width() * 0.84), int(self.height() * 0.8)
        self.overlay.setGeometry((self.width() - w) // 2, (self.height() - h) // 2, w, h)

    def _place_corner(self) -> None:
        width = min(self.width() // 2, 720)
        self.corner.setFixedWidth(width)
        self.corner.adjustSize()
        margin = 20
        self.corner.move(
            self.width() - width - margin, self.height() - self.corner.height() - margin
        )

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self._scale()
        self._place_overlay()
        if self.corner.isVisible():
            self._place_corner()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt override)
        if event.key() == Qt.Key.Key_Escape:
            self.leave_requested.emit()
            event.accept()
            return
        event.accept()  # a passer-by's key presses do nothing


__all__ = ["RacePanel"]
