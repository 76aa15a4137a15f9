"""Columns side by side where the page is wide enough, one under the other where it is not.

The Workload page's two columns (the target; the workload and its options) need about 1,216 px
side by side: on a 1280 px laptop the page scrolled sideways and cut the right column off. This
widget asks only for its widest column, and lays the columns out in a row when its width holds
them all, in a column otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QSize
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QBoxLayout, QVBoxLayout, QWidget

ROW = QBoxLayout.Direction.LeftToRight
STACK = QBoxLayout.Direction.TopToBottom


class SideBySide(QWidget):
    """Each entry of ``columns`` (its widgets, top to bottom) a column of its own."""

    def __init__(self, columns: Sequence[Sequence[QWidget]], spacing: int = 18) -> None:
        super().__init__()
        self._box = QBoxLayout(ROW, self)
        self._box.setContentsMargins(0, 0, 0, 0)
        self._box.setSpacing(spacing)
        self.columns: list[QWidget] = []
        for widgets in columns:
            column = QWidget()
            layout = QVBoxLayout(column)
            layout.setContentsMargins(0, 0, 0, 0)
            layout.setSpacing(6)
            for widget in widgets:
                layout.addWidget(widget)
            layout.addStretch(1)
            self._box.addWidget(column, 1)
            self.columns.append(column)

    @property
    def stacked(self) -> bool:
        """Whether the columns stand one under the other (the page is too narrow for a row)."""
        return self._box.direction() == STACK

    def row_width(self) -> int:
        """The least width that holds every column side by side."""
        widths = [c.minimumSizeHint().width() for c in self.columns if not c.isHidden()]
        return sum(widths) + self._box.spacing() * max(0, len(widths) - 1)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        """Only the widest column's width: narrower than a row, the columns stack."""
        widths = [c.minimumSizeHint().width() for c in self.columns if not c.isHidden()]
        return QSize(max(widths, default=0), self._box.minimumSize().height())

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        self._arrange(event.size().width())
        super().resizeEvent(event)

    def _arrange(self, width: int) -> None:
        wanted = ROW if width >= self.row_width() else STACK
        if wanted != self._box.direction():
            self._box.setDirection(wanted)
            for index in range(self._box.count()):
                self._box.setStretch(index, 1 if wanted == ROW else 0)
            self.updateGeometry()
