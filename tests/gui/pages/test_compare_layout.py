"""The Compare page as a user on a 1280 x 720 or 1366 x 768 laptop and on a 1920 x 1080 screen
sees it.

The page as a whole never scrolls (its tabs scroll within themselves), whichever workload is
compared; every tab's title is in sight; narrow fact cards take smaller type and keep their
detail in a tooltip; the session list says each session's workload and size; the side panel
says what the tool is for.
"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QScrollArea, QToolButton
from pytestqt.qtbot import QtBot

from bench_gui.gui.main_window import MainWindow
from bench_gui.gui.nav_panel import TAGLINE
from bench_gui.gui.pages.compare.page import ComparePage
from bench_gui.gui.pages.compare.session_picker import ID_ROLE, workload_line
from bench_gui.gui.widgets.compare_parts import FactCard
from bench_gui.workloads.random_read.compare_results import RandomReadView
from tests._fixtures.random_read_sessions import seed004
from tests._fixtures.seed_sessions import POWER_PRICE, build_seed000, build_seed003

pytestmark = pytest.mark.gui

SIZES = [(1366, 768), (1920, 1080)]


def settle(qtbot: QtBot) -> None:
    for _ in range(5):
        QApplication.processEvents()
    qtbot.wait(20)


def shown_compare(qtbot: QtBot, window: MainWindow, size: tuple[int, int]) -> ComparePage:
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    window.show_page("Compare")
    settle(qtbot)
    return window.compare_page


def compare(qtbot: QtBot, page: ComparePage, ids: list[int], baseline: int) -> None:
    page.set_checked(ids)
    assert page.set_baseline(baseline)
    assert page.compare(), page.error_label.text()
    settle(qtbot)


def frame_of(page: ComparePage) -> QScrollArea:
    frame = page.window().stack.currentWidget()  # type: ignore[attr-defined]
    assert isinstance(frame, QScrollArea)  # window_fit.page_frame's
    assert frame.widget() is page
    return frame


def assert_no_page_scroll(page: ComparePage, what: str) -> None:
    frame = frame_of(page)
    bar = frame.verticalScrollBar()
    assert bar.maximum() == 0, (
        f"{what}: the page is {page.height()} px tall in a {frame.viewport().height()} px"
        f" frame and scrolls {bar.maximum()} px"
    )
    assert page.height() <= frame.viewport().height(), what


def assert_tabs_in_sight(tabs: Any, what: str) -> None:
    bar = tabs.tabBar()
    need = sum(bar.tabRect(i).width() for i in range(bar.count()))
    assert need <= tabs.width(), f"{what}: tabs need {need} px, have {tabs.width()}"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_tproc_c_comparison_fits_without_the_page_scrolling(
    qtbot: QtBot, main_window: MainWindow, store: Any, size: tuple[int, int]
) -> None:
    hdd, ssd = build_seed000(store)
    base, scaled = build_seed003(store)
    store.add_power_price(POWER_PRICE)
    page = shown_compare(qtbot, main_window, size)

    compare(qtbot, page, [hdd, ssd], hdd)  # five fact cards, the reader's and author's notes
    assert len(page.tiles) == 5
    assert page.results.report_notes.isVisible()
    for i in range(page.tabs.count()):
        page.tabs.setCurrentIndex(i)
        settle(qtbot)
        assert_no_page_scroll(page, f"seed 000, {page.tabs.tabText(i)} at {size}")
    assert_tabs_in_sight(page.tabs, f"seed 000 at {size}")
    # The throughput chart comes before the prose under it: most of it is in sight in the
    # tab without scrolling (the tab scrolls for the rest, never the page).
    page.tabs.setCurrentIndex(0)
    settle(qtbot)
    tab = page.tabs.currentWidget()
    assert isinstance(tab, QScrollArea)
    body = tab.widget()
    assert body is not None
    chart = page.charts["nopm"]
    top = chart.mapTo(body, chart.rect().topLeft()).y()
    assert top + 200 <= tab.viewport().height(), (top, tab.viewport().height())

    compare(qtbot, page, [base, scaled], base)  # seven tabs, Power among them
    assert page.tabs.count() == 7
    assert_no_page_scroll(page, f"seed 003 at {size}")
    assert_tabs_in_sight(page.tabs, f"seed 003 at {size}")


def test_narrow_fact_cards_keep_their_detail_in_a_tooltip(
    qtbot: QtBot, main_window: MainWindow, store: Any
) -> None:
    hdd, ssd = build_seed000(store)
    page = shown_compare(qtbot, main_window, (1366, 768))
    compare(qtbot, page, [hdd, ssd], hdd)
    narrow = page.tiles[0]
    assert narrow.width() < 150
    assert narrow.compact
    assert not narrow.detail_label.isVisible()
    assert narrow.toolTip() == narrow.detail_label.text() != ""

    main_window.resize(1920, 1080)
    settle(qtbot)
    wide = page.tiles[0]
    assert wide.width() >= 190
    assert not wide.compact
    assert wide.detail_label.isVisible()
    assert wide.toolTip() == ""


def test_a_fact_card_says_the_same_compact_or_not(qtbot: QtBot) -> None:
    card = FactCard("22X to 29X", "more new orders per minute", "S650DC vs HDD, 8 to 64 users")
    qtbot.addWidget(card)
    card.set_compact(True, detail=False)
    assert (card.value_text, card.toolTip()) == ("22X to 29X", "S650DC vs HDD, 8 to 64 users")
    assert "20px" in card.value_label.styleSheet()
    card.set_compact(False)
    assert "27px" in card.value_label.styleSheet()
    assert card.detail_label.isVisibleTo(card)
    assert card.toolTip() == ""


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_random_read_comparison_fits_without_the_page_scrolling(
    qtbot: QtBot, main_window: MainWindow, store: Any, size: tuple[int, int]
) -> None:
    hdd, ssd = seed004(store)
    page = shown_compare(qtbot, main_window, size)
    compare(qtbot, page, [hdd, ssd], hdd)
    view = page.compare_views["random_read"]
    assert isinstance(view, RandomReadView)
    assert page.views.currentWidget() is view
    for i in range(view.tabs.count()):
        view.tabs.setCurrentIndex(i)
        settle(qtbot)
        assert_no_page_scroll(page, f"seed 004, {view.tabs.tabText(i)} at {size}")
    assert_tabs_in_sight(view.tabs, f"seed 004 at {size}")


def test_each_session_says_its_workload_and_size(
    qtbot: QtBot, main_window: MainWindow, store: Any
) -> None:
    disk, ssd = seed004(store)
    hdd, _ssd = build_seed000(store)
    page = shown_compare(qtbot, main_window, (1366, 768))
    lines = {
        int(page.session_list.item(i).data(ID_ROLE)): page.session_list.item(i).text()
        for i in range(page.session_list.count())
    }
    assert "Random read  ·  5 dataset sizes" in lines[disk].split("\n")[1]
    assert "Random read  ·  5 dataset sizes" in lines[ssd].split("\n")[1]
    assert "TPROC-C  ·  8 steps" in lines[hdd].split("\n")[1]
    assert "steps" not in lines[disk]
    # Long lines wrap in the list: it never scrolls sideways.
    assert page.session_list.horizontalScrollBar().maximum() == 0
    # The filter finds a workload's sessions by its name.
    page.filter_edit.setText("random read")
    hidden = {
        int(page.session_list.item(i).data(ID_ROLE)): page.session_list.item(i).isHidden()
        for i in range(page.session_list.count())
    }
    assert not hidden[disk]
    assert not hidden[ssd]
    assert hidden[hdd]


def test_the_workload_line_counts_in_the_workload_s_words() -> None:
    assert workload_line("tproc_c", 1) == "TPROC-C  ·  1 step"
    assert workload_line("random_read", 6) == "Random read  ·  6 dataset sizes"
    assert workload_line("", 3) == "3 steps"  # a session that could not be read


def test_the_side_panel_says_what_the_tool_is_for(
    qtbot: QtBot, main_window: MainWindow, store: Any
) -> None:
    main_window.resize(1920, 1080)
    main_window.show()
    settle(qtbot)
    sub = main_window.nav_panel.brand_sub
    assert sub.isVisible()
    assert sub.text() == TAGLINE
    # Both workloads: the databases' transactions and the storage's random reads.
    assert "OLTP" in TAGLINE
    assert "storage" in TAGLINE
    assert "TPROC-C" not in TAGLINE
    # On one line, whole, in the panel's width.
    room = sub.contentsRect().width() - sub.margin() * 2
    assert sub.fontMetrics().horizontalAdvance(TAGLINE) <= room, (room, sub.styleSheet())


# The main window on a 1280 x 720 laptop under a window manager (its title bar takes 19 px).
LAPTOP = (1280, 701)


def cut_words(card: FactCard) -> list[str]:
    """The words of a fact card wider than their label: a wrapped label cannot break them."""
    cut = []
    for label in (card.value_label, card.text_label):
        metrics = label.fontMetrics()
        room = label.contentsRect().width()
        cut += [w for w in label.text().split() if metrics.horizontalAdvance(w) > room]
    return cut


@pytest.mark.parametrize("size", [LAPTOP, *SIZES], ids=lambda s: f"{s[0]}x{s[1]}")
def test_at_1280_no_word_is_cut_and_every_tab_is_in_sight(
    qtbot: QtBot, main_window: MainWindow, store: Any, size: tuple[int, int]
) -> None:
    """Seen at 1280 x 720 under a window manager: 'NOPM at saturatio', '99.9th percentil' in
    the fact cards, the Saturation tab's heading and finding running off the right edge (the
    heading did not wrap, so the tab was wider than the screen), the Configuration tab behind
    scroll arrows, and a white line across the top of every tab bar."""
    hdd, ssd = build_seed000(store)
    base, scaled = build_seed003(store)
    store.add_power_price(POWER_PRICE)
    page = shown_compare(qtbot, main_window, size)
    for ids, baseline in (([hdd, ssd], hdd), ([base, scaled], base)):
        compare(qtbot, page, ids, baseline)
        for card in page.tiles:
            assert not cut_words(card), (size, card.text_label.text(), card.width())
        tabs = page.tabs
        assert_tabs_in_sight(tabs, f"{len(ids)} sessions at {size}")
        bar = tabs.tabBar()
        assert not bar.drawBase()
        # No scroll arrows: every tab shows (elided if need be).
        arrows = [b for b in bar.findChildren(QToolButton) if b.isVisible()]
        assert not arrows, size
        for i in range(tabs.count()):
            if bar.elideMode() != Qt.TextElideMode.ElideNone:
                assert bar.tabToolTip(i) == tabs.tabText(i)  # elided: whole in its tooltip
            tabs.setCurrentIndex(i)
            settle(qtbot)
            tab = tabs.currentWidget()
            assert isinstance(tab, QScrollArea)
            body = tab.widget()
            assert body is not None
            # The tab never scrolls sideways as a whole (a wide table scrolls in itself).
            assert body.width() <= tab.viewport().width(), (tabs.tabText(i), size)
