"""The Live page's charts: built when first shown, laid out as the user chose, drawn in turn.

A chart that needs drawing is queued in :attr:`ChartBoard.stale` (in display order, each once);
the page draws the next one per timer tick (:meth:`ChartBoard.draw`), so a frame never paints
much. Per-device and per-socket curves are added one per redraw as they appear in the samples.

The rows fill the width: the charts are spread evenly over as many rows as the chosen columns
need (four charts in three columns make two rows of two, not three and one). A run without a
power meter has no power charts: they give their room to the others and one line under the
grid says why. The time charts shade each step's measured window.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QSize
from PySide6.QtWidgets import QGridLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from bench_gui.core.power import METER_LABELS
from bench_gui.gui.pages.live.numbers import fmt_ratio
from bench_gui.gui.pages.live.outcome import (
    ENDED_EARLY,
    NO_HOST_MESSAGE,
    NO_POWER_MESSAGE,
    NO_POWER_NOTE,
    NO_READINGS_MESSAGE,
    WAITING_FOR_POWER,
)
from bench_gui.gui.widgets.chart_catalogue import DEVICE_CHARTS, THIN, time_chart
from bench_gui.gui.widgets.chart_layout import LiveLayout
from bench_gui.gui.widgets.charts import (
    DEVICE_COLORS,
    EFFICIENCY_COLOR,
    IDLE_COLOR,
    MUTED,
    NOPM_COLOR,
    ChartCard,
    ScalingChart,
    SeriesSpec,
    TimeSeriesChart,
)
from bench_gui.services.live_model import LiveModel, RingBuffer

POWER_CHARTS = ("power", "mw_per_nopm")
# The charts that draw nothing without a meter (they collapse into the board's note line).
NEEDS_POWER = (*POWER_CHARTS, "efficiency")
WAITING_FOR_HOST = "Waiting for the first host samples…"
CELL_MIN_HEIGHT = 150
# Grid columns per row: every row count of charts (1 to 4) divides it, so each row fills it.
GRID_UNITS = 12


def spread(count: int, columns: int) -> list[int]:
    """How many charts each row holds: as few rows as ``columns`` allow, the charts spread
    evenly over them (the first rows take one more when they do not divide)."""
    if count <= 0:
        return []
    rows = -(-count // max(1, columns))
    base, extra = divmod(count, rows)
    return [base + (1 if r < extra else 0) for r in range(rows)]


def power_titles(meter: str, cpu_only: bool) -> dict[str, str]:
    """The power charts' titles: whether the watts are the system's (at the wall, the PSU
    input) or only the CPU's, and which meter gave them."""
    if cpu_only:
        return {
            "power": "CPU power (RAPL, not wall)",
            "mw_per_nopm": "mW per NOPM (CPU power)",
            "efficiency": "mW per NOPM by users (CPU power)",
        }
    name = METER_LABELS.get(meter, meter).split(" (")[0] if meter else ""
    return {
        "power": f"Power ({name})" if name else "Power",
        "mw_per_nopm": "mW per NOPM",
        "efficiency": "mW per NOPM by users",
    }


