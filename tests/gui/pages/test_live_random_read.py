"""The Live page shows a random-read run in its own view: the events of a real run (the real
agent, real fio on a loop device under a 64 MiB memory cgroup, three dataset sizes) go into the
page, and its tiles, charts and point markers are checked against them; no TPROC-C word shows."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from bench_gui.core.plan_model import Plan
from bench_gui.gui.main_window import MainWindow
from bench_gui.gui.pages.live.page import LivePage
from bench_gui.wire.protocol import Event
from bench_gui.workloads.random_read.compare import multiplier_text
from bench_gui.workloads.random_read.live_board import fmt_ops, latency_tile_text
from bench_gui.workloads.random_read.live_model import SMOOTHING
from tests._fixtures.loop import LoopDevices
from tests.services.random_read_recording import LIMIT_MIB, MEASURE_S, MULTIPLES, WARMUP_S, recorded
from tests.workloads.random_read.agent.helpers import (
    make_filesystem,
    memory_cgroups_usable,
    need_fio,
    need_root,
)

pytestmark = pytest.mark.gui

RUN_MS = 240_000
TPROC_C_WORDS = ("NOPM", "TPM", "warehouse", "virtual user", " VU", "users", "New-Order")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Event], str]:
    return recorded(tmp_path_factory)


def _plan() -> Plan:
    plan = Plan(name="random reads under 64 MiB")
    plan.workload.kind = "random_read"
    plan.workload.dataset_sizes = list(MULTIPLES)
    plan.workload.memory_limit = f"{LIMIT_MIB}MiB"
    plan.workload.warmup_s = WARMUP_S
    plan.workload.measure_s = MEASURE_S
    return plan


@pytest.fixture
def page(qtbot: QtBot) -> LivePage:
    widget = LivePage()
    qtbot.addWidget(widget)
    widget.resize(1600, 1000)
    widget.show()
    return widget


def _samples(events: list[Event], step: int) -> list[Event]:
    return [e for e in events if e.kind == "sample" and e.get("step") == step]


def _shown_text(page: LivePage) -> str:
    """Every piece of text the page shows: labels, chart titles and legends, tooltips."""
    parts = [
        label.text()
        for label in page.findChildren(QLabel)
        if label.isVisibleTo(page) and label.text()
    ]
    board = page.views["random_read"].board
    for chart in board.charts.values():
        parts += [chart.title_label.text(), chart.legend_text, chart.toolTip()]
        plot = chart.plot
        parts += [plot.getAxis(side).labelText for side in ("left", "bottom")]
    parts += [tile.toolTip() for tile in board.tiles.tiles()]
    return "\n".join(parts)


def test_a_running_study_shows_its_figures_and_the_points_done(
    page: LivePage, run: tuple[list[Event], str]
) -> None:
    events, device = run
    page.begin_run(_plan())
    assert page.view.board.isVisible()
    sweep = page.views["tproc_c"]
    assert not sweep.tiles.isVisible()
    assert not sweep.board.isVisible()
    assert not page.header.charts_button.isVisible()
    assert not page.header.present_button.isVisible()
    assert page.view.board.dataset_chart.empty

    last = _samples(events, 2)
    cut = next(i for i, e in enumerate(events) if e is last[-1])
    for event in events[: cut + 1]:
        page.handle_event(event)
    page.refresh()

    tiles = page.view.board.tiles
    measured = [s for s in last if s.get("phase") == "measure"]
    ops = float(np.mean([s.get("ops_s") for s in measured[-SMOOTHING:]]))
    assert tiles.ops.value_text == fmt_ops(ops)
    read = measured[-1].get("latency_ms")["read"]
    p99, unit = latency_tile_text(read["p99"])
    assert (tiles.p99.value_text, tiles.p99.unit_label.text()) == (p99, unit)
    assert tiles.p999.value_text == latency_tile_text(read["p999"])[0]
    assert tiles.dataset.value_text == "2× RAM"
    assert tiles.dataset.unit_label.text() == f"{2 * LIMIT_MIB} MiB"
    assert tiles.dataset.detail_label.text() == f"RAM: cgroup limit: {LIMIT_MIB} MiB"
    assert tiles.point.value_text == "3 of 3"
    assert tiles.point.detail_label.text() == "measured window"
    assert page.phase_pill.text() == "MEASURED"
    assert page.step_label.text() == f"Point 3 of 3  ·  2× RAM · {2 * LIMIT_MIB} MiB"
    assert page.run_detail.text().startswith(
        f"random reads on this machine  ·  3 dataset sizes  ·  warm-up 0:02, measured 0:03 per"
        f" point  ·  memory limit {LIMIT_MIB} MiB  ·  fio-"
    )

    # ops/s and latency by second: the current point's seconds, its measured window shaded.
    x, y = page.view.board.ops_chart.curves["ops_s"].getData()
    assert list(x) == [s.get("elapsed") for s in last]
    assert list(y) == [s.get("ops_s") for s in last]
    assert page.view.board.ops_chart.windows == [
        (max(measured[0].get("elapsed") - 1.0, WARMUP_S), measured[-1].get("elapsed"))
    ]
    assert "point 3" in page.view.board.ops_chart.title_label.text()
    _x, y = page.view.board.latency_chart.curves["p999"].getData()
    for value, sample in zip(y, last, strict=True):
        lat = sample.get("latency_ms").get("read")
        if lat:
            assert value == pytest.approx(math.log10(lat["p999"] * 1000))
        else:
            assert math.isnan(value)
    _x, y = page.view.board.device_chart.curves["device_r_iops"].getData()
    assert list(y) == [s.get("host")["disks"][device]["r_iops"] for s in last]
    raw = next(e for e in events if e.get("stage") == "done").data["raw_iops"]["iops"]
    assert page.view.board.device_chart.legend_text.count("raw") == 1

    # The dataset-size axis: one marker per finished point, the raw line, the point running.
    chart = page.view.board.dataset_chart
    ends = [e.data["summary"] for e in events[:cut] if e.kind == "step" and e.get("phase") == "end"]
    assert len(ends) == 2
    markers = chart.marker_values()
    assert [m[0] for m in markers] == pytest.approx([0.5, 1.0])
    assert [m[1] for m in markers] == pytest.approx([s["ops_s"] for s in ends])
    assert chart.planned == pytest.approx(list(MULTIPLES))
    assert chart.raw_iops == raw
    assert chart.raw_line.isVisible()
    assert chart.raw_line.value() == pytest.approx(math.log10(raw))
    assert chart.live is not None
    assert chart.live[0] == 2.0
    assert chart.live[1] == pytest.approx(ops)
    assert not chart.empty

    text = _shown_text(page)
    for word in TPROC_C_WORDS:
        assert word not in text, word


def test_the_finished_study_shows_every_point_and_its_result(
    page: LivePage, run: tuple[list[Event], str]
) -> None:
    events, _device = run
    page.begin_run(_plan())
    for event in events:
        page.handle_event(event)
    page.run_finished("ok")

    ends = [e.data["summary"] for e in events if e.kind == "step" and e.get("phase") == "end"]
    chart = page.view.board.dataset_chart
    assert [m[1] for m in chart.marker_values()] == pytest.approx([s["ops_s"] for s in ends])
    assert chart.live is None
    last = ends[-1]
    banner = page.banner_label.text()
    assert banner.startswith("Run complete: 3 dataset sizes measured.")
    assert f"At 2× RAM: {last['ops_s']:,.0f} ops/s" in banner
    assert f"({multiplier_text(last['multiplier'])} the raw device IOPS)" in banner
    tiles = page.view.board.tiles
    assert tiles.ops.value_text == fmt_ops(last["ops_s"])
    assert tiles.ops.state == "result"
    assert (
        tiles.ops.detail_label.text() == f"point 3 · {multiplier_text(last['multiplier'])} raw IOPS"
    )
    assert page.phase_pill.text() == "FINISHED"
    assert page.countdown.text() == ""
    assert not page.stop_button.isEnabled()
    text = _shown_text(page) + "\n" + banner
    for word in TPROC_C_WORDS:
        assert word not in text, word


def test_a_stored_session_without_its_plan_still_gets_its_view(
    page: LivePage, run: tuple[list[Event], str]
) -> None:
    """A replayed or re-attached session read with a plan that did not say its workload: the
    agent's hello does."""
    events, _device = run
    page.begin_run(Plan(name="an older session"))
    sweep = page.view
    assert sweep.tiles.isVisible()
    for event in events:
        page.handle_event(event)
    page.run_finished("ok")
    assert page.view is page.views["random_read"]
    assert page.view.board.isVisible()
    assert not sweep.tiles.isVisible()
    assert len(page.view.board.dataset_chart.marker_values()) == len(MULTIPLES)
    assert page.run_detail.text().startswith("random reads  ·  3 dataset sizes")
    text = _shown_text(page) + "\n" + page.banner_label.text()
    for word in TPROC_C_WORDS:
        assert word not in text, word

    # The next TPROC-C run gets the sweep's view back.
    plan = Plan(name="sweep")
    page.begin_run(plan)
    assert page.view is sweep
    assert sweep.tiles.isVisible()
    assert sweep.board.isVisible()
    assert not page.views["random_read"].board.isVisible()
    assert page.header.present_button.isVisible()


