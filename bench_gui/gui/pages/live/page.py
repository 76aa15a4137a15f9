"""The Live page: big numbers and charts of the run in progress.

The figures are the workload's: each kit's ``live_view`` face (the
:class:`~bench_gui.workloads.live_view.LiveView` contract) is built once with the parts the page
shares (:class:`~bench_gui.workloads.live_view.LiveParts`), and the plan's kit's view is the one
shown; a replayed or re-attached session whose plan did not say gets the view of the kit that
claims its agent's ``hello``. The page keeps what every run has: the header with the phase, the
countdown and the Stop button, the banner, the log line, the driver hosts (issue 18: a strip of
host cards, :mod:`.hosts_strip`, fed by a :class:`~bench_gui.services.live_hosts.LiveHosts`,
with its link when a notice names it, :attr:`LivePage.link_notice`) and the redraw timer.

Events go into a :class:`~bench_gui.services.live_model.LiveModel` (the run's phase and end)
and the shown view as they arrive (cheap, no drawing). One timer redraws at about 15 Hz, and
only when the view changed: the charts get ``setData`` with views of the models' ring buffers,
the tiles get their text. The countdown is interpolated between samples by the same timer, so
it ticks smoothly.

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
    QLabel,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QWidget,
)

from bench_gui.core.plan_model import Plan
from bench_gui.gui.focus import focus_now, restore_focus_later
from bench_gui.gui.pages.live.header import LiveHeader
from bench_gui.gui.pages.live.hosts_strip import HostsStrip
from bench_gui.gui.pages.live.outcome import BANNER_TEXT
from bench_gui.gui.widgets.page_parts import Banner, page_layout
from bench_gui.services.live_hosts import LiveHosts
from bench_gui.services.live_model import LiveModel
from bench_gui.wire.protocol import Event
from bench_gui.workloads.base import DEFAULT_WORKLOAD, UnknownWorkload, kit_for, kits
from bench_gui.workloads.live_view import LiveParts, LiveView

REDRAW_HZ = 30
# Charts redrawn per timer tick at most, and the time after which a tick stops starting new
# ones: a chart costs a few ms to repaint, so a page of twelve is spread over several ticks and
# the event loop never stalls (the data comes once a second; every chart is still redrawn
# several times a second).
CHARTS_PER_TICK = 1
TICK_BUDGET_S = 0.004
TILES_HZ = 5


class LivePage(QWidget):
    """Shows the run in progress, in the view of its workload (:attr:`view`).

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
        # The driver hosts of a run on several hosts (none on one host).
        self.hosts = LiveHosts()
        self.stop_confirm: QMessageBox | None = None
        self._focus_before: QWidget | None = None  # given back when the stop box closes
        self._drawn_version = -1
        self._sample_clock: float | None = None
        self._running = False
        self._tiles_at = 0.0  # when the tiles were last updated (monotonic)
        self._tiles_dirty = False  # the view changed since the tiles and header were painted
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

        self.hosts_strip = HostsStrip(self.hosts)
        parts = LiveParts(
            self.model, self.header, self.banner, self.hosts, self.hosts_strip, self.refresh
        )
        # Every workload's view, by its kit's name; the default workload's shows first.
        self.views: dict[str, LiveView] = {
            kit.name: kit.face("live_view")(parts) for kit in kits() if "live_view" in kit.faces
        }
        for view in self.views.values():
            for widget, stretch in view.widgets():
                outer.addWidget(widget, stretch)
        self.view = self.views[DEFAULT_WORKLOAD]
        for view in self.views.values():
            if view is not self.view:
                view.set_shown(False)

        self.log_line = QLabel("")
        self.log_line.setObjectName("muted")
        self.log_line.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        outer.addWidget(self.log_line)

    # ---- run lifecycle (called by the main window) --------------------------------------

    def begin_run(self, plan: Plan) -> None:
        """Clear everything and get ready for the events of a run of ``plan``."""
        self.hosts.begin()
        self.hosts_strip.reset()
        self._show(self._view_name(plan.workload.kind))
        self._running = True
        self._sample_clock = None
        self._drawn_version = -1
        self.header.begin(plan.name, self.view.begin(plan))
        self.banner.clear()
        self.log_line.setText("")
        self.refresh()
        self.timer.start()

    def _view_name(self, workload: str) -> str:
        """The view of a plan's workload (the default one's for a kit without a view)."""
        try:
            name = kit_for(workload).name
        except UnknownWorkload:
            return DEFAULT_WORKLOAD
        return name if name in self.views else DEFAULT_WORKLOAD

    def _show(self, name: str) -> None:
        """Show the view ``name`` instead of the others; the header offers the chart chooser
        and the Present view only where that view has them."""
        self.view = self.views[name]
        for view in self.views.values():
            if view is not self.view:
                view.set_shown(False)
        self.view.set_shown(True)
        self.header.charts_button.setVisible(self.view.chart_chooser)
        self.header.present_button.setVisible(self.view.present)

    @property
    def presents(self) -> bool:
        """Whether the run shown has the full-screen Present view (else F11 fills the screen
        with this page)."""
        return self.view.present

    def _claimant(self, event: Event) -> str | None:
        """The view that claims a session's ``hello`` when the shown one does not (a stored or
        re-attached session whose plan did not say: its agent does)."""
        if event.kind != "hello" or self.view.claims(event):
            return None
        for name, view in self.views.items():
            if view is not self.view and view.claims(event):
                return name
        return None

    def handle_event(self, event: Event) -> None:
        """Take one event of the run (no drawing here: the timer does it)."""
        claimant = self._claimant(event)
        if claimant is not None:
            self._show(claimant)
            self._drawn_version = -1
            self.header.begin(self.run_name.text(), self.view.adopt(self.model.name, event))
        else:
            self.view.feed(event)
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
        return self.view.status_text(event)

    def run_finished(self, status: str) -> None:
        if not self.model.ended:
            self.model.phase = status if status in ("ok", "stopped", "failed") else "ok"
            self.model.version += 1
        self.view.finish(self.model.phase)
        self._end(self.model.phase)

    def run_failed(self, message: str) -> None:
        self.model.fail(message)
        self.view.fail(message)
        self._end("failed")

    def _end(self, tone: str) -> None:
        self._running = False
        self.timer.stop()
        if self.stop_confirm is not None:
            self.stop_confirm.close()
        self.header.arm_stop(False)
        self.banner_button.setVisible(bool(self.model.samples) or bool(self.model.points))
        text = self.view.banner_text(tone)
        self.banner.show_text(tone if tone in BANNER_TEXT else "stopped", text)
        self.refresh()
        self.view.say_what_is_missing(tone)

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
        this, what = self.view.step_word, self.view.steps_word
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

    def countdown_seconds(self) -> float | None:
        left = self.view.phase_remaining()
        if left is None:
            return None
        if self._sample_clock is not None and self._running:
            left = max(0.0, left - (time.monotonic() - self._sample_clock))
        return left

    def refresh(self) -> None:
        """Redraw everything from the view's model now, if it changed."""
        self.header.set_countdown(self.countdown_seconds(), self.view.measuring())
        if self.view.version != self._drawn_version:
            self._mark_stale()
        self._paint_tiles()
        while self.view.draw_next():
            pass

    def tick(self) -> None:
        """The timer's redraw (REDRAW_HZ): the countdown; when the view changed, either the
        tiles and header (at most TILES_HZ) or the next chart in turn, so that one frame never
        paints much (see CHARTS_PER_TICK)."""
        self.header.set_countdown(self.countdown_seconds(), self.view.measuring())
        if self.view.version != self._drawn_version:
            self._mark_stale()
        if self._paint_tiles(throttle=True):
            return  # this frame paints the tiles; the charts go on with the next one
        deadline = time.perf_counter() + TICK_BUDGET_S
        for _ in range(CHARTS_PER_TICK):
            if time.perf_counter() > deadline or not self.view.draw_next():
                break

    def _mark_stale(self) -> None:
        """The view changed: every shown chart queued, and the tiles and header due a
        repaint."""
        self._drawn_version = self.view.version
        self.view.queue_all()
        self._tiles_dirty = True

    def _paint_tiles(self, throttle: bool = False) -> bool:
        """Repaint the tiles and header if the view changed since they were painted, at most
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
        self.view.paint()
        return True

    def choose_charts(self) -> None:
        """Open the shown view's chart chooser (non-blocking)."""
        self.view.choose_charts()

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt override)
        # No preferred height for a width: the banner's wrapped line would have the scroll
        # frame make the page its preferred height (taller than a 768 px screen) rather than
        # the screen's; the page takes the height it is given, down to its minimum.
        return -1

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        self.refresh()
