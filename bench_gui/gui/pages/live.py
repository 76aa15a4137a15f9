"""The Live page: big numbers and charts of the run in progress.

Events go into a :class:`~bench_gui.gui.live_model.LiveModel` as they arrive (cheap, no
drawing). One timer redraws at about 15 Hz, and only when the model changed: the charts get
``setData`` with views of the model's ring buffers, the tiles get their text. The countdown is
interpolated between samples by the same timer, so it ticks smoothly.
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from bench_gui.agent.protocol import Event
from bench_gui.core.plan import Plan
from bench_gui.gui.live_model import LiveModel
from bench_gui.gui.store_adapter import short_server
from bench_gui.gui.widgets.charts import (
    LATENCY_COLORS,
    NOPM_COLOR,
    TPM_COLOR,
    ScalingChart,
    SeriesSpec,
    TimeSeriesChart,
    format_count,
    format_duration,
)
from bench_gui.gui.widgets.tiles import Tile

REDRAW_HZ = 15

THROUGHPUT_SERIES = (
    SeriesSpec("nopm", "NOPM", NOPM_COLOR),
    SeriesSpec("tpm", "TPM", TPM_COLOR),
)
LATENCY_SERIES = (
    SeriesSpec("lat_avg", "avg", LATENCY_COLORS["avg"]),
    SeriesSpec("lat_p95", "p95", LATENCY_COLORS["p95"]),
    SeriesSpec("lat_p99", "p99", LATENCY_COLORS["p99"]),
    SeriesSpec("lat_p999", "p99.9", LATENCY_COLORS["p999"]),
)

BANNER_TEXT = {
    "ok": "Run complete.",
    "stopped": "Run stopped — the steps measured so far are kept in the session.",
    "failed": "Run failed.",
}


def _fmt_int(value: float | None) -> str | None:
    return None if value is None else f"{value:,.0f}"


def _fmt_ms(value: float | None) -> str | None:
    if value is None:
        return None
    return f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 1000 else f"{value:,.0f}"


class LivePage(QWidget):
    """Shows the run in progress.

    Signals:
        stop_requested(): the user confirmed that the run should stop.
        open_session_requested(): the user wants the finished run in the Sessions page.
    """

    stop_requested = Signal()
    open_session_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = LiveModel()
        self.stop_confirm: QMessageBox | None = None
        self._drawn_version = -1
        self._drawn_markers = 0
        self._drawn_points: list[tuple[int, float | None, bool]] = []
        self._sample_clock: float | None = None
        self._running = False
        self._detail = ""
        self._build_ui()
        self.timer = QTimer(self)
        self.timer.setInterval(int(1000 / REDRAW_HZ))
        self.timer.timeout.connect(self.refresh)
        self._show_idle()

    # ---- construction --------------------------------------------------------------------

    def _build_ui(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(20, 16, 20, 12)
        outer.setSpacing(12)

        header = QHBoxLayout()
        header.setSpacing(16)
        names = QVBoxLayout()
        names.setSpacing(0)
        self.run_name = QLabel("No run yet")
        self.run_name.setObjectName("runName")
        names.addWidget(self.run_name)
        self.run_detail = QLabel("Start a sweep from the Workload page.")
        self.run_detail.setObjectName("pageSubtitle")
        # Long names or server strings must never widen the window: clip them instead.
        self.run_name.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.run_detail.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        names.addWidget(self.run_detail)
        header.addLayout(names, 1)

        self.phase_pill = QLabel("IDLE")
        self.phase_pill.setObjectName("phasePill")
        self.phase_pill.setAlignment(Qt.AlignmentFlag.AlignCenter)
        header.addWidget(self.phase_pill, 0, Qt.AlignmentFlag.AlignVCenter)
        self.countdown = QLabel("")
        self.countdown.setObjectName("countdown")
        self.countdown.setMinimumWidth(110)
        self.countdown.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        header.addWidget(self.countdown)
        self.step_label = QLabel("")
        self.step_label.setObjectName("stepLabel")
        self.step_label.setMinimumWidth(230)
        header.addWidget(self.step_label, 0, Qt.AlignmentFlag.AlignVCenter)
        self.stop_button = QPushButton("■  Stop run")
        self.stop_button.setProperty("role", "danger")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.ask_stop)
        header.addWidget(self.stop_button, 0, Qt.AlignmentFlag.AlignVCenter)
        outer.addLayout(header)

        self.banner = QFrame()
        self.banner.setObjectName("banner")
        banner_row = QHBoxLayout(self.banner)
        banner_row.setContentsMargins(16, 10, 12, 10)
        self.banner_label = QLabel("")
        self.banner_label.setWordWrap(True)
        self.banner_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        banner_row.addWidget(self.banner_label, 1)
        self.banner_button = QPushButton("Open in Sessions")
        self.banner_button.clicked.connect(self.open_session_requested)
        banner_row.addWidget(self.banner_button)
        self.banner.hide()
        outer.addWidget(self.banner)

        tiles = QHBoxLayout()
        tiles.setSpacing(12)
        self.tile_nopm = Tile("NOPM", "new orders/min", NOPM_COLOR, hero=True)
        self.tile_tpm = Tile("TPM", "tx/min", TPM_COLOR)
        self.tile_latency = Tile("Avg latency", "ms", LATENCY_COLORS["avg"])
        self.tile_p999 = Tile("p99.9 latency", "ms", LATENCY_COLORS["p999"])
        self.tile_vus = Tile("Users", "virtual", "#be95ff")
        self.tile_errors = Tile("Errors", "", "#93a0b8")
        tiles.addWidget(self.tile_nopm, 5)
        tiles.addWidget(self.tile_tpm, 4)
        tiles.addWidget(self.tile_latency, 3)
        tiles.addWidget(self.tile_p999, 3)
        tiles.addWidget(self.tile_vus, 3)
        tiles.addWidget(self.tile_errors, 2)
        outer.addLayout(tiles)

        charts = QGridLayout()
        charts.setSpacing(12)
        self.throughput_chart = TimeSeriesChart("Throughput", "Per minute", THROUGHPUT_SERIES)
        self.scaling_chart = ScalingChart(
            "NOPM by virtual users", "NOPM", SeriesSpec("nopm", "NOPM (step result)", NOPM_COLOR)
        )
        self.latency_chart = TimeSeriesChart(
            "Latency, all transactions", "Latency (ms)", LATENCY_SERIES, count_axis=False
        )
        charts.addWidget(self.throughput_chart, 0, 0)
        charts.addWidget(self.scaling_chart, 0, 1)
        charts.addWidget(self.latency_chart, 1, 0, 1, 2)
        charts.setColumnStretch(0, 3)
        charts.setColumnStretch(1, 2)
        charts.setRowStretch(0, 1)
        charts.setRowStretch(1, 1)
        outer.addLayout(charts, 1)

        self.log_line = QLabel("")
        self.log_line.setObjectName("muted")
        self.log_line.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        outer.addWidget(self.log_line)

    # ---- run lifecycle (called by the main window) --------------------------------------

    def begin_run(self, plan: Plan) -> None:
        """Clear everything and get ready for the events of a run of ``plan``."""
        wl = plan.workload
        self.model.begin(wl.virtual_users, wl.rampup_s, wl.duration_s, plan.name)
        self._running = True
        self._sample_clock = None
        self._drawn_version = -1
        self._drawn_markers = 0
        self._drawn_points = []
        self.throughput_chart.clear()
        self.latency_chart.clear()
        self.scaling_chart.clear()
        self.scaling_chart.set_categories(wl.virtual_users)
        target = "embedded demo" if plan.target.kind == "demo" else plan.target.host
        self.run_name.setText(plan.name)
        self._detail = (
            f"{target}  ·  {wl.warehouses} warehouses  ·  ramp-up {wl.rampup_s:g} s,"
            f" measured {wl.duration_s:g} s per step"
        )
        self.run_detail.setText(self._detail)
        self.run_detail.setToolTip(self._detail)
        self.banner.hide()
        self.stop_button.setEnabled(True)
        self.stop_button.setText("■  Stop run")
        for tile in self._tiles():
            tile.set_value(None, "")
        self.log_line.setText("")
        self.refresh()
        self.timer.start()

    def handle_event(self, event: Event) -> None:
        """Take one event of the run (no drawing here: the timer does it)."""
        self.model.feed(event)
        if event.kind == "sample":
            self._sample_clock = time.monotonic()
        elif event.kind in ("log", "error"):
            message = event.get("message")
            if message:
                self.log_line.setText(str(message))

    def run_finished(self, status: str) -> None:
        if not self.model.ended:
            self.model.phase = status if status in ("ok", "stopped", "failed") else "ok"
            self.model.version += 1
        self._end(self.model.phase)

    def run_failed(self, message: str) -> None:
        self.model.fail(message)
        self._end("failed")

    def _end(self, tone: str) -> None:
        self._running = False
        self.timer.stop()
        if self.stop_confirm is not None:
            self.stop_confirm.close()
        self.stop_button.setEnabled(False)
        self.stop_button.setText("■  Stop run")
        text = self.banner_text(tone)
        self.banner_label.setText(text)
        self.banner.setProperty("tone", tone if tone in BANNER_TEXT else "stopped")
        self.banner.style().unpolish(self.banner)
        self.banner.style().polish(self.banner)
        self.banner_button.setVisible(bool(self.model.samples) or bool(self.model.points))
        self.banner.show()
        self.refresh()

    def banner_text(self, tone: str) -> str:
        model = self.model
        if tone == "failed":
            reason = model.status_message or "the run could not continue"
            text = f"Run failed: {reason}"
            if model.points:
                text += f"  ({len(model.points)} step(s) measured before the failure are kept.)"
            return text
        text = BANNER_TEXT.get(tone, "Run ended.")
        if tone == "ok" and model.points:
            n = len(model.points)
            text = f"Run complete: {n} step{'s' if n != 1 else ''} measured."
        best = model.best_point()
        if best is not None and best.nopm is not None:
            users = "user" if best.vus == 1 else "users"
            text += f"  Best: {best.nopm:,.0f} NOPM at {best.vus} {users}."
        return text

    @property
    def running(self) -> bool:
        return self._running

    # ---- stop ----------------------------------------------------------------------------

    def ask_stop(self) -> None:
        """Ask for confirmation (non-blocking); stop_requested is emitted on Yes."""
        if not self._running:
            return
        if self.stop_confirm is None:
            box = QMessageBox(self)
            box.setIcon(QMessageBox.Icon.Question)
            box.setWindowTitle("Stop the run?")
            box.setText("Stop the run now?")
            box.setInformativeText(
                "The current step ends early; the steps measured so far are kept in the session."
            )
            box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
            box.setDefaultButton(QMessageBox.StandardButton.No)
            box.button(QMessageBox.StandardButton.Yes).setText("Stop run")
            box.button(QMessageBox.StandardButton.No).setText("Keep running")
            box.finished.connect(self._on_confirm_finished)
            self.stop_confirm = box
        self.stop_confirm.open()

    def _on_confirm_finished(self, result: int) -> None:
        if result == QMessageBox.StandardButton.Yes and self._running:
            self.stop_button.setEnabled(False)
            self.stop_button.setText("Stopping…")
            self.stop_requested.emit()

    # ---- drawing -------------------------------------------------------------------------

    def _tiles(self) -> tuple[Tile, ...]:
        return (
            self.tile_nopm,
            self.tile_tpm,
            self.tile_latency,
            self.tile_p999,
            self.tile_vus,
            self.tile_errors,
        )

    def _show_idle(self) -> None:
        self.phase_pill.setText("IDLE")
        self._set_pill("idle")

    def _set_pill(self, phase: str) -> None:
        if self.phase_pill.property("phase") != phase:
            self.phase_pill.setProperty("phase", phase)
            self.phase_pill.style().unpolish(self.phase_pill)
            self.phase_pill.style().polish(self.phase_pill)

    def countdown_seconds(self) -> float | None:
        left = self.model.phase_remaining()
        if left is None:
            return None
        if self._sample_clock is not None and self._running:
            left = max(0.0, left - (time.monotonic() - self._sample_clock))
        return left

    def refresh(self) -> None:
        """Redraw from the model if it changed (the timer calls this ~15 times a second)."""
        self._update_countdown()
        model = self.model
        if model.version == self._drawn_version:
            return
        self._drawn_version = model.version
        buf = model.samples
        t = buf.column("t")
        for spec in THROUGHPUT_SERIES:
            self.throughput_chart.set_data(spec.key, t, buf.column(spec.key))
        for spec in LATENCY_SERIES:
            self.latency_chart.set_data(spec.key, t, buf.column(spec.key))
        for x, _step, vus in model.markers[self._drawn_markers :]:
            label = f"{vus} VU"
            self.throughput_chart.add_marker(x, label)
            self.latency_chart.add_marker(x, label)
        self._drawn_markers = len(model.markers)
        points = [(p.vus, p.nopm, p.complete) for p in model.points]
        if points != self._drawn_points:
            self._drawn_points = points
            self.scaling_chart.set_points(
                [p[0] for p in points],
                [p[1] for p in points],
                partial=[not p[2] for p in points],
            )
        self._update_tiles()
        self._update_header()

    def _update_countdown(self) -> None:
        left = self.countdown_seconds()
        self.countdown.setText("" if left is None else format_duration(left))

    def _update_tiles(self) -> None:
        model = self.model
        tiles = model.tiles()
        best = model.best_point()
        nopm_detail = "" if tiles.nopm_driver is None else f"driver {tiles.nopm_driver:,.0f}"
        if best is not None and best.nopm is not None:
            nopm_detail += f"  ·  best {format_count(best.nopm)} @ {best.vus} VU"
        self.tile_nopm.set_value(_fmt_int(tiles.nopm), nopm_detail.strip(" ·"))
        self.tile_tpm.set_value(_fmt_int(tiles.tpm), f"{model.smoothing} s average")
        self.tile_latency.set_value(_fmt_ms(tiles.latency_avg_ms), "all transactions")
        self.tile_p999.set_value(_fmt_ms(tiles.latency_p999_ms), "last second")
        max_vus = max(model.planned_vus) if model.planned_vus else None
        self.tile_vus.set_value(
            None if tiles.vus is None else str(tiles.vus),
            "" if max_vus is None else f"sweep up to {max_vus}",
        )
        self.tile_errors.set_value(str(tiles.errors), f"{tiles.rollbacks:,} rollbacks")

    def _update_header(self) -> None:
        model = self.model
        phase = model.phase
        self.phase_pill.setText(model.phase_label.upper())
        if phase in ("rampup", "measure", "failed"):
            pill = phase
        else:
            pill = "ended" if model.ended else "idle"
        self._set_pill(pill)
        number, count = model.step_number, model.step_count
        if number is None:
            self.step_label.setText("")
        else:
            of = f" of {count}" if count else ""
            users = f"  ·  {model.vus} users" if model.vus else ""
            self.step_label.setText(f"Step {number}{of}{users}")
        if model.server or model.engine:
            server = short_server(model.server) or model.engine
            self.run_detail.setText(f"{self._detail}  ·  {server}")
            self.run_detail.setToolTip(f"{self._detail}\n{model.server}")

    # ---- Qt overrides --------------------------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        self.refresh()
