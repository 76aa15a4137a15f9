"""The Present view: a run on a booth screen, read from 3 m.

No side panel, no status bar, no button: the storage (the plan's name) large at the top, the
race's "4.2X vs HDD array" beside it when there is one, the phase line, three or four huge
tiles and one throughput chart. It takes a run's events like the Live page (``begin_run``,
``handle_event``, ``run_finished``, ``run_failed``) and what a booth sets (``set_ghost``,
``set_ratio_text``, ``show_corner_error``, ``show_overlay``: the
:class:`~bench_gui.gui.present.booth.BoothScreen` protocol).

Given the Live page's model, the view follows it instead of keeping its own: whoever feeds
that model (the main window) feeds the view too. A timer redraws while the view is shown, at
most :data:`REDRAW_HZ` times a second and only when the model changed; the countdown is
interpolated between samples.

Esc asks to leave (``leave_requested``); every other key does nothing, and the chart takes no
mouse: a passer-by cannot stop or change the demo.
"""

from __future__ import annotations

import dataclasses
import time

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QHideEvent, QKeyEvent, QResizeEvent, QShowEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLayout, QVBoxLayout, QWidget

from bench_gui.core.plan_model import Plan
from bench_gui.gui.present.chart import PresentChart
from bench_gui.gui.present.corner import CornerMessage
from bench_gui.gui.present.headline import HeadlineLabel
from bench_gui.gui.present.phase_line import PhaseLine, starting_text
from bench_gui.gui.present.style import Sizes, sizes_for, stylesheet
from bench_gui.gui.present.tiles import PresentTiles
from bench_gui.gui.widgets.elided import ElidedLabel
from bench_gui.services.live_model import LiveModel
from bench_gui.services.race import Headline, headline_of
from bench_gui.services.session_view import short_server
from bench_gui.wire.protocol import Event

REDRAW_HZ = 4
# The view takes the size of its screen and fits its text to it: it asks for no more than this
# (a window or a stack holding it is never made bigger by the sizes of the moment).
LEAST_SIZE = QSize(320, 240)
OVERLAY_SHARE = (0.84, 0.8)  # of the view's width and height
# The most of the top row the race's headline takes: the system's name keeps the rest.
HEADLINE_SHARE = 0.6
# The least it takes (with its shortest form), however long the name: against what it races.
HEADLINE_LEAST_SHARE = 0.4


