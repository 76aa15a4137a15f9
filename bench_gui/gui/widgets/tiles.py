"""Big-number tiles for the Live page: a caption, a value large enough for 3 m, a unit; and
:class:`TileFlow`, which puts tiles in as many rows as the width needs.

The style sheet selects on two dynamic properties of the value label: ``emphasis`` ("hero":
the headline figure, larger) and ``state`` ("rampup": dimmed, the figure does not count yet;
"result": the run's result, not the last second). Titles and units keep their case: "mW"
is not "MW".
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from bench_gui.gui.widgets.page_parts import set_prop

PLACEHOLDER = "—"
STATES = ("", "rampup", "result")


class Tile(QFrame):
    """One metric: title on top, big value with its unit, a small detail line below.

    The coloured strip on the left matches the colour of the metric's curve in the charts.
    """

    def __init__(
        self,
        title: str,
        unit: str = "",
        accent: str = "#33b1ff",
        hero: bool = False,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("tile")
        # As tall as the row (the hero is taller): tiles side by side line up.
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        outer = QHBoxLayout(self)
        outer.setContentsMargins(0, 0, 12, 0)
        outer.setSpacing(14)
        strip = QFrame()
        strip.setFixedWidth(6)
        strip.setStyleSheet(
            f"background-color: {accent}; border-top-left-radius: 12px;"
            " border-bottom-left-radius: 12px;"
        )
        outer.addWidget(strip)

        body = QVBoxLayout()
        body.setContentsMargins(0, 10, 0, 10)
        body.setSpacing(0)
        # Title and unit share the top line, so the value has the tile's whole width.
        title_row = QHBoxLayout()
        title_row.setSpacing(8)
        self.title_label = QLabel(title)
        self.title_label.setObjectName("tileTitle")
        title_row.addWidget(self.title_label)
        self.unit_label = QLabel(unit)
        self.unit_label.setObjectName("tileUnit")
        title_row.addWidget(self.unit_label, 1, Qt.AlignmentFlag.AlignBaseline)
        body.addLayout(title_row)

        self.value_label = QLabel(PLACEHOLDER)
        self.value_label.setObjectName("tileValue")
        # Not "size": QWidget has a property of that name, and the selector never matched.
        self.value_label.setProperty("emphasis", "hero" if hero else "")
        self.value_label.setProperty("state", "")
        self.value_label.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        body.addWidget(self.value_label)

        self.detail_label = QLabel("")
        self.detail_label.setObjectName("tileDetail")
        # Secondary text wraps on a narrow tile rather than widening the row or being cut
        # mid-word ("best step (swe"); the tooltip has it too.
        self.detail_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.detail_label.setWordWrap(True)
        body.addStretch(1)
        body.addWidget(self.detail_label)
        outer.addLayout(body, 1)

        # The widest value the tile is expected to show: how much room it asks of a TileFlow
        # (and the widest detail line, when that line must not be clipped).
        self.widest = "888,888"
        self.widest_detail = ""

    def set_value(self, text: str | None, detail: str | None = None) -> None:
        self.value_label.setText(text if text else PLACEHOLDER)
        if detail is not None and detail != self.detail_label.text():
            self.detail_label.setText(detail)
            self.detail_label.setToolTip(detail)

    def set_state(self, state: str) -> None:
        """ "" (live), "rampup" (dimmed: ramp-up does not count) or "result" (the run's)."""
        if state not in STATES:
            raise ValueError(f"tile state must be one of {STATES}, got {state!r}")
        set_prop(self.value_label, "state", state)
        set_prop(self, "state", state)

    @property
    def state(self) -> str:
        return str(self.value_label.property("state") or "")

    @property
    def value_text(self) -> str:
        return self.value_label.text()

    def needed_width(self) -> int:
        """The width the tile needs to show :attr:`widest` and its title unclipped."""
        self.ensurePolished()
        self.value_label.ensurePolished()
        self.title_label.ensurePolished()
        value = self.value_label.fontMetrics().horizontalAdvance(self.widest)
        title = self.title_label.fontMetrics().horizontalAdvance(self.title_label.text())
        unit = self.unit_label.fontMetrics().horizontalAdvance(self.unit_label.text())
        self.detail_label.ensurePolished()
        detail = self.detail_label.fontMetrics().horizontalAdvance(self.widest_detail)
        return max(value, title + 8 + unit, detail) + 6 + 14 + 12 + 2


class TileFlow(QWidget):
    """Tiles in rows that fill the width: as few rows as let every tile have the room it needs,
    the tiles spread evenly over the rows, in order, each row shared in proportion to what its
    tiles need (so a row fits as soon as their needs add up to its width). Hidden tiles take
    no room. The rows are made again when the width or the shown tiles change
    (:meth:`arrange`)."""

    def __init__(self, spacing: int = 12, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.column = QVBoxLayout(self)
        self.column.setContentsMargins(0, 0, 0, 0)
        self.column.setSpacing(spacing)
        self.spacing = spacing
        self.items: list[QWidget] = []
        self.rows: list[list[QWidget]] = []
        self._needs: dict[int, int] = {}

    def add(self, tile: QWidget) -> None:
        tile.setParent(self)
        self.items.append(tile)
        self.arrange()

    def shown(self) -> list[QWidget]:
        return [t for t in self.items if not t.isHidden()]

    def set_spacing(self, spacing: int) -> None:
        self.spacing = spacing
        self.column.setSpacing(spacing)
        self.rows = []  # the rows' own layouts take it when they are made again
        self.arrange()

    def arrange(self, width: int | None = None) -> None:
        """Place the shown tiles for ``width`` (default: the flow's own)."""
        room = self.width() if width is None else width
        shown = self.shown()
        needs = [_needed(t) for t in shown]
        rows = flow_rows(needs, room, self.spacing)
        placed = [[shown[i] for i in row] for row in rows]
        need_of = {id(t): n for t, n in zip(shown, needs, strict=True)}
        if placed == self.rows and need_of == self._needs:
            return
        self.rows, self._needs = placed, need_of
        while self.column.count():
            item = self.column.takeAt(0)
            row_layout = item.layout() if item is not None else None
            if row_layout is not None:
                while row_layout.count():
                    row_layout.takeAt(0)
                row_layout.deleteLater()
        for row in placed:
            line = QHBoxLayout()
            line.setSpacing(self.spacing)
            for tile in row:
                line.addWidget(tile, max(1, need_of[id(tile)]))
            self.column.addLayout(line)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.arrange(event.size().width())


def _needed(tile: QWidget) -> int:
    """The room a tile asks for: its ``needed_width()`` if it has one, else its minimum."""
    needed = getattr(tile, "needed_width", None)
    return int(needed()) if callable(needed) else tile.minimumSizeHint().width()


def flow_rows(widths: Sequence[int], room: int, spacing: int) -> list[list[int]]:
    """Indexes of items (by needed width) in rows: the fewest rows in which each row's needs
    and spacing add up to no more than ``room``, the items spread evenly over the rows in
    order (the first rows take one more when they do not divide)."""
    n = len(widths)
    for count in range(1, n + 1):
        rows = _split(n, count)
        if all(sum(widths[i] for i in row) + spacing * (len(row) - 1) <= room for row in rows):
            return rows
    return [[i] for i in range(n)]


def _split(n: int, count: int) -> list[list[int]]:
    base, extra = divmod(n, count)
    rows, start = [], 0
    for r in range(count):
        size = base + (1 if r < extra else 0)
        rows.append(list(range(start, start + size)))
        start += size
    return rows
