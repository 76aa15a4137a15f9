"""The Present view's one chart: this run's NOPM over time, thick, with large axis text.

Each step's measured window is shaded and its start marked with its users; a ghost curve (a
stored session's NOPM on this run's time axis, set by the race) is drawn dashed beside it.
A passer-by cannot pan, zoom or open a menu on it.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from bench_gui.gui.present.style import Sizes
from bench_gui.gui.widgets.charts import NOPM_COLOR, SeriesSpec, TimeSeriesChart
from bench_gui.services.live_model import LiveModel
from bench_gui.services.session_view import user_count

GHOST_COLOR = "#c6cfdd"
LIVE_LABEL = "This run"


class PresentChart(TimeSeriesChart):
    """A throughput chart for a booth screen; :meth:`draw` takes the model's data."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(
            "Throughput, NOPM",
            "NOPM",
            [
                SeriesSpec("nopm", LIVE_LABEL, NOPM_COLOR, width=6.0),
                SeriesSpec("ghost", "", GHOST_COLOR, width=4.0, dashed=True),
            ],
            empty_message="The chart starts with the first second measured",
            manual_range=True,
            parent=parent,
        )
        self.window_legend = True
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot_widget.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.plot_widget.setMinimumHeight(120)
        self.plot.getAxis("left").setLabel("")  # the title says it is NOPM
        self.plot.getAxis("bottom").setLabel("")  # m:ss speaks for itself
        self.ghost_label = ""
        self.ghost_points: list[tuple[float, float]] = []
        self._drawn_markers = 0
        self._update_legend_entries()

    def apply_sizes(self, sizes: Sizes) -> None:
        self.set_text_sizes(sizes.tick, sizes.tick, sizes.legend, sizes.marker)
        for key, width in (("nopm", sizes.line), ("ghost", max(2.0, sizes.line * 0.7))):
            pen = self.curves[key].opts["pen"]
            if pen.widthF() != width:
                pen.setWidthF(width)
                self.curves[key].setPen(pen)

    def set_ghost(self, label: str, points: list[tuple[float, float]] | None) -> None:
        """The rival's curve (time on this run's axis, NOPM), or None to take it away."""
        self.ghost_label = label
        self.ghost_points = list(points or [])
        if self.ghost_points:
            xs = np.fromiter((p[0] for p in self.ghost_points), float, len(self.ghost_points))
            ys = np.fromiter((p[1] for p in self.ghost_points), float, len(self.ghost_points))
        else:
            xs = ys = np.empty(0)
        self.curves["ghost"].setData(xs, ys)
        if len(xs):
            self._extent["ghost"] = (
                float(xs.min()),
                float(xs.max()),
                float(np.nanmin(ys)),
                float(np.nanmax(ys)),
            )
            if self.empty:
                self._show_data()
                self.plot.disableAutoRange()
        else:
            self._extent.pop("ghost", None)
        self._update_legend_entries()
        self.fit()

    def _update_legend_entries(self) -> None:
        entries = [(LIVE_LABEL, NOPM_COLOR, "line")]
        if self.ghost_points:
            entries.append((self.ghost_label or "Stored session", GHOST_COLOR, "dashed"))
        self.set_legend_entries(entries)

    def reset(self) -> None:
        """A new run: no data, markers or windows (the ghost is the race's to set again)."""
        self.clear()
        self._drawn_markers = 0
        if self.ghost_points:
            self.set_ghost(self.ghost_label, self.ghost_points)

    def draw(self, model: LiveModel) -> None:
        """The model's NOPM, step markers and measured windows."""
        samples = model.samples
        if len(samples):
            self.set_data("nopm", samples.column("t"), samples.column("nopm"))
        if not self.empty:
            for t, _step, vus in model.markers[self.marker_count :]:
                self.add_marker(t, user_count(vus))
            self.set_windows(model.windows)
        self.fit()
