"""The Live page's defects seen at a booth, each checked on the page as the app styles it:
the hero tile's font, units' case, step labels at the edges and over the curves, ramp-up and
measured windows, the result after the run, rollbacks, rows that fill, the power charts of a
run without a meter, the charts of a run that failed before its first sample."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QScrollArea
from pytestqt.qtbot import QtBot

from bench_gui.core.plan_model import Plan
from bench_gui.gui.app import apply_theme
from bench_gui.gui.pages.live.outcome import ENDED_EARLY, NO_HOST_MESSAGE, NO_POWER_NOTE
from bench_gui.gui.pages.live.page import LivePage
from bench_gui.gui.pages.live.tile_row import RAMPUP_NOTE
from bench_gui.gui.widgets.chart_layout import LiveLayout
from bench_gui.gui.widgets.charts import SeriesSpec, TimeSeriesChart
from bench_gui.gui.widgets.tiles import Tile
from bench_gui.wire.protocol import Event
from tests._fixtures.scripted import capacity, sample_index, scripted_plan, sweep_events
from tests._fixtures.scripted_power import power_sweep_events
from tests.gui.shown import shown_themed

pytestmark = pytest.mark.gui

VUS = [8, 16, 24]


def _plan(meter: str = "none") -> Plan:
    return scripted_plan("booth demo", VUS, meter)


@pytest.fixture
def page(qtbot: QtBot) -> LivePage:
    return shown_themed(qtbot, LivePage(), 1600, 1000)


def _feed(page: LivePage, events: list[Event]) -> None:
    for event in events:
        page.handle_event(event)
    page.refresh()


# ---- tiles -------------------------------------------------------------------------------------


def test_the_hero_tile_gets_its_larger_font(page: LivePage) -> None:
    hero, normal = page.view.tile_nopm.value_label, page.view.tile_tpm.value_label
    for label in (hero, normal):
        label.style().unpolish(label)
        label.style().polish(label)
        label.ensurePolished()
    assert hero.property("emphasis") == "hero"
    assert hero.font().pixelSize() > normal.font().pixelSize()
    assert hero.font().pixelSize() == 54  # the theme's hero size
    assert normal.font().pixelSize() == 40


def test_titles_keep_the_case_of_their_units(page: LivePage) -> None:
    page.begin_run(_plan("ipmi"))
    titles = {tile.title_label.text() for tile in page.view.tiles.tiles()}
    assert {"mW / NOPM", "NOPM", "TPM", "p99.9 latency", "Power", "Errors"} <= titles
    for tile in page.view.tiles.tiles():
        label = tile.title_label
        label.ensurePolished()
        assert label.font().capitalization() == QFont.Capitalization.MixedCase


def test_ramp_up_figures_are_marked_and_measured_ones_are_not(page: LivePage) -> None:
    events = sweep_events(VUS, 3, 5)
    page.begin_run(_plan())
    _feed(page, events[: sample_index(events, 1, 2.0) + 1])
    nopm = page.view.tile_nopm
    assert page.model.phase == "rampup"
    for tile in (nopm, page.view.tile_tpm, page.view.tile_latency, page.view.tile_p999):
        assert tile.state == "rampup"
        assert tile.detail_label.text() == RAMPUP_NOTE
    assert page.view.tile_vus.state == ""
    nopm.value_label.ensurePolished()
    dimmed = nopm.value_label.palette().color(nopm.value_label.foregroundRole())

    _feed(page, events[sample_index(events, 1, 2.0) + 1 : sample_index(events, 1, 5.0) + 1])
    assert nopm.state == ""
    nopm.value_label.ensurePolished()
    bright = nopm.value_label.palette().color(nopm.value_label.foregroundRole())
    assert bright.lightness() > dimmed.lightness()
    # Two seconds into the window: the tile averages those two, not the ramp-up before them.
    assert nopm.value_text == f"{capacity(16):,.0f}"


def test_after_the_run_the_tiles_show_the_best_step_not_the_last_second(page: LivePage) -> None:
    # Eight measured seconds a step: the tile's five-second average is not the step's result.
    events = sweep_events(VUS, 3, 8, noise=0.08, seed=4)
    plan = _plan()
    plan.workload.duration_s = 8
    page.begin_run(plan)
    _feed(page, events[:-2])
    last_second = page.view.tile_nopm.value_text
    _feed(page, events[-2:])
    page.run_finished("ok")
    best = page.model.best_point()
    assert best is not None
    assert best.nopm is not None
    assert page.view.tile_nopm.value_text == f"{best.nopm:,.0f}"
    assert page.view.tile_nopm.value_text != last_second
    assert page.view.tile_nopm.detail_label.text().startswith(f"best step · {best.vus} users")
    assert page.view.tile_tpm.value_text == f"{best.tpm:,.0f}"
    assert page.view.tile_p999.value_text == f"{best.latency_all['p999']:.1f}"
    assert page.view.tile_vus.value_text == str(best.vus)
    sweep = page.view
    for tile in (sweep.tile_nopm, sweep.tile_tpm, sweep.tile_latency, sweep.tile_p999):
        assert tile.state == "result"
        assert "best step" in tile.detail_label.text()


def test_the_power_result_is_the_best_steps(page: LivePage) -> None:
    events = power_sweep_events(VUS, 3, 5)
    page.begin_run(_plan("ipmi"))
    _feed(page, events)
    page.run_finished("ok")
    best = page.model.best_point()
    assert best is not None
    assert best.power_w is not None
    assert best.mw_per_nopm is not None
    assert page.view.tile_power.value_text == f"{best.power_w:,.0f}"
    assert page.view.tile_mw.value_text == f"{best.mw_per_nopm:.2f}"
    assert page.view.tile_power.detail_label.text().startswith("best step")


def test_rollbacks_are_the_workloads_not_errors(page: LivePage) -> None:
    events = sweep_events(VUS, 3, 5)
    page.begin_run(_plan())
    _feed(page, events)
    rollbacks = sum(int(e.get("rollbacks") or 0) for e in events if e.kind == "sample")
    assert rollbacks > 0
    errors = page.view.tile_errors
    assert errors.title_label.text() == "Errors"
    assert errors.value_text == "0"
    assert errors.detail_label.text() == f"{rollbacks:,} rollbacks\n(1% by design)"
    assert "not errors" in errors.toolTip()
    # Not clipped: the tile asks for the width of its longest line.
    label = errors.detail_label
    for line in label.text().splitlines():
        assert label.width() >= label.fontMetrics().horizontalAdvance(line)


def test_tiles_wrap_when_the_page_is_narrow(page: LivePage, qtbot: QtBot) -> None:
    page.resize(2600, 1000)
    page.begin_run(_plan("ipmi"))
    _feed(page, power_sweep_events(VUS, 3, 5))
    qtbot.waitUntil(lambda: len(page.view.tiles.flow.rows) == 1)
    page.resize(900, 1000)
    qtbot.waitUntil(lambda: len(page.view.tiles.flow.rows) > 1)

    def unclipped() -> bool:
        return all(
            t.value_label.width() >= t.value_label.sizeHint().width()
            and t.geometry().right() <= page.view.tiles.width()
            for t in page.view.tiles.tiles()
            if t.isVisibleTo(page)
        )

    qtbot.waitUntil(unclipped, timeout=3000)
    shown = [t for row in page.view.tiles.flow.rows for t in row]
    assert [t for t in page.view.tiles.tiles() if t.isVisibleTo(page)] == shown  # in order
    assert all(isinstance(t, Tile) for t in shown)


# ---- step markers and measured windows ---------------------------------------------------------


@pytest.fixture
def chart(qtbot: QtBot) -> TimeSeriesChart:
    widget = TimeSeriesChart("Power", "Watts", [SeriesSpec("w", "watts", "#ff7eb6")])
    widget.manual_range = True
    qtbot.addWidget(widget)
    widget.resize(700, 360)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def test_a_marker_out_of_view_leaves_no_stray_letters(chart: TimeSeriesChart) -> None:
    x = np.arange(10.0, 120.0)
    chart.set_data("w", x, np.full_like(x, 300.0))
    chart.add_marker(2.0, "2 VU")  # before the first sample: left of the view
    chart.add_marker(40.0, "4 VU")
    chart.add_marker(80.0, "8 VU")
    chart.fit()
    x0, _x1 = chart.plot.getViewBox().viewRange()[0]
    assert x0 > 2.0
    shown = {label: visible for _x, label, visible in chart.marker_labels()}
    assert shown == {"2 VU": False, "4 VU": True, "8 VU": True}


def test_marker_labels_stay_above_the_curve_and_apart(chart: TimeSeriesChart) -> None:
    x = np.arange(0.0, 300.0)
    y = 250.0 + 50.0 * np.sin(x / 10.0)
    chart.set_data("w", x, y)
    for i, start in enumerate(range(0, 300, 6)):  # fifty steps: far too many to label all
        chart.add_marker(float(start), f"{8 * (i + 1)} VU")
    chart.fit()
    view = chart.plot.getViewBox()
    (x0, x1), (y0, y1) = view.viewRange()
    height, width = view.height(), view.width()
    top_gap_px = (y1 - float(y.max())) / (y1 - y0) * height
    label_px = max(m.label.boundingRect().height() for m in chart._markers)
    assert top_gap_px >= label_px  # the band the labels sit in is free of the curve
    spans = []
    for marker in chart._markers:
        label = marker.label
        if not label.isVisible():
            continue
        at = (float(marker.value()) - x0) / (x1 - x0) * width
        w = label.boundingRect().width()
        left = at if label.anchors[0][0] == 0.0 else at - w
        assert left >= 0
        assert left + w <= width + 1
        spans.append((left, left + w))
    assert len(spans) >= 3
    spans.sort()
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))
    # The newest step keeps its label (at the right edge: left of its line).
    assert chart._markers[-1].label.isVisible()


def test_the_charts_shade_each_steps_measured_window(page: LivePage) -> None:
    events = sweep_events(VUS, 3, 5)
    page.begin_run(_plan())
    _feed(page, events[: sample_index(events, 1, 6.0) + 1])
    windows = page.model.windows
    assert len(windows) == 2
    assert windows[0] == pytest.approx((3.5, 8.5))  # step 0 starts at 0.5 s: 3 s of ramp-up
    for key in ("throughput", "latency"):
        chart = page.view.chart(key)
        assert isinstance(chart, TimeSeriesChart)
        assert len(chart.windows) == len(windows)
        for drawn, window in zip(chart.windows, windows, strict=True):
            assert drawn == pytest.approx(window)
    assert "measured" in page.view.throughput_chart.legend_text
    _feed(page, events[sample_index(events, 1, 6.0) + 1 :])
    assert len(page.view.throughput_chart.windows) == 3


# ---- the chart grid ----------------------------------------------------------------------------


def test_rows_fill_the_width(page: LivePage, qtbot: QtBot) -> None:
    page.view.apply_layout(LiveLayout(["throughput", "scaling", "latency", "cpu"], 3, []))
    assert page.view.board.placed == [["throughput", "scaling"], ["latency", "cpu"]]
    QApplication.processEvents()
    grid_width = page.view.charts_grid.geometry().width()
    for row in page.view.board.placed:
        cells = [page.view.board._cells[key] for key in row]
        covered = sum(c.width() for c in cells) + page.view.charts_grid.spacing() * (len(cells) - 1)
        assert covered >= grid_width - 4
    page.view.apply_layout(LiveLayout(["throughput", "scaling", "latency", "cpu", "memory"], 3, []))
    assert [len(row) for row in page.view.board.placed] == [3, 2]


def test_power_charts_without_a_meter_collapse_to_one_line(page: LivePage) -> None:
    page.view.apply_layout(LiveLayout(["throughput", "power", "mw_per_nopm", "latency"], 2, []))
    page.begin_run(_plan("none"))
    _feed(page, sweep_events(VUS, 3, 5)[:10])
    assert page.view.board.placed == [["throughput", "latency"]]
    assert not page.view.chart("power").isVisibleTo(page)
    note = page.view.board.note
    assert note.isVisibleTo(page)
    assert note.text() == NO_POWER_NOTE
    assert note.height() < 2 * note.fontMetrics().height()

    page.begin_run(_plan("ipmi"))  # a meter: the charts are back, the note gone
    assert page.view.board.placed == [["throughput", "power"], ["mw_per_nopm", "latency"]]
    assert not note.isVisibleTo(page)


def test_power_readings_without_a_meter_in_the_plan_bring_the_charts_back(
    page: LivePage,
) -> None:
    page.view.apply_layout(LiveLayout(["throughput", "power"], 2, []))
    page.begin_run(_plan("none"))
    assert page.view.board.placed == [["throughput"]]
    _feed(page, power_sweep_events(VUS, 3, 5)[:12])
    assert page.view.board.placed == [["throughput", "power"]]
    assert not page.view.board.note.isVisibleTo(page)


@pytest.mark.parametrize("tone", ["failed", "stopped"])
def test_a_run_that_ended_before_its_first_sample_says_so(page: LivePage, tone: str) -> None:
    page.begin_run(_plan())
    page.handle_event(sweep_events(VUS, 3, 5)[0])  # the hello, nothing measured
    if tone == "failed":
        page.run_failed("cannot connect to 10.0.0.5:5432: password authentication failed")
    else:
        page.run_finished("stopped")
    for key in page.view.layout_choice.charts:
        chart = page.view.board.charts.get(key)
        if chart is None or not chart.isVisibleTo(page):
            continue
        text = chart._placeholder.toPlainText()
        assert text == ENDED_EARLY[tone], key
        assert text != NO_HOST_MESSAGE
    # No result to show: the tiles are not outlined as one.
    assert page.view.tile_nopm.state == ""
    assert page.view.tile_nopm.detail_label.text() == "no step was measured"


def test_after_the_run_the_page_keeps_the_height_it_is_given(qtbot: QtBot) -> None:
    """In a scroll frame (as the main window holds its pages), the finished run's banner (a
    wrapped line) does not make the page its preferred height, taller than a 768 px screen."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    apply_theme(app)
    page = LivePage()
    frame = QScrollArea()
    frame.setWidgetResizable(True)
    frame.setWidget(page)
    qtbot.addWidget(frame)
    frame.resize(1240, 745)
    frame.show()
    qtbot.waitExposed(frame)
    plan = _plan()
    plan.workload.virtual_users = list(range(8, 65, 8))
    page.begin_run(plan)
    _feed(page, sweep_events(plan.workload.virtual_users, 3, 5))
    page.run_finished("ok")
    assert page.banner.isVisible()
    QApplication.processEvents()
    assert page.minimumSizeHint().height() <= frame.viewport().height()
    assert page.height() == frame.viewport().height()
    assert not frame.verticalScrollBar().isVisible()
