"""The Present view's huge tiles: NOPM, p99.9 latency, and watts and NOPM per watt when the run
measures power (TPM instead when it does not).

While a step ramps up its figures are dimmed and the caption says they do not count; once the
run has ended the tiles show its result, the best step's figures, and say so. The tiles keep
one row as long as the other figures can shrink to :data:`VALUE_MIN_PX` (the NOPM figure keeps
its size), then wrap (:class:`~bench_gui.gui.widgets.tiles.TileFlow`).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QFrame, QLabel, QSizePolicy, QVBoxLayout, QWidget

from bench_gui.gui.pages.live.numbers import fmt_int, fmt_watts
from bench_gui.gui.widgets.elided import ElidedLabel
from bench_gui.gui.widgets.page_parts import set_prop
from bench_gui.gui.widgets.tiles import TileFlow
from bench_gui.services.live_model import LiveModel, Tiles
from bench_gui.services.session_view import user_count

PLACEHOLDER = "—"
PAD = 18  # a tile's inner margin, left and right
VALUE_MIN_PX = 40  # the other tiles' figures shrink to this before the tiles wrap
RAMPUP_CAPTION = "ramp-up · not counted yet"
LIVE_CAPTION = "live · this step"
NOTHING_MEASURED = "no step was measured"
NOT_MEASURED = "not measured"  # the same on the narrower tiles


def nopm_per_watt(mw_per_nopm: float | None) -> float | None:
    """NOPM per watt from mW per NOPM (the booth's way round: higher is better)."""
    if mw_per_nopm is None or mw_per_nopm <= 0:
        return None
    return 1000.0 / mw_per_nopm


def fmt_per_watt(value: float | None) -> str | None:
    if value is None:
        return None
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def fmt_ms_short(value: float | None) -> str | None:
    """A latency in at most three figures below a second ("8.42", "84.2", "842"), so that
    the tile, sized for "88.8", keeps its unit ("ms") in view at 100 ms and more."""
    if value is None:
        return None
    return f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 100 else f"{value:,.0f}"


def _advance(text: str, px: int) -> int:
    """How wide ``text`` is in the app's font, extra bold, at ``px`` pixels."""
    font = QFont()
    font.setPixelSize(max(1, px))
    font.setWeight(QFont.Weight.ExtraBold)
    return QFontMetrics(font).horizontalAdvance(text)


class BigTile(QFrame):
    """A title, a huge value with its unit, a caption saying what the value is."""

    def __init__(self, title: str, unit: str, hero: bool = False, widest: str = "8,888") -> None:
        super().__init__()
        self.setObjectName("bigTile")
        # As tall as the row (the hero is taller): tiles side by side line up.
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.hero = hero
        self.unit = unit
        self.widest = widest  # the widest value expected: the room the tile asks for
        body = QVBoxLayout(self)
        body.setContentsMargins(PAD, 8, PAD, 10)
        body.setSpacing(0)
        self.title_label = QLabel(title)
        self.title_label.setObjectName("bigTileTitle")
        body.addWidget(self.title_label)
        body.addStretch(1)  # the value in the middle of a tile as tall as the hero
        self.value_label = QLabel(PLACEHOLDER)
        self.value_label.setObjectName("bigTileValue")
        self.value_label.setTextFormat(Qt.TextFormat.RichText)
        self.value_label.setProperty("emphasis", "hero" if hero else "")
        body.addWidget(self.value_label)
        # Elided, whole in its tooltip: a caption wider than a narrow tile was cut mid-word.
        self.caption_label = ElidedLabel("")
        self.caption_label.setObjectName("bigTileCaption")
        body.addStretch(1)
        body.addWidget(self.caption_label)
        self.value_text = PLACEHOLDER
        self.px = (96, 40, 30)  # value (or hero), unit and title sizes the style sheet gives

    def set_value(self, text: str | None, caption: str) -> None:
        self.value_text = text or PLACEHOLDER
        value = html.escape(self.value_text)
        if text and self.unit:
            # The unit beside the figure, smaller (rich text: the style sheet sizes the rest).
            unit = html.escape(self.unit)
            value += f'<span style="font-size:{self.px[1]}px; font-weight:700;"> {unit}</span>'
        self.value_label.setText(value)
        self.caption_label.setText(caption)
        self.caption_label.setToolTip(caption)

    def set_state(self, state: str) -> None:
        """Live (""), dimmed during a ramp-up ("rampup") or the run's result ("result")."""
        for widget in (self, self.value_label, self.caption_label):
            set_prop(widget, "state", state)

    @property
    def state(self) -> str:
        return str(self.property("state") or "")

    def set_px(self, value_px: int, unit_px: int, title_px: int) -> None:
        """The sizes the view's style sheet gives (the unit is rich text: set here)."""
        unit_changed = unit_px != self.px[1]
        self.px = (value_px, unit_px, title_px)
        if unit_changed:
            shown = None if self.value_text == PLACEHOLDER else self.value_text
            self.set_value(shown, self.caption_label.text())

    def need_at(self, value_px: int, unit_px: int, title_px: int) -> int:
        """The width that shows :attr:`widest` with its unit, and the title, unclipped, at
        these sizes."""
        shown = self.value_text if self.value_text != PLACEHOLDER else ""
        value = max(_advance(self.widest, value_px), _advance(shown, value_px))
        if self.unit:
            value += _advance(f" {self.unit}", unit_px)
        title = _advance(self.title_label.text(), title_px)
        return max(value, title) + 2 * PAD + 4

    def needed_width(self) -> int:
        return self.need_at(*self.px)


class PresentTiles(QWidget):
    """The view's tiles; :meth:`show_model` fills them from a LiveModel."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.flow = TileFlow(18)
        layout.addWidget(self.flow)
        # The widest figures expected: a NOPM in the hundreds of thousands, a p99.9 under
        # 100 ms, a server's watts, a few hundred NOPM per watt (a wider one still shows: its
        # tile takes more of the row).
        self.nopm = BigTile("NOPM  ·  new orders per minute", "", hero=True, widest="888,888")
        self.p999 = BigTile("p99.9 latency", "ms", widest="88.8")
        self.power = BigTile("Power", "W", widest="8,888")
        self.per_watt = BigTile("NOPM per watt", "", widest="888")
        self.tpm = BigTile("TPM  ·  transactions per minute", "", widest="888,888")
        for tile in self.tiles():
            self.flow.add(tile)
        self.power_shown: bool | None = None
        self.show_power(False)

    def tiles(self) -> tuple[BigTile, ...]:
        return (self.nopm, self.p999, self.power, self.per_watt, self.tpm)

    def shown(self) -> list[BigTile]:
        return [t for t in self.tiles() if not t.isHidden()]

    def show_power(self, shown: bool) -> None:
        """Watts and NOPM per watt when the run measures power, else TPM in their place."""
        if shown == self.power_shown:
            return
        self.power_shown = shown
        self.power.setVisible(shown)
        self.per_watt.setVisible(shown)
        self.tpm.setVisible(not shown)
        self.flow.arrange()

    def set_px(self, hero_px: int, value_px: int, unit_px: int, title_px: int) -> None:
        for tile in self.tiles():
            tile.set_px(hero_px if tile.hero else value_px, unit_px, title_px)
        self.flow.arrange()

    def fit_value_px(
        self, hero_px: int, value_px: int, unit_px: int, title_px: int, room: int
    ) -> int:
        """The largest size, up to ``value_px``, at which the shown tiles fit one row of
        ``room`` pixels (the hero keeps its size); ``value_px`` when even
        :data:`VALUE_MIN_PX` does not fit (the tiles then wrap)."""
        shown = self.shown()
        gaps = self.flow.spacing * (len(shown) - 1)
        for px in range(value_px, VALUE_MIN_PX - 1, -2):
            needs = sum(t.need_at(hero_px if t.hero else px, unit_px, title_px) for t in shown)
            if needs + gaps <= room:
                return px
        return value_px

    def clear(self) -> None:
        for tile in self.tiles():
            tile.set_value(None, "")
            tile.set_state("")

    def show_model(self, model: LiveModel) -> bool:
        """Live figures while the run goes on (dimmed during a ramp-up); its result after.
        True when the power tiles came or went (the view fits its sizes again)."""
        changed = model.has_power != self.power_shown
        self.show_power(model.has_power)
        if model.ended:
            result = model.result_tiles()
            if result is None:
                for tile in self.tiles():
                    tile.set_value(None, NOTHING_MEASURED if tile.hero else NOT_MEASURED)
                    tile.set_state("")
                return changed
            users = f" · {user_count(result.vus)}" if result.vus is not None else ""
            self._show(result, f"best step{users}", "result")
            return changed
        rampup = model.phase == "rampup"
        caption = RAMPUP_CAPTION if rampup else LIVE_CAPTION if model.vus else ""
        self._show(model.tiles(), caption, "rampup" if rampup else "")
        return changed

    def _show(self, figures: Tiles, caption: str, state: str) -> None:
        # The other tiles are narrower: the first words of the caption ("ramp-up", "best step").
        short = caption.split(" · ")[0]
        self.nopm.set_value(fmt_int(figures.nopm), caption)
        self.p999.set_value(fmt_ms_short(figures.latency_p999_ms), short)
        self.tpm.set_value(fmt_int(figures.tpm), short)
        self.power.set_value(fmt_watts(figures.power_w), short)
        self.per_watt.set_value(fmt_per_watt(nopm_per_watt(figures.mw_per_nopm)), short)
        for tile in self.tiles():
            tile.set_state(state if tile.value_text != PLACEHOLDER else "")
