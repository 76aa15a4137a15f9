"""The parts every workload's comparison view is built from: fact cards whose type fits their
room, tab pages that scroll, tabs that narrow until every title is in sight, and the styles
of a report's blocks on screen (:mod:`bench_gui.workloads.tproc_c.compare_view`,
:mod:`bench_gui.workloads.random_read.compare_results`).

On a 1366 x 768 screen the page fits without scrolling as a whole: narrow fact cards take
smaller type (their detail in a tooltip), the tabs narrow until every title is in sight, a
tab's content scrolls within the tab, and each section shows its finding and chart first. At
1280 x 720 the fact cards' type shrinks until their longest words fit, seven tabs' titles are
elided (whole in their tooltips), and headings wrap: no word is cut at an edge.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QLayout,
    QScrollArea,
    QSizePolicy,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    pass

# Report sections -> the tab that shows them.
TABS = (
    ("Throughput", ("throughput",)),
    ("Response time", ("latency_avg", "latency_p999")),
    ("Power", ("power",)),
    ("Saturation", ("saturation",)),
    ("Economics", ("economics",)),
    ("Repeatability", ("repeatability",)),
    ("Configuration", ("configuration",)),
)
PLACEHOLDER = (
    "Tick two or more sessions, choose the baseline and press Compare (one session alone makes"
    " a report of its own figures).\n\nThe comparison shows"
    " NOPM and TPM ratios per user count, response-time advantages, each configuration at its"
    " saturation point, what differs in their configuration, how repeatable the figures are,"
    " and the array cost of a new order."
)
TAB_STYLE = (
    "QTabBar::tab { padding: 10px 20px; font-size: 15px; font-weight: 600;"
    " color: #93a0b8; background: transparent; border: none;"
    " border-bottom: 3px solid transparent; }"
    "QTabBar::tab:hover { color: #ffffff; }"
    "QTabBar::tab:selected { color: #ffffff; border-bottom: 3px solid #33b1ff; }"
    "QTabWidget::pane { border: none; border-top: 1px solid #2a3140; }"
)
# The order of a section's blocks on screen (the rest after them, as the report has them).
SCREEN_ORDER = {"headline": 0, "chart": 1, "table": 2}
# Narrower tabs, tried in turn until all of a comparison's tabs fit the width (no arrows).
TAB_FITS = (
    ("10px 20px", 15),
    ("10px 12px", 15),
    ("10px 8px", 14),
    ("10px 6px", 13),
    ("10px 4px", 13),
    ("10px 4px", 12),
)
BLOCK_STYLES = {
    "headline": "color: #7cc4ff; font-size: 16px; font-weight: 600;",
    "formula": "font-family: 'DejaVu Sans Mono'; background: #1a2130; border-left: 3px solid"
    " #33b1ff; padding: 6px 10px;",
    "message": "color: #f1c21b;",
}
# A tab's page asks for no more height than this: with the fast facts and the notes above it
# the page fits a 1366 x 768 screen; the tab takes whatever room there is and scrolls in it.
TAB_HINT_PX = 240
# Fact cards narrower than this take smaller type; narrower than DETAIL_FACT_PX they keep
# their detail (between which sessions) in a tooltip, so five stay one short row.
COMPACT_FACT_PX = 190
DETAIL_FACT_PX = 150
# A fact card's borders and margins: its labels have its width less this.
FACT_CHROME_PX = 30
# Narrower still, a card's type shrinks until its longest word fits (never cut), down to these.
VALUE_LEAST_PX = 14
TEXT_LEAST_PX = 10


def fit_tabs(tabs: QTabWidget, room: int) -> None:
    """The roomiest tab style (padding, type size) at which every tab's title fits ``room``
    pixels: no scroll arrows hiding a tab on a narrow window. Where even the smallest does
    not fit (seven tabs at 1280 px), the titles are elided, each whole in its tooltip."""
    bar = tabs.tabBar()
    for padding, size in TAB_FITS:
        style = TAB_STYLE.replace(
            "padding: 10px 20px; font-size: 15px", f"padding: {padding}; font-size: {size}px"
        )
        if tabs.styleSheet() != style:
            tabs.setStyleSheet(style)
        bar.setElideMode(Qt.TextElideMode.ElideNone)
        bar.setUsesScrollButtons(True)
        if bar.sizeHint().width() <= room:
            break
    else:
        bar.setUsesScrollButtons(False)  # the tabs shrink to the room, their titles elided
        bar.setElideMode(Qt.TextElideMode.ElideRight)
    elided = bar.elideMode() != Qt.TextElideMode.ElideNone
    for i in range(bar.count()):
        bar.setTabToolTip(i, tabs.tabText(i) if elided else "")


def clear_layout(layout: QLayout) -> None:
    while layout.count():
        item = layout.takeAt(0)
        if item is None:
            break
        widget = item.widget()
        child = item.layout()
        if widget is not None:
            widget.hide()  # out of sight at once, not when the event loop deletes it
            widget.deleteLater()
        elif child is not None:
            clear_layout(child)


class TabPage(QScrollArea):
    """A tab's content: scrolls within the tab (wide tables sideways), and asks for at most
    :data:`TAB_HINT_PX` of height so that the page as a whole never has to scroll."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__()
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setWidget(widget)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        hint = super().sizeHint()
        return QSize(hint.width(), min(hint.height(), TAB_HINT_PX))


