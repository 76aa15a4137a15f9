"""The race's headline on a booth screen: the longest whole form that fits, green or amber.

A :class:`~bench_gui.services.race.Headline` carries the same news in longer and shorter words
("-25% vs HDD array at 16 users" ... "-25%"). The label shows the longest form that fits its
width at its font size, so nothing is cut mid-word; when even the shortest form is too wide,
the font shrinks for it. Its ``tone`` property (ahead, behind, level, neutral) picks the colour
in the screen's style sheet. It asks the layout for the width of the form it shows (within its
maximum width, the screen's share of the row), so the system's name beside it keeps the rest.
"""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QFont, QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from bench_gui.services.race import NEUTRAL, Headline

LEAST_PX = 12  # the font never shrinks below this for the shortest form

AMBER = "#f1c21b"
GREEN = "#42be65"
LEVEL_COLOR = "#e8ecf3"
NEUTRAL_COLOR = "#c9d1e0"


def tone_rules(selector: str) -> str:
    """Style-sheet rules colouring ``selector`` (a QLabel#name) by its tone."""
    return (
        f'{selector}[tone="ahead"] {{ color: {GREEN}; }}\n'
        f'{selector}[tone="behind"] {{ color: {AMBER}; }}\n'
        f'{selector}[tone="level"] {{ color: {LEVEL_COLOR}; }}\n'
        f'{selector}[tone="neutral"] {{ color: {NEUTRAL_COLOR}; }}\n'
    )


class HeadlineLabel(QLabel):
    """Shows one form of a headline: the longest that fits."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.headline: Headline | None = None
        self.base_px = 0  # the style sheet's font size (0: the label's own font)
        self.shrunk_px = 0  # a smaller size for the shortest form (0: none)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.setProperty("tone", NEUTRAL)
        self.setWordWrap(False)

    # ---- what it shows --------------------------------------------------------------------

    def set_headline(self, headline: Headline | None) -> None:
        if headline == self.headline:
            return
        self.headline = headline
        tone = headline.tone if headline is not None else NEUTRAL
        if self.property("tone") != tone:
            self.setProperty("tone", tone)
            self.style().unpolish(self)
            self.style().polish(self)
        self.updateGeometry()
        self.choose()

    @property
    def full_text(self) -> str:
        return self.headline.text if self.headline is not None else ""

    def _metrics(self, px: int = 0) -> QFontMetrics:
        self.ensurePolished()
        font = QFont(self.font())
        size = px or self.base_px
        if size:
            font.setPixelSize(size)
        return QFontMetrics(font)

    def _wide(self, text: str, px: int = 0) -> int:
        margins = self.contentsMargins()
        return self._metrics(px).horizontalAdvance(text) + margins.left() + margins.right() + 2

    def choose(self) -> None:
        """Show the longest form that fits the width (the shortest, smaller, if none does)."""
        forms = self.headline.forms if self.headline is not None else ("",)
        room = self.width()
        shown = next((f for f in forms if self._wide(f) <= room), None)
        px = 0
        if shown is None:
            shown = forms[-1]
            base = self.base_px or self.font().pixelSize() or 16
            wide = self._wide(shown, base)
            px = max(LEAST_PX, int(base * room / wide)) if wide else 0
        if px != self.shrunk_px:
            self.shrunk_px = px
            self.setStyleSheet(f"font-size: {px}px;" if px else "")
        if shown != self.text():
            super().setText(shown)
        self.setToolTip(self.full_text if shown != self.full_text else "")

    def shortest_width(self) -> int:
        """The width of its shortest form at the screen's size: the least it is given."""
        forms = self.headline.forms if self.headline is not None else ("",)
        return self._wide(forms[-1])

    def set_base_px(self, px: int) -> None:
        """The font size the screen's style sheet gives this label (for measuring forms)."""
        self.base_px = px
        self.updateGeometry()
        self.choose()

    # ---- Qt overrides --------------------------------------------------------------------

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        # The width of the form it will show: asking for its whole room when a shorter form is
        # chosen would leave a blank beside the headline while the name next to it is cut.
        hint = super().sizeHint()
        forms = self.headline.forms if self.headline is not None else ("",)
        most = self.maximumWidth()
        wide = next((w for w in (self._wide(f) for f in forms) if w <= most), most)
        return QSize(wide, hint.height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        hint = super().minimumSizeHint()
        forms = self.headline.forms if self.headline is not None else ("",)
        return QSize(min(self._wide(forms[-1]), self.maximumWidth()), hint.height())

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self.choose()


__all__ = ["HeadlineLabel", "tone_rules"]
