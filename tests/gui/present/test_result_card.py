"""The booth's result card: the right figures from a stored session, and text that fits.

The figures come from the seed 000 sessions as stored (tests/_fixtures/seed_sessions.py):
the S650DC array's best step is 86,654 NOPM at 48 users, 29X the HDD array's there, and its
four $1,262 drives price a new order at $5,048 / 86,654 NOPM.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from bench_gui.core.compare import format_ratio
from bench_gui.gui.present.result_card import ResultCard, format_ms
from bench_gui.gui.resources import load_theme
from bench_gui.services.race import load_rival
from bench_gui.services.result_figures import ResultError, result_figures
from tests._fixtures.scripted import sweep_events
from tests._fixtures.seed_sessions import (
    SEED000_NOPM,
    SEED000_P999_MS,
    build_seed000,
    build_seed003,
    store_session,
)

pytestmark = pytest.mark.gui


@pytest.fixture
def themed(qapp: QApplication) -> Iterator[None]:
    """The app's theme, as on screen: it sets every widget's font size, so the card's sizes
    must win over it."""
    old = qapp.styleSheet()
    qapp.setStyleSheet(load_theme())
    yield
    qapp.setStyleSheet(old)


def test_the_figures_of_a_stored_session(store: Any) -> None:
    hdd, ssd = build_seed000(store)
    figures = result_figures(store, ssd, load_rival(store, hdd))
    assert figures.name == "S650DC RAID 10 (4 x 800GB SAS SSD)"
    assert (figures.best_nopm, figures.best_vus) == (SEED000_NOPM[48][0], 48)
    assert figures.p99_ms == pytest.approx(SEED000_P999_MS[48][0] * 0.6)  # the seed's p99
    assert (figures.times_text, figures.times_note) == ("29X", "vs HDD RAID 10 at 48 users")
    assert (figures.cost_text, figures.cost_note) == ("$0.06", "$5,048 / 86,654 NOPM")
    # The HDD array, priced by hand at $3,440 (Tables 5 and 6), best at 56 users.
    slow = result_figures(store, hdd, None)
    assert (slow.best_nopm, slow.best_vus) == (3050, 56)
    assert (slow.cost_text, slow.cost_note) == ("$1.13", "$3,440 / 3,050 NOPM")
    assert slow.times_text is None
    assert slow.times_note == "no session to race against was chosen"


def test_what_cannot_be_given_says_why(store: Any) -> None:
    hdd, ssd = build_seed000(store, prices=False)
    figures = result_figures(store, ssd, load_rival(store, hdd))
    assert figures.cost_text is None
    assert figures.cost_note.startswith(
        "not priced: no price for device 'Micron S650DC 800GB': add it to the price list"
    )
    bare = store_session(store, "laptop NVMe", sweep_events(vus=(2, 4)))
    figures = result_figures(store, bare, load_rival(store, hdd))
    assert figures.cost_note == "not priced: the session stores no array to price"
    # 4 users: the HDD sweep has no such step; its second step (16 users) stands in, and the
    # card says so.
    assert figures.times_note == "vs HDD RAID 10 step 2 (16 users vs 4: matched by step order)"
    assert figures.times_text == format_ratio(figures.best_nopm / SEED000_NOPM[16][1])
    base, _scaled = build_seed003(store)  # five steps: 48 to 240 users
    six = store_session(store, "six steps", sweep_events(vus=(1, 2, 3, 5, 6, 7)))
    figures = result_figures(store, six, load_rival(store, base))
    assert figures.times_text is None
    assert figures.times_note == "2x 9300 PRO mirrored has no step to set against 7 users"
    empty = store.create_run("never ran", {}, "", {"kind": "demo"}, "postgresql")
    figures = result_figures(store, empty, None)
    assert (figures.best_nopm, figures.best_note) == (None, "no step was measured")
    with pytest.raises(ResultError, match="no stored session with id 999"):
        result_figures(store, 999, None)


@pytest.mark.parametrize(("width", "height"), [(1920, 1080), (1366, 768), (1280, 720)])
def test_the_card_shows_the_figures_and_fits_the_screen(
    qtbot: QtBot, store: Any, themed: None, width: int, height: int
) -> None:
    hdd, ssd = build_seed000(store)
    card = ResultCard(result_figures(store, ssd, load_rival(store, hdd)), 3, 10, 12)
    qtbot.addWidget(card)
    card.resize(int(width * 0.84), int(height * 0.8))  # as the screens place it
    card.show()
    qtbot.waitExposed(card)
    assert card.texts() == {
        "Best NOPM": "86,654",
        "p99 latency": "714 ms",
        "New orders a minute": "29X",
        "Cost per new order": "$0.06",
    }
    assert card.title.text() == "Run 3 of 10: result"
    assert card.footer.text() == "Next run in 12 s"
    for box in card.figure_boxes:
        for label in (box.title, box.value):
            shown = label.fontMetrics().horizontalAdvance(label.text())
            assert shown <= label.width(), f"{label.text()!r} is cut at {width}x{height}"
        assert box.value.font().pixelSize() >= (40 if height < 1000 else 60)
    card.timer.timeout.emit()
    assert card.footer.text() == "Next run in 11 s"
    card.remaining = 1
    card.timer.timeout.emit()
    assert card.footer.text() == "Next run starting…"
    assert not card.timer.isActive()


def test_the_last_card_of_a_loop_counts_nothing_down(qtbot: QtBot, store: Any) -> None:
    hdd, _ssd = build_seed000(store)
    card = ResultCard(result_figures(store, hdd, None), 4, None, 0)
    qtbot.addWidget(card)
    assert card.title.text() == "Run 4: result"
    assert card.footer.text() == ""
    assert not card.timer.isActive()
    # No race, no power: what is known instead of two "—" (the array is priced by hand).
    assert card.texts() == {
        "Best NOPM": "3,050",
        "p99 latency": card.texts()["p99 latency"],
        "Cost per new order": "$1.13",
        "TPM": card.texts()["TPM"],
    }
    assert "—" not in card.texts().values()


@pytest.mark.parametrize(
    ("ms", "text"),
    [(0.854, "0.85 ms"), (12.46, "12.5 ms"), (714.0, "714 ms"), (2400.0, "2.4 s"), (None, "—")],
)
def test_format_ms(ms: float | None, text: str) -> None:
    assert format_ms(ms) == text


def test_a_metered_run_s_card_shows_its_watts_and_nopm_per_watt(
    qtbot: QtBot, store: Any, themed: None
) -> None:
    from tests._fixtures.scripted_power import power_sweep_events

    metered = store_session(store, "metered NVMe", power_sweep_events(vus=(1, 4)))
    figures = result_figures(store, metered, None)
    assert figures.power_w is not None
    assert figures.nopm_per_watt == pytest.approx((figures.best_nopm or 0) / figures.power_w)
    card = ResultCard(figures, 1, 3, 5)
    qtbot.addWidget(card)
    card.resize(int(1280 * 0.84), int(720 * 0.8))
    card.show()
    qtbot.waitExposed(card)
    texts = card.texts()
    assert texts["Power"] == f"{figures.power_w:,.0f} W"
    assert "NOPM per watt" in texts
    assert "—" not in texts.values()
    for box in card.figure_boxes:
        for label in (box.title, box.value):
            shown = label.fontMetrics().horizontalAdvance(label.text())
            assert shown <= label.width(), f"{label.text()!r} is cut"


def _figures(count: int) -> Any:
    """A card's figures with ``count`` of them known (2 to 6): the best NOPM and p99 always;
    3 adds the race, 4 the cost, 5 the race and a meter's watts and NOPM per watt, 6 all of
    them (no TPM: it fills in only when fewer than four are known)."""
    from bench_gui.services.result_figures import ResultFigures

    return ResultFigures(
        session_id=1,
        name="NVMe RAID 10 (4 x 3.84 TB)",
        status="complete",
        best_nopm=86_654.0,
        best_vus=48,
        p99_ms=71.4,
        times_text="29X" if count > 2 else None,
        times_note="vs HDD RAID 10 at 48 users",
        cost_text="$0.06" if count in (4, 6) else None,
        cost_note="$5,048 / 86,654 NOPM",
        power_w=412.0 if count >= 5 else None,
        tpm=None,
    )


@pytest.mark.parametrize("count", [2, 3, 4, 5, 6])
@pytest.mark.parametrize(("width", "height"), [(1920, 1080), (1280, 720)])
def test_the_figures_fill_the_card_without_a_hole(
    qtbot: QtBot, themed: None, count: int, width: int, height: int
) -> None:
    """Seen at the booth: three figures in a 2x2 grid left its last quarter empty. Every row
    runs the card's whole width, however many figures are known."""
    figures = _figures(count)
    card = ResultCard(figures, 1, 3, 5)
    qtbot.addWidget(card)
    card.resize(int(width * 0.84), int(height * 0.8))
    card.show()
    qtbot.waitExposed(card)
    boxes = card.figure_boxes
    assert len(boxes) == count
    rows: dict[int, list[Any]] = {}
    for box in boxes:
        rows.setdefault(box.geometry().top(), []).append(box)
    lefts = {min(b.geometry().left() for b in row) for row in rows.values()}
    rights = {max(b.geometry().right() for b in row) for row in rows.values()}
    assert len(lefts) == 1, f"{count} figures: a row starts late at {width}x{height}"
    assert len(rights) == 1, f"{count} figures: a row ends short at {width}x{height}"
    assert len(rows) == (1 if count <= 3 else 2)
    for box in boxes:
        # In the middle of its box, not at the top of a tall empty one (three in a row).
        middle = box.value.geometry().center().y()
        assert box.height() / 3 <= middle <= 2 * box.height() / 3, (count, middle, box.height())
        for label in (box.title, box.value):
            shown = label.fontMetrics().horizontalAdvance(label.text())
            assert shown <= label.width(), f"{label.text()!r} is cut ({count} figures)"
