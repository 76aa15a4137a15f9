"""A stored session's metrics over time: throughput, latency, host CPU, memory, disks, power.

The samples a run stored are the events the Live page drew while it ran, so they are read the
same way: replayed into a :class:`~bench_gui.services.live_model.LiveModel` (one place that knows
the sample's fields), then drawn with the Live page's charts
(:mod:`~bench_gui.gui.widgets.chart_catalogue`). A session recorded without host metrics, or
without a power meter, says so in the chart instead of leaving empty axes; a power log imported
after the run shows as each step's average over its measured window.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, Final

import numpy as np
from PySide6.QtCore import QSize
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from bench_gui.core.power import IMPORT_LABEL_PREFIX, METER_LABELS
from bench_gui.gui.widgets.chart_catalogue import DEVICE_CHARTS, THIN, time_chart
from bench_gui.gui.widgets.chart_layout import CHART_INFO
from bench_gui.gui.widgets.charts import (
    DEVICE_COLORS,
    IDLE_COLOR,
    MUTED,
    POWER_COLOR,
    SeriesSpec,
    TimeSeriesChart,
)
from bench_gui.services.live_model import LiveModel
from bench_gui.wire.protocol import Event

ALL_DEVICES: Final = "All devices"
# The charts of the Metrics tab, in grid order (keys of the Live page's chart catalogue).
METRIC_CHARTS: Final = (
    "throughput",
    "cpu",
    "power",
    "disk_iops",
    "disk_latency",
    "disk_mbs",
    "latency",
    "memory",
    "disk_queue",
)
COLUMNS: Final = 3
ROW_HEIGHT: Final = 300
NO_SAMPLES: Final = "No samples were stored for this session"
NO_HOST: Final = "No host metrics in this session (the agent did not sample the host)"
NO_DEVICES: Final = "No block device was sampled in this session"
NO_POWER: Final = "No power meter in this session: “Import power log…” adds step figures"
STEP_POWER_KEY: Final = "step_power_w"


def replay_samples(samples: Iterable[Any], steps: Iterable[Any] = ()) -> LiveModel:
    """A LiveModel fed with a stored session's samples and step results, as if live.

    ``samples`` are the store's ``Sample`` records, ``steps`` its ``StepResult`` records; a
    step marker goes where each step's first sample is, as on the Sessions page's throughput
    chart.
    """
    records = list(samples)
    model = LiveModel(capacity=max(2, len(records) + 1))
    if records:
        model.t0 = float(records[0].t)
    last_step: int | None = None
    seq = 0
    for record in records:
        seq += 1
        data: dict[str, Any] = dict(record.extra) if isinstance(record.extra, dict) else {}
        data.update(
            step=record.step,
            vus=record.vus,
            phase=record.phase,
            elapsed=record.elapsed,
            nopm_driver=record.nopm_driver,
            tpm_driver=record.tpm_driver,
            nopm_db=record.nopm_db,
            tpm_db=record.tpm_db,
            counts=record.counts,
            errors=record.errors,
            latency_ms=record.latency_ms,
        )
        if record.step != last_step:
            last_step = record.step
            start = {"phase": "start", "step": record.step, "vus": record.vus}
            model.feed(Event("step", seq, float(record.t), start))
        model.feed(Event("sample", seq, float(record.t), data))
    for result in steps:
        summary = dict(result.summary) if isinstance(result.summary, dict) else {}
        summary.setdefault("step", result.step)
        summary.setdefault("vus", result.vus)
        end = {"phase": "end", "step": result.step, "vus": result.vus, "summary": summary}
        model.feed(Event("step", seq, float(result.t), end))
    return model


def step_power_segments(
    steps: Iterable[Any], t0: float | None
) -> tuple[np.ndarray, np.ndarray, str]:
    """Each step's average watts as a flat segment over its measured window (run time, a gap
    between segments), and the meter label the steps carry."""
    xs: list[float] = []
    ys: list[float] = []
    label = ""
    for result in steps:
        summary: dict[str, Any] = result.summary if isinstance(result.summary, dict) else {}
        values = [summary.get(k) for k in ("power_w", "window_t0", "window_t1")]
        numbers = [float(v) for v in values if isinstance(v, int | float)]
        if t0 is None or len(numbers) != 3:
            continue
        watts, w0, w1 = numbers
        # The gap is a NaN watts value at the window's end, never a NaN time: the chart
        # clips to the view by time, and takes its extent from the first and last times.
        xs += [w0 - t0, w1 - t0, w1 - t0]
        ys += [watts, watts, math.nan]
        label = label or str(summary.get("power_label") or "")
    return np.array(xs[:-1], dtype=float), np.array(ys[:-1], dtype=float), label


class SessionMetricsView(QWidget):
    """The Metrics tab of the Sessions page: a grid of charts of one stored session."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = LiveModel(capacity=2)
        self.steps: list[Any] = []
        self.charts: dict[str, TimeSeriesChart] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        layout.setSpacing(8)
        tools = QHBoxLayout()
        tools.setSpacing(8)
        self.summary_label = QLabel("Open a session to see its metrics.")
        self.summary_label.setObjectName("muted")
        self.summary_label.setWordWrap(True)
        tools.addWidget(self.summary_label, 1)
        device_label = QLabel("Devices")
        device_label.setObjectName("muted")
        tools.addWidget(device_label)
        self.device_box = QComboBox()
        self.device_box.setMinimumWidth(160)
        self.device_box.setToolTip("The block devices the disk charts draw")
        self.device_box.currentIndexChanged.connect(self._draw_devices)
        tools.addWidget(self.device_box)
        layout.addLayout(tools)

        area = QScrollArea()
        area.setWidgetResizable(True)
        area.setFrameShape(QFrame.Shape.NoFrame)
        holder = QWidget()
        self.grid = QGridLayout(holder)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(12)
        self.cells: dict[str, _Cell] = {}
        for i, key in enumerate(METRIC_CHARTS):
            chart = self._make_chart(key)
            self.charts[key] = chart
            self.cells[key] = _Cell(chart)
            self.grid.addWidget(self.cells[key], *divmod(i, COLUMNS))
        for col in range(COLUMNS):
            self.grid.setColumnStretch(col, 1)
        area.setWidget(holder)
        layout.addWidget(area, 1)
        self.show_session([], [])

    @staticmethod
    def _make_chart(key: str) -> TimeSeriesChart:
        if key == "power":
            step = SeriesSpec(STEP_POWER_KEY, "step average", MUTED, 2.0, True)
            return time_chart(key, extra=(step,))
        return time_chart(key)

    # ---- data ----------------------------------------------------------------------------

    def show_session(self, samples: Sequence[Any], steps: Sequence[Any]) -> None:
        """Draw one stored session (the store's ``Sample`` and ``StepResult`` records)."""
        self.model = replay_samples(samples, steps)
        self.steps = list(steps)
        model = self.model
        has_samples = len(model.samples) > 0
        has_host = has_samples and bool(np.isfinite(model.samples.column("cpu_user")).any())
        self.device_box.blockSignals(True)
        self.device_box.clear()
        if model.device_order:
            self.device_box.addItems([ALL_DEVICES, *model.device_order])
        self.device_box.setEnabled(len(model.device_order) > 1)
        self.device_box.blockSignals(False)

        self._draw_series("throughput", NO_SAMPLES, has_samples)
        self._draw_series("latency", NO_SAMPLES, has_samples)
        self._draw_series("cpu", NO_SAMPLES if not has_samples else NO_HOST, has_host)
        self._draw_series("memory", NO_SAMPLES if not has_samples else NO_HOST, has_host)
        self._draw_power(has_samples)
        self._draw_devices()
        self.summary_label.setText(self._summary(has_samples, has_host))

    def _summary(self, has_samples: bool, has_host: bool) -> str:
        model = self.model
        if not has_samples:
            return NO_SAMPLES + "."
        parts = [f"{len(model.samples):,} samples", f"{len(model.markers)} steps"]
        if has_host:
            devices = ", ".join(model.device_order) or "no block device"
            parts.append(f"host metrics: CPU, memory, {devices}")
        else:
            parts.append("no host metrics")
        watts = np.isfinite(model.samples.column("power_w")).any()
        label = next(
            (str(s.summary.get("power_label")) for s in self.steps if s.summary.get("power_label")),
            "",
        )
        if watts or label:
            parts.append(f"power: {label or model.power_label or model.power_meter}")
        else:
            parts.append("no power meter")
        return "  ·  ".join(parts)

    def _markers(self, chart: TimeSeriesChart) -> None:
        chart.clear_markers()
        for x, _step, vus in self.model.markers:
            chart.add_marker(x, f"{vus} VU")

    def _draw_series(self, key: str, empty: str, has_data: bool) -> None:
        chart = self.charts[key]
        chart.empty_message = empty
        chart.clear()
        if not has_data:
            return
        buf = self.model.samples
        t = buf.column("t")
        for spec in chart.specs:
            values = buf.column(spec.key)
            chart.set_data(spec.key, t, values / 1000.0 if key == "memory" else values)
        self._markers(chart)
        chart.fit()

    def _run_meter(self) -> str:
        """The meter that gave the per-second readings (the run's own, even after an import
        replaced its step figures), as the plan's meter list names it."""
        for result in self.steps:
            summary = result.summary if isinstance(result.summary, dict) else {}
            original = summary.get("power_original")
            kind = (original if isinstance(original, dict) else summary).get("power_meter")
            if kind:
                return METER_LABELS.get(str(kind), str(kind))
        return METER_LABELS.get(self.model.power_meter, self.model.power_meter or "meter")

    def _draw_power(self, has_samples: bool) -> None:
        chart = self.charts["power"]
        chart.empty_message = NO_POWER if has_samples else NO_SAMPLES
        chart.set_reference(None)
        chart.clear()
        buf = self.model.samples
        t = buf.column("t")
        watts = buf.column("power_w")
        seg_x, seg_y, label = step_power_segments(self.steps, self.model.t0)
        per_second = bool(np.isfinite(watts).any())
        if not per_second and not len(seg_x):
            chart.set_title(CHART_INFO["power"].title)
            return
        entries = []
        if per_second:
            chart.set_data("power_w", t, watts)
            entries.append((f"{self._run_meter()}, per second", POWER_COLOR, "line"))
        if len(seg_x):
            chart.set_data(STEP_POWER_KEY, seg_x, seg_y)
            imported = label.startswith(IMPORT_LABEL_PREFIX)
            text = f"{label}, step average" if imported else "step average (measured window)"
            entries.append((text, MUTED, "dashed"))
        chart.set_legend_entries(entries)
        idle = self.model.idle_power_w
        chart.set_reference(idle, "" if idle is None else f"idle {idle:,.0f} W", IDLE_COLOR)
        chart.set_title(f"Power ({label})" if label and not per_second else "Power")
        self._markers(chart)
        chart.fit()

    def shown_devices(self) -> list[str]:
        choice = self.device_box.currentText()
        if not choice or choice == ALL_DEVICES:
            return list(self.model.device_order)
        return [choice]

    def _draw_devices(self, *_args: object) -> None:
        model = self.model
        has_samples = len(model.samples) > 0
        for key in DEVICE_CHARTS:
            chart = self._make_chart(key)
            self.cells[key].set_chart(chart)
            self.charts[key] = chart
            if not model.device_order:
                chart.empty_message = NO_DEVICES if has_samples else NO_SAMPLES
                chart.clear()
                continue
            _label, columns, _count = DEVICE_CHARTS[key]
            shown = self.shown_devices()
            for device in shown:
                color = DEVICE_COLORS[model.device_order.index(device) % len(DEVICE_COLORS)]
                buf = model.devices[device]
                for column, word, dashed in columns:
                    series = f"{device}:{column}"
                    chart.add_series(SeriesSpec(series, f"{device} {word}", color, THIN, dashed))
                    chart.set_data(series, buf.column("t"), buf.column(column))
            entries = [
                (d, DEVICE_COLORS[model.device_order.index(d) % len(DEVICE_COLORS)], "line")
                for d in shown
            ]
            if len(columns) > 1:
                entries.append((f"{columns[0][1]} / {columns[1][1]}", MUTED, "dashed"))
            chart.set_legend_entries(entries)
            self._markers(chart)
            chart.fit()


class _Cell(QWidget):
    """A grid cell of one fixed height, without height-for-width: the scroll area then stacks
    rows of ROW_HEIGHT instead of growing each row to the chart's preferred size."""

    def __init__(self, chart: TimeSeriesChart) -> None:
        super().__init__()
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.chart = chart
        self._layout.addWidget(chart)
        self.setFixedHeight(ROW_HEIGHT)

    def set_chart(self, chart: TimeSeriesChart) -> None:
        """Put a new chart in place of the current one (which is deleted)."""
        old, self.chart = self.chart, chart
        self._layout.replaceWidget(old, chart)
        old.hide()
        old.setParent(None)
        old.deleteLater()

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(420, ROW_HEIGHT)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(240, ROW_HEIGHT)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt override)
        return False
