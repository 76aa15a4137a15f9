"""The booth on a screen: a replayed race, the loop carrying on after errors, Esc, the options.

The screen is the Present view (the screen of ``bench-gui present``). Runs are stored sessions
replayed with no database, or failures injected through the run factory; a VirtualClock takes
the loop's and the replays' waits, so nothing sleeps.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from bench_gui.cli.booth import BOOTH_ERRORS, add_booth_arguments, booth_from_args, build_booth
from bench_gui.core.plan_model import Plan, Target
from bench_gui.gui.present.booth import Booth
from bench_gui.gui.present.result_card import ResultCard
from bench_gui.gui.present.view import PresentView
from bench_gui.services.booth import BoothOptions, BoothSetup, booth_setup
from bench_gui.services.loop import LoopFinished, RunLike
from bench_gui.services.pacing import VirtualClock
from bench_gui.services.run_errors import RunError
from tests._fixtures.scripted import capacity, sweep_events
from tests._fixtures.seed_sessions import build_seed000, store_session

pytestmark = pytest.mark.gui


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bench-gui present")
    parser.add_argument("plan", nargs="?")
    add_booth_arguments(parser)
    return parser.parse_args(list(argv))


@pytest.fixture
def panel(qtbot: QtBot) -> PresentView:
    widget = PresentView()
    qtbot.addWidget(widget)
    widget.resize(1366, 768)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


@pytest.fixture
def sessions(store: Any) -> tuple[int, int]:
    """A fast array and a slow one, stored with a sample every second (the same sweep, the
    slow one's NOPM a quarter of the fast one's)."""
    fast = store_session(store, "NVMe RAID 10 (4 drives)", sweep_events(vus=(4, 8, 16)))
    slow_events = sweep_events(vus=(4, 8, 16))
    for event in slow_events:
        for key in ("nopm_db", "nopm_driver", "tpm_db", "tpm_driver"):
            if event.kind == "sample" and isinstance(event.data.get(key), float):
                event.data[key] /= 4
        summary = event.data.get("summary")
        if isinstance(summary, dict):
            for key in ("nopm", "tpm", "nopm_driver"):
                summary[key] /= 4
    slow = store_session(store, "HDD array (16 x 15K)", slow_events)
    return fast, slow


@pytest.fixture
def booths() -> Iterator[list[Booth]]:
    """Booths a test made; each is shut down (its thread joined) whatever the test did."""
    made: list[Booth] = []
    yield made
    for booth in made:
        assert booth.shutdown(30), "the booth's loop did not end"


def run_booth(qtbot: QtBot, booth: Booth, timeout_ms: int = 60_000) -> LoopFinished:
    with qtbot.waitSignal(booth.finished, timeout=timeout_ms) as blocker:
        booth.start()
    assert not booth.running
    result = blocker.args[0] if blocker.args else None
    assert isinstance(result, LoopFinished)
    return result


def test_a_replayed_race_ends_on_its_result_card(
    qtbot: QtBot, panel: PresentView, store: Any, sessions: tuple[int, int], booths: list[Booth]
) -> None:
    fast, slow = sessions
    setup = booth_setup(
        BoothOptions(replay=(str(fast), "HDD array"), speed=10, runs=2, card_seconds=20),
        store,
        clock=VirtualClock(),
    )
    booth = Booth(setup, panel)
    booths.append(booth)
    finished = run_booth(qtbot, booth)
    assert (finished.runs, finished.ok, finished.failed, finished.stopped) == (2, 2, 0, False)
    assert booth.errors == []
    # The replayed session went through the screen's live path whole.
    model = panel.model
    assert model.phase == "ok"
    assert [(p.vus, p.nopm) for p in model.points] == [(s.vus, s.nopm) for s in store.steps(fast)]
    assert panel.name.text() == "Replay 10x: NVMe RAID 10 (4 drives)"  # never taken for live
    # The race: four times the HDD array's NOPM at every step, the last step's result shown.
    assert panel.ratio_text == "4.0X vs HDD array at 16 users"
    assert panel.chart.ghost_label == "HDD array at 16 users"
    assert panel.chart.ghost_points
    assert max(n for _t, n in panel.chart.ghost_points) == pytest.approx(capacity(16) / 4)
    # The last run's card stays up, with nothing left to count down.
    assert isinstance(panel.overlay, ResultCard)
    assert panel.overlay.texts()["Best NOPM"] == f"{capacity(16):,.0f}"
    assert panel.overlay.texts()["New orders a minute"] == "4.0X"
    assert panel.overlay.footer.text() == ""
    assert panel.overlay.title.text() == "Run 2 of 2: result"


def test_the_present_view_races_a_replay_and_shows_the_card(
    qtbot: QtBot, store: Any, sessions: tuple[int, int], booths: list[Booth]
) -> None:
    """The booth on the Present view itself (the screen of ``bench-gui present``)."""
    fast, slow = sessions
    view = PresentView()
    qtbot.addWidget(view)
    view.resize(1280, 720)
    view.show()
    qtbot.waitExposed(view)
    setup = booth_setup(
        BoothOptions(replay=(str(fast), str(slow)), speed=10, runs=1), store, clock=VirtualClock()
    )
    booth = Booth(setup, view)
    booths.append(booth)
    finished = run_booth(qtbot, booth)
    assert (finished.runs, finished.ok) == (1, 1)
    assert view.ratio_text == "4.0X vs HDD array at 16 users"
    assert view.name.text() == "Replay 10x: NVMe RAID 10 (4 drives)"
    assert view.chart.ghost_label == "HDD array at 16 users"
    assert max(n for _t, n in view.chart.ghost_points) == pytest.approx(capacity(16) / 4)
    assert isinstance(view.overlay, ResultCard)
    assert view.overlay.texts()["New orders a minute"] == "4.0X"
    assert view.model.phase == "ok"
    with qtbot.waitSignal(view.leave_requested):
        qtbot.keyClick(view, Qt.Key.Key_Escape)


def test_the_loop_carries_on_after_an_error_without_a_dialog(
    qtbot: QtBot, panel: PresentView, store: Any, sessions: tuple[int, int], booths: list[Booth]
) -> None:
    fast, slow = sessions
    base = booth_setup(
        BoothOptions(replay=(str(fast), str(slow)), speed=50, runs=3, card_seconds=5),
        store,
        clock=VirtualClock(),
    )

    def factory(number: int) -> RunLike:
        if number == 2:
            raise RunError("cannot connect to the database: connection refused")
        return base.run_factory(number)

    setup = BoothSetup(**{**base.__dict__, "run_factory": factory})
    booth = Booth(setup, panel)
    booths.append(booth)
    finished = run_booth(qtbot, booth)
    assert (finished.runs, finished.ok, finished.failed) == (3, 2, 1)
    assert booth.errors == [
        "run 2 failed: cannot connect to the database: connection refused; next run in 5 s"
    ]
    assert panel.corner.isVisible()
    assert panel.corner.text() == booth.errors[0]
    assert QApplication.activeModalWidget() is None
    assert panel.model.phase == "ok"  # run 3 went through after the failure


def test_esc_leaves_and_nothing_else_stops_the_booth(
    qtbot: QtBot, panel: PresentView, store: Any, sessions: tuple[int, int], booths: list[Booth]
) -> None:
    """A loop without end, replayed at the pace it was measured: only Esc ends it."""
    fast, slow = sessions
    setup = booth_setup(
        BoothOptions(replay=(str(fast), str(slow)), speed=1, runs=None, card_seconds=3), store
    )
    booth = Booth(setup, panel)
    booths.append(booth)
    booth.start()
    qtbot.waitUntil(lambda: panel.model.step is not None, timeout=30_000)
    for key in (Qt.Key.Key_Space, Qt.Key.Key_Q, Qt.Key.Key_Return, Qt.Key.Key_F4):
        qtbot.keyClick(panel, key)
    assert booth.running
    with qtbot.waitSignal(booth.finished, timeout=30_000) as blocker:
        qtbot.keyClick(panel, Qt.Key.Key_Escape)
    result = blocker.args[0]
    assert isinstance(result, LoopFinished)
    assert result.stopped
    assert result.runs >= 1
    assert panel.model.phase == "stopped"


def test_build_booth_from_the_command_line(
    qtbot: QtBot, panel: PresentView, store: Any, sessions: tuple[int, int], booths: list[Booth]
) -> None:
    fast, slow = sessions
    args = parse(
        "--replay", str(fast), "HDD", "--speed", "10", "--loop", "3", "--card-seconds", "7"
    )
    setup = booth_from_args(args, store, None)
    assert (setup.runs, setup.card_seconds, setup.speed) == (3, 7.0, 10.0)
    assert setup.replaying == fast
    assert setup.rival is not None
    assert setup.rival.session_id == slow
    assert setup.plan_for(1).workload.virtual_users == [4, 8, 16]
    booth = build_booth(args, panel, store, None)
    booths.append(booth)
    assert isinstance(booth, Booth)
    assert not booth.running
    live = booth_from_args(parse("--race", str(slow), "--loop", "forever"), store, Plan())
    assert live.runs is None
    assert live.recover is not None  # the plan's target is the embedded demo
    remote = Plan(target=Target(kind="postgresql", host="db1"))
    assert booth_from_args(parse("--race", str(slow)), store, remote).recover is None


@pytest.mark.parametrize(
    ("argv", "plan", "message"),
    [
        (("--race", "1", "--replay", "1", "2"), False, "--race and --replay both name"),
        (
            (
                "--speed",
                "4",
            ),
            True,
            "--speed sets the pace of a replay: it needs --replay",
        ),
        (("--replay", "1", "2"), True, "--replay plays stored sessions back: it takes no plan"),
        ((), False, "a live booth needs a plan file"),
        (("--loop", "0"), True, "--loop takes a number of runs"),
        (("--loop", "sometimes"), True, "--loop takes a number of runs"),
        (("--card-seconds", "-3"), True, "--card-seconds takes 0 or more seconds, got -3"),
        (("--replay", "1", "1"), False, "--replay names session 1 twice"),
        (("--replay", "1", "2", "--speed", "0"), False, "the replay speed must be above 0"),
        (("--race", "NVMe"), True, "no stored session is named 'NVMe'"),
        (("--replay", "99", "1"), False, "no stored session with id 99"),
    ],
)
def test_options_that_do_not_fit_are_refused(
    store: Any, argv: tuple[str, ...], plan: bool, message: str
) -> None:
    build_seed000(store)  # sessions 1 and 2
    with pytest.raises(BOOTH_ERRORS, match=message):
        booth_from_args(parse(*argv), store, Plan() if plan else None)


def test_a_bad_speed_is_refused_by_the_parser(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse("--replay", "1", "2", "--speed", "fast")
    assert "argument --speed: invalid float value: 'fast'" in capsys.readouterr().err
