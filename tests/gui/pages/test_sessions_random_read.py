"""The Sessions page with random-read sessions (seed 004: a 7.2k disk and a Crucial m4 SSD,
tests/_fixtures/random_read_sessions.py): the list and the opened session show the study's own
figures (points by dataset size, ops/s, the multiplier over raw IOPS), never TPROC-C's."""

from __future__ import annotations

import re
from typing import Any

import pytest
from PySide6.QtWidgets import QAbstractButton, QLabel, QTableWidget, QWidget
from pytestqt.qtbot import QtBot

from bench_gui.gui.pages.sessions.page import SessionsPage
from bench_gui.gui.pages.sessions.run_table import RUN_COLUMNS
from tests._fixtures.random_read_sessions import seed004
from tests._fixtures.seed_sessions import build_seed000

pytestmark = pytest.mark.gui

TPROC_C_WORDS = re.compile(r"\b(NOPM|TPM|VU|virtual users?|warehouses?)\b", re.IGNORECASE)


@pytest.fixture
def filled(store: Any) -> tuple[Any, int, int, int]:
    hdd, ssd = seed004(store)
    tproc_hdd, _ = build_seed000(store)
    return store, hdd, ssd, tproc_hdd


@pytest.fixture
def page(qtbot: QtBot, filled: tuple[Any, int, int, int]) -> SessionsPage:
    widget = SessionsPage(filled[0])
    qtbot.addWidget(widget)
    widget.resize(1600, 1000)
    widget.show()
    widget.refresh()
    return widget


def visible_texts(root: QWidget) -> list[str]:
    """What a user can read on the opened session's Overview tab."""
    out: list[str] = []
    for widget in [root, *root.findChildren(QWidget)]:
        if not widget.isVisibleTo(root):
            continue
        if isinstance(widget, QLabel | QAbstractButton):
            out.append(widget.text())
        if isinstance(widget, QTableWidget):
            out += [widget.horizontalHeaderItem(c).text() for c in range(widget.columnCount())]
            out += [
                item.text()
                for r in range(widget.rowCount())
                for c in range(widget.columnCount())
                if (item := widget.item(r, c)) is not None
            ]
    return out


def test_the_list_shows_a_random_read_session_by_its_own_figures(page: SessionsPage) -> None:
    rows = {r[0]: r for r in page.row_texts()}
    best = RUN_COLUMNS.index("Best result")
    swept = RUN_COLUMNS.index("Swept")
    ssd = rows["SSD Crucial m4 128GB"]
    # The best multiplier beyond RAM: the seed's SSD serves 210,000 ops/s at 1.5x RAM from
    # 33,000 raw IOPS.
    assert ssd[best] == "6.36X raw IOPS at 1.5x RAM"
    assert ssd[swept] == "0.5x to 4x RAM (5 sizes)"
    assert rows["HDD 7.2k 3TB"][best] == "3.24X raw IOPS at 1.5x RAM"
    # A TPROC-C session keeps NOPM and virtual users, now saying so.
    tproc = rows["HDD RAID 10 (16 x 15K SAS)"]
    assert tproc[best].endswith(" NOPM")
    assert tproc[swept].endswith(" VU")


def test_an_opened_random_read_session_shows_points_not_nopm(
    page: SessionsPage, filled: tuple[Any, int, int, int]
) -> None:
    _store, _hdd, ssd, _tproc = filled
    assert page.open_run(ssd)
    overview = page.detail.overviews["random_read"]
    assert overview.isVisibleTo(page)
    assert not page.time_chart.isVisibleTo(page)
    texts = visible_texts(page.detail)
    shown = "\n".join(texts)
    assert not TPROC_C_WORDS.search(shown), TPROC_C_WORDS.search(shown)
    assert "No samples were stored" not in shown
    table = overview.table
    assert table.rowCount() == 5
    cells = [[table.item(r, c).text() for c in range(table.columnCount())] for r in range(5)]
    assert [c[1] for c in cells] == ["0.5x", "1x", "1.5x", "2x", "4x"]
    assert cells[3][2] == "146,850"
    assert cells[3][6] == "4.45X"
    assert cells[4][6] == "3.15X"
    # ops/s by time: 15 stored samples, a marker where each dataset size began.
    assert overview.time_chart.curves["ops_s"].getData()[1].tolist()[:1] == [3_100_000.0]
    assert [p.ratio for p in overview.dataset_chart.points] == [0.5, 1.0, 1.5, 2.0, 4.0]
    assert overview.dataset_chart.raw_iops == 33_000.0
    assert "raw 33,000 IOPS" in overview.summary.text()


def test_a_tproc_c_session_opened_after_shows_its_own_charts_again(
    page: SessionsPage, filled: tuple[Any, int, int, int]
) -> None:
    _store, hdd, _ssd, tproc = filled
    assert page.open_run(hdd)
    assert page.open_run(tproc)
    assert page.time_chart.isVisibleTo(page)
    assert not page.detail.overviews["random_read"].isVisibleTo(page)


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_every_value_label_of_the_dataset_chart_is_drawn_whole_and_alone(
    qtbot: QtBot, main_window: Any, filled: tuple[Any, int, int, int], size: tuple[int, int]
) -> None:
    """At 1280 x 720 the first point's label ("3.10M ops/s") was cut at the chart's left edge
    (and the last one's at the right); at 1920 x 1080 the SSD's 1.5x and 2x RAM labels ("6.36X
    raw / 210k ops/s", "4.45X raw / 147k ops/s") were drawn over each other. Each label shown
    lies inside the plot and clear of the others."""
    _store, hdd, ssd, _tproc = filled
    main_window.resize(*size)
    main_window.show()
    qtbot.waitExposed(main_window)
    main_window.show_page("Sessions")
    sessions = main_window.page("Sessions")
    for run_id in (hdd, ssd):
        assert sessions.open_run(run_id)
        qtbot.wait(50)
        chart = sessions.detail.overviews["random_read"].dataset_chart
        view = chart.plot.getViewBox().sceneBoundingRect()
        assert len(chart._labels) == 5
        drawn = [
            (label.textItem.toPlainText(), label.sceneBoundingRect())
            for label in chart._labels
            if label.isVisible()
        ]
        # Beyond RAM the multiplier is the point of the study: at least two points past it
        # keep theirs on the chart (a label with no free place is left to the table).
        assert sum("X raw" in text for text, _ in drawn) >= 2, [t for t, _ in drawn]
        for i, (text, rect) in enumerate(drawn):
            assert rect.left() >= view.left(), (size, text, rect.left(), view.left())
            assert rect.right() <= view.right(), (size, text, rect.right(), view.right())
            assert rect.top() >= view.top(), (size, text, rect.top(), view.top())
            for other, other_rect in drawn[i + 1 :]:
                assert not rect.intersects(other_rect), (size, text, other)
