"""The Present view's sizes and colours: text read from 3 m on a 55" 1080p screen.

On such a screen a pixel is 0.63 mm; text a passer-by reads at 3 m wants letters of 1 cm and
more (about 0.2°), the headline figure several times that. Every size scales with the view
(1920x1080 is the reference) with a floor, so a 1280x720 window keeps the NOPM figure at
120 px and the rest readable. The sizes go into a style sheet set on the view: the
application's theme sets every widget's font size, and a style sheet wins over ``setFont``.
"""

from __future__ import annotations

from dataclasses import dataclass

from bench_gui.gui.present.headline import tone_rules

ACCENT = "#33b1ff"
OK = "#42be65"
RAMPUP = "#f1c21b"
FAILED = "#fa4d56"
STALLED = "#ff832b"  # the database does not answer
MUTED = "#93a0b8"
DIMMED = "#5d6880"
PANEL = "#1a1f29"
BORDER = "#2a3140"
BACKGROUND = "#12161d"
HERO_MIN_PX = 120  # the NOPM figure never gets smaller than this


@dataclass(frozen=True)
class Sizes:
    """Pixel sizes of the view's text and spacing for one view size."""

    name: int
    ratio: int
    phase: int
    tile_title: int
    hero: int
    value: int
    unit: int
    caption: int
    tick: int
    legend: int
    marker: int
    corner: int
    margin: int
    spacing: int
    line: float  # the live curve's pen width


def sizes_for(width: int, height: int) -> Sizes:
    """The sizes for a view of ``width`` x ``height`` pixels (1920x1080 is the reference)."""
    scale = max(0.4, min(width / 1920.0, height / 1080.0))

    def px(reference: float, least: int) -> int:
        return max(least, round(reference * scale))

    return Sizes(
        name=px(56, 28),
        ratio=px(60, 30),
        phase=px(44, 24),
        tile_title=px(28, 18),
        hero=px(150, HERO_MIN_PX),
        value=px(88, 40),
        unit=px(36, 20),
        caption=px(24, 16),
        tick=px(24, 16),
        legend=px(24, 16),
        marker=px(22, 14),
        corner=px(26, 16),
        margin=px(28, 12),
        spacing=px(18, 8),
        line=max(3.0, 6.0 * scale),
    )


# Dims whatever is behind an overlay (the result card), so the card reads on its own.
SCRIM_RULE = "QWidget#scrim { background-color: rgba(10, 12, 16, 215); }"


def stylesheet(s: Sizes) -> str:
    """The view's style sheet for sizes ``s`` (object names as the present modules set them)."""
    return f"""
QWidget#presentView {{ background-color: {BACKGROUND}; }}
QWidget#presentView QLabel {{ background-color: transparent; }}
/* The chips below name the view as well: a rule must outrank the one above to colour them. */
{SCRIM_RULE}
QLabel#presentName {{ color: #ffffff; font-size: {s.name}px; font-weight: 800; }}
QLabel#presentServer {{ color: {MUTED}; font-size: {s.phase * 2 // 3}px; font-weight: 600; }}
QLabel#presentRatio {{ font-size: {s.ratio}px; font-weight: 800; }}
{tone_rules("QLabel#presentRatio")}QWidget#presentView QLabel#phaseChip {{
    font-size: {s.phase}px; font-weight: 800; color: #ffffff; background-color: #4a5570;
    border-radius: {s.phase // 2}px; padding: 0px {s.phase // 2}px;
}}
QWidget#presentView QLabel#phaseChip[phase="building"] {{
    background-color: {ACCENT}; color: #0d1016;
}}
QWidget#presentView QLabel#phaseChip[phase="rampup"] {{
    background-color: {RAMPUP}; color: #0d1016;
}}
QWidget#presentView QLabel#phaseChip[phase="measure"] {{ background-color: {OK}; color: #0d1016; }}
QWidget#presentView QLabel#phaseChip[phase="ended"] {{ background-color: {MUTED}; color: #0d1016; }}
QWidget#presentView QLabel#phaseChip[phase="failed"] {{ background-color: {FAILED}; }}
QWidget#presentView QLabel#phaseChip[phase="stalled"] {{
    background-color: {STALLED}; color: #0d1016;
}}
QLabel#phaseText {{ color: #e8ecf3; font-size: {s.phase}px; font-weight: 700; }}
QFrame#bigTile {{
    background-color: {PANEL}; border: 2px solid {BORDER}; border-radius: 18px;
}}
QFrame#bigTile[state="rampup"] {{ border: 2px dashed #4a5570; }}
QFrame#bigTile[state="result"] {{ border: 2px solid {OK}; }}
QLabel#bigTileTitle {{ color: {MUTED}; font-size: {s.tile_title}px; font-weight: 700; }}
QLabel#bigTileValue {{ color: #ffffff; font-size: {s.value}px; font-weight: 800; }}
QLabel#bigTileValue[emphasis="hero"] {{ font-size: {s.hero}px; }}
QLabel#bigTileValue[state="rampup"] {{ color: {DIMMED}; }}
QLabel#bigTileCaption {{ color: {MUTED}; font-size: {s.caption}px; font-weight: 600; }}
QLabel#bigTileCaption[state="rampup"] {{ color: {RAMPUP}; }}
QFrame#chartCard {{ background-color: #161a22; border: 2px solid {BORDER}; border-radius: 14px; }}
QFrame#chartCard QLabel#sectionTitle {{
    color: #ffffff; font-size: {s.tile_title}px; font-weight: 700;
}}
QWidget#presentView QLabel#cornerError {{
    background-color: #3a1217; color: #ffffff; border: 2px solid {FAILED};
    border-radius: 12px; padding: 12px 18px; font-size: {s.corner}px; font-weight: 600;
}}
"""