def _fitting(label: QLabel, px: int, weight: QFont.Weight, room: int, least: int) -> int:
    """``px``, or the largest size below it down to ``least`` at which the label's longest
    word fits ``room`` pixels (a wrapped label cannot break a word: it would be cut)."""
    words = label.text().split()
    if not words:
        return px
    font = QFont(label.font())
    font.setWeight(weight)
    while px > least:
        font.setPixelSize(px)
        metrics = QFontMetrics(font)
        if max(metrics.horizontalAdvance(word) for word in words) <= room:
            break
        px -= 1
    return px


class FactCard(QFrame):
    """One fast fact: the figure, what it is, and between which sessions - wrapped, so five
    of them share the page's width."""

    def __init__(self, value: str, text: str, detail: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("factCard")
        self.setStyleSheet(
            "QFrame#factCard { background-color: #1a1f29; border: 1px solid #2a3140;"
            " border-left: 5px solid #42be65; border-radius: 10px; }"
            "QFrame#factCard QLabel { background: transparent; border: none; }"
        )
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        column = QVBoxLayout(self)
        column.setContentsMargins(14, 8, 10, 8)
        column.setSpacing(0)
        self.value_label = QLabel(value)
        self.value_label.setWordWrap(True)  # "-2% to +69%" on two lines in a narrow card
        column.addWidget(self.value_label)
        self.text_label = QLabel(text)
        self.text_label.setWordWrap(True)
        column.addWidget(self.text_label)
        self.detail_label = QLabel(detail)
        self.detail_label.setWordWrap(True)
        self.detail_label.setStyleSheet("color: #7f8aa1; font-size: 13px;")
        column.addWidget(self.detail_label)
        column.addStretch(1)
        for label in (self.value_label, self.text_label, self.detail_label):
            label.setMinimumWidth(10)
        self.compact: bool | None = None
        self.type_px: tuple[int, int] = (0, 0)  # the figure's and the text's
        self.set_compact(False)

    def set_compact(self, compact: bool, detail: bool = True, room: int = 0) -> None:
        """Smaller type (``compact``) for a narrow card; without ``detail`` the card keeps
        its detail line in its tooltip instead of under the figure. With ``room`` (the
        labels' width), smaller again until the longest word fits: at 1280 px "saturation"
        and "percentile" were cut at the card's edge."""
        value, text = (20, 13) if compact else (27, 15)
        if room > 0:
            value = _fitting(self.value_label, value, QFont.Weight.Bold, room, VALUE_LEAST_PX)
            text = _fitting(self.text_label, text, QFont.Weight.DemiBold, room, TEXT_LEAST_PX)
        if (compact, (value, text), detail) == (
            self.compact,
            self.type_px,
            self.detail_label.isVisibleTo(self),
        ):
            return
        self.compact = compact
        self.type_px = (value, text)
        self.value_label.setStyleSheet(f"color: #ffffff; font-size: {value}px; font-weight: 700;")
        self.text_label.setStyleSheet(f"color: #c9d1e0; font-size: {text}px; font-weight: 600;")
        self.detail_label.setVisible(detail)
        self.setToolTip("" if detail else self.detail_label.text())

    @property
    def value_text(self) -> str:
        return self.value_label.text()
