"""The parts of a report every writer (HTML, PDF, CSV, JSON) and the GUI show: cells, tables,
chart descriptions, fast facts and sections.

A cell may span the session columns that follow it (``span``): the configuration tables print
a value shared by every session once, across their columns. The cells it covers stay in the
row (``covered``), with the same text, so a row always has one cell per column: CSV, JSON and
the GUI's table read every column, and only the printed writers merge.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass
class Cell:
    """One table cell: the text shown and the raw value CSV/JSON carry."""

    text: str
    value: float | int | str | None = None
    # "good", "bad", "muted", "flag", "head"; in configuration tables also "section" (a row
    # naming the part that follows), "label" (the item's name) and "diff" (a value that
    # differs between sessions, highlighted).
    tone: str = ""
    span: int = 1  # columns this cell covers, itself included
    covered: bool = False  # merged into a cell to its left (printed writers skip it)

    @staticmethod
    def num(value: float | None, digits: int = 0, suffix: str = "") -> Cell:
        if value is None or not math.isfinite(value):
            return Cell("—", None, "muted")
        return Cell(f"{value:,.{digits}f}{suffix}", value)


@dataclass
class Table:
    key: str
    title: str
    columns: list[str]  # "\n" separates the lines of a header: no header breaks mid-word
    rows: list[list[Cell]]
    notes: list[str] = field(default_factory=list)
    number: int = 0
    # Columns holding text (left-aligned); the others are numbers.
    text_columns: tuple[int, ...] = (0,)

    @property
    def label(self) -> str:
        return f"Table {self.number}: {self.title}" if self.number else self.title


def change_tone(change: float, text: str) -> str:
    """The tone of a comparison figure: "good" for better than the baseline (``change`` > 0),
    "bad" for worse, none when it prints as no change ("0%", "±0%", "0% higher"): a repeat of
    the baseline, or a difference under the printed precision, is not worse."""
    if not any(ch in "123456789" for ch in text):
        return ""
    return "good" if change > 0 else "bad"


def merged(text: str, count: int, value: str | None = None, tone: str = "") -> list[Cell]:
    """One value across ``count`` columns: the first cell spans them, the others are covered."""
    first = Cell(text, text if value is None else value, tone, span=count)
    return [first] + [Cell(text, first.value, tone, covered=True) for _ in range(count - 1)]


@dataclass
class SeriesSpec:
    label: str
    color: str
    values: list[float | None]  # one per category
    # The category (user count) of its saturation point: only a stop condition met in the range.
    saturation: int | None = None
    baseline: bool = False
    # The heaviest load of a sweep that ended before saturating: marked apart, never as one.
    unsaturated: int | None = None


@dataclass
class ChartSpec:
    key: str
    title: str
    y_label: str
    categories: list[int]  # user counts
    series: list[SeriesSpec]
    kind: str = "lines"  # "bars" or "lines"
    unit: str = ""  # "", "ms", "mW"
    better: str = "higher"  # "higher" or "lower" is better
    number: int = 0
    x_label: str = "Virtual users"
    # What the x axis prints under each category, when not the category itself ("2x RAM").
    category_labels: list[str] | None = None
    log_y: bool = False  # a logarithmic value axis (decades), for figures spanning orders
    reference: float | None = None  # a dashed horizontal line at this value (1X), labelled
    reference_label: str = ""

    def category_text(self, index: int) -> str:
        if self.category_labels is not None and index < len(self.category_labels):
            return self.category_labels[index]
        return str(self.categories[index])

    @property
    def label(self) -> str:
        return f"Figure {self.number}: {self.title}" if self.number else self.title

    @property
    def caption(self) -> str:
        return f"{self.label} ({'taller' if self.kind == 'bars' else self.better} is better)"


@dataclass
class Fact:
    value: str  # "22X to 29X"
    text: str  # "more new orders per minute"
    detail: str = ""  # "8 to 64 users"


@dataclass
class Block:
    """One element of a section, in reading order."""

    kind: str  # "headline", "text", "chart", "table", "formula", "message"
    content: str  # the text, or the key of a chart or table


@dataclass
class Section:
    key: str
    heading: str
    blocks: list[Block] = field(default_factory=list)

    def add(self, kind: str, content: str) -> None:
        self.blocks.append(Block(kind, content))

    def of(self, kind: str) -> list[str]:
        return [b.content for b in self.blocks if b.kind == kind]

    @property
    def tables(self) -> list[str]:
        return self.of("table")

    @property
    def charts(self) -> list[str]:
        return self.of("chart")

    @property
    def headlines(self) -> list[str]:
        return self.of("headline")

    @property
    def paragraphs(self) -> list[str]:
        return self.of("text")

    @property
    def messages(self) -> list[str]:
        return self.of("message")
