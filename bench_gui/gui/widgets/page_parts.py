"""Small widgets the pages share: the page header, an error line, an outcome banner, a
read-only fitting table, a scroll column. One copy each, so every page looks and behaves alike."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFont, QFontDatabase, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractScrollArea,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from bench_gui.gui.widgets.elided import ElidedLabel


def set_prop(widget: QWidget, name: str, value: Any) -> None:
    """Set a dynamic property the style sheet selects on, and re-polish only on a change."""
    if widget.property(name) != value:
        widget.setProperty(name, value)
        widget.style().unpolish(widget)
        widget.style().polish(widget)


class Banner(QFrame):
    """A one-line outcome in the theme's banner colours (tone: ok, stopped, failed)."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("banner")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(14, 8, 14, 8)
        self.label = QLabel("")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.label, 1)
        self._row = layout
        self.hide()

    def add_widget(self, widget: QWidget) -> QWidget:
        """Put ``widget`` at the banner's right end (a button that acts on the outcome)."""
        self._row.addWidget(widget)
        return widget

    def show_text(self, tone: str, text: str) -> None:
        set_prop(self, "tone", tone)
        self.label.setText(text)
        self.show()

    def clear(self) -> None:
        self.label.clear()
        self.hide()

    def text(self) -> str:
        return self.label.text() if not self.isHidden() else ""

    def tone(self) -> str:
        return str(self.property("tone") or "")


class FitTable(QTableWidget):
    """A read-only table whose columns fit their contents; one column takes the spare room.

    When the contents are wider than the view, every column keeps its natural width and the
    table scrolls sideways, instead of squeezing the stretching column to nothing.
    """

    def __init__(self, columns: tuple[str, ...], stretch: int = -1) -> None:
        super().__init__(0, len(columns))
        self.stretch_column = stretch if stretch >= 0 else len(columns) - 1
        self.setHorizontalHeaderLabels(list(columns))
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setAlternatingRowColors(True)
        self.setShowGrid(False)
        self.setWordWrap(False)
        head = self.horizontalHeader()
        head.setHighlightSections(False)
        head.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)

    def fit_columns(self) -> None:
        head = self.horizontalHeader()
        natural = sum(
            max(self.sizeHintForColumn(c), head.sectionSizeHint(c))
            for c in range(self.columnCount())
        )
        mode = (
            QHeaderView.ResizeMode.Stretch
            if natural <= self.viewport().width()
            else QHeaderView.ResizeMode.ResizeToContents
        )
        if head.sectionResizeMode(self.stretch_column) != mode:
            head.setSectionResizeMode(self.stretch_column, mode)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self.fit_columns()


def fit_rows(table: QTableWidget, least: int, most: int) -> None:
    """Make a table as tall as its rows (between ``least`` and ``most`` of them)."""
    rows = min(max(table.rowCount(), least), most)
    row_height = table.rowHeight(0) if table.rowCount() else 0
    row_height = max(row_height, table.verticalHeader().defaultSectionSize())
    height = table.horizontalHeader().sizeHint().height() + rows * row_height
    table.setFixedHeight(height + 2 * table.frameWidth() + 4)


def page_layout(page: QWidget, spacing: int = 10) -> QVBoxLayout:
    """The column a page is laid out in, with the margins every page has."""
    column = QVBoxLayout(page)
    column.setContentsMargins(20, 16, 20, 12)
    column.setSpacing(spacing)
    return column


class ScrollColumn(QScrollArea):
    """A column that scrolls vertically when the window is short, never sideways.

    Its minimum width is its contents' (plus the scroll bar's): a window too narrow for it
    makes the page scroll sideways as a whole (:func:`bench_gui.gui.window_fit.page_frame`)
    instead of cutting the column's right side off.
    """

    def __init__(self, widget: QWidget) -> None:
        super().__init__()
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWidget(widget)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        hint = super().minimumSizeHint()
        widget = self.widget()
        if widget is None:
            return hint
        bar = self.verticalScrollBar().sizeHint().width()
        width = widget.minimumSizeHint().width() + bar + 2 * self.frameWidth()
        return QSize(max(hint.width(), width), hint.height())


