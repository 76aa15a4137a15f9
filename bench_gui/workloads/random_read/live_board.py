"""The Live page's view of a random-read run (seed 004): its own tiles and charts, in its words.

Tiles: ops/s (the headline), MB/s, p99 and p99.9 latency, the dataset size being read (its RAM
multiple large, its size beside the title: "Dataset 128 MiB / 2× RAM") and the point (N of M)
with the phase under it; the header says "Point 2 of 5 · 2× RAM · 128 MiB". Where the six tiles
do not fit one row (a 1366 px screen) the point's tile gives way and the dataset's says the
point and the phase: one row of tiles leaves the charts their height.

Charts: the current point's ops/s and latency percentiles by second (its measured window
shaded, as the sweep charts do), the device's reads a second from the host sampler, and the
dataset-size axis filling in point by point with the raw IOPS of the direct-I/O pre-pass
(:mod:`.live_charts`). The figures come from a
:class:`~bench_gui.workloads.random_read.live_model.RandomReadLive`; like the sweep's board, a chart
that needs drawing is queued and the page draws one per timer tick.
"""

from __future__ import annotations

from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QGridLayout, QVBoxLayout, QWidget

from bench_gui.core.plan_model import Plan
from bench_gui.gui.pages.live.chart_board import _Cell as ChartCell
from bench_gui.gui.pages.live.numbers import fmt_int, fmt_ms
from bench_gui.gui.pages.live.outcome import ENDED_EARLY, NO_HOST_MESSAGE
from bench_gui.gui.widgets.charts import (
    DEVICE_COLORS,
    LATENCY_COLORS,
    TPM_COLOR,
    ChartCard,
    SeriesSpec,
    TimeSeriesChart,
    format_count,
    format_duration,
)
from bench_gui.gui.widgets.tiles import Tile, TileFlow
from bench_gui.wire.fio_sizes import format_size, parse_size
from bench_gui.wire.protocol import Event
from bench_gui.workloads.random_read.compare import multiplier_text
from bench_gui.workloads.random_read.live_charts import (
    OPS_COLOR,
    RAW_COLOR,
    DatasetPoint,
    DatasetSizeChart,
    LatencyChart,
)
from bench_gui.workloads.random_read.live_model import (
    RandomReadLive,
    RRTiles,
    dataset_text,
    ram_multiple_text,
    short_size,
)

CHART_KEYS = ("ops", "dataset", "latency", "device")
POINT_AXIS = "Time in this point (m:ss)"
WARMUP_NOTE = "warm-up · not counted"
NO_LATENCY_YET = "fio records latency from the measured window on (none in the warm-up)"
WAITING = "Waiting for the first point…"
P50_COLOR = "#42be65"


def latency_tile_text(ms: float | None) -> tuple[str | None, str]:
    """(value, unit) of a latency tile: µs below a millisecond (RAM reads take well under one),
    else ms."""
    if ms is None:
        return None, "µs"
    if ms < 1.0:
        us = ms * 1000.0
        return (f"{us:.2f}" if us < 10 else f"{us:.1f}" if us < 100 else f"{us:.0f}"), "µs"
    return fmt_ms(ms), "ms"


def fmt_ops(value: float | None) -> str | None:
    """ops/s for the headline tile: every digit up to a million, then ``6.17M``."""
    if value is None:
        return None
    return fmt_int(value) if value < 999_500 else f"{value / 1e6:.3g}M"


def fmt_mbs(value: float | None) -> str | None:
    if value is None:
        return None
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}"


def phase_detail(model: RandomReadLive) -> str:
    """What the run is doing, in a few words, with its progress."""
    phase, progress = model.phase, model.progress
    if phase == "preparing":
        if progress is None:
            return "pre-allocating the data file"
        rate = f" · {progress.rate:,.0f} MB/s" if progress.rate else ""
        return (
            f"pre-allocating {progress.fraction * 100:.0f}% of {short_size(progress.total)}{rate}"
        )
    if phase == "raw_iops":
        rate = f" · {format_count(model.raw_rate)} IOPS" if model.raw_rate else ""
        return f"raw-IOPS pre-pass (direct I/O){rate}"
    if phase == "warmup":
        return WARMUP_NOTE
    if phase == "measure":
        return "measured window"
    return model.phase_label.lower()


