"""The Present view fed a run's real protocol events: what a passer-by reads, at 1920x1080
and at 1280x720; ramp-up, result, Esc and stray keys; what a booth sets on it (ghost, ratio,
corner error, overlay)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QApplication, QLabel, QWidget
from pytestqt.qtbot import QtBot

from bench_gui.core.plan_model import Plan
from bench_gui.gui.present.style import HERO_MIN_PX
from bench_gui.gui.present.tiles import RAMPUP_CAPTION
from bench_gui.gui.present.view import PresentView
from bench_gui.gui.present.window import follow_main_window
from bench_gui.services.live_model import LiveModel
from bench_gui.services.race import AHEAD, Headline
from bench_gui.wire.protocol import Event
from tests._fixtures.scripted import (
    capacity,
    latency_stats,
    sample_index,
    scripted_plan,
    sweep_events,
)
from tests._fixtures.scripted_power import power_sweep_events, watts
from tests.gui.shown import shown_themed

pytestmark = pytest.mark.gui

VUS = [8, 16, 24]


def _plan(meter: str = "none") -> Plan:
    return scripted_plan("RAID 10, 4× SAS SSD", VUS, meter)


@pytest.fixture
def view(qtbot: QtBot) -> PresentView:
    return shown_themed(qtbot, PresentView(), 1920, 1080)


def _feed(view: PresentView, events: list[Event]) -> None:
    for event in events:
        view.handle_event(event)
    view.refresh()


def _inside(child: QWidget, parent: QWidget) -> bool:
    rect = QRect(child.mapTo(parent, QPoint(0, 0)), child.size())
    return parent.rect().contains(rect)


def test_the_run_reads_from_afar_phase_step_users_countdown_and_huge_nopm(
    view: PresentView,
) -> None:
    events = sweep_events(VUS, 3, 5)
    view.begin_run(_plan())
    _feed(view, events[: sample_index(events, 1, 6.0) + 1])

    assert view.name.text() == "RAID 10, 4× SAS SSD"
    assert view.server.text() == "PostgreSQL 16.4"
    assert view.phase.chip.text() == "Measuring"
    text = view.phase.text.text()
    assert text.startswith("Step 2 of 3  ·  16 users  ·  ")
    assert text.endswith(" left")
    assert text.split("  ·  ")[2] in ("0:02 left", "0:01 left")  # 2 s left at the sample
    assert view.tiles.nopm.value_text == f"{capacity(16):,.0f}"
    assert view.tiles.p999.value_text == f"{latency_stats(16)['p999']:.1f}"
    assert view.tiles.tpm.isVisibleTo(view)  # no meter: TPM in the power tiles' place
    assert not view.tiles.power.isVisibleTo(view)

    value = view.tiles.nopm.value_label
    value.ensurePolished()
    assert value.font().pixelSize() >= HERO_MIN_PX
    other = view.tiles.p999.value_label
    other.ensurePolished()
    assert other.font().pixelSize() < value.font().pixelSize()

    # The chart: this run's NOPM, a marker per step, each measured window shaded.
    x, y = view.chart.curves["nopm"].getData()
    assert y[-1] == pytest.approx(capacity(16))
    assert view.chart.marker_count == 2
    assert [label for _x, label, _shown in view.chart.marker_labels()] == [
        "8 users",
        "16 users",
    ]
    windows = view.chart.windows
    assert len(windows) == 2
    assert windows[0] == pytest.approx((3.5, 8.5))  # step 0 starts at 0.5 s, 3 s of ramp-up
    assert windows[1][1] == pytest.approx(float(x[-1]))


def test_the_countdown_ticks_between_samples(view: PresentView, qtbot: QtBot) -> None:
    events = sweep_events(VUS, 3, 5)
    view.begin_run(_plan())
    _feed(view, events[: sample_index(events, 0, 4.0) + 1])  # 4 s of the 5 s window left
    first = view.countdown()
    assert first is not None
    qtbot.wait(1100)
    later = view.countdown()
    assert later is not None
    assert later < first
    assert view.phase.text.text().endswith(" left")


def test_ramp_up_figures_are_dimmed_and_say_they_do_not_count(view: PresentView) -> None:
    events = sweep_events(VUS, 3, 5)
    view.begin_run(_plan())
    _feed(view, events[: sample_index(events, 1, 2.0) + 1])
    assert view.phase.chip.text() == "Ramp-up"
    assert "measuring in 0:01" in view.phase.text.text()
    nopm = view.tiles.nopm
    assert nopm.state == "rampup"
    assert nopm.caption_label.text() == RAMPUP_CAPTION
    assert view.tiles.p999.caption_label.text() == "ramp-up"
    nopm.value_label.ensurePolished()
    dimmed = nopm.value_label.palette().color(nopm.value_label.foregroundRole())
    _feed(view, events[sample_index(events, 1, 2.0) + 1 : sample_index(events, 1, 5.0) + 1])
    assert nopm.state == ""
    nopm.value_label.ensurePolished()
    bright = nopm.value_label.palette().color(nopm.value_label.foregroundRole())
    assert bright.lightness() > dimmed.lightness()


def test_after_the_run_the_tiles_show_its_result(view: PresentView) -> None:
    events = power_sweep_events(VUS, 3, 5)
    view.begin_run(_plan("ipmi"))
    _feed(view, events)
    view.run_finished("ok")
    tiles = view.tiles
    assert tiles.power.isVisibleTo(view)
    assert tiles.per_watt.isVisibleTo(view)
    assert not tiles.tpm.isVisibleTo(view)
    # The best step is the last (24 users): its figures, not the last second's.
    assert tiles.nopm.value_text == f"{capacity(24):,.0f}"
    assert tiles.nopm.caption_label.text() == "best step · 24 users"
    assert tiles.nopm.state == "result"
    assert tiles.power.value_text == f"{watts(capacity(24)):,.0f}"
    per_watt = capacity(24) / watts(capacity(24))
    assert tiles.per_watt.value_text == f"{per_watt:,.0f}"
    assert view.phase.chip.text() == "Finished"
    assert view.phase.text.text() == "3 steps measured  ·  result: the best step, 24 users"


def test_a_failed_run_says_why_in_the_phase_line(view: PresentView) -> None:
    view.begin_run(_plan())
    view.run_failed("cannot connect to 10.0.0.5:5432: password authentication failed")
    assert view.phase.chip.text() == "Failed"
    assert "password authentication failed" in view.phase.text.text()
    assert view.tiles.nopm.value_text == "—"
    assert view.tiles.nopm.caption_label.text() == "no step was measured"


def test_esc_asks_to_leave_and_other_keys_do_nothing(view: PresentView, qtbot: QtBot) -> None:
    events = sweep_events(VUS, 3, 5)
    view.begin_run(_plan())
    _feed(view, events[:20])
    before = (view.phase.line, view.tiles.nopm.value_text, len(view.model.samples))
    keys = (
        Qt.Key.Key_Space,
        Qt.Key.Key_Return,
        Qt.Key.Key_Q,
        Qt.Key.Key_Delete,
        Qt.Key.Key_F4,
        Qt.Key.Key_Tab,
    )
    with qtbot.assertNotEmitted(view.leave_requested):
        for key in keys:
            qtbot.keyClick(view, key)
        qtbot.keyClick(view, Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier)
        qtbot.mouseClick(view.chart.plot_widget.viewport(), Qt.MouseButton.RightButton)
    assert view.isVisible()
    assert (view.phase.line, view.tiles.nopm.value_text, len(view.model.samples)) == before
    assert view.chart.plot.getViewBox().state["mouseEnabled"] == [False, False]
    with qtbot.waitSignal(view.leave_requested, timeout=1000):
        qtbot.keyClick(view, Qt.Key.Key_Escape)


@pytest.mark.parametrize("power", [False, True])
def test_it_fits_1280x720(qtbot: QtBot, view: PresentView, power: bool) -> None:
    view.resize(1280, 720)
    qtbot.waitUntil(lambda: view.width() == 1280 and view.height() == 720)
    events = (power_sweep_events if power else sweep_events)(VUS, 3, 5)
    view.begin_run(_plan("ipmi" if power else "none"))
    view.set_ratio_text("4.2X vs HDD array")
    _feed(view, events[: sample_index(events, 2, 6.0) + 1])
    QApplication.processEvents()
    assert view.minimumSizeHint().height() <= 720
    assert view.minimumSizeHint().width() <= 1280
    assert len(view.tiles.flow.rows) == 1  # the tiles share one row
    for tile in view.tiles.shown():
        assert _inside(tile, view)
        label = tile.value_label
        assert label.width() >= label.sizeHint().width(), tile.title_label.text()
    nopm = view.tiles.nopm.value_label
    nopm.ensurePolished()
    assert nopm.font().pixelSize() >= HERO_MIN_PX
    for part in (view.name, view.ratio, view.phase, view.chart):
        assert _inside(part, view)
    assert view.chart.plot_widget.height() >= 200  # the chart keeps room to read


def test_tiles_wrap_on_a_narrow_screen(qtbot: QtBot, view: PresentView) -> None:
    events = power_sweep_events(VUS, 3, 5)
    view.begin_run(_plan("ipmi"))
    _feed(view, events)
    assert len(view.tiles.flow.rows) == 1
    view.resize(800, 1000)
    qtbot.waitUntil(lambda: view.width() == 800 and len(view.tiles.flow.rows) > 1)

    def unclipped() -> bool:
        return all(
            _inside(t, view) and t.value_label.width() >= t.value_label.sizeHint().width()
            for t in view.tiles.shown()
        )

    qtbot.waitUntil(unclipped, timeout=3000)
    nopm = view.tiles.nopm.value_label
    assert nopm.font().pixelSize() >= HERO_MIN_PX


def test_ghost_curve_and_ratio_text(view: PresentView) -> None:
    events = sweep_events(VUS, 3, 5)
    view.begin_run(_plan())
    _feed(view, events[:12])
    ghost = [(float(t), 1000.0 * t) for t in range(0, 30)]
    view.set_ghost("HDD array", ghost)
    view.set_ratio_text("4.2X vs HDD array")
    x, y = view.chart.curves["ghost"].getData()
    assert list(x) == [p[0] for p in ghost]
    assert list(y) == [p[1] for p in ghost]
    assert "HDD&nbsp;array" in view.chart.legend_text
    assert view.ratio.isVisible()
    assert view.ratio.text() == "4.2X vs HDD array"
    assert not view.server.isVisible()  # it gives the figure its room
    # The x axis spans the ghost's whole run: the live curve grows into it.
    x0, x1 = view.chart.plot.getViewBox().viewRange()[0]
    assert x1 >= 29.0
    view.set_ghost("HDD array", None)
    view.set_ratio_text(None)
    x, _y = view.chart.curves["ghost"].getData()
    assert x is None or len(x) == 0
    assert "HDD" not in view.chart.legend_text
    assert not view.ratio.isVisible()


def test_corner_error_shows_does_not_block_and_fades(view: PresentView, qtbot: QtBot) -> None:
    events = sweep_events(VUS, 3, 5)
    view.begin_run(_plan())
    view.corner.seconds = 0.3
    view.show_corner_error("the demo target restarted: connection refused")
    corner = view.corner
    assert corner.isVisible()
    assert corner.text() == "the demo target restarted: connection refused"
    assert QApplication.activeModalWidget() is None
    assert QApplication.activePopupWidget() is None
    # In the bottom-right corner, inside the view.
    assert _inside(corner, view)
    assert corner.x() > view.width() // 2
    assert corner.y() > view.height() // 2
    # The run goes on under it, and the keys still reach the view.
    _feed(view, events[: sample_index(events, 0, 5.0) + 1])
    assert view.phase.chip.text() == "Measuring"
    with qtbot.waitSignal(view.leave_requested, timeout=1000):
        qtbot.keyClick(view, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not corner.isVisible(), timeout=5000)


def test_overlay_shows_over_the_view_and_goes(view: PresentView, qtbot: QtBot) -> None:
    card = QLabel("Best NOPM 220,043")
    view.show_overlay(card)
    assert card.parentWidget() is view
    assert card.isVisible()
    assert _inside(card, view)
    assert card.width() >= view.width() // 2
    # The run behind the card is dimmed, the card above the dimming.
    assert view.scrim.isVisible()
    assert view.scrim.geometry() == view.rect()
    children = view.children()
    assert children.index(card) > children.index(view.scrim)
    second = QLabel("next card")
    view.show_overlay(second)
    assert not card.isVisible()
    view.show_overlay(None)
    assert not second.isVisible()
    assert view.overlay is None
    assert not view.scrim.isVisible()


def test_following_a_shared_model(qtbot: QtBot) -> None:
    """Given the Live page's model, the view draws what its owner feeds it (a new run too)."""
    model = LiveModel()
    view = PresentView(model=model)
    qtbot.addWidget(view)
    view.resize(1366, 768)
    view.show()
    qtbot.waitExposed(view)
    plan = _plan()
    model.begin(plan.workload.virtual_users, 3, 5, plan.name)
    events = sweep_events(VUS, 3, 5)
    cut = sample_index(events, 0, 6.0)
    for event in events[: cut + 1]:
        model.feed(event)
        view.handle_event(event)  # a follower does not feed the model a second time
    qtbot.waitUntil(lambda: view.tiles.nopm.value_text == f"{capacity(8):,.0f}", timeout=3000)
    assert len(model.samples) == 6
    assert view.name.text() == plan.name
    model.begin(plan.workload.virtual_users, 3, 5, "second run")
    qtbot.waitUntil(lambda: view.name.text() == "second run", timeout=3000)
    assert view.chart.empty
    assert view.chart.marker_count == 0
    assert view.tiles.nopm.value_text == "—"


