"""The Live page draws what its model holds, and asks before stopping a run."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from bench_gui.core.plan_model import Plan
from bench_gui.gui.pages.live.page import LivePage
from tests._fixtures.scripted import EventScript, capacity, sweep_events

pytestmark = pytest.mark.gui

VUS = [8, 16, 24]


def _plan() -> Plan:
    plan = Plan(name="booth demo")
    plan.workload.virtual_users = list(VUS)
    plan.workload.rampup_s = 3
    plan.workload.duration_s = 5
    return plan


@pytest.fixture
def page(qtbot: QtBot) -> LivePage:
    widget = LivePage()
    qtbot.addWidget(widget)
    widget.resize(1600, 1000)
    widget.show()
    return widget


def test_live_page_shows_a_running_sweep(page: LivePage) -> None:
    events = sweep_events(VUS, 3, 5)
    page.begin_run(_plan())
    assert page.stop_button.isEnabled()
    assert page.view.throughput_chart.empty
    assert page.view.scaling_chart.categories == VUS
    # Everything up to 1 s before the end of the second step's measured window.
    cut = next(
        i
        for i, e in enumerate(events)
        if e.kind == "sample" and e.get("step") == 1 and e.get("elapsed") == 7.0
    )
    for event in events[: cut + 1]:
        page.handle_event(event)
    page.refresh()

    # The tile averages the step's last 5 samples: all at full throughput by now.
    assert page.view.tile_nopm.value_text == f"{capacity(16):,.0f}"
    assert page.view.tile_vus.value_text == "16"
    assert page.view.tile_latency.value_text == "2.78"  # 1.5 + 0.08 * 16 ms
    assert page.view.tile_errors.value_text == "0"
    assert page.phase_pill.text() == "MEASURING"
    assert page.step_label.text() == "Step 2 of 3  ·  16 users"
    assert page.countdown.text() in ("0:01", "0:00")  # 1 s left, ticking down
    assert "PostgreSQL 16.4" in page.run_detail.text()

    curve = page.view.throughput_chart.curves["nopm"]
    x, y = curve.getData()
    assert len(x) == 8 + 7
    assert y[-1] == pytest.approx(capacity(16))
    assert page.view.throughput_chart.marker_count == 2
    assert not page.view.throughput_chart.empty
    assert set(page.view.scaling_chart.values) == {8}
    assert page.view.scaling_chart.values[8][0] == pytest.approx(capacity(8))

    for event in events[cut + 1 :]:
        page.handle_event(event)
    page.run_finished("ok")
    assert page.banner.isVisible()
    assert page.banner.property("tone") == "ok"
    assert "3 steps measured" in page.banner_label.text()
    assert f"{capacity(24):,.0f} NOPM at 24 users" in page.banner_label.text()
    assert page.phase_pill.text() == "FINISHED"
    assert page.countdown.text() == ""
    assert not page.stop_button.isEnabled()
    assert sorted(page.view.scaling_chart.values) == VUS
    assert not page.timer.isActive()


def test_stop_asks_first_then_asks_the_run_to_stop(qtbot: QtBot, page: LivePage) -> None:
    page.begin_run(_plan())
    for event in sweep_events(VUS, 3, 5)[:4]:
        page.handle_event(event)

    # "Keep running" does nothing.
    qtbot.mouseClick(page.stop_button, Qt.MouseButton.LeftButton)
    box = page.stop_confirm
    assert box is not None
    assert box.isVisible()
    with qtbot.assertNotEmitted(page.stop_requested):
        box.button(QMessageBox.StandardButton.No).click()
    assert page.stop_button.isEnabled()

    qtbot.mouseClick(page.stop_button, Qt.MouseButton.LeftButton)
    assert box.isVisible()
    with qtbot.waitSignal(page.stop_requested, timeout=2000):
        box.button(QMessageBox.StandardButton.Yes).click()
    assert not page.stop_button.isEnabled()
    assert page.stop_button.text() == "Stopping…"

    page.run_finished("stopped")
    assert page.banner.property("tone") == "stopped"
    assert "steps measured so far are kept" in page.banner_label.text()


def test_a_failed_run_shows_why(page: LivePage) -> None:
    page.begin_run(_plan())
    page.run_failed("password authentication failed for user postgres")
    assert page.banner.isVisible()
    assert page.banner.property("tone") == "failed"
    assert "password authentication failed" in page.banner_label.text()
    assert page.phase_pill.text() == "FAILED"
    assert not page.banner_button.isVisible()  # nothing measured: nothing to open


def test_begin_run_clears_the_previous_run(page: LivePage) -> None:
    page.begin_run(_plan())
    for event in sweep_events(VUS, 3, 5):
        page.handle_event(event)
    page.run_finished("ok")
    page.begin_run(_plan())
    page.refresh()
    assert not page.banner.isVisible()
    assert page.view.throughput_chart.empty
    assert page.view.throughput_chart.marker_count == 0
    assert page.view.scaling_chart.values == {}
    assert page.view.tile_nopm.value_text == "—"
    assert len(page.model.samples) == 0


def test_charts_a_run_never_fed_say_why_they_are_empty(page: LivePage) -> None:
    """Without a meter or host metrics, the power and host charts keep a message: "waiting"
    while running, the reason once the run has ended, never bare axes."""
    from bench_gui.gui.pages.live.outcome import NO_HOST_MESSAGE, NO_POWER_MESSAGE
    from bench_gui.gui.widgets.chart_layout import LiveLayout

    page.view.apply_layout(LiveLayout(charts=["throughput", "power", "cpu", "memory"]))
    page.begin_run(_plan())
    for event in sweep_events(VUS, 3, 5):
        page.handle_event(event)
    page.refresh()
    assert not page.view.throughput_chart.empty
    power, cpu = page.view.chart("power"), page.view.chart("cpu")
    assert power.empty
    assert cpu.empty
    assert power._placeholder.toPlainText() == NO_POWER_MESSAGE
    assert "Waiting" in cpu._placeholder.toPlainText()

    page.run_finished("ok")
    assert power._placeholder.toPlainText() == NO_POWER_MESSAGE
    assert cpu._placeholder.toPlainText() == NO_HOST_MESSAGE
    assert page.view.chart("memory")._placeholder.toPlainText() == NO_HOST_MESSAGE

    page.begin_run(_plan())  # the next run waits again
    assert "Waiting" in page.view.chart("memory")._placeholder.toPlainText()


def test_a_legend_too_wide_for_its_chart_moves_below_the_title(qtbot: QtBot) -> None:
    from bench_gui.gui.widgets.chart_catalogue import LATENCY_SERIES
    from bench_gui.gui.widgets.charts import TimeSeriesChart

    chart = TimeSeriesChart("Latency, all transactions", "Latency (ms)", LATENCY_SERIES)
    qtbot.addWidget(chart)
    chart.resize(380, 300)  # sized while hidden, as a grid does before showing its cells
    chart.show()
    qtbot.waitExposed(chart)
    assert chart.legend_below.isVisible()
    assert not chart.legend_label.isVisible()
    chart.resize(900, 300)
    qtbot.waitUntil(lambda: chart.legend_label.isVisible())
    assert not chart.legend_below.isVisible()


def test_the_end_of_a_run_is_painted_even_when_its_last_events_were_throttled(
    page: LivePage,
) -> None:
    """The timer paints tiles and header at most TILES_HZ times a second; the run's last
    events arriving inside that interval must still show (FINISHED, not MEASURING)."""
    events = sweep_events(VUS, 3, 5)
    page.begin_run(_plan())
    for event in events[:-1]:
        page.handle_event(event)
    page.tick()  # paints the tiles now...
    page.handle_event(events[-1])  # ...so the done event lands inside the throttle interval
    page.tick()
    page.run_finished("ok")
    assert page.phase_pill.text() == "FINISHED"


def test_a_database_that_does_not_answer_shows_in_the_banner_until_it_answers(
    page: LivePage,
) -> None:
    script = EventScript()
    page.begin_run(_plan())
    page.handle_event(script.emit("step", phase="start", step=0, vus=8))
    base = {"step": 0, "vus": 8, "phase": "measure", "nopm_driver": 0.0, "nopm_db": None}
    page.handle_event(script.emit("sample", 1.0, elapsed=1.0, db_not_answering_s=2.6, **base))
    page.refresh()
    assert page.banner.isVisible()
    assert page.banner.property("tone") == "stopped"
    assert page.banner_label.text() == "Database not answering for 3 s."
    page.handle_event(script.emit("sample", 1.0, elapsed=2.0, **base))
    page.refresh()
    assert not page.banner.isVisible()
    page.handle_event(script.emit("sample", 1.0, elapsed=3.0, db_not_answering_s=4.0, **base))
    page.refresh()
    page.run_failed("the database has not answered for 5 s (workload.db_stall_limit_s = 5)")
    assert page.banner.property("tone") == "failed"
    assert "workload.db_stall_limit_s = 5" in page.banner_label.text()