class PresentView(QWidget):
    """A run on a booth screen.

    Signals:
        leave_requested(): Esc was pressed (leave presentation mode).
    """

    leave_requested = Signal()

    def __init__(self, model: LiveModel | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("presentView")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.follows = model is not None  # someone else feeds the model
        self.model = model if model is not None else LiveModel()
        self.title_override = ""
        self.starting = ""  # what the run does before its first event (phase_line.starting_text)
        self.ratio_text: str | None = None
        self.overlay: QWidget | None = None
        self.sizes: Sizes | None = None
        self._drawn: tuple[int, int] | None = None  # (generation, version) drawn
        self._samples_seen = (0, 0)  # (generation, sample count) when the clock was set
        self._sample_clock: float | None = None
        self._build()
        # Dims the run behind an overlay, so the card reads on its own.
        self.scrim = QWidget(self)
        self.scrim.setObjectName("scrim")
        self.scrim.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.scrim.hide()
        self.timer = QTimer(self)
        self.timer.setInterval(int(1000 / REDRAW_HZ))
        self.timer.timeout.connect(self.refresh)
        self.apply_sizes()

    def _build(self) -> None:
        column = QVBoxLayout(self)
        column.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)
        self.column = column
        top = QHBoxLayout()
        top.setSpacing(32)
        self.name = ElidedLabel("Waiting for a run")
        self.name.setObjectName("presentName")
        top.addWidget(self.name, 1)
        self.server = QLabel("")
        self.server.setObjectName("presentServer")
        top.addWidget(self.server, 0, Qt.AlignmentFlag.AlignBottom)
        self.ratio = HeadlineLabel()
        self.ratio.setObjectName("presentRatio")
        self.ratio.hide()
        top.addWidget(self.ratio, 0, Qt.AlignmentFlag.AlignVCenter)
        self.top = top
        column.addLayout(top)
        self.phase = PhaseLine()
        column.addWidget(self.phase)
        self.tiles = PresentTiles()
        column.addWidget(self.tiles)
        self.chart = PresentChart()
        column.addWidget(self.chart, 1)
        self.corner = CornerMessage(self)
        for widget in self.findChildren(QWidget):
            widget.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys come to the view

    # ---- the run -------------------------------------------------------------------------

    def begin_run(self, plan: Plan) -> None:
        """A run of ``plan`` starts: everything is cleared (a followed model is its owner's
        to reset)."""
        if not self.follows:
            wl = plan.workload
            self.model.begin(wl.virtual_users, wl.rampup_s, wl.duration_s, plan.name)
        self.starting = starting_text(plan)
        self._sample_clock = None
        self.refresh()
        self._start_timer()

    def handle_event(self, event: Event) -> None:
        """One event of the run (drawn by the timer); a followed model is fed by its owner."""
        if not self.follows:
            self.model.feed(event)

    def run_finished(self, status: str) -> None:
        model = self.model
        if not model.ended:
            model.phase = status if status in ("ok", "stopped", "failed") else "ok"
            model.version += 1
        self.refresh()

    def run_failed(self, message: str) -> None:
        if not self.follows or not self.model.ended:
            self.model.fail(message)
        self.refresh()

    # ---- what a booth sets ---------------------------------------------------------------

    def set_title(self, text: str) -> None:
        """What the top line says instead of the plan's name ("" for the name again)."""
        self.title_override = text
        self._show_title()

    def set_ghost(self, label: str, points: list[tuple[float, float]] | None) -> None:
        """A stored session's NOPM on this run's time axis, dashed; None takes it away."""
        self.chart.set_ghost(label, points)

    def set_ratio_text(self, text: str | None) -> None:
        """The race's figure ("4.2X vs HDD array") beside the name; None hides it."""
        self.set_headline(headline_of(text))

    def set_headline(self, headline: Headline | None) -> None:
        """The race's headline beside the name, in the longest words that fit, green when
        ahead and amber when behind; None hides it."""
        self.ratio_text = headline.text if headline is not None else None
        self.ratio.set_headline(headline)
        self.ratio.setVisible(headline is not None)
        self._show_title()

    def show_corner_error(self, text: str) -> None:
        """An error in the bottom-right corner; it fades by itself, and nothing waits on it."""
        self.corner.show_message(text)

    def show_overlay(self, widget: QWidget | None) -> None:
        """A widget over the view (the result card), or None to take it away."""
        old = self.overlay
        if old is not None and old is not widget:
            old.hide()
            old.deleteLater()
        self.overlay = widget
        self.scrim.setVisible(widget is not None)
        if widget is not None:
            widget.setParent(self)
            widget.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            self._place_overlay()
            self.scrim.raise_()
            widget.show()
            widget.raise_()
        if self.corner.isVisible():
            self.corner.raise_()

    # ---- drawing -------------------------------------------------------------------------

    def countdown(self) -> float | None:
        """Seconds left in the phase, ticking down between samples."""
        left = self.model.phase_remaining()
        if left is None:
            return None
        if self._sample_clock is not None:
            left = max(0.0, left - (time.monotonic() - self._sample_clock))
        return left

    def refresh(self) -> None:
        """Redraw what changed in the model; the phase line (its countdown) every time."""
        model = self.model
        seen = (model.generation, len(model.samples))
        if seen != self._samples_seen:
            self._samples_seen = seen
            self._sample_clock = time.monotonic() if seen[1] else None
        if (model.generation, model.version) != self._drawn:
            if self._drawn is None or self._drawn[0] != model.generation:
                self.chart.reset()
            self._drawn = (model.generation, model.version)
            self._show_title()
            if self.tiles.show_model(model):
                self.sizes = None  # other tiles: fit their figures to the width again
                self.apply_sizes()
            self.chart.draw(model)
        self.phase.show_model(model, None if model.ended else self.countdown(), self.starting)

    def _show_title(self) -> None:
        model = self.model
        text = self.title_override or model.name or "Waiting for a run"
        if text != self.name.text():
            self.name.setText(text)
            self.name.setToolTip(text)
        # The server (PostgreSQL 16.4) gives its room to the race's figure when there is one.
        server = short_server(model.server) or model.engine
        self.server.setText(server)
        self.server.setVisible(bool(server) and not self.ratio_text)
        self._share_top_row()

    def _share_top_row(self, room: int | None = None) -> None:
        """The race's headline takes what the whole name leaves it, between HEADLINE_LEAST_SHARE
        and HEADLINE_SHARE of the row (and at least its shortest form): at 1280 px a name that
        fitted beside "4.0X vs HDD array" was cut for "4.0X vs HDD array at 32 users"."""
        if room is None:
            margin = self.sizes.margin if self.sizes is not None else 0
            room = max(self.width(), 320) - 2 * margin
        self.name.ensurePolished()
        name = self.name.fontMetrics().horizontalAdvance(self.name.text()) + 4
        left = room - name - self.top.spacing()
        if self.server.isVisibleTo(self):
            left -= self.server.sizeHint().width() + self.top.spacing()
        least = max(self.ratio.shortest_width(), int(room * HEADLINE_LEAST_SHARE))
        most = max(least, min(int(room * HEADLINE_SHARE), left))
        if most != self.ratio.maximumWidth():
            self.ratio.setMaximumWidth(most)

    def _start_timer(self) -> None:
        if self.isVisible() and not self.timer.isActive():
            self.timer.start()

    # ---- sizes ---------------------------------------------------------------------------

    def apply_sizes(self) -> None:
        """Text and spacing for the view's size (a style sheet: see present.style)."""
        width = max(self.width(), 320)
        sizes = sizes_for(width, max(self.height(), 240))
        room = width - 2 * sizes.margin
        value = self.tiles.fit_value_px(sizes.hero, sizes.value, sizes.unit, sizes.tile_title, room)
        sizes = dataclasses.replace(sizes, value=value)
        self._share_top_row(room)
        if sizes == self.sizes:
            return
        self.sizes = sizes
        self.setStyleSheet(stylesheet(sizes))
        self.ratio.set_base_px(sizes.ratio)
        self.column.setContentsMargins(sizes.margin, sizes.margin, sizes.margin, sizes.margin)
        self.column.setSpacing(sizes.spacing)
        self.tiles.flow.set_spacing(sizes.spacing)
        self.tiles.set_px(sizes.hero, sizes.value, sizes.unit, sizes.tile_title)
        self.chart.apply_sizes(sizes)

    def _place_overlay(self) -> None:
        self.scrim.setGeometry(self.rect())
        if self.overlay is None:
            return
        w, h = int(self.width() * OVERLAY_SHARE[0]), int(self.height() * OVERLAY_SHARE[1])
        self.overlay.setGeometry((self.width() - w) // 2, (self.height() - h) // 2, w, h)

    # ---- Qt overrides --------------------------------------------------------------------

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return LEAST_SIZE

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(1280, 720)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self.apply_sizes()
        self._place_overlay()
        if self.corner.isVisible():
            self.corner.place()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        self.setFocus(Qt.FocusReason.OtherFocusReason)
        self.refresh()
        self.timer.start()

    def hideEvent(self, event: QHideEvent) -> None:  # noqa: N802 (Qt override)
        super().hideEvent(event)
        self.timer.stop()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt override)
        if event.key() == Qt.Key.Key_Escape:
            self.leave_requested.emit()
        event.accept()  # every other key a passer-by presses does nothing