class RandomReadTiles(QWidget):
    """The random-read tiles in one row: the point's tile shows when the width has room for
    it (else the dataset's tile says the point and the phase)."""

    def __init__(self) -> None:
        super().__init__()
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        self.flow = TileFlow(10)
        column.addWidget(self.flow)
        self.ops = Tile("Operations", "ops/s", OPS_COLOR, hero=True)
        self.mbs = Tile("Throughput", "MB/s", TPM_COLOR)
        self.p99 = Tile("p99 latency", "µs", LATENCY_COLORS["p99"])
        self.p999 = Tile("p99.9 latency", "µs", LATENCY_COLORS["p999"])
        self.dataset = Tile("Dataset", "", "#be95ff")
        self.point = Tile("Point", "", "#93a0b8")
        widest = ("888,888", "8,888", "888.8", "888.8", "8× RAM", "88 of 88")
        for tile, text in zip(self.tiles(), widest, strict=True):
            tile.widest = text
            self.flow.add(tile)
        self.point.widest_detail = "pre-allocating 100% of 888 MiB"
        self._shown: RandomReadLive | None = None  # the model the tiles show

    def tiles(self) -> tuple[Tile, ...]:
        return (self.ops, self.mbs, self.p99, self.p999, self.dataset, self.point)

    def plan_sizes(self, texts: list[str]) -> None:
        """The dataset sizes the run will show: the tile asks for the room of the widest."""
        widest = max(texts, key=len, default="8× RAM")
        count = len(texts) or 88
        points = f"{count} of {count}"
        if (widest, points) != (self.dataset.widest, self.point.widest):
            self.dataset.widest, self.point.widest = widest, points
            self._fit(self.width())

    def _fit(self, width: int) -> None:
        """Show the point's tile only if all six tiles fit the width in one row."""
        needs = [tile.needed_width() for tile in self.tiles()]
        fits = sum(needs) + self.flow.spacing * (len(needs) - 1) <= width
        if self.point.isHidden() == fits:
            self.point.setVisible(fits)
            if self._shown is not None:
                self.show_model(self._shown)  # the point now goes in its own tile, or not
        self.flow.arrange(width)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._fit(event.size().width())

    def reset(self) -> None:
        for tile in self.tiles():
            tile.set_value(None, "")
            tile.set_state("")

    def show_model(self, model: RandomReadLive) -> None:
        """The latest figures: the current point's seconds, or the last point's result."""
        self._shown = model
        tiles = model.tiles()
        self._figures(model, tiles)
        count = tiles.point_count
        point = None
        if tiles.point is not None:
            point = f"{tiles.point} of {count}" if count else str(tiles.point)
        self.point.set_value(point, phase_detail(model))
        memory = f"RAM: {model.memory_label}" if model.memory_label else ""
        if self.point.isHidden():  # the dataset's tile says where the run is
            memory = "  ·  ".join(
                p for p in (f"point {point}" if point else "", phase_detail(model)) if p
            )
        size, ratio = tiles.dataset_bytes, tiles.dataset_ratio
        if size is None:
            self.dataset.set_value(None, memory)
            self.dataset.unit_label.setText("")
        elif ratio is None:
            self.dataset.set_value(short_size(size), memory)
            self.dataset.unit_label.setText("")
        else:
            self.dataset.set_value(ram_multiple_text(ratio), memory)
            self.dataset.unit_label.setText(short_size(size))
        self.dataset.setToolTip(tiles.dataset)

    def _figures(self, model: RandomReadLive, tiles: RRTiles) -> None:
        measured = (self.ops, self.mbs, self.p99, self.p999)
        p99, p99_unit = latency_tile_text(tiles.p99_ms)
        p999, p999_unit = latency_tile_text(tiles.p999_ms)
        self.p99.unit_label.setText(p99_unit)
        self.p999.unit_label.setText(p999_unit)
        result = tiles.result_of
        if result is not None:
            note = f"point {result.step + 1} result"
            multiplier = (
                f"point {result.step + 1} · {multiplier_text(result.multiplier)} raw IOPS"
                if result.multiplier is not None
                else note
            )
            self.ops.set_value(fmt_ops(tiles.ops_s), multiplier)
            self.mbs.set_value(fmt_mbs(tiles.mbs), note)
            self.p99.set_value(p99, note)
            self.p999.set_value(p999, note)
            for tile in measured:
                tile.set_state("result")
            return
        warmup = model.phase == "warmup"
        state = "rampup" if warmup else ""
        avg = WARMUP_NOTE if warmup else "5 s average"
        raw = model.raw_iops
        if raw and tiles.ops_s is not None and not warmup:
            avg += f" · {multiplier_text(tiles.ops_s / raw)} raw IOPS"
        self.ops.set_value(fmt_ops(tiles.ops_s), avg if tiles.ops_s is not None else "")
        mbs_note = WARMUP_NOTE if warmup else "5 s average"
        self.mbs.set_value(fmt_mbs(tiles.mbs), mbs_note if tiles.mbs is not None else "")
        no_latency = "none in the warm-up" if warmup else ""
        self.p99.set_value(p99, "last second" if p99 else no_latency)
        self.p999.set_value(p999, "last second" if p999 else no_latency)
        for tile in measured:
            tile.set_state(state)


