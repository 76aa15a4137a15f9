"""The Live page's view of a TPROC-C sweep: the big numbers, the driver hosts and the charts.

Events go into the page's :class:`~bench_gui.services.live_model.LiveModel` (the run's model
this view draws); the tiles (:mod:`bench_gui.gui.pages.live.tile_row`) and the charts
(:mod:`bench_gui.gui.pages.live.chart_board`) show it. Which charts show, in what order and over
how many columns, and which block devices the disk charts draw, is the user's choice
(:class:`~bench_gui.gui.widgets.chart_layout.LiveLayout`, remembered in QSettings). A run on
several driver hosts (issue 18) shows the page's strip of host cards under the tiles, fed here.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QDialog, QWidget

from bench_gui.core.plan_model import Plan
from bench_gui.core.power import METER_LABELS, SCOPE_CPU
from bench_gui.gui.pages.live.chart_board import ChartBoard, power_titles
from bench_gui.gui.pages.live.outcome import NO_POWER_MESSAGE, WAITING_FOR_POWER, banner_text
from bench_gui.gui.pages.live.tile_row import TileRow
from bench_gui.gui.widgets.chart_catalogue import DEVICE_CHARTS
from bench_gui.gui.widgets.chart_layout import ChartLayoutDialog, LiveLayout, live_settings
from bench_gui.gui.widgets.charts import ChartCard
from bench_gui.services.session_view import user_count
from bench_gui.wire.protocol import Event
from bench_gui.workloads.live_view import LiveParts


class TprocCLiveView:
    """The sweep's tiles, host strip and charts, drawn from the page's run model."""

    chart_chooser = True
    present = True
    step_word = "step"
    steps_word = "steps"

    def __init__(self, parts: LiveParts) -> None:
        self.parts = parts
        self.model = parts.model
        self.layout_dialog: ChartLayoutDialog | None = None
        self._plan_power = ""  # the plan's meter kind ("" or "none": no power)
        self._power_title_label = ""  # the meter label the power titles were made for
        self._layouts = 0  # layouts applied: what is drawn changes with them

        self.tiles = TileRow()
        tiles = self.tiles
        self.tile_nopm, self.tile_tpm, self.tile_vus = tiles.nopm, tiles.tpm, tiles.vus
        self.tile_power, self.tile_mw, self.tile_errors = tiles.power, tiles.mw, tiles.errors
        self.tile_latency, self.tile_p999 = tiles.latency, tiles.p999

        self.board = ChartBoard(self.model, LiveLayout.load(live_settings()))
        self.charts = self.board.charts
        self.charts_grid = self.board.grid
        self.throughput_chart = self.board.chart("throughput")
        self.scaling_chart = self.board.chart("scaling")
        self.latency_chart = self.board.chart("latency")
        self.apply_layout(self.board.layout_choice)

    def widgets(self) -> Sequence[tuple[QWidget, int]]:
        return ((self.tiles, 0), (self.parts.hosts_strip, 0), (self.board, 1))

    def set_shown(self, shown: bool) -> None:
        self.tiles.setVisible(shown)
        self.board.setVisible(shown)

    def claims(self, hello: Event) -> bool:
        # The default view: a session's hello never has to claim it (the page starts with it).
        return False

    # ---- a run -----------------------------------------------------------------------------

    def begin(self, plan: Plan) -> str:
        wl = plan.workload
        self.model.begin(wl.virtual_users, wl.rampup_s, wl.duration_s, plan.name)
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
        self._update_power_titles()
        self.tiles.reset(bool(self._plan_power))
        return detail

    def adopt(self, name: str, hello: Event) -> str:
        # Never called: the sweep's view claims no hello (see claims).
        self.feed(hello)
        return self.parts.header.detail

    def feed(self, event: Event) -> None:
        self.parts.hosts.feed(event)

    def status_text(self, event: Event) -> str:
        if event.kind == "step" and event.get("phase") == "start":
            model = self.model
            return (
                f"Sweep running: step {model.step_number} of {model.step_count or '?'}"
                f" ({user_count(int(event.get('vus') or 0))})"
            )
        if event.kind == "hello":
            return f"Sweep running against {event.get('server') or 'the target'}"
        return ""

    def finish(self, status: str) -> None:
        pass  # the page's model is this view's

    def fail(self, message: str) -> None:
        pass

    def banner_text(self, tone: str) -> str:
        return banner_text(self.model, tone)

    def say_what_is_missing(self, tone: str) -> None:
        self.board.say_what_is_missing(bool(self._plan_power), tone)

    def phase_remaining(self) -> float | None:
        return self.model.phase_remaining()

    def measuring(self) -> bool:
        return self.model.phase == "measure"

    # ---- drawing ---------------------------------------------------------------------------

    @property
    def version(self) -> int:
        return self.model.version + self._layouts

    def queue_all(self) -> None:
        self.board.queue_shown()

    def draw_next(self) -> bool:
        if not self.board.stale:
            return False
        self.board.draw(self.board.next_stale())
        return True

    def paint(self) -> None:
        model = self.model
        if model.has_power and not self.tile_power.isVisible():
            self.tiles.show_power(True)
            self._update_power_titles()
        if model.has_power and self.board.set_power_absent(False):
            self.apply_layout(self.board.layout_choice)  # readings came without a meter
        self.tiles.show_model(model)
        self.parts.hosts_strip.draw()
        self.parts.header.show_model(model)
        self._show_db_warning(model.db_warning)
        if model.power_label and model.power_label != self._power_title_label:
            self._update_power_titles()

    def _show_db_warning(self, warning: str) -> None:
        """While the database does not answer, the banner says so; it goes when it answers
        (the run's outcome, shown in the same banner, is left alone)."""
        banner = self.parts.banner
        if warning:
            banner.show_text("stopped", f"{warning[0].upper()}{warning[1:]}.")
        elif banner.text().startswith("Database not answering"):
            banner.clear()

    def _update_power_titles(self) -> None:
        """Say what the power is: the system (at the wall / PSU input) or only the CPU."""
        model = self.model
        kind = model.power_meter if model.power_meter not in ("", "power") else self._plan_power
        cpu_only = model.power_scope == SCOPE_CPU or kind == "rapl"
        self._power_title_label = model.power_label
        self.board.set_titles(power_titles(kind, cpu_only), model.power_label)
        self.tiles.set_power_scope(cpu_only, model.power_label)

    # ---- charts and their layout -----------------------------------------------------------

    def chart(self, key: str) -> ChartCard:
        """The chart of a key, built the first time it is asked for."""
        return self.board.chart(key)

    @property
    def layout_choice(self) -> LiveLayout:
        return self.board.layout_choice

    def apply_layout(self, layout: LiveLayout) -> None:
        """Show the layout's charts in its order and columns (the others are hidden)."""
        self.board.apply_layout(layout)
        self._layouts += 1
        self._update_power_titles()

    def choose_charts(self) -> None:
        """Open the chart chooser (non-blocking); the choice is applied and remembered on OK."""
        if self.layout_dialog is None:
            dialog = ChartLayoutDialog(self.layout_choice, self.model.device_order, self.board)
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
        self.parts.refresh()