def scrolled(widget: QWidget) -> QScrollArea:
    """A page column that scrolls vertically when the window is short, never sideways
    (:class:`ScrollColumn`)."""
    return ScrollColumn(widget)


class PageHeader(QWidget):
    """The top of every page: the title, a subtitle under it, actions on the right.

    One copy so that every page starts alike; a page adds its buttons with :meth:`add_action`
    (or any widget with :meth:`add_widget`) and changes the subtitle with :meth:`set_subtitle`.
    With ``elide``, title and subtitle stay on one line each and end in "…" when they are
    wider than their room (a run's name and server never widen the window).
    """

    def __init__(self, title: str, subtitle: str = "", elide: bool = False) -> None:
        super().__init__()
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(12)
        titles = QVBoxLayout()
        titles.setSpacing(0)
        label = ElidedLabel if elide else QLabel
        self.title = label(title)
        self.title.setObjectName("pageTitle")
        titles.addWidget(self.title)
        self.subtitle = label(subtitle)
        self.subtitle.setObjectName("pageSubtitle")
        self.subtitle.setWordWrap(not elide)
        titles.addWidget(self.subtitle)
        row.addLayout(titles, 1)
        self.titles = titles  # the title over the subtitle (a header may add a line to it)
        self._row = row

    def set_subtitle(self, text: str) -> None:
        self.subtitle.setText(text)

    def add_widget(self, widget: QWidget) -> QWidget:
        """Put ``widget`` at the right end of the header, vertically centred."""
        self._row.addWidget(widget, 0, Qt.AlignmentFlag.AlignVCenter)
        return widget

    def add_action(self, text: str, primary: bool = False) -> QPushButton:
        """A button at the right end of the header (``primary``: the page's main action)."""
        button = QPushButton(text)
        if primary:
            button.setProperty("role", "primary")
        self.add_widget(button)
        return button


class ErrorLine(QLabel):
    """A field or form error under what it is about (the theme's ``fieldError`` style)."""

    def __init__(self) -> None:
        super().__init__("")
        self.setObjectName("fieldError")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.hide()

    def show_error(self, text: str) -> None:
        self.setText(text)
        self.setVisible(bool(text))

    def clear_error(self) -> None:
        self.clear()
        self.hide()


def compact_combo(combo: QComboBox, chars: int = 14) -> QComboBox:
    """Let a combo box be as narrow as ``chars`` characters (its list still shows every item
    whole), instead of as wide as its longest item: a long preset or device name never
    widens the page."""
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(chars)
    return combo


def min_text_height(edit: QAbstractScrollArea, pixels: int) -> None:
    """A text box at least ``pixels`` high. The theme gives every text box a one-line
    ``min-height``, and a style sheet's wins over ``setMinimumHeight``: say it in one too."""
    edit.setMinimumHeight(pixels)
    edit.setStyleSheet(f"{type(edit).__name__} {{ min-height: {pixels}px; }}")


def form_label(text: str, top: bool = False) -> QLabel:
    """A right-aligned label in front of a form field (``top``: for a field taller than a line)."""
    label = QLabel(text)
    label.setObjectName("formLabel")
    vertical = Qt.AlignmentFlag.AlignTop if top else Qt.AlignmentFlag.AlignVCenter
    label.setAlignment(Qt.AlignmentFlag.AlignRight | vertical)
    return label


def muted_label(text: str = "") -> QLabel:
    """A wrapping label in the theme's muted colour."""
    label = QLabel(text)
    label.setObjectName("muted")
    label.setWordWrap(True)
    return label


def mono_font(points: int = 10) -> QFont:
    """The system's fixed-width font, for commands, plans and logs."""
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setPointSize(points)
    return font
