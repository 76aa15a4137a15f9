"""The result card a booth shows between the runs of its loop: its figures, readable from 3 m.

Best NOPM, p99 latency, and what else is known: how many times the rival storage's NOPM, the
cost per new order, the watts and NOPM per watt of a metered run (TPM when fewer than four
are), each with a line saying where it comes from (:mod:`bench_gui.services.result_figures`),
and a countdown to the next run. The figures sit in rows that each run the card's width (three
in a row, four as two and two, five as three and two): no empty cell. The text scales with the
card, so it fills a 55" screen and still fits a 1280x720 one. The Present view shows it as an
overlay (``show_overlay``); it never takes a click to go away.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFont, QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from bench_gui.services.result_figures import ResultFigures

ACCENT = "#33b1ff"
NOT_GIVEN = "—"
MOST_IN_A_ROW = 3

STYLE = """
QFrame#resultCard {
    background-color: #161a22; border: 2px solid #33b1ff; border-radius: 18px;
}
QFrame#resultCard QLabel { background-color: transparent; }
QFrame#figure { background-color: #1a1f29; border: 1px solid #2a3140; border-radius: 14px; }
QLabel#cardTitle { color: #ffffff; font-weight: 700; }
QLabel#cardSubtitle, QLabel#figureNote, QLabel#cardFooter { color: #93a0b8; }
QLabel#figureTitle { color: #c9d1e0; font-weight: 600; }
QLabel#figureValue { color: #ffffff; font-weight: 800; }
QLabel#figureValue[accent="true"] { color: #33b1ff; }
"""


def format_ms(value: float | None) -> str:
    """Milliseconds for the card: ``0.85 ms``, ``12.5 ms``, ``714 ms``, ``2.4 s``."""
    if value is None or not math.isfinite(value):
        return NOT_GIVEN
    if value >= 1000:
        return f"{value / 1000:.1f} s"
    if value >= 100:
        return f"{value:.0f} ms"
    if value >= 10:
        return f"{value:.1f} ms"
    return f"{value:.2f} ms"


def format_nopm(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return NOT_GIVEN
    return f"{value:,.0f}"


def known_figures(figures: ResultFigures) -> list[tuple[str, str, str, bool]]:
    """The card's figures as (title, value, note, accent): the best NOPM and p99 always; the
    race's ratio, the cost per new order, watts and NOPM per watt when they are known; TPM
    when fewer than four are. A figure that cannot be given is left out, not shown as "—"
    (except the first two: the card always says them)."""
    vus = figures.best_vus
    at = f"at {vus} {'user' if vus == 1 else 'users'}" if vus is not None else "at the best step"
    shown = [
        ("Best NOPM", format_nopm(figures.best_nopm), figures.best_note, True),
        ("p99 latency", format_ms(figures.p99_ms), f"all transactions, {at}", False),
    ]
    if figures.times_text:
        shown.append(("New orders a minute", figures.times_text, figures.times_note, False))
    if figures.cost_text:
        shown.append(("Cost per new order", figures.cost_text, figures.cost_note, False))
    per_watt = figures.nopm_per_watt
    if figures.power_w is not None and math.isfinite(figures.power_w):
        shown.append(("Power", f"{figures.power_w:,.0f} W", f"average, {at}", False))
    if per_watt is not None and math.isfinite(per_watt):
        value = f"{per_watt:,.0f}" if per_watt >= 100 else f"{per_watt:.1f}"
        shown.append(("NOPM per watt", value, f"new orders a minute per watt, {at}", False))
    if len(shown) < 4 and figures.tpm is not None and math.isfinite(figures.tpm):
        shown.append(("TPM", format_nopm(figures.tpm), f"transactions a minute, {at}", False))
    return shown


def row_sizes(count: int) -> list[int]:
    """How many figures each row holds: up to three in one row, else as even rows as can be,
    the fuller ones first (4: 2 + 2, 5: 3 + 2, 7: 3 + 2 + 2)."""
    if count <= 0:
        return []
    rows = 1 if count <= MOST_IN_A_ROW else max(2, math.ceil(count / MOST_IN_A_ROW))
    base, more = divmod(count, rows)
    return [base + 1 if i < more else base for i in range(rows)]


class Figure(QFrame):
    """One of the card's figures: a title, a big value, a note."""

    def __init__(self, title: str, value: str, note: str, accent: bool = False) -> None:
        super().__init__()
        self.setObjectName("figure")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 16, 24, 16)
        layout.setSpacing(4)
        layout.addStretch(1)  # the figure in the middle of its box, however tall the row
        self.title = QLabel(title)
        self.title.setObjectName("figureTitle")
        self.value = QLabel(value)
        self.value.setObjectName("figureValue")
        self.value.setProperty("accent", accent)
        self.note = QLabel(note)
        self.note.setObjectName("figureNote")
        self.note.setWordWrap(True)
        for label in (self.title, self.value, self.note):
            # Long text is wrapped or clipped, never widening the card past the screen.
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
            layout.addWidget(label)
        layout.addStretch(1)


