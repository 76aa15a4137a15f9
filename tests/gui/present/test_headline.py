"""The race's headline on the Present view: green when ahead, amber when behind, and at
1280, 1366 and 1920 px the longest whole form that fits, beside a name that stays on screen."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from bench_gui.gui.present.headline import AMBER, GREEN, HeadlineLabel
from bench_gui.gui.present.view import PresentView
from bench_gui.services.race import AHEAD, BEHIND, NEUTRAL, Headline
from tests._fixtures.scripted import scripted_plan
from tests.gui.shown import shown_themed

pytestmark = pytest.mark.gui

NAME = "TPROC-C sweep on the new NVMe array (4 x 7.68 TB)"
RAMPUP = Headline(
    (
        "Ramp-up: vs HDD RAID 10 (16 x 15K SAS) step 1 (2 users) once measuring starts",
        "Ramp-up: vs HDD RAID 10 (16 x 15K SAS) step 1 (2 users)",
        "Ramp-up: vs HDD RAID 10 (16 x 15K SAS)",
        "Ramp-up at 4 users",
        "Ramp-up",
    )
)
BEHIND_25 = Headline(
    ("-25% vs HDD RAID 10 at 16 users", "-25% vs HDD RAID 10", "-25% at 16 users", "-25%"),
    BEHIND,
)
AHEAD_4X = Headline(
    ("4.2X vs HDD RAID 10 at 16 users", "4.2X vs HDD RAID 10", "4.2X at 16 users", "4.2X"),
    AHEAD,
)


def _inside(child: QWidget, parent: QWidget) -> bool:
    rect = QRect(child.mapTo(parent, QPoint(0, 0)), child.size())
    return parent.rect().contains(rect)


def _fits(label: HeadlineLabel, headline: Headline) -> None:
    """What the label shows is one whole form, and it is not wider than the label."""
    label.ensurePolished()
    QApplication.processEvents()
    assert label.text() in headline.forms
    assert label.fontMetrics().horizontalAdvance(label.text()) <= label.contentsRect().width()


def _colour(label: HeadlineLabel) -> str:
    label.ensurePolished()
    return label.palette().color(QPalette.ColorRole.WindowText).name()


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (1366, 768), (1920, 1080)])
def test_the_present_view_keeps_the_name_and_a_whole_headline(
    qtbot: QtBot, width: int, height: int
) -> None:
    view = shown_themed(qtbot, PresentView(), width, height)
    view.begin_run(scripted_plan(NAME, [2, 4], "none"))
    for headline in (RAMPUP, BEHIND_25, AHEAD_4X):
        view.set_headline(headline)
        qtbot.waitUntil(lambda: view.ratio.isVisible())
        _fits(view.ratio, headline)
        assert _inside(view.ratio, view)
        assert _inside(view.name, view)
        # The name keeps a good part of the row: the headline never pushes it off screen.
        assert view.name.width() >= 0.3 * (view.width() - view.ratio.width())
        assert view.name.toolTip() == NAME
    if width >= 1920:
        # A long name: the headline still says against what it races (a name that leaves
        # room gets the whole line: test_a_short_name_leaves_the_whole_headline).
        assert view.ratio.text() in AHEAD_4X.forms[:2]


def test_the_present_view_colours_by_tone(qtbot: QtBot) -> None:
    view = shown_themed(qtbot, PresentView(), 1280, 720)
    view.set_headline(BEHIND_25)
    assert view.ratio.property("tone") == BEHIND
    assert _colour(view.ratio) == AMBER
    view.set_headline(AHEAD_4X)
    assert _colour(view.ratio) == GREEN
    view.set_headline(RAMPUP)
    assert view.ratio.property("tone") == NEUTRAL
    assert _colour(view.ratio) not in (GREEN, AMBER)


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (1366, 768), (1920, 1080)])
def test_the_headline_leaves_the_name_the_room_it_does_not_use(
    qtbot: QtBot, width: int, height: int
) -> None:
    """Seen full screen under a window manager: with a shorter form chosen, the headline still
    took its whole share of the row, a blank on the right while the name was cut to 'Replay
    10x: SATA SS…'."""
    view = shown_themed(qtbot, PresentView(), width, height)
    view.begin_run(scripted_plan(NAME, [2, 4], "none"))
    view.set_title("Replay 10x: SATA SSD RAID 5 (6 x 1.92 TB)")
    for headline in (RAMPUP, BEHIND_25, AHEAD_4X):
        view.set_headline(headline)
        qtbot.waitUntil(lambda: view.ratio.isVisible())
        _fits(view.ratio, headline)
        shown = view.ratio.fontMetrics().horizontalAdvance(view.ratio.text())
        assert view.ratio.width() - shown <= 8, (headline.text, view.ratio.text())
        # What the headline leaves, the name has: it reaches the headline but for the spacing.
        gap = view.ratio.x() - (view.name.x() + view.name.width())
        assert gap <= view.top.spacing() + 1


def test_a_short_name_leaves_the_whole_headline(qtbot: QtBot) -> None:
    view = shown_themed(qtbot, PresentView(), 1920, 1080)
    view.begin_run(scripted_plan("NVMe RAID 10", [2, 4], "none"))
    view.set_headline(AHEAD_4X)
    qtbot.waitUntil(lambda: view.ratio.isVisible())
    assert view.ratio.text() == AHEAD_4X.text
    assert view.name.displayed_text() == "NVMe RAID 10"