class RandomReadBoard(QWidget):
    """The random-read tiles above its four charts (two rows of two)."""

    def __init__(self, model: RandomReadLive) -> None:
        super().__init__()
        self.model = model
        self.stale: dict[str, str] = {}
        self._drawn_step: dict[str, int | None] = {}
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(12)
        self.tiles = RandomReadTiles()
        column.addWidget(self.tiles)
        holder = QWidget()
        self.grid = QGridLayout(holder)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(12)
        column.addWidget(holder, 1)
        self.ops_chart = TimeSeriesChart(
            "Operations per second",
            "ops/s",
            (SeriesSpec("ops_s", "ops/s", OPS_COLOR),),
            empty_message=WAITING,
            manual_range=True,
        )
        self.ops_chart.window_legend = True
        self.latency_chart = LatencyChart(
            "Read latency",
            (
                SeriesSpec("p50", "p50", P50_COLOR, 1.0),
                SeriesSpec("p99", "p99", LATENCY_COLORS["p99"], 1.0),
                SeriesSpec("p999", "p99.9", LATENCY_COLORS["p999"], 1.0),
            ),
            WAITING,
        )
        self.device_chart = TimeSeriesChart(
            "Device reads per second",
            "reads/s",
            (SeriesSpec("device_r_iops", "reads/s", DEVICE_COLORS[0], 1.0),),
            empty_message=WAITING,
            manual_range=True,
        )
        self.dataset_chart = DatasetSizeChart()
        self.charts: dict[str, ChartCard] = {
            "ops": self.ops_chart,
            "dataset": self.dataset_chart,
            "latency": self.latency_chart,
            "device": self.device_chart,
        }
        for chart in (self.ops_chart, self.latency_chart, self.device_chart):
            axis = chart.plot.getAxis("bottom")
            axis.setLabel(POINT_AXIS, **axis.labelStyle)
        for i, key in enumerate(CHART_KEYS):
            # Cells of one size: a legend on two lines never makes its row taller.
            self.grid.addWidget(ChartCell(self.charts[key]), i // 2, i % 2)
        for i in range(2):
            self.grid.setColumnStretch(i, 1)
            self.grid.setRowStretch(i, 1)

    # ---- a run ---------------------------------------------------------------------------

    def reset(self) -> None:
        """Empty everything for a new run."""
        self.tiles.reset()
        for chart in self.charts.values():
            chart.clear()
        self.device_chart.set_reference(None)
        self._drawn_step = {}
        self.stale.clear()

    def say_what_is_missing(self, tone: str) -> None:
        """Charts still empty when the run ends say why (not "waiting")."""
        early = ENDED_EARLY.get(tone) if len(self.model.seconds) == 0 else None
        for key, chart in self.charts.items():
            if not chart.empty:
                continue
            if early is not None:
                chart.note_empty(early)
            elif key == "device":
                chart.note_empty(NO_HOST_MESSAGE)

    # ---- drawing -------------------------------------------------------------------------

    def queue_all(self) -> None:
        for key in CHART_KEYS:
            self.stale.setdefault(key, key)

    def next_stale(self) -> str:
        key = next(iter(self.stale))
        del self.stale[key]
        return key

    def draw_all(self) -> None:
        while self.stale:
            self.draw(self.next_stale())

    def draw(self, key: str) -> None:
        """Give one chart the model's current data."""
        model = self.model
        self.tiles.plan_sizes(
            [ram_multiple_text(p.ram_ratio) for p in model.planned if p.ram_ratio is not None]
        )
        if key == "dataset":
            self._draw_dataset()
            return
        chart = self.charts[key]
        assert isinstance(chart, TimeSeriesChart)
        if self._drawn_step.get(key, -1) != model.step:
            self._drawn_step[key] = model.step
            chart.clear()
            where = ""
            if model.step is not None:
                size = ram_multiple_text(model.ram_ratio) if model.ram_ratio else ""
                where = f" · point {model.step + 1}" + (f" ({size})" if size else "")
            device = f" ({model.device})" if model.device else ""
            titles = {
                "ops": "Operations per second",
                "latency": "Read latency",
                "device": f"Device reads per second{device}",
            }
            chart.set_title(titles[key] + where)
        x = model.point_seconds("elapsed")
        if key == "latency":
            assert isinstance(chart, LatencyChart)
            for spec in chart.specs:
                chart.set_latency(spec.key, x, model.point_seconds(spec.key))
            if chart.empty and model.phase == "warmup":
                chart.note_empty(NO_LATENCY_YET)
        else:
            for spec in chart.specs:
                chart.set_data(spec.key, x, model.point_seconds(spec.key))
        if key == "device":
            raw = model.raw_iops
            label = "" if raw is None else f"raw {format_count(raw)} IOPS"
            chart.set_reference(raw, label, RAW_COLOR)
        if not chart.empty:
            chart.set_windows([model.window] if model.window else [])
        elif model.phase in ("preparing", "raw_iops", "dropping"):
            chart.note_empty(f"{phase_detail(model)[:1].upper()}{phase_detail(model)[1:]}…")
        chart.fit()

    def _draw_dataset(self) -> None:
        model = self.model
        chart = self.dataset_chart
        chart.set_planned(model.planned_ratios())
        chart.set_raw(model.raw_iops)
        chart.set_points(
            [
                DatasetPoint(p.ram_ratio, p.ops_s, p.multiplier, p.complete)
                for p in model.points
                if p.ram_ratio is not None and p.ops_s is not None
            ]
        )
        tiles = model.tiles()
        running = model.phase == "measure" and tiles.result_of is None
        chart.set_live(model.ram_ratio if running else None, tiles.ops_s if running else None)


def plan_detail(plan: Plan) -> str:
    """The header's line for a random-read plan: where, how many dataset sizes, the windows."""
    wl = plan.workload
    host = plan.driver.target or "this machine"
    memory = "the machine's RAM"
    if wl.memory_limit:
        try:
            memory = f"memory limit {format_size(parse_size(wl.memory_limit))}"
        except ValueError:  # the plan reader said so already; show it as written
            memory = f"memory limit {wl.memory_limit}"
    return (
        f"random reads on {host}  ·  {len(wl.dataset_sizes)} dataset sizes  ·  warm-up"
        f" {format_duration(wl.warmup_s)}, measured {format_duration(wl.measure_s)} per point"
        f"  ·  {memory}"
    )


def study_detail(model: RandomReadLive) -> str:
    """The header's line from what the agent said of the study (a session shown without a
    random-read plan): the dataset sizes, the windows, the RAM."""
    parts = ["random reads", f"{len(model.planned)} dataset sizes"]
    if model.warmup_s is not None and model.measure_s is not None:
        parts.append(
            f"warm-up {format_duration(model.warmup_s)}, measured"
            f" {format_duration(model.measure_s)} per point"
        )
    if model.memory_label:
        parts.append(f"RAM: {model.memory_label}")
    return "  ·  ".join(parts)


def header_state(model: RandomReadLive) -> tuple[str, str, str]:
    """(pill text, pill colour key, point line) of the header."""
    phase = model.phase
    pill = {"warmup": "rampup", "measure": "measure", "failed": "failed"}.get(phase)
    if pill is None:
        pill = "ended" if model.ended else "idle"
    number, count = model.point_number, model.point_count
    line = ""
    if number is not None:
        of = f" of {count}" if count else ""
        size = model.dataset_label
        if model.dataset_bytes is not None:
            size = dataset_text(model.dataset_bytes, model.ram_ratio)
        line = f"Point {number}{of}  ·  {size}"
    return model.phase_label.upper(), pill, line


def status_text(model: RandomReadLive, event: Event) -> str:
    """The window's status line after ``event`` ("" when it changes nothing worth saying)."""
    if event.kind == "hello":
        version = f" ({model.fio_version})" if model.fio_version else ""
        return f"Random reads running{version}: RAM for the study {model.memory_label or '?'}"
    if event.kind == "step" and event.get("phase") == "start":
        _pill, _tone, line = header_state(model)
        line = line.replace("  ·  ", ", ", 1)
        return f"Random reads running: {line[:1].lower()}{line[1:]}"
    return ""


def banner_text(model: RandomReadLive, tone: str) -> str:
    """The banner's line when a random-read run ends: the points measured and the last one's
    figures, or why it failed."""
    n = len(model.points)
    points = f"{n} dataset size{'s' if n != 1 else ''}"
    if tone == "failed":
        reason = model.status_message or "the run could not continue"
        text = f"Run failed: {reason}"
        if n:
            text += f"  ({points} measured before the failure are kept.)"
        return text
    if tone == "stopped":
        text = "Run stopped — the dataset sizes measured so far are kept in the session."
    else:
        text = f"Run complete: {points} measured." if n else "Run complete."
    last = next((p for p in reversed(model.points) if p.ops_s is not None), None)
    if last is not None and last.ops_s is not None:
        where = ram_multiple_text(last.ram_ratio) if last.ram_ratio else last.label
        text += f"  At {where}: {last.ops_s:,.0f} ops/s"
        if last.multiplier is not None:
            text += f" ({multiplier_text(last.multiplier)} the raw device IOPS)"
        text += "."
    flagged = [p for p in model.points if p.problems]
    if flagged:
        text += f"  ⚑ Point {flagged[0].step + 1}: {'; '.join(flagged[0].problems)}."
    return text


__all__ = [
    "RandomReadBoard",
    "RandomReadTiles",
    "banner_text",
    "header_state",
    "latency_tile_text",
    "phase_detail",
    "plan_detail",
]