class ResultCard(QFrame):
    """A finished run's figures and the countdown to the next run (``seconds`` 0: none)."""

    def __init__(
        self,
        figures: ResultFigures,
        number: int,
        total: int | None,
        seconds: float,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("resultCard")
        self._size_rules = ""
        self.figures = figures
        self.remaining = max(0, math.ceil(seconds))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(36, 28, 36, 24)
        layout.setSpacing(14)

        of = f" of {total}" if total is not None else ""
        self.title = QLabel(f"Run {number}{of}: result")
        self.title.setObjectName("cardTitle")
        self.subtitle = QLabel(figures.name)
        self.subtitle.setObjectName("cardSubtitle")
        for label in (self.title, self.subtitle):
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
            layout.addWidget(label)

        grid = QVBoxLayout()
        grid.setSpacing(18)
        self.figure_boxes = tuple(Figure(*known) for known in known_figures(figures))
        sizes = row_sizes(len(self.figure_boxes))
        self.columns = max(sizes, default=1)
        self.rows = max(len(sizes), 1)
        boxes = iter(self.figure_boxes)
        for size in sizes:
            row = QHBoxLayout()
            row.setSpacing(18)
            for _ in range(size):
                row.addWidget(next(boxes), 1)  # equal shares: the row runs the card's width
            grid.addLayout(row, 1)
        layout.addLayout(grid, 1)

        self.footer = QLabel("")
        self.footer.setObjectName("cardFooter")
        self.footer.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        layout.addWidget(self.footer)
        self.timer = QTimer(self)
        self.timer.setInterval(1000)
        self.timer.timeout.connect(self._tick)
        self._show_countdown()
        if self.remaining > 0:
            self.timer.start()
        self._scale()

    def _show_countdown(self) -> None:
        self.footer.setText(f"Next run in {self.remaining} s" if self.remaining > 0 else "")

    def _tick(self) -> None:
        self.remaining = max(0, self.remaining - 1)
        if self.remaining == 0:
            self.timer.stop()
            self.footer.setText("Next run starting…")
            return
        self._show_countdown()

    def _scale(self) -> None:
        """Text sized from the card's height (and width, so a long value still fits); set
        through the style sheet, since the application's theme sets every widget's font size."""
        height = max(300, self.height())
        width = max(500, self.width())
        # As large as the row's height allows (one row: larger), and as the longest value
        # fits its box: the boxes of the fullest row are the narrowest.
        box = (width - 72 - 18 * (self.columns - 1)) / self.columns - 48
        probe = QFont(self.font())
        probe.setPixelSize(100)
        probe.setWeight(QFont.Weight.ExtraBold)
        metrics = QFontMetrics(probe)
        widest = max(
            (metrics.horizontalAdvance(b.value.text()) for b in self.figure_boxes), default=1
        )
        fit = 100 * 0.95 * box / max(widest, 1)
        value_px = int(min(height * (0.2 if self.rows == 1 else 0.14), fit))
        text_px = max(14, int(min(height * 0.032, width * 0.016)))
        sizes = {
            "figureValue": value_px,
            "figureTitle": text_px,
            "figureNote": text_px,
            "cardTitle": int(text_px * 1.7),
            "cardSubtitle": text_px,
            "cardFooter": text_px,
        }
        rules = "".join(f"QLabel#{name} {{ font-size: {px}px; }}\n" for name, px in sizes.items())
        if rules != self._size_rules:
            self._size_rules = rules
            self.setStyleSheet(STYLE + rules)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self._scale()

    def texts(self) -> dict[str, str]:
        """Each figure's value as shown (for tests and the log)."""
        return {box.title.text(): box.value.text() for box in self.figure_boxes}


__all__ = ["ResultCard", "format_ms", "format_nopm", "known_figures", "row_sizes"]