def test_the_main_window_presents_its_live_run(qtbot: QtBot, main_window: Any) -> None:
    """As the main window's present_factory: the view follows the Live page's model, and Esc
    leaves presentation mode."""
    main_window.present_factory = follow_main_window
    main_window.show()
    qtbot.waitExposed(main_window)
    live = main_window.live_page
    plan = _plan()
    live.begin_run(plan)
    events = sweep_events(VUS, 3, 5)
    for event in events[: sample_index(events, 1, 6.0) + 1]:
        live.handle_event(event)
    main_window.toggle_present()
    view = main_window.present_view
    assert isinstance(view, PresentView)
    assert view.model is live.model
    qtbot.waitUntil(lambda: view.tiles.nopm.value_text == f"{capacity(16):,.0f}", timeout=3000)
    assert view.phase.text.text().startswith("Step 2 of 3  ·  16 users")
    with qtbot.waitSignal(view.leave_requested, timeout=1000):
        qtbot.keyClick(view, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not main_window.presenting, timeout=3000)
    live.run_finished("ok")


def _chip_colour(view: PresentView) -> str:
    """The chip's background, read from its pixels (inside its right padding)."""
    chip = view.phase.chip
    chip.ensurePolished()
    image = chip.grab().toImage()
    assert view.sizes is not None
    return image.pixelColor(chip.width() - view.sizes.phase // 4, chip.height() // 2).name()


def test_a_schema_build_shows_its_progress_on_a_legible_chip(view: PresentView) -> None:
    """The first run on the demo target builds its schema for a minute and more: the chip
    says Building on its own colour (the view's rule for labels used to hide every chip's
    background) and the line says how far the build is."""
    from bench_gui.gui.present.style import ACCENT

    view.begin_run(_plan())
    view.refresh()
    assert view.phase.chip.text() == "Starting"
    assert _chip_colour(view) == "#4a5570"  # not the view's background: the chip shows
    events = sweep_events(VUS, 3, 5)
    _feed(view, events[:1])  # hello
    build = {"task": "build", "stage": "loading", "done": 3, "total": 8, "unit": "warehouses"}
    view.handle_event(Event("progress", 2, events[0].t + 1, build))
    view.refresh()
    assert view.phase.chip.text() == "Building"
    assert view.phase.text.text() == "building the database: loading 3 of 8 warehouses (38%)"
    assert _chip_colour(view) == ACCENT
    _feed(view, events[1:4])  # the first step starts: ramp-up
    assert view.phase.chip.text() == "Ramp-up"
    assert _chip_colour(view) == "#f1c21b"


def test_one_user_a_slow_p999_and_the_end_of_a_measured_window(
    qtbot: QtBot, view: PresentView
) -> None:
    """ "1 user" (not "1 users"); a p99.9 of 100 ms and more keeps its "ms" in view at 1280;
    when the window's countdown is over, the line says what the run is doing."""
    from bench_gui.services.session_view import COLLECTING

    view.resize(1280, 720)
    qtbot.waitUntil(lambda: view.width() == 1280)
    events = sweep_events([1], 3, 5)
    for event in events:
        latency = event.data.get("latency_ms")
        if event.kind == "sample" and isinstance(latency, dict):
            latency["all"]["p999"] = 250.55
    view.begin_run(_plan())
    last = sample_index(events, 0, 7.0)
    _feed(view, events[: last + 1])
    assert view.model.phase == "measure"
    assert "1 user" in view.phase.text.text()
    assert "1 users" not in view.phase.text.text()
    QApplication.processEvents()
    tile = view.tiles.p999
    assert tile.value_text == "251"
    assert tile.value_label.width() >= tile.value_label.sizeHint().width()
    view.phase.show_model(view.model, 0.0)
    assert view.phase.text.text().endswith(COLLECTING)
    view.phase.show_model(view.model, 3.0)
    assert view.phase.text.text().endswith("0:03 left")


def _silent(events: list[Event], step: int, elapsed: float, seconds: int) -> list[Event]:
    """The run up to ``elapsed`` in ``step``, then ``seconds`` samples of a database that does
    not answer (as the agent sends them: no database rates, for how long, the last error)."""
    from tests._fixtures.scripted import EventScript

    cut = sample_index(events, step, elapsed)
    head = events[: cut + 1]
    script = EventScript(t0=head[-1].t)
    script.seq = head[-1].seq
    for second in range(1, seconds + 1):
        script.emit(
            "sample",
            dt=1.0,
            step=step,
            vus=VUS[step],
            phase="measure",
            elapsed=elapsed + second,
            remaining=0.0,
            counts={},
            errors={},
            latency_ms={},
            nopm_driver=0.0,
            tpm_driver=0.0,
            nopm_db=None,
            tpm_db=None,
            db_not_answering_s=float(second),
            db_error="cannot connect to the database: Connection refused",
        )
    return head + script.events


def test_a_database_that_does_not_answer_is_said_not_collecting(
    view: PresentView, qtbot: QtBot
) -> None:
    """Seen full screen with the demo server killed under a booth loop: two minutes of
    "Measuring · collecting the step's figures" over a 0 until the run gave up. The line says
    the database does not answer, first (it survives eliding at 1280), on an amber chip."""
    from bench_gui.services.session_view import COLLECTING

    view.resize(1280, 720)
    qtbot.waitUntil(lambda: view.width() == 1280)
    view.begin_run(_plan())
    _feed(view, _silent(sweep_events(VUS, 3, 5), 1, 6.0, 45))
    view.phase.show_model(view.model, 0.0)
    line = view.phase.text
    assert line.text().startswith("Database not answering for 45 s")
    assert COLLECTING not in line.text()
    assert line.displayed_text().startswith("Database not answering for 45 s")
    assert view.phase.chip.text() == "Waiting"
    assert _chip_colour(view) == "#ff832b"
    # It answers again: the line goes back to the step and its countdown.
    answered = sweep_events(VUS, 3, 5)[sample_index(sweep_events(VUS, 3, 5), 1, 7.0)]
    view.handle_event(answered)
    view.refresh()
    view.phase.show_model(view.model, 3.0)
    assert view.phase.text.text() == "Step 2 of 3  ·  16 users  ·  0:03 left"
    assert view.phase.chip.text() == "Measuring"


def test_a_step_cut_short_without_a_figure_is_not_counted_as_measured(view: PresentView) -> None:
    """Seen after the booth stopped a run whose database had died: "1 step measured" on the
    phase line over tiles saying "no step was measured"."""
    events = sweep_events(VUS, 3, 5, stop_in_step=0)
    for event in events:  # as the agent sent them: the database's counters lost
        for summary in [event.data.get("summary"), *event.data.get("steps", [])]:
            if isinstance(summary, dict):
                summary.update(nopm=None, tpm=None, nopm_driver=None, window_s=0.0, latency_ms={})
    view.begin_run(_plan())
    _feed(view, events)
    assert view.model.ended
    assert view.tiles.nopm.caption_label.text() == "no step was measured"
    assert view.phase.text.text() == "no step was measured"


def test_before_its_first_event_a_run_says_what_it_is_doing(view: PresentView) -> None:
    """A first start of the demo database (initdb) showed a "Starting" chip alone for 15 s."""
    from bench_gui.core.plan_model import Target

    plan = _plan()
    plan.target = Target(kind="demo")
    view.begin_run(plan)
    view.refresh()
    assert view.phase.line == "Starting  ·  starting the demo database"
    plan.target = Target(kind="postgresql", host="db-server-1")
    view.begin_run(plan)
    view.refresh()
    assert view.phase.line == "Starting  ·  connecting to db-server-1"
    _feed(view, sweep_events(VUS, 3, 5)[:1])  # the agent's hello
    assert view.phase.line == "Starting"


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (1366, 768), (1920, 1080)])
def test_no_tile_caption_is_cut(qtbot: QtBot, width: int, height: int) -> None:
    """Seen at 1280 after a failed run: "no step was measurec" under the p99.9 figure. The
    narrow tiles say it shorter, and a caption too wide ends in "…" (whole in its tooltip)."""
    view = shown_themed(qtbot, PresentView(), width, height)
    view.begin_run(_plan("ipmi"))
    view.run_failed("the demo database stopped (crashed or killed)")
    QApplication.processEvents()
    for tile in view.tiles.shown():
        label = tile.caption_label
        wide = label.fontMetrics().horizontalAdvance(label.text())
        assert wide <= label.contentsRect().width(), (width, label.text())
    long = "ramp-up · not counted yet, and a good deal more than a narrow tile can hold"
    view.tiles.p999.set_value("8.42", long)
    QApplication.processEvents()
    label = view.tiles.p999.caption_label
    assert label.displayed_text().endswith("…")
    assert label.toolTip() == long


