"""Big-number tiles for the Live page: a caption, a value large enough for 3 m, a unit."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

PLACEHOLDER = "—"


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
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
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
        self.title_label = QLabel(title.upper())
        self.title_label.setObjectName("tileTitle")
        title_row.addWidget(self.title_label)
        self.unit_label = QLabel(unit)
        self.unit_label.setObjectName("tileUnit")
        title_row.addWidget(self.unit_label, 1, Qt.AlignmentFlag.AlignBaseline)
        body.addLayout(title_row)

        self.value_label = QLabel(PLACEHOLDER)
        self.value_label.setObjectName("tileValue")
        if hero:
            self.value_label.setProperty("size", "hero")
        self.value_label.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        body.addWidget(self.value_label)

        self.detail_label = QLabel("")
        self.detail_label.setObjectName("tileDetail")
        # Secondary text is clipped rather than widening the row of tiles.
        self.detail_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        body.addWidget(self.detail_label)
        outer.addLayout(body, 1)

    def set_value(self, text: str | None, detail: str | None = None) -> None:
        self.value_label.setText(text if text else PLACEHOLDER)
        if detail is not None:
            self.detail_label.setText(detail)

    @property
    def value_text(self) -> str:
        return self.value_label.text()
