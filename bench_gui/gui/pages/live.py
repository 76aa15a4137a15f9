"""The Live page: big numbers and charts of the run in progress.

Events go into a :class:`~bench_gui.gui.live_model.LiveModel` as they arrive (cheap, no
drawing). One timer redraws at about 15 Hz, and only when the model changed: the charts get
``setData`` with views of the model's ring buffers, the tiles get their text. The countdown is
interpolated between samples by the same timer, so it ticks smoothly.

Which charts show, in what order and over how many columns, and which block devices the disk
charts draw, is the user's choice (:class:`~bench_gui.gui.widgets.chart_layout.LiveLayout`,
remembered in QSettings). Only the charts shown are drawn; a chart is built the first time it
is shown, and a device's curves the first time that device appears in the samples.

A frame never paints much (``benchmarks/gui_stream.py`` holds the page to no event-loop stall
over 50 ms and redraws under 16 ms while an hour of samples is fed as fast as it takes them):
the timer redraws either the tiles (a few times a second) or the next chart in turn, the charts
set their own view range once per update (pyqtgraph's auto-range settles over extra repaints)
and keep about one sample per pixel column, and curves are drawn with thin pens.
"""

from __future__ import annotations

import time

import numpy as np
from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QDialog,
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
from bench_gui.core.power import METER_LABELS, SCOPE_CPU
from bench_gui.gui.live_model import LiveModel, RingBuffer
from bench_gui.gui.store_adapter import short_server
from bench_gui.gui.widgets.chart_layout import (
    CHART_INFO,
    MAX_COLUMNS,
    ChartLayoutDialog,
    LiveLayout,
    live_settings,
)
from bench_gui.gui.widgets.charts import (
    CPU_COLORS,
    DEVICE_COLORS,
    EFFICIENCY_COLOR,
    IDLE_COLOR,
    LATENCY_COLORS,
    MEMORY_COLORS,
    MUTED,
    NOPM_COLOR,
    POWER_COLOR,
    TPM_COLOR,
    ChartCard,
    ScalingChart,
    SeriesSpec,
    TimeSeriesChart,
    format_count,
    format_duration,
)
from bench_gui.gui.widgets.elided import ElidedLabel
from bench_gui.gui.widgets.tiles import Tile

REDRAW_HZ = 30
# Charts redrawn per timer tick at most, and the time after which a tick stops starting new
# ones: a chart costs a few ms to repaint, so a page of twelve is spread over several ticks and
# the event loop never stalls (the data comes once a second; every chart is still redrawn
# several times a second).
CHARTS_PER_TICK = 1
TICK_BUDGET_S = 0.004
TILES_HZ = 5

# Pen width 1 except for the headline throughput: a width-2 curve costs the raster engine
# about three times as much to draw (measured with benchmarks/gui_stream.py), and a page can
# show a dozen charts and fifty curves.
THIN = 1.0
THROUGHPUT_SERIES = (
    SeriesSpec("nopm", "NOPM", NOPM_COLOR),
    SeriesSpec("tpm", "TPM", TPM_COLOR),
)
LATENCY_SERIES = (
    SeriesSpec("lat_avg", "avg", LATENCY_COLORS["avg"], THIN),
    SeriesSpec("lat_p95", "p95", LATENCY_COLORS["p95"], THIN),
    SeriesSpec("lat_p99", "p99", LATENCY_COLORS["p99"], THIN),
    SeriesSpec("lat_p999", "p99.9", LATENCY_COLORS["p999"], THIN),
)
POWER_SERIES = (SeriesSpec("power_w", "watts", POWER_COLOR, THIN),)
EFFICIENCY_SERIES = (SeriesSpec("mw_per_nopm", "mW/NOPM (5 s)", EFFICIENCY_COLOR, THIN),)
CPU_SERIES = (
    SeriesSpec("cpu_user", "user", CPU_COLORS["user"], THIN),
    SeriesSpec("cpu_system", "system", CPU_COLORS["system"], THIN),
    SeriesSpec("cpu_iowait", "iowait", CPU_COLORS["iowait"], THIN),
)
MEMORY_SERIES = (
    SeriesSpec("mem_used", "used", MEMORY_COLORS["used"], THIN),
    SeriesSpec("mem_cache", "page cache", MEMORY_COLORS["cache"], THIN),
    SeriesSpec("mem_dirty", "dirty", MEMORY_COLORS["dirty"], THIN),
)
# Per-device charts: (y label, [(device column, legend word, dashed)], values on a count axis).
DEVICE_CHARTS: dict[str, tuple[str, tuple[tuple[str, str, bool], ...], bool]] = {
    "disk_iops": ("I/O per second", (("r_iops", "read", False), ("w_iops", "write", True)), True),
    "disk_mbs": ("MB/s", (("r_mbs", "read", False), ("w_mbs", "write", True)), True),
    "disk_latency": ("await (ms)", (("r_await", "read", False), ("w_await", "write", True)), False),
    "disk_queue": ("requests in queue", (("aqu_sz", "queue", False),), False),
}
NO_POWER_MESSAGE = "No power meter in this run's plan"
NO_READINGS_MESSAGE = "No power readings were received"
NO_HOST_MESSAGE = "No host metrics were recorded in this run"