@pytest.mark.parametrize("width", [1280, 1366])
def test_the_name_reads_whole_beside_a_shorter_headline(qtbot: QtBot, width: int) -> None:
    """At 1280 px "Replay 10x: NVMe RAID 10" was cut ("Replay 10x: NVMe RAID…") for the
    longest headline "4.0X vs HDD array at 32 users": the headline takes a shorter form of its
    own before the name is cut, and a name too long for the row still leaves the headline its
    shortest form."""
    view = shown_themed(qtbot, PresentView(), width, 720)
    view.begin_run(Plan(name="Replay 10x: NVMe RAID 10"))
    forms = ("4.0X vs HDD array at 32 users", "4.0X vs HDD array", "4.0X")
    view.set_headline(Headline(forms, AHEAD))
    view.refresh()
    QApplication.processEvents()
    assert view.name.displayed_text() == "Replay 10x: NVMe RAID 10"
    assert view.ratio.text() in forms[:2], view.ratio.text()
    assert _inside(view.ratio, view)

    view.set_title("A name for a run so long that no booth screen could ever hold it whole")
    view.refresh()
    QApplication.processEvents()
    assert view.name.displayed_text().endswith("…")
    assert view.ratio.text() in forms
    assert view.ratio.width() >= view.ratio.shortest_width() - 1
