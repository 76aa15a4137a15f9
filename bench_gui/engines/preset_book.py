"""What an engine kit's ``presets`` face gives: its presets and calculated profiles as
``bench-gui tune presets`` lists them, and one of them shown by name.

Every kit answers in these terms, so the command line lists and shows each engine's presets
the same way without knowing which engine it asks. Pure: no I/O, no Qt.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class PresetRow:
    """One preset or calculated profile, a line of the listing."""

    name: str  # what ``tune diff``/``apply`` and ``tune presets NAME`` take
    title: str
    builtin: bool  # False: a user's own preset file
    source: str  # where its values come from ("seeds/001 ...", "calculated"); "" for a user's
    data: dict[str, Any]  # what ``tune presets --json`` writes of it, under the kit's name


@dataclass(frozen=True)
class PresetView:
    """One preset shown: as text (comments and settings) and as JSON, each printed as is."""

    text: str
    json: str


@dataclass(frozen=True)
class PresetBook:
    """A kit's presets, the problems of those that could not be read (a user's bad file), and
    how one is shown: ``show(name, version)`` (the release to map it to, when the engine maps
    presets across releases) is None when the kit has none of that name."""

    rows: list[PresetRow]
    show: Callable[[str, str | None], PresetView | None]
    problems: list[str] = field(default_factory=list)
