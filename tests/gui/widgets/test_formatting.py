"""Number, time and name formatting shown on the charts, tiles and tables."""

from __future__ import annotations

import datetime as dt

import pytest
from pytestqt.qtbot import QtBot

from bench_gui.gui.widgets.charts import (
    CountAxis,
    ScalingChart,
    SeriesSpec,
    TimeAxis,
    format_count,
    format_duration,
)
from bench_gui.services.session_view import format_time, format_vus, short_server

pytestmark = pytest.mark.gui


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0"),
        (0.25, "0.2"),
        (950, "950"),
        (1000, "1k"),
        (66_040, "66k"),
        (59_940, "59.9k"),
        (150_000, "150k"),
        (1_250_000, "1.25M"),
        (2_000_000, "2M"),
        (float("nan"), ""),
    ],
)
def test_format_count(value: float, text: str) -> None:
    assert format_count(value) == text


@pytest.mark.parametrize(
    ("seconds", "text"), [(0, "0:00"), (45, "0:45"), (725, "12:05"), (3723, "1:02:03")]
)
def test_format_duration(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text


def test_store_values_for_display() -> None:
    assert short_server("PostgreSQL 18.6 on x86_64-pc-linux-gnu, compiled by gcc") == (
        "PostgreSQL 18.6"
    )
    assert short_server(None) == ""
    assert format_vus([8, 16, 24]) == "8, 16, 24"
    assert format_vus("8-64/8") == "8-64/8"
    when = dt.datetime(2026, 3, 1, 12, 30, tzinfo=dt.UTC)
    local = when.astimezone().strftime("%Y-%m-%d %H:%M")
    assert format_time(when.isoformat()) == local
    assert format_time(when.timestamp()) == local
    assert format_time(None) == ""
    assert format_time("yesterday") == "yesterday"


def test_axes_use_round_readable_steps(qtbot: QtBot) -> None:
    counts = CountAxis("left")
    assert counts.tickSpacing(0, 540_000, 330) == [(100_000.0, 0.0)]
    assert counts.tickStrings([0, 100_000, 200_000], 1.0, 100_000) == ["0", "100k", "200k"]
    time_axis = TimeAxis("bottom")
    major, _minor = time_axis.tickSpacing(0, 330, 900)
    assert major[0] in (30, 60)
    assert time_axis.tickStrings([0, 60, 90], 1.0, 30) == ["0:00", "1:00", "1:30"]


def test_scaling_chart_keeps_planned_user_counts(qtbot: QtBot) -> None:
    chart = ScalingChart("NOPM by users", "NOPM", SeriesSpec("nopm", "NOPM", "#33b1ff"))
    qtbot.addWidget(chart)
    assert chart.empty
    chart.set_categories([8, 16, 32])
    chart.set_points([8], [60_000.0])
    assert chart.categories == [8, 16, 32]
    assert not chart.empty
    chart.set_points([8, 64], [60_000.0, 90_000.0])  # a count outside the plan is appended
    assert chart.categories == [8, 16, 32, 64]
    assert "NOPM" in chart.legend_text


@pytest.mark.parametrize("height", [170, 500])
def test_bar_value_labels_stay_inside_a_short_chart(qtbot: QtBot, height: int) -> None:
    """The label over the tallest bar is a fixed number of pixels: on a short chart (the Live
    page at 1366×768, under the hosts strip) the y range leaves it that much room."""
    chart = ScalingChart("NOPM by users", "NOPM", SeriesSpec("nopm", "NOPM", "#33b1ff"))
    qtbot.addWidget(chart)
    chart.resize(400, height)
    chart.show()
    qtbot.waitExposed(chart)
    chart.set_points([4, 8], [34_300.0, 65_500.0])
    qtbot.wait(20)
    view = chart.plot.getViewBox()
    tallest = chart._labels[-1]
    label_top = view.mapViewToScene(tallest.pos()).y() + tallest.boundingRect().top()
    assert label_top >= view.sceneBoundingRect().top()