class ChartBoard(QWidget):
    """The grid of the shown charts, and every chart built so far (``charts``, by key)."""

    def __init__(self, model: LiveModel, layout: LiveLayout) -> None:
        super().__init__()
        self.model = model
        self.layout_choice = layout.normalised()
        self.charts: dict[str, ChartCard] = {}
        self.stale: dict[str, str] = {}  # charts waiting for their redraw, in order
        self.power_note = WAITING_FOR_POWER  # what an empty power chart says
        self._cells: dict[str, _Cell] = {}
        self._drawn_points_of: dict[str, list[tuple[int, float | None, bool]]] = {}
        self._drawn_windows: dict[str, int] = {}  # how many windows each chart shaded
        self.power_absent = False  # no meter in the plan and no readings: no power charts
        self.placed: list[list[str]] = []  # the charts shown, row by row
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(8)
        holder = QWidget()
        self.grid = QGridLayout(holder)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(12)
        column.addWidget(holder, 1)
        self.note = QLabel("")
        self.note.setObjectName("muted")
        self.note.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.note.hide()
        column.addWidget(self.note)

    # ---- building and layout -------------------------------------------------------------

    def chart(self, key: str) -> ChartCard:
        """The chart of a key, built the first time it is asked for."""
        chart = self.charts.get(key)
        if chart is None:
            chart = self._make_chart(key)
            self.charts[key] = chart
        return chart

    def _make_chart(self, key: str) -> ChartCard:
        chart = self._build_chart(key)
        if key == "throughput" and isinstance(chart, TimeSeriesChart):
            chart.window_legend = True  # the headline chart says what the shading is
        return chart

    def _build_chart(self, key: str) -> ChartCard:
        if key == "scaling":
            spec = SeriesSpec("nopm", "NOPM (step result)", NOPM_COLOR)
            return ScalingChart("NOPM by virtual users", "NOPM", spec)
        if key == "efficiency":
            spec = SeriesSpec("mw", "mW/NOPM (step result, lower is better)", EFFICIENCY_COLOR)
            return ScalingChart(
                "mW per NOPM by virtual users",
                "mW / NOPM",
                spec,
                value_format=lambda v: fmt_ratio(v) or "",
            )
        if key in POWER_CHARTS:
            return time_chart(key, self.power_note)
        if key in DEVICE_CHARTS:
            return time_chart(key, WAITING_FOR_HOST)
        return time_chart(key)

    def _cell(self, key: str) -> _Cell:
        """The grid cell holding a chart (built with the chart)."""
        cell = self._cells.get(key)
        if cell is None:
            cell = self._cells[key] = _Cell(self.chart(key))
        return cell

    def discard(self, key: str) -> None:
        """Forget a chart (it is built again, empty, when next shown)."""
        self.charts.pop(key, None)
        cell = self._cells.pop(key, None)
        if cell is not None:
            self.grid.removeWidget(cell)
            cell.hide()
            cell.setParent(None)
            cell.deleteLater()

    def shown_keys(self) -> list[str]:
        """The layout's charts that are on screen (those needing power are not, without it)."""
        charts = self.layout_choice.charts
        if self.power_absent:
            return [k for k in charts if k not in NEEDS_POWER]
        return list(charts)

    def set_power_absent(self, absent: bool) -> bool:
        """Whether the run has no power to chart; True when that changed (lay out again)."""
        changed = absent != self.power_absent
        self.power_absent = absent
        return changed

    def apply_layout(self, layout: LiveLayout) -> None:
        """Show the layout's charts in its order, spread over rows that fill the width (the
        others are hidden); the power charts of a run without power make one note line."""
        self.layout_choice = layout.normalised()
        grid = self.grid
        for cell in self._cells.values():
            grid.removeWidget(cell)
            cell.hide()
        shown = self.shown_keys()
        self.placed = []
        keys = iter(shown)
        for row, count in enumerate(spread(len(shown), self.layout_choice.columns)):
            self.placed.append([next(keys) for _ in range(count)])
            span = GRID_UNITS // count
            for i, key in enumerate(self.placed[-1]):
                chart = self.chart(key)
                if isinstance(chart, ScalingChart) and not chart.categories:
                    chart.set_categories(self.model.planned_vus)
                cell = self._cell(key)
                grid.addWidget(cell, row, i * span, 1, span)
                cell.show()
        for col in range(GRID_UNITS):
            grid.setColumnStretch(col, 1)
        for row in range(len(self.charts) + 1):
            grid.setRowStretch(row, 1 if row < len(self.placed) else 0)
        hidden = [k for k in self.layout_choice.charts if k not in shown]
        self.note.setText(NO_POWER_NOTE if hidden else "")
        self.note.setVisible(bool(hidden))
        self._drawn_points_of = {}
        self._drawn_windows = {}
        self.stale.clear()

    def position_of(self, key: str) -> tuple[int, int] | None:
        """(row, place in the row) of a shown chart, None if it is not shown."""
        for r, row in enumerate(self.placed):
            if key in row:
                return r, row.index(key)
        return None

    def reset(self, planned_vus: list[int]) -> None:
        """Empty every chart for a new run; per-device and per-socket curves are rebuilt (the
        caller applies the layout again)."""
        for key in list(self.charts):
            if key in DEVICE_CHARTS or key == "cpu":
                self.discard(key)
        self._drawn_points_of = {}
        self._drawn_windows = {}
        for key, chart in self.charts.items():
            chart.clear()
            if isinstance(chart, ScalingChart):
                chart.set_categories(planned_vus)
            elif key in POWER_CHARTS:
                assert isinstance(chart, TimeSeriesChart)
                chart.empty_message = self.power_note
                chart.set_reference(None)
                chart.clear()

    def set_titles(self, titles: dict[str, str], tooltip: str) -> None:
        for key, title in titles.items():
            chart = self.charts.get(key)
            if chart is not None:
                chart.set_title(title)
                chart.setToolTip(tooltip)

    def say_what_is_missing(self, has_meter: bool, tone: str = "ok") -> None:
        """A chart still empty when the run ends says why, not "waiting" for data that will
        never come: the run failed (or was stopped) before its first sample, no meter in the
        plan, host metrics off or not available on the host."""
        early = ENDED_EARLY.get(tone) if len(self.model.samples) == 0 else None
        for key, chart in self.charts.items():
            if not chart.empty:
                continue
            if early is not None:
                message = early
            elif isinstance(chart, ScalingChart):
                continue
            elif key in POWER_CHARTS:
                message = NO_READINGS_MESSAGE if has_meter else NO_POWER_MESSAGE
            else:
                message = NO_HOST_MESSAGE
            chart.note_empty(message)

    # ---- drawing -------------------------------------------------------------------------

    def queue_shown(self) -> None:
        """Queue every shown chart for a redraw (a chart already queued keeps its place, so
        all of them get their turn)."""
        for key in self.shown_keys():
            self.stale.setdefault(key, key)

    def next_stale(self) -> str:
        key = next(iter(self.stale))
        del self.stale[key]
        return key

    def draw(self, key: str) -> None:
        """Give one shown chart the model's current data."""
        model = self.model
        buf = model.samples
        chart = self.charts.get(key)
        if chart is None or key not in self.shown_keys():
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
                self.stale.setdefault(key, key)
        if not chart.empty and (
            len(model.windows) != self._drawn_windows.get(key) or model.phase == "measure"
        ):
            chart.set_windows(model.windows)
            self._drawn_windows[key] = len(model.windows)
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
                    self.stale.setdefault(key, key)
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
                self.stale.setdefault("cpu", "cpu")  # its data comes with the next redraw
                return

    def _device_color(self, device: str) -> str:
        order = self.model.device_order
        index = order.index(device) if device in order else len(order)
        return DEVICE_COLORS[index % len(DEVICE_COLORS)]


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
        # Short enough for two rows of charts under two rows of tiles on a 768 px screen: the
        # plot gives up height (and its time axis' title) before anything is clipped.
        chart.setMinimumSize(240, CELL_MIN_HEIGHT)
        chart.plot_widget.setMinimumHeight(90)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(480, 260)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(240, CELL_MIN_HEIGHT)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt override)
        # A legend wrapped under its title has a height for its width; the grid must not give
        # that row more room for it.
        return False