def test_the_view_says_what_comes_before_the_first_point(
    page: LivePage, run: tuple[list[Event], str]
) -> None:
    events, _device = run
    page.begin_run(_plan())
    page.handle_event(events[0])  # the hello: the data file comes next
    page.refresh()
    assert page.phase_pill.text() == "PRE-ALLOCATING"
    assert page.view.board.tiles.point.detail_label.text() == "pre-allocating the data file"
    written = next(e for e in events if e.get("task") == "prepare")
    total, rate = written.get("total"), written.get("rate")
    page.handle_event(
        Event("progress", written.seq, written.t, {**written.data, "done": total // 4})
    )
    page.refresh()
    assert page.phase_pill.text() == "PRE-ALLOCATING 25%"
    assert page.view.board.tiles.point.detail_label.text() == (
        f"pre-allocating 25% of {total >> 20} MiB · {rate:,.0f} MB/s"
    )
    raw_second = next(e for e in events if e.get("task") == "raw_iops")
    for event in events[1 : events.index(raw_second) + 1]:
        page.handle_event(event)
    page.refresh()
    assert page.phase_pill.text() == "RAW IOPS"
    assert page.view.board.tiles.point.detail_label.text().startswith("raw-IOPS pre-pass")
    assert page.countdown.text() != ""
    done = next(e for e in events if e.get("stage") == "done")
    for event in events[events.index(raw_second) + 1 : events.index(done) + 1]:
        page.handle_event(event)
    page.refresh()
    assert page.phase_pill.text() == "DROPPING CACHES"
    assert page.view.board.dataset_chart.raw_line.isVisible()
    assert page.view.board.dataset_chart.marker_values() == []


def test_a_stopped_study_keeps_what_it_measured(
    page: LivePage, run: tuple[list[Event], str]
) -> None:
    events, _device = run
    page.begin_run(_plan())
    cut = next(i for i, e in enumerate(events) if e.kind == "step" and e.get("step") == 1)
    for event in events[: cut + 1]:
        page.handle_event(event)
    page.run_finished("stopped")
    assert page.banner.property("tone") == "stopped"
    banner = page.banner_label.text()
    assert "dataset sizes measured so far are kept" in banner
    assert "At 0.5× RAM:" in banner
    assert len(page.view.board.dataset_chart.marker_values()) == 1


def test_on_a_narrow_page_the_dataset_tile_says_the_point(
    qtbot: QtBot, page: LivePage, run: tuple[list[Event], str]
) -> None:
    """Where six tiles do not fit one row, the point's tile gives way (the charts keep their
    height) and the dataset's tile says the point and the phase."""
    events, _device = run
    page.begin_run(_plan())
    last = _samples(events, 2)
    for event in events[: events.index(last[-1]) + 1]:
        page.handle_event(event)
    page.refresh()
    tiles = page.view.board.tiles
    assert tiles.point.isVisible()
    assert len(tiles.flow.rows) == 1
    needs = [tile.needed_width() for tile in tiles.tiles()]
    five, six = sum(needs[:5]) + 4 * tiles.flow.spacing, sum(needs) + 5 * tiles.flow.spacing
    margins = page.width() - tiles.width()
    page.resize(margins + (five + six) // 2, 800)  # room for five tiles, not six
    qtbot.waitUntil(lambda: not tiles.point.isVisible())
    assert len(tiles.flow.rows) == 1
    assert tiles.dataset.detail_label.text() == "point 3 of 3  ·  measured window"
    page.resize(1600, 1000)
    qtbot.waitUntil(tiles.point.isVisible)
    assert tiles.dataset.detail_label.text() == f"RAM: cgroup limit: {LIMIT_MIB} MiB"


def test_the_window_s_status_line_speaks_of_points(
    page: LivePage, run: tuple[list[Event], str]
) -> None:
    events, _device = run
    page.begin_run(_plan())
    said = []
    for event in events:
        page.handle_event(event)
        said.append(page.status_for(event))
    assert said[0] == f"Random reads running (fio-{events[0].get('fio_version')[4:]}):" + (
        f" RAM for the study cgroup limit: {LIMIT_MIB} MiB"
    )
    steps = [s for s, e in zip(said, events, strict=True) if e.kind == "step" and s]
    assert steps == [
        f"Random reads running: point 1 of 3, 0.5× RAM · {LIMIT_MIB // 2} MiB",
        f"Random reads running: point 2 of 3, 1× RAM · {LIMIT_MIB} MiB",
        f"Random reads running: point 3 of 3, 2× RAM · {2 * LIMIT_MIB} MiB",
    ]
    for line in said:
        for word in TPROC_C_WORDS:
            assert word not in line


@pytest.mark.integration
def test_a_random_read_plan_started_from_the_window_runs_live(
    qtbot: QtBot, main_window: MainWindow, tmp_path: Path
) -> None:
    """The whole chain: the window starts a random-read plan, the real agent runs real fio on
    a loop device under a memory cgroup, the Live page shows its view as the points end."""
    need_root()
    need_fio()
    memory_cgroups_usable()
    loops = LoopDevices(tmp_path)
    try:
        make_filesystem(loops, tmp_path / "mnt", size_mib=300)
        plan = _plan()
        plan.workload.dataset_sizes = [0.5, 2]
        plan.workload.warmup_s = 1
        plan.workload.measure_s = 2
        plan.workload.raw_iops_s = 1
        plan.workload.file = str(tmp_path / "mnt" / "data")
        main_window.show()
        assert main_window.run_control.start_run(plan)
        live = main_window.live_page
        assert main_window.current_page_name() == "Live"
        assert live.view is live.views["random_read"]
        qtbot.waitUntil(lambda: len(live.view.model.points) >= 1, timeout=RUN_MS)
        said = main_window.face.status_label.text()
        qtbot.waitUntil(lambda: main_window.run_control.worker is None, timeout=RUN_MS)
    finally:
        if main_window.run_control.worker is not None:  # the mount is not let go while fio reads it
            main_window.run_control.stop_task()
            qtbot.waitUntil(lambda: main_window.run_control.worker is None, timeout=RUN_MS)
        loops.cleanup()
    assert said in (  # the first point's, or the second's if it started meanwhile
        f"Random reads running: point 1 of 2, 0.5× RAM · {LIMIT_MIB // 2} MiB",
        f"Random reads running: point 2 of 2, 2× RAM · {2 * LIMIT_MIB} MiB",
    ), said
    assert live.banner.property("tone") == "ok", live.banner_label.text()
    assert live.banner_label.text().startswith("Run complete: 2 dataset sizes measured.")
    markers = live.view.board.dataset_chart.marker_values()
    assert [m[0] for m in markers] == pytest.approx([0.5, 2.0])
    assert all(m[1] > 0 for m in markers)
    assert live.view.board.dataset_chart.raw_iops is not None
    stored = main_window.store.steps(main_window.run_control.last_session_id)
    assert [s.summary["ops_s"] for s in stored] == pytest.approx([m[1] for m in markers])
    text = _shown_text(live)
    for word in TPROC_C_WORDS:
        assert word not in text, word