BANNER_TEXT = {
    "ok": "Run complete.",
    "stopped": "Run stopped — the steps measured so far are kept in the session.",
    "failed": "Run failed.",
}


def _fmt_int(value: float | None) -> str | None:
    return None if value is None else f"{value:,.0f}"


def _fmt_watts(value: float | None) -> str | None:
    if value is None:
        return None
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}"


def _fmt_ratio(value: float | None) -> str | None:
    """mW per NOPM: three figures and a steady number of decimals (0.412, 2.00, 41.2)."""
    if value is None:
        return None
    if value < 1:
        return f"{value:.3f}"
    if value < 10:
        return f"{value:.2f}"
    return f"{value:.1f}" if value < 100 else f"{value:,.0f}"


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
        self._plan_power = ""  # the plan's meter kind ("" or "none": no power)
        self.charts: dict[str, ChartCard] = {}
        self._cells: dict[str, _Cell] = {}
        self._stale: dict[str, str] = {}  # charts waiting for their redraw, in order
        self._tiles_at = 0.0  # when the tiles were last updated (monotonic)
        self._tiles_dirty = False  # the model changed since the tiles and header were painted
        self._drawn_points_of: dict[str, list[tuple[int, float | None, bool]]] = {}
        self.layout_choice = LiveLayout.load(live_settings())
        self.layout_dialog: ChartLayoutDialog | None = None
        self._build_ui()
        self.timer = QTimer(self)
        self.timer.setInterval(int(1000 / REDRAW_HZ))
        self.timer.timeout.connect(self.tick)
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
        self.run_name = ElidedLabel("No run yet")
        self.run_name.setObjectName("runName")
        names.addWidget(self.run_name)
        self.run_detail = ElidedLabel("Start a sweep from the Workload page.")
        self.run_detail.setObjectName("pageSubtitle")
        # Long names or server strings never widen the window: they end in "…" instead.
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
        self.charts_button = QPushButton("Charts…")
        self.charts_button.setToolTip("Choose and arrange the charts, and the devices they draw")
        self.charts_button.clicked.connect(self.choose_charts)
        header.addWidget(self.charts_button, 0, Qt.AlignmentFlag.AlignVCenter)
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
        self.tile_power = Tile("Power", "W", POWER_COLOR)
        self.tile_mw = Tile("mW / NOPM", "", EFFICIENCY_COLOR)
        self.tile_tpm = Tile("TPM", "tx/min", TPM_COLOR)
        self.tile_latency = Tile("Avg latency", "ms", LATENCY_COLORS["avg"])
        self.tile_p999 = Tile("p99.9 latency", "ms", LATENCY_COLORS["p999"])
        self.tile_vus = Tile("Users", "virtual", "#be95ff")
        self.tile_errors = Tile("Errors", "", "#93a0b8")
        tiles.addWidget(self.tile_nopm, 5)
        tiles.addWidget(self.tile_power, 3)
        tiles.addWidget(self.tile_mw, 3)
        self.tile_power.hide()
        self.tile_mw.hide()
        tiles.addWidget(self.tile_tpm, 4)
        tiles.addWidget(self.tile_latency, 3)
        tiles.addWidget(self.tile_p999, 3)
        tiles.addWidget(self.tile_vus, 3)
        tiles.addWidget(self.tile_errors, 3)
        outer.addLayout(tiles)

        self.charts_grid = QGridLayout()
        self.charts_grid.setSpacing(12)
        self.throughput_chart = self.chart("throughput")
        self.scaling_chart = self.chart("scaling")
        self.latency_chart = self.chart("latency")
        outer.addLayout(self.charts_grid, 1)
        self.apply_layout(self.layout_choice)

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
        self._plan_power = plan.power.meter if plan.power.meter != "none" else ""
        self._reset_charts(wl.virtual_users)
        target = "embedded demo" if plan.target.kind == "demo" else plan.target.host
        self.run_name.setText(plan.name)
        self._detail = (
            f"{target}  ·  {wl.warehouses} warehouses  ·  ramp-up {wl.rampup_s:g} s,"
            f" measured {wl.duration_s:g} s per step"
        )
        if self._plan_power:
            self._detail += f"  ·  power: {METER_LABELS.get(self._plan_power, self._plan_power)}"
        self.run_detail.setText(self._detail)
        self.run_detail.setToolTip(self._detail)
        self._update_power_titles()
        self.banner.hide()
        self.stop_button.setEnabled(True)
        self.stop_button.setText("■  Stop run")
        for tile in self._tiles():
            tile.set_value(None, "")
        self._show_power_tiles(bool(self._plan_power))
        self.log_line.setText("")
        self.refresh()
        self.timer.start()

    def handle_event(self, event: Event) -> None:
        """Take one event of the run (no drawing here: the timer does it)."""
        self.model.feed(event)
        if event.kind == "sample" or (event.kind == "progress" and event.get("task") == "idle"):
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
        self._say_what_is_missing()

    def _say_what_is_missing(self) -> None:
        """A chart still empty when the run ends says why, not "waiting" for data that will
        never come (no meter in the plan, host metrics off or not available on the host)."""
        for key, chart in self.charts.items():
            if not chart.empty or isinstance(chart, ScalingChart):
                continue
            if key in ("power", "mw_per_nopm"):
                message = NO_POWER_MESSAGE if not self._plan_power else NO_READINGS_MESSAGE
            else:
                message = NO_HOST_MESSAGE
            chart.note_empty(message)

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
            self.tile_power,
            self.tile_mw,
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
        """Redraw everything from the model now, if it changed."""
        self._update_countdown()
        if self.model.version != self._drawn_version:
            self._mark_stale()
        self._paint_tiles()
        while self._stale:
            self._draw(self._next_stale())

    def tick(self) -> None:
        """The timer's redraw (REDRAW_HZ): the countdown; when the model changed, either the
        tiles and header (at most TILES_HZ) or the next chart in turn, so that one frame never
        paints much (see CHARTS_PER_TICK)."""
        self._update_countdown()
        if self.model.version != self._drawn_version:
            self._mark_stale()
        if self._paint_tiles(throttle=True):
            return  # this frame paints the tiles; the charts go on with the next one
        deadline = time.perf_counter() + TICK_BUDGET_S
        for _ in range(CHARTS_PER_TICK):
            if not self._stale or time.perf_counter() > deadline:
                break
            self._draw(self._next_stale())

    def _next_stale(self) -> str:
        key = next(iter(self._stale))
        del self._stale[key]
        return key

    def _mark_stale(self) -> None:
        """The model changed: every shown chart queued (in order; a chart already queued keeps
        its place, so all of them get their turn), and the tiles and header due a repaint."""
        self._drawn_version = self.model.version
        for key in self.layout_choice.charts:
            self._stale.setdefault(key, key)
        self._tiles_dirty = True

    def _paint_tiles(self, throttle: bool = False) -> bool:
        """Repaint the tiles and header if the model changed since they were painted, at most
        TILES_HZ times a second when ``throttle`` (the numbers change once a second; painting
        big digits every frame under a replayed backlog is wasted work). A throttled change
        stays due, so the last one (the run's end) is never left unpainted. True when painted."""
        if not self._tiles_dirty:
            return False
        now = time.monotonic()
        if throttle and now - self._tiles_at < 1.0 / TILES_HZ:
            return False
        self._tiles_at = now
        self._tiles_dirty = False
        self._update_tiles()
        self._update_header()
        return True

    def _draw(self, key: str) -> None:
        """Give one shown chart the model's current data."""
        model = self.model
        buf = model.samples
        chart = self.charts.get(key)
        if chart is None or key not in self.layout_choice.charts:
            return
        if isinstance(chart, ScalingChart):
            points = [
                (p.vus, p.nopm if key == "scaling" else p.mw_per_nopm, p.complete)
                for p in model.points
            ]
            if points != self._drawn_points_of.get(key):
                self._drawn_points_of[key] = points
                chart.set_points(
                    [p[0] for p in points],
                    [p[1] for p in points],
                    partial=[not p[2] for p in points],
                )
            return
        assert isinstance(chart, TimeSeriesChart)
        t = buf.column("t")
        if key in DEVICE_CHARTS:
            self._draw_devices(key, chart)
        elif key == "memory":
            for spec in chart.specs:
                chart.set_data(spec.key, t, buf.column(spec.key) / 1000.0)  # MB -> GB
        else:
            for spec in chart.specs:
                if spec.key.startswith("socket:"):
                    sock = model.sockets[spec.key.split(":", 1)[1]]
                    chart.set_data(spec.key, sock.column("t"), _busy(sock))
                else:
                    chart.set_data(spec.key, t, buf.column(spec.key))
            if key == "cpu":
                self._add_socket_curves(chart)
            elif key == "power":
                idle = model.idle_power_w
                chart.set_reference(idle, "" if idle is None else f"idle {idle:,.0f} W", IDLE_COLOR)
        # One new step marker per redraw at most: markers are costly to build, and a replayed
        # backlog must not build dozens in one frame (the rest follow on the next redraws).
        # An empty chart (no meter, no host metrics) gets no markers: they would sit on a
        # made-up time axis under its message.
        pending = [] if chart.empty else model.markers[chart.marker_count : chart.marker_count + 1]
        for x, _step, vus in pending:
            chart.add_marker(x, f"{vus} VU")
            if chart.marker_count < len(model.markers):
                self._stale.setdefault(key, key)
        chart.fit()

    def _draw_devices(self, key: str, chart: TimeSeriesChart) -> None:
        model = self.model
        _label, columns, _count = DEVICE_CHARTS[key]
        added = 0
        for device in model.device_order:
            if not self.layout_choice.shows_device(device):
                continue
            if f"{device}:{columns[0][0]}" not in chart.curves:
                if added >= 1:  # one new device per redraw: building curves is not free
                    self._stale.setdefault(key, key)
                    break
                added += 1
            color = self._device_color(device)
            dev = model.devices[device]
            for column, word, dashed in columns:
                series = f"{device}:{column}"
                if series not in chart.curves:
                    chart.add_series(SeriesSpec(series, f"{device} {word}", color, THIN, dashed))
                chart.set_data(series, dev.column("t"), dev.column(column))
        if added:
            shown = [d for d in model.device_order if self.layout_choice.shows_device(d)]
            entries = [(d, self._device_color(d), "line") for d in shown]
            if len(columns) > 1:
                entries.append((f"{columns[0][1]} / {columns[1][1]}", MUTED, "dashed"))
            chart.set_legend_entries(entries)

    def _add_socket_curves(self, chart: TimeSeriesChart) -> None:
        """Busy % per socket (dashed) on hosts with more than one; one new socket a redraw."""
        for i, socket in enumerate(self.model.socket_order):
            key = f"socket:{socket}"
            if key not in chart.curves:
                color = DEVICE_COLORS[(i + 3) % len(DEVICE_COLORS)]
                chart.add_series(SeriesSpec(key, f"socket {socket} busy", color, THIN, True))
                self._stale.setdefault("cpu", "cpu")  # its data comes with the next redraw
                return

    def _device_color(self, device: str) -> str:
        order = self.model.device_order
        index = order.index(device) if device in order else len(order)
        return DEVICE_COLORS[index % len(DEVICE_COLORS)]

    def _update_countdown(self) -> None:
        left = self.countdown_seconds()
        self.countdown.setText("" if left is None else format_duration(left))

    def _update_tiles(self) -> None:
        model = self.model
        tiles = model.tiles()
        if model.has_power and not self.tile_power.isVisible():
            self._show_power_tiles(True)
            self._update_power_titles()
        if self.tile_power.isVisibleTo(self):
            idle = "" if tiles.idle_power_w is None else f"idle {tiles.idle_power_w:,.0f} W"
            detail = "  ·  ".join(p for p in (idle, model.power_error) if p)
            self.tile_power.set_value(_fmt_watts(tiles.power_w), detail)
            best_mw = min(
                (p.mw_per_nopm for p in model.points if p.mw_per_nopm is not None and p.complete),
                default=None,
            )
            self.tile_mw.set_value(
                _fmt_ratio(tiles.mw_per_nopm),
                "lower is better" if best_mw is None else f"best step {_fmt_ratio(best_mw)}",
            )
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
        if model.power_label and model.power_label != self._power_title_label:
            self._update_power_titles()
        if model.server or model.engine:
            server = short_server(model.server) or model.engine
            self.run_detail.setText(f"{self._detail}  ·  {server}")
            self.run_detail.setToolTip(f"{self._detail}\n{model.server}")

    # ---- charts and their layout ---------------------------------------------------------

    def chart(self, key: str) -> ChartCard:
        """The chart of a key, built the first time it is asked for."""
        chart = self.charts.get(key)
        if chart is None:
            chart = self._make_chart(key)
            self.charts[key] = chart
        return chart

    def _make_chart(self, key: str) -> ChartCard:
        if key == "throughput":
            return TimeSeriesChart("Throughput", "Per minute", THROUGHPUT_SERIES, manual_range=True)
        if key == "scaling":
            spec = SeriesSpec("nopm", "NOPM (step result)", NOPM_COLOR)
            return ScalingChart("NOPM by virtual users", "NOPM", spec)
        if key == "latency":
            return TimeSeriesChart(
                "Latency, all transactions",
                "Latency (ms)",
                LATENCY_SERIES,
                count_axis=False,
                manual_range=True,
            )
        if key == "power":
            return TimeSeriesChart(
                "Power",
                "Watts",
                POWER_SERIES,
                count_axis=False,
                empty_message=self._power_empty(),
                manual_range=True,
            )
        if key == "mw_per_nopm":
            return TimeSeriesChart(
                "mW per NOPM",
                "mW / NOPM",
                EFFICIENCY_SERIES,
                count_axis=False,
                empty_message=self._power_empty(),
                manual_range=True,
            )
        if key == "efficiency":
            spec = SeriesSpec("mw", "mW/NOPM (step result, lower is better)", EFFICIENCY_COLOR)
            return ScalingChart(
                "mW per NOPM by virtual users",
                "mW / NOPM",
                spec,
                value_format=lambda v: _fmt_ratio(v) or "",
            )
        if key == "cpu":
            return TimeSeriesChart(
                "CPU", "% of all CPUs", CPU_SERIES, count_axis=False, y_max=100.0, manual_range=True
            )
        if key == "memory":
            return TimeSeriesChart(
                "Memory", "GB", MEMORY_SERIES, count_axis=False, manual_range=True
            )
        if key in DEVICE_CHARTS:
            label, _columns, count = DEVICE_CHARTS[key]
            chart = TimeSeriesChart(
                CHART_INFO[key].title,
                label,
                (),
                count_axis=count,
                empty_message="Waiting for the first host samples…",
                manual_range=True,
            )
            return chart
        raise KeyError(key)

    def _power_empty(self) -> str:
        running = self._running or self.model.phase != "idle"
        if running and not self._plan_power:
            return NO_POWER_MESSAGE
        return "Waiting for the first readings…"

    _power_title_label = ""

    def _update_power_titles(self) -> None:
        """Say what the power is: the system (at the wall / PSU input) or only the CPU."""
        model = self.model
        kind = model.power_meter if model.power_meter not in ("", "power") else self._plan_power
        scope_cpu = model.power_scope == SCOPE_CPU or kind == "rapl"
        self._power_title_label = model.power_label
        if scope_cpu:
            titles = {
                "power": "CPU power (RAPL, not wall)",
                "mw_per_nopm": "mW per NOPM (CPU power)",
                "efficiency": "mW per NOPM by users (CPU power)",
            }
        else:
            meter = METER_LABELS.get(kind, kind).split(" (")[0] if kind else ""
            titles = {
                "power": f"Power ({meter})" if meter else "Power",
                "mw_per_nopm": "mW per NOPM",
                "efficiency": "mW per NOPM by users",
            }
        for key, title in titles.items():
            chart = self.charts.get(key)
            if chart is not None:
                chart.set_title(title)
                chart.setToolTip(model.power_label)
        self.tile_power.title_label.setText("CPU POWER" if scope_cpu else "POWER")
        self.tile_power.setToolTip(model.power_label)

    def _show_power_tiles(self, shown: bool) -> None:
        self.tile_power.setVisible(shown)
        self.tile_mw.setVisible(shown)

    def _reset_charts(self, planned_vus: list[int]) -> None:
        """Empty every chart for a new run; per-device and per-socket curves are rebuilt."""
        for key in list(self.charts):
            if key in DEVICE_CHARTS or key == "cpu":
                self._discard(key)
        self._drawn_points_of = {}
        for key, chart in self.charts.items():
            chart.clear()
            if isinstance(chart, ScalingChart):
                chart.set_categories(planned_vus)
            elif key in ("power", "mw_per_nopm"):
                assert isinstance(chart, TimeSeriesChart)
                chart.empty_message = self._power_empty()
                chart.set_reference(None)
                chart.clear()
        self.apply_layout(self.layout_choice)

    def _cell(self, key: str) -> _Cell:
        """The grid cell holding a chart (built with the chart)."""
        cell = self._cells.get(key)
        if cell is None:
            cell = self._cells[key] = _Cell(self.chart(key))
        return cell

    def _discard(self, key: str) -> None:
        self.charts.pop(key, None)
        cell = self._cells.pop(key, None)
        if cell is not None:
            self.charts_grid.removeWidget(cell)
            cell.hide()
            cell.setParent(None)
            cell.deleteLater()

    def apply_layout(self, layout: LiveLayout) -> None:
        """Show the layout's charts in its order and columns (the others are hidden)."""
        self.layout_choice = layout.normalised()
        grid = self.charts_grid
        for cell in self._cells.values():
            grid.removeWidget(cell)
            cell.hide()
        columns = self.layout_choice.columns
        shown = self.layout_choice.charts
        for i, key in enumerate(shown):
            row, col = divmod(i, columns)
            chart = self.chart(key)
            if isinstance(chart, ScalingChart) and not chart.categories:
                chart.set_categories(self.model.planned_vus)
            cell = self._cell(key)
            grid.addWidget(cell, row, col)
            cell.show()
        rows = (len(shown) + columns - 1) // columns
        for col in range(MAX_COLUMNS):
            grid.setColumnStretch(col, 1 if col < columns else 0)
        for row in range(len(self.charts) + 1):
            grid.setRowStretch(row, 1 if row < rows else 0)
        self._drawn_points_of = {}
        self._stale = {}
        self._drawn_version = -1
        self._update_power_titles()

    def choose_charts(self) -> None:
        """Open the chart chooser (non-blocking); the choice is applied and remembered on OK."""
        if self.layout_dialog is None:
            dialog = ChartLayoutDialog(self.layout_choice, self.model.device_order, self)
            dialog.finished.connect(self._on_layout_chosen)
            self.layout_dialog = dialog
        else:
            self.layout_dialog.set_layout(self.layout_choice, self.model.device_order)
        self.layout_dialog.open()

    def _on_layout_chosen(self, result: int) -> None:
        if result != QDialog.DialogCode.Accepted or self.layout_dialog is None:
            return
        layout = self.layout_dialog.layout_choice()
        if layout.devices != self.layout_choice.devices:
            for key in DEVICE_CHARTS:
                self._discard(key)
        self.apply_layout(layout)
        layout.save(live_settings())
        self.refresh()

    # ---- Qt overrides --------------------------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        self.refresh()


def _busy(buf: RingBuffer) -> np.ndarray:
    """user + system of a socket's buffer (NaN where either is missing)."""
    return np.asarray(buf.column("user") + buf.column("system"))


class _Cell(QWidget):
    """A grid cell for one chart, all of the same preferred size and no height-for-width:
    cells share the grid by stretch alone, so a long title or a legend on two lines never
    makes one row or column bigger than the others."""

    def __init__(self, chart: ChartCard) -> None:
        super().__init__()
        self.chart = chart
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(chart)
        chart.setMinimumSize(240, 200)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(480, 320)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(240, 200)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt override)
        # A legend wrapped under its title has a height for its width; the grid must not give
        # that row more room for it.
        return False
