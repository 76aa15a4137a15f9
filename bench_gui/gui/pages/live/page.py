"""The Live page: big numbers and charts of the run in progress.

Events go into a :class:`~bench_gui.services.live_model.LiveModel` as they arrive (cheap, no
drawing). One timer redraws at about 15 Hz, and only when the model changed: the charts get
``setData`` with views of the model's ring buffers, the tiles get their text. The countdown is
interpolated between samples by the same timer, so it ticks smoothly.

Which charts show, in what order and over how many columns, and which block devices the disk
charts draw, is the user's choice (:class:`~bench_gui.gui.widgets.chart_layout.LiveLayout`,
remembered in QSettings). Only the charts shown are drawn; a chart is built the first time it
is shown, and a device's curves the first time that device appears in the samples.

A run on several driver hosts (issue 18) shows a strip of host cards under the tiles
(:mod:`.hosts_strip`, fed by a :class:`~bench_gui.services.live_hosts.LiveHosts`): each host's
users, driver rates and CPU, flagged past 80%, and its link when a notice names it
(:attr:`LivePage.link_notice`). A run on one host has no strip.

A random-read run (seed 004: the plan's workload kind, or a replayed or re-attached session whose
agent says so) gets its own view instead of the sweep's tiles and charts
(:mod:`bench_gui.workloads.random_read.live_board`, fed by a
:class:`~bench_gui.workloads.random_read.live_model.RandomReadLive`): ops/s, latency, the
dataset size and the point, in that workload's words.

A frame never paints much (``benchmarks/gui_stream.py`` holds the page to no event-loop stall
over 50 ms and redraws under 16 ms while an hour of samples is fed as fast as it takes them):
the timer redraws either the tiles (a few times a second) or the next chart in turn, the charts
set their own view range once per update (pyqtgraph's auto-range settles over extra repaints)
and keep about one sample per pixel column, and curves are drawn with thin pens.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QDialog,
    QLabel,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QWidget,
)

from bench_gui.core.plan import Plan
from bench_gui.core.power import METER_LABELS, SCOPE_CPU
from bench_gui.gui.focus import focus_now, restore_focus_later
from bench_gui.gui.pages.live.chart_board import ChartBoard, power_titles
from bench_gui.gui.pages.live.header import LiveHeader
from bench_gui.gui.pages.live.hosts_strip import HostsStrip
from bench_gui.gui.pages.live.outcome import (
    BANNER_TEXT,
    NO_POWER_MESSAGE,
    WAITING_FOR_POWER,
    banner_text,
)
from bench_gui.gui.pages.live.tile_row import TileRow
from bench_gui.gui.widgets.chart_catalogue import DEVICE_CHARTS
from bench_gui.gui.widgets.chart_layout import ChartLayoutDialog, LiveLayout, live_settings
from bench_gui.gui.widgets.charts import ChartCard
from bench_gui.gui.widgets.page_parts import Banner, page_layout
from bench_gui.services.live_hosts import LiveHosts
from bench_gui.services.live_model import LiveModel
from bench_gui.services.session_view import user_count
from bench_gui.wire.protocol import Event
from bench_gui.workloads.random_read.live_board import (
    RandomReadBoard,
    header_state,
    plan_detail,
    study_detail,
)
from bench_gui.workloads.random_read.live_board import banner_text as random_read_banner
from bench_gui.workloads.random_read.live_board import status_text as random_read_status
from bench_gui.workloads.random_read.live_model import RandomReadLive, is_random_read

REDRAW_HZ = 30
# Charts redrawn per timer tick at most, and the time after which a tick stops starting new
# ones: a chart costs a few ms to repaint, so a page of twelve is spread over several ticks and
# the event loop never stalls (the data comes once a second; every chart is still redrawn
# several times a second).
CHARTS_PER_TICK = 1
TICK_BUDGET_S = 0.004
TILES_HZ = 5


class LivePage(QWidget):
    """Shows the run in progress.

    Signals:
        stop_requested(): the user confirmed that the run should stop.
        open_session_requested(): the user wants the finished run in the Sessions page.
        present_requested(): the user wants the run on the full-screen Present view.
        link_notice(str, str): a link notice of the run (``RunController.on_notice``'s state
            and detail); may be emitted from any thread, it is shown in the GUI thread.
    """

    stop_requested = Signal()
    open_session_requested = Signal()
    present_requested = Signal()
    link_notice = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = LiveModel()
        # The random-read view's model; ``random_read``: that view is the one shown.
        self.rr = RandomReadLive()
        self.random_read = False
        # The driver hosts of a run on several hosts (none on one host).
        self.hosts = LiveHosts()
        self.stop_confirm: QMessageBox | None = None
        self._focus_before: QWidget | None = None  # given back when the stop box closes
        self.layout_dialog: ChartLayoutDialog | None = None
        self._drawn_version = -1
        self._sample_clock: float | None = None
        self._running = False
        self._plan_power = ""  # the plan's meter kind ("" or "none": no power)
        self._power_title_label = ""  # the meter label the power titles were made for
        self._tiles_at = 0.0  # when the tiles were last updated (monotonic)
        self._tiles_dirty = False  # the model changed since the tiles and header were painted
        self._build_ui()
        self.timer = QTimer(self)
        self.timer.setInterval(int(1000 / REDRAW_HZ))
        self.timer.timeout.connect(self.tick)
        self.link_notice.connect(self.show_notice)

    def _build_ui(self) -> None:
        outer = page_layout(self, spacing=12)

        self.header = LiveHeader()
        self.header.charts_button.clicked.connect(self.choose_charts)
        self.header.present_button.clicked.connect(self.present_requested)
        self.header.stop_button.clicked.connect(self.ask_stop)
        outer.addWidget(self.header)
        # The header's parts by the names the tests and the main window know.
        self.run_name, self.run_detail = self.header.title, self.header.subtitle
        self.phase_pill, self.countdown = self.header.phase_pill, self.header.countdown
        self.step_label, self.stop_button = self.header.step_label, self.header.stop_button

        self.banner = Banner()
        self.banner_label = self.banner.label
        self.banner_button = QPushButton("Open in Sessions")
        self.banner_button.clicked.connect(self.open_session_requested)
        self.banner.add_widget(self.banner_button)
        outer.addWidget(self.banner)

        self.tiles = TileRow()
        tiles = self.tiles
        self.tile_nopm, self.tile_tpm, self.tile_vus = tiles.nopm, tiles.tpm, tiles.vus
        self.tile_power, self.tile_mw, self.tile_errors = tiles.power, tiles.mw, tiles.errors
        self.tile_latency, self.tile_p999 = tiles.latency, tiles.p999
        outer.addWidget(tiles)

        self.hosts_strip = HostsStrip(self.hosts)
        outer.addWidget(self.hosts_strip)

        self.board = ChartBoard(self.model, LiveLayout.load(live_settings()))
        self.charts = self.board.charts
        self.charts_grid = self.board.grid
        self.throughput_chart = self.board.chart("throughput")
        self.scaling_chart = self.board.chart("scaling")
        self.latency_chart = self.board.chart("latency")
        outer.addWidget(self.board, 1)
        self.apply_layout(self.board.layout_choice)

        self.rr_board = RandomReadBoard(self.rr)
        self.rr_board.hide()
        outer.addWidget(self.rr_board, 1)

        self.log_line = QLabel("")
        self.log_line.setObjectName("muted")
        self.log_line.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        outer.addWidget(self.log_line)

    # ---- run lifecycle (called by the main window) --------------------------------------

    def begin_run(self, plan: Plan) -> None:
        """Clear everything and get ready for the events of a run of ``plan``."""
        wl = plan.workload
        self.hosts.begin()
        self.hosts_strip.reset()
        self._show_random_read(wl.kind == "random_read")
        if self.random_read:
            self._begin_random_read(plan)
            return
        self.model.begin(wl.virtual_users, wl.rampup_s, wl.duration_s, plan.name)
        self._running = True
        self._sample_clock = None
        self._drawn_version = -1
        self._plan_power = plan.power.meter if plan.power.meter != "none" else ""
        self.board.power_note = WAITING_FOR_POWER if self._plan_power else NO_POWER_MESSAGE
        self.board.set_power_absent(not self._plan_power)
        self.board.reset(wl.virtual_users)
        self.apply_layout(self.board.layout_choice)
        target = "embedded demo" if plan.target.kind == "demo" else plan.target.host
        detail = (
            f"{target}  ·  {wl.warehouses} warehouses  ·  ramp-up {wl.rampup_s:g} s,"
            f" measured {wl.duration_s:g} s per step"
        )
        if self._plan_power:
            detail += f"  ·  power: {METER_LABELS.get(self._plan_power, self._plan_power)}"
        self.header.begin(plan.name, detail)
        self._update_power_titles()
        self.banner.clear()
        self.tiles.reset(bool(self._plan_power))
        self.log_line.setText("")
        self.refresh()
        self.timer.start()

    def _begin_random_read(self, plan: Plan) -> None:
        wl = plan.workload
        self.model.begin([], wl.warmup_s, wl.measure_s, plan.name)
        self.rr.begin(plan.name, wl.warmup_s, wl.measure_s, wl.raw_iops_s)
        self._running = True
        self._sample_clock = None
        self._drawn_version = -1
        self._plan_power = ""
        self.rr_board.reset()
        self.header.begin(plan.name, plan_detail(plan))
        self.banner.clear()
        self.log_line.setText("")
        self.refresh()
        self.timer.start()

    def _show_random_read(self, shown: bool) -> None:
        """The random-read view instead of the sweep's tiles and charts (or back). The chart
        chooser and the Present view are the sweep's: not offered for random reads."""
        self.random_read = shown
        self.tiles.setVisible(not shown)
        self.board.setVisible(not shown)
        self.rr_board.setVisible(shown)
        self.header.charts_button.setVisible(not shown)
        self.header.present_button.setVisible(not shown)

    def handle_event(self, event: Event) -> None:
        """Take one event of the run (no drawing here: the timer does it)."""
        if not self.random_read and event.kind == "hello" and is_random_read(event):
            # A stored or re-attached session whose plan did not say: its agent does.
            self._show_random_read(True)
            self.rr.begin(self.model.name, 0.0, 0.0)
            self.rr_board.reset()
            self._drawn_version = -1
            self.rr.feed(event)
            self.header.begin(self.run_name.text(), study_detail(self.rr))
        elif self.random_read:
            self.rr.feed(event)
        else:
            self.hosts.feed(event)
        self.model.feed(event)
        if event.kind == "sample" or (event.kind == "progress" and event.get("task") == "idle"):
            self._sample_clock = time.monotonic()
        elif event.kind in ("log", "error"):
            message = event.get("message")
            if message:
                self.log_line.setText(str(message))

    def show_notice(self, state: str, detail: str) -> None:
        """A link notice: the card of the host it names says so (a run on one host's notices
        name none). Call in the GUI thread, or emit :attr:`link_notice` from any thread."""
        try:
            named = self.hosts.notice(state, detail)
        except ValueError as exc:
            self.log_line.setText(str(exc))
            return
        if named:
            self.hosts_strip.draw()

    def status_for(self, event: Event) -> str:
        """The window's status line for an event just taken: what the run does now, in its
        workload's words ("" when the event changes nothing worth saying)."""
        if self.random_read:
            return random_read_status(self.rr, event)
        if event.kind == "step" and event.get("phase") == "start":
            model = self.model
            return (
                f"Sweep running: step {model.step_number} of {model.step_count or '?'}"
                f" ({user_count(int(event.get('vus') or 0))})"
            )
        if event.kind == "hello":
            return f"Sweep running against {event.get('server') or 'the target'}"
        return ""

    def run_finished(self, status: str) -> None:
        if not self.model.ended:
            self.model.phase = status if status in ("ok", "stopped", "failed") else "ok"
            self.model.version += 1
        if self.random_read and not self.rr.ended:
            self.rr.finish(self.model.phase)
        self._end(self.model.phase)

    def run_failed(self, message: str) -> None:
        self.model.fail(message)
        if self.random_read:
            self.rr.finish("failed", message)
        self._end("failed")

    def _end(self, tone: str) -> None:
        self._running = False
        self.timer.stop()
        if self.stop_confirm is not None:
            self.stop_confirm.close()
        self.header.arm_stop(False)
        self.banner_button.setVisible(bool(self.model.samples) or bool(self.model.points))
        if self.random_read:
            text = random_read_banner(self.rr, tone)
        else:
            text = banner_text(self.model, tone)
        self.banner.show_text(tone if tone in BANNER_TEXT else "stopped", text)
        self.refresh()
        if self.random_read:
            self.rr_board.say_what_is_missing(tone)
        else:
            self.board.say_what_is_missing(bool(self._plan_power), tone)

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
            box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
            box.setDefaultButton(QMessageBox.StandardButton.No)
            box.button(QMessageBox.StandardButton.Yes).setText("Stop run")
            box.button(QMessageBox.StandardButton.No).setText("Keep running")
            box.finished.connect(self._on_confirm_finished)
            self.stop_confirm = box
        what = "dataset sizes" if self.random_read else "steps"
        this = "point" if self.random_read else "step"
        self.stop_confirm.setInformativeText(
            f"The current {this} ends early; the {what} measured so far are kept in the session."
        )
        self._focus_before = focus_now()
        self.stop_confirm.open()

    def _on_confirm_finished(self, result: int) -> None:
        # The Stop button may be disabled now: the focus goes back where it was, or nearby.
        restore_focus_later(self._focus_before, self)
        if result == QMessageBox.StandardButton.Yes and self._running:
            self.stop_button.setEnabled(False)
            self.stop_button.setText("Stopping…")
            self.stop_requested.emit()

    # ---- drawing -------------------------------------------------------------------------

    def _measuring(self) -> bool:
        return not self.random_read and self.model.phase == "measure"

    def countdown_seconds(self) -> float | None:
        left = self.rr.phase_remaining() if self.random_read else self.model.phase_remaining()
        if left is None:
            return None
        if self._sample_clock is not None and self._running:
            left = max(0.0, left - (time.monotonic() - self._sample_clock))
        return left

    def refresh(self) -> None:
        """Redraw everything from the model now, if it changed."""
        self.header.set_countdown(self.countdown_seconds(), self._measuring())
        if self._model_version() != self._drawn_version:
            self._mark_stale()
        self._paint_tiles()
        if self.random_read:
            self.rr_board.draw_all()
        while self.board.stale:
            self.board.draw(self.board.next_stale())

    def tick(self) -> None:
        """The timer's redraw (REDRAW_HZ): the countdown; when the model changed, either the
        tiles and header (at most TILES_HZ) or the next chart in turn, so that one frame never
        paints much (see CHARTS_PER_TICK)."""
        self.header.set_countdown(self.countdown_seconds(), self._measuring())
        if self._model_version() != self._drawn_version:
            self._mark_stale()
        if self._paint_tiles(throttle=True):
            return  # this frame paints the tiles; the charts go on with the next one
        if self.random_read:
            if self.rr_board.stale:
                self.rr_board.draw(self.rr_board.next_stale())
            return
        deadline = time.perf_counter() + TICK_BUDGET_S
        for _ in range(CHARTS_PER_TICK):
            if not self.board.stale or time.perf_counter() > deadline:
                break
            self.board.draw(self.board.next_stale())

    def _model_version(self) -> int:
        """The version of the model the shown view draws."""
        return self.rr.version if self.random_read else self.model.version

    def _mark_stale(self) -> None:
        """The model changed: every shown chart queued, and the tiles and header due a
        repaint."""
        self._drawn_version = self._model_version()
        if self.random_read:
            self.rr_board.queue_all()
        else:
            self.board.queue_shown()
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
        if self.random_read:
            self._paint_random_read()
            return True
        model = self.model
        if model.has_power and not self.tile_power.isVisible():
            self.tiles.show_power(True)
            self._update_power_titles()
        if model.has_power and self.board.set_power_absent(False):
            self.apply_layout(self.board.layout_choice)  # readings came without a meter
        self.tiles.show_model(model)
        self.hosts_strip.draw()
        self.header.show_model(model)
        self._show_db_warning(model.db_warning)
        if model.power_label and model.power_label != self._power_title_label:
            self._update_power_titles()
        return True

    def _paint_random_read(self) -> None:
        """The random-read tiles and the header in that workload's words."""
        rr = self.rr
        self.rr_board.tiles.show_model(rr)
        pill, tone, line = header_state(rr)
        self.phase_pill.setText(pill)
        self.header.set_pill(tone)
        self.step_label.setText(line)
        if rr.fio_version:
            self.run_detail.setText(f"{self.header.detail}  ·  {rr.fio_version}")

    def _show_db_warning(self, warning: str) -> None:
        """While the database does not answer, the banner says so; it goes when it answers
        (the run's outcome, shown in the same banner, is left alone)."""
        shown = self.banner.text()
        if warning:
            self.banner.show_text("stopped", f"{warning[0].upper()}{warning[1:]}.")
        elif shown.startswith("Database not answering"):
            self.banner.clear()

    def _update_power_titles(self) -> None:
        """Say what the power is: the system (at the wall / PSU input) or only the CPU."""
        model = self.model
        kind = model.power_meter if model.power_meter not in ("", "power") else self._plan_power
        cpu_only = model.power_scope == SCOPE_CPU or kind == "rapl"
        self._power_title_label = model.power_label
        self.board.set_titles(power_titles(kind, cpu_only), model.power_label)
        self.tiles.set_power_scope(cpu_only, model.power_label)

    # ---- charts and their layout ---------------------------------------------------------

    def chart(self, key: str) -> ChartCard:
        """The chart of a key, built the first time it is asked for."""
        return self.board.chart(key)

    @property
    def layout_choice(self) -> LiveLayout:
        return self.board.layout_choice

    @property
    def _stale(self) -> dict[str, str]:
        """The charts waiting for their redraw, in order (for tests)."""
        return self.board.stale

    def apply_layout(self, layout: LiveLayout) -> None:
        """Show the layout's charts in its order and columns (the others are hidden)."""
        self.board.apply_layout(layout)
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
                self.board.discard(key)
        self.apply_layout(layout)
        layout.save(live_settings())
        self.refresh()

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt override)
        # No preferred height for a width: the banner's wrapped line would have the scroll
        # frame make the page its preferred height (taller than a 768 px screen) rather than
        # the screen's; the page takes the height it is given, down to its minimum.
        return -1

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        self.refresh()
