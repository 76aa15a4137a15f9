"""Power and host metrics on the Live page: the model's columns, the tiles and charts, and the
charts the user chooses and arranges (remembered in QSettings, here a folder of the test's)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from bench_gui.core.plan_model import Plan, Power
from bench_gui.gui.pages.live.outcome import NO_POWER_MESSAGE
from bench_gui.gui.pages.live.page import LivePage
from bench_gui.gui.widgets.chart_layout import (
    CHART_KEYS,
    DEFAULT_CHARTS,
    LiveLayout,
    live_settings,
)
from bench_gui.gui.widgets.charts import ScalingChart, TimeSeriesChart
from bench_gui.services.live_model import LiveModel
from tests._fixtures.scripted import capacity
from tests._fixtures.scripted_power import IDLE_W, busy, power_sweep_events, watts

pytestmark = pytest.mark.gui

VUS = [8, 16, 24]


def _plan(meter: str = "ipmi") -> Plan:
    plan = Plan(name="power booth")
    plan.workload.virtual_users = list(VUS)
    plan.workload.rampup_s = 3
    plan.workload.duration_s = 5
    plan.power = Power(meter=meter, options={}, idle_s=5)
    return plan


@pytest.fixture
def page(qtbot: QtBot) -> LivePage:
    widget = LivePage()
    qtbot.addWidget(widget)
    widget.resize(1800, 1000)
    widget.show()
    return widget


# ---- the model ---------------------------------------------------------------------------------


def test_model_takes_the_idle_baseline_host_and_power() -> None:
    events = power_sweep_events(VUS, 3, 5, idle_s=5)
    model = LiveModel()
    model.feed_all(events[:4])  # hello and three seconds of idle baseline
    assert model.phase == "baseline"
    assert model.phase_label == "Idle power"
    assert model.power_meter == "ipmi"
    assert model.power_scope == "wall"
    assert len(model.samples) == 3
    assert model.samples.column("power_w").tolist() == [IDLE_W] * 3
    assert np.isnan(model.samples.column("nopm")).all()
    assert model.tiles().power_w == IDLE_W
    assert model.phase_remaining() == 2.0

    model.feed_all(events[4:])
    assert model.idle_power_w == IDLE_W
    assert model.device_order == ["md0", "nvme0n1", "nvme1n1"]
    assert model.socket_order == ["0", "1"]
    rows = 5 + 3 * 8  # idle seconds + every second of the three steps
    assert len(model.samples) == rows
    assert len(model.devices["md0"]) == rows
    last_nopm = model.samples.column("nopm")[-1]
    assert last_nopm == pytest.approx(capacity(24))
    assert model.samples.column("power_w")[-1] == pytest.approx(watts(capacity(24)))
    assert model.samples.column("cpu_user")[-1] == pytest.approx(0.7 * busy(24), abs=0.01)
    # The array carries WRITES_PER_ORDER writes per new order; the total counts it once.
    assert model.samples.column("disk_w_iops")[-1] == pytest.approx(capacity(24) / 60 * 8, rel=0.01)
    assert model.devices["nvme0n1"].column("w_iops")[-1] == pytest.approx(
        model.devices["md0"].column("w_iops")[-1]
    )
    assert model.samples.column("mem_used")[-1] == pytest.approx(48_000 + 120 * 24, abs=1)


def test_live_mw_per_nopm_is_measured_windows_only() -> None:
    model = LiveModel()
    model.feed_all(power_sweep_events(VUS, 3, 5, idle_s=2))
    mw = model.samples.column("mw_per_nopm")
    steps = model.samples.column("step")
    nopm = model.samples.column("nopm")
    # Ramp-up rows (three per step) and the idle rows carry no ratio.
    assert int(np.isnan(mw).sum()) == 2 + 3 * 3
    last = 1000 * watts(capacity(24)) / capacity(24)
    assert mw[-1] == pytest.approx(last)
    assert np.all(np.isfinite(mw[steps == 2][3:]))
    assert np.all(nopm[np.isfinite(mw)] > 0)
    tiles = model.tiles()
    assert tiles.mw_per_nopm == pytest.approx(last)
    assert tiles.idle_power_w == IDLE_W
    assert [round(p.power_w or 0, 3) for p in model.points] == [
        round(watts(capacity(v)), 3) for v in VUS
    ]
    assert model.points[0].mw_per_nopm == pytest.approx(
        1000 * watts(capacity(8)) / capacity(8), rel=1e-3
    )


# ---- the page ----------------------------------------------------------------------------------


def test_power_tiles_and_charts(page: LivePage) -> None:
    events = power_sweep_events(VUS, 3, 5, idle_s=5)
    page.begin_run(_plan())
    assert page.view.tile_power.isVisible()
    assert page.view.tile_mw.isVisible()
    for event in events:
        page.handle_event(event)
    page.refresh()
    assert page.view.tile_power.value_text == f"{watts(capacity(24)):,.0f}"
    assert "idle 180 W" in page.view.tile_power.detail_label.text()
    assert page.view.tile_mw.value_text == f"{1000 * watts(capacity(24)) / capacity(24):.2f}"
    power = page.view.charts["power"]
    assert isinstance(power, TimeSeriesChart)
    assert power.title_label.text() == "Power (IPMI DCMI)"
    assert "idle&nbsp;180&nbsp;W" in power.legend_text
    x, y = power.curves["power_w"].getData()
    assert y[0] == IDLE_W  # the baseline is charted before the first step
    cpu = page.view.charts["cpu"]
    assert isinstance(cpu, TimeSeriesChart)
    page.refresh()  # socket curves come one per redraw
    page.refresh()
    assert {"socket:0", "socket:1"} <= set(cpu.curves)
    disks = page.view.charts["disk_iops"]
    assert isinstance(disks, TimeSeriesChart)
    for _ in range(3):
        page.refresh()  # one device's curves per redraw
    assert {f"{d}:{c}" for d in ("md0", "nvme0n1", "nvme1n1") for c in ("r_iops", "w_iops")} <= set(
        disks.curves
    )
    assert all(name in disks.legend_text for name in ("md0", "nvme0n1", "nvme1n1"))
    assert disks.marker_count == 3
    page.run_finished("ok")
    assert "Best: " in page.banner_label.text()


def test_rapl_is_labelled_cpu_power_not_wall(page: LivePage) -> None:
    events = power_sweep_events(
        VUS, 3, 5, meter="rapl", scope="cpu", label="RAPL CPU power (1 package; not wall power)"
    )
    page.view.apply_layout(LiveLayout(["throughput", "power", "mw_per_nopm", "efficiency"], 2, []))
    page.begin_run(_plan("rapl"))
    for event in events:
        page.handle_event(event)
    page.refresh()
    assert page.view.tile_power.title_label.text() == "CPU power"
    assert page.view.charts["power"].title_label.text() == "CPU power (RAPL, not wall)"
    assert page.view.charts["mw_per_nopm"].title_label.text() == "mW per NOPM (CPU power)"
    efficiency = page.view.charts["efficiency"]
    assert isinstance(efficiency, ScalingChart)
    assert set(efficiency.values) == set(VUS)
    assert "not wall power" in page.view.tile_power.toolTip()


def test_no_meter_says_so(page: LivePage) -> None:
    plan = _plan("none")
    page.begin_run(plan)
    assert not page.view.tile_power.isVisible()
    power = page.view.charts["power"]
    assert isinstance(power, TimeSeriesChart)
    assert power.empty
    assert power.empty_message == NO_POWER_MESSAGE


def test_the_timer_draws_one_chart_at_a_time(page: LivePage, qtbot: QtBot) -> None:
    page.begin_run(_plan())
    page.timer.stop()  # the test ticks by hand
    for event in power_sweep_events(VUS, 3, 5):
        page.handle_event(event)
    qtbot.wait(250)  # the tiles were drawn by begin_run: their next turn is due
    page.tick()  # the tiles' turn
    assert page.view.tile_power.value_text != "—"
    shown = page.view.layout_choice.charts
    assert list(page.view.board.stale) == shown
    page.tick()  # the first chart's turn: it gets its data (and one of its step markers)
    assert page.view.throughput_chart.curves["nopm"].getData()[0] is not None
    assert page.view.throughput_chart.marker_count == 1
    power = page.view.charts["power"]
    assert isinstance(power, TimeSeriesChart)
    assert power.empty  # not its turn yet
    assert list(page.view.board.stale)[:2] == ["scaling", "power"]
    # Back in the queue for its other markers.
    assert list(page.view.board.stale)[-1] == "throughput"
    for _ in range(40):
        page.tick()
    assert not page.view.board.stale
    assert page.view.throughput_chart.marker_count == 3
    assert not power.empty
    x, _y = page.view.throughput_chart.curves["nopm"].getData()
    assert len(x) == 3 * 8 + 5


# ---- choosing and arranging charts -------------------------------------------------------------


def test_layout_round_trip_through_qsettings(settings_dir: Path) -> None:
    assert LiveLayout.load(live_settings()) == LiveLayout()
    layout = LiveLayout(["cpu", "power", "bogus", "cpu"], 9, ["md0"])
    layout.save(live_settings())
    files = list(settings_dir.rglob("*.ini"))
    assert files, "the layout is written under the test's settings folder"
    loaded = LiveLayout.load(live_settings())
    assert loaded == LiveLayout(["cpu", "power"], 4, ["md0"])
    single = LiveLayout(["power"], 1, [])
    single.save(live_settings())
    assert LiveLayout.load(QSettings(str(files[0]), QSettings.Format.IniFormat)) == single


def test_user_chooses_arranges_and_the_choice_is_remembered(page: LivePage, qtbot: QtBot) -> None:
    assert page.view.layout_choice.charts == list(DEFAULT_CHARTS)
    page.begin_run(_plan())
    for event in power_sweep_events(VUS, 3, 5):
        page.handle_event(event)
    page.refresh()

    page.choose_charts()
    dialog = page.view.layout_dialog
    assert dialog is not None
    assert dialog.isVisible()
    keys = [dialog.chart_list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(12)]
    assert keys[: len(DEFAULT_CHARTS)] == list(DEFAULT_CHARTS)
    assert sorted(keys) == sorted(CHART_KEYS)
    # Show power first, drop throughput, add the disk latency chart, two columns, md0 only.
    dialog.chart_list.setCurrentRow(keys.index("power"))
    dialog.up_button.click()
    dialog.up_button.click()
    dialog.chart_list.item(dialog.chart_list.currentRow()).setCheckState(Qt.CheckState.Checked)
    for i in range(dialog.chart_list.count()):
        item = dialog.chart_list.item(i)
        key = item.data(Qt.ItemDataRole.UserRole)
        if key == "throughput":
            item.setCheckState(Qt.CheckState.Unchecked)
        if key == "disk_latency":
            item.setCheckState(Qt.CheckState.Checked)
    dialog.columns_spin.setValue(2)
    dialog.all_devices.setChecked(False)
    devices = [dialog.device_list.item(i) for i in range(dialog.device_list.count())]
    assert [d.text() for d in devices] == ["md0", "nvme0n1", "nvme1n1"]
    for item in devices[1:]:
        item.setCheckState(Qt.CheckState.Unchecked)
    dialog.accept()

    assert page.view.layout_choice.charts == [
        "power",
        "scaling",
        "latency",
        "cpu",
        "disk_iops",
        "disk_latency",
    ]
    assert page.view.layout_choice.columns == 2
    assert page.view.layout_choice.devices == ["md0"]
    assert page.view.board.position_of("power") == (0, 0)
    assert page.view.board.position_of("disk_latency") == (2, 1)
    assert page.view.board.placed[0][0] == "power"
    cell = page.view.charts_grid.itemAtPosition(0, 0).widget()
    assert cell.chart is page.view.charts["power"]
    assert not page.view.throughput_chart.isVisibleTo(page)
    for _ in range(3):
        page.refresh()
    iops = page.view.charts["disk_iops"]
    assert isinstance(iops, TimeSeriesChart)
    assert set(iops.curves) == {"md0:r_iops", "md0:w_iops"}

    again = LivePage()
    qtbot.addWidget(again)
    assert again.view.layout_choice == page.view.layout_choice


def test_restore_defaults_in_the_dialog(page: LivePage) -> None:
    page.view.apply_layout(LiveLayout(["memory"], 1, ["sda"]))
    page.choose_charts()
    dialog = page.view.layout_dialog
    assert dialog is not None
    assert dialog.layout_choice() == LiveLayout(["memory"], 1, ["sda"])
    dialog.set_layout(LiveLayout(), [])
    assert dialog.layout_choice() == LiveLayout()
    dialog.reject()
    assert page.view.layout_choice.charts == ["memory"]


def test_idle_rows_do_not_disturb_the_nopm_tile() -> None:
    model = LiveModel()
    model.feed_all(power_sweep_events([8], 3, 5, idle_s=4)[:3])
    tiles = model.tiles()
    assert tiles.nopm is None
    assert tiles.cpu_busy is not None
    assert math.isfinite(tiles.cpu_busy)
