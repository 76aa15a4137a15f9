"""The author's choices for a report: response times shown, author notes, cover, paper.

Each choice has a clear default and a bad value raises a ValueError naming it, so the command
line and the Compare page report the same message.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date as Date
from pathlib import Path

PAPERS = ("a4", "letter")
LATENCY_CHOICES = ("all", "new-order")
AUTHOR_NOTES_CHOICES = ("omit", "appendix")
COMMANDS_CHOICES = ("omit", "appendix")  # the commands run on the targets
SESSION_NOTES_CHOICES = ("omit", "include")  # the notes recorded with the plans and sessions
# Territories whose paper is US Letter (the rest of the world uses A4).
LETTER_TERRITORIES = frozenset({"US", "CA", "MX", "PH", "CL", "CO", "VE", "PR"})
LOGO_SUFFIXES = (".png", ".jpg", ".jpeg", ".svg")


def default_paper(environ: Mapping[str, str] | None = None) -> str:
    """``letter`` where the locale's territory uses it (US, Canada...), else ``a4``.

    Read as the C library does: LC_ALL, then LC_PAPER, then LANG (``en_US.UTF-8`` -> US).
    """
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_PAPER", "LANG"):
        value = env.get(name, "")
        if value:
            match = re.match(r"^[A-Za-z]{2,3}_([A-Za-z]{2})", value)
            if match is None:
                return "a4"  # C, POSIX: no territory
            return "letter" if match.group(1).upper() in LETTER_TERRITORIES else "a4"
    return "a4"


def check_paper(paper: str) -> str:
    text = paper.strip().lower()
    if text not in PAPERS:
        raise ValueError(f"the paper is a4 or letter, got {paper!r}")
    return text


@dataclass(frozen=True)
class Cover:
    """An optional line under the title: the author's company, logo and the date."""

    author: str = ""
    logo: Path | None = None
    date: str = ""

    def __bool__(self) -> bool:
        return bool(self.author or self.logo or self.date)


def check_cover(author: str = "", logo: str | Path | None = None, date: str = "") -> Cover:
    """A cover line from the author's input; a missing or unreadable logo or a bad date is a
    ValueError that names it."""
    path = None
    if logo:
        path = Path(logo).expanduser()
        if not path.is_file():
            raise ValueError(f"the logo {path} is not a file")
        if path.suffix.lower() not in LOGO_SUFFIXES:
            raise ValueError(
                f"the logo {path.name} must be a PNG, JPEG or SVG image (ends in"
                f" {', '.join(LOGO_SUFFIXES)})"
            )
    text = date.strip()
    if text:
        try:
            Date.fromisoformat(text)
        except ValueError:
            raise ValueError(f"the date is YYYY-MM-DD, got {date!r}") from None
    return Cover(author.strip(), path, text)


@dataclass(frozen=True)
class ReportOptions:
    """What the author chose; the defaults make the report every test and the GUI expect."""

    latency: str = "all"  # "all" transactions, or "new-order" only
    author_notes: str = "omit"  # "omit", or "appendix" to keep them at the end
    cover: Cover = field(default_factory=Cover)
    # Sets of sessions the author says are repeats of one another.
    repeats: tuple[tuple[int, ...], ...] = ()
    # The author's short names: (session id, name) pairs (report.names.check_short_names).
    short_names: tuple[tuple[int, str], ...] = ()
    # The command log (root shell on the targets) is an appendix only when the author asks;
    # the notes recorded with plans and sessions ("report tester slow") likewise.
    commands: str = "omit"
    session_notes: str = "omit"
    # The sections' keys in the order the brief gives them (a study reproducing a seed: the
    # seed's order); the sections not named follow in the report's own order.
    order: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.latency not in LATENCY_CHOICES:
            raise ValueError(
                f"response times are of 'all' transactions or of 'new-order' only, got"
                f" {self.latency!r}"
            )
        if self.author_notes not in AUTHOR_NOTES_CHOICES:
            raise ValueError(f"author notes are 'omit' or 'appendix', got {self.author_notes!r}")
        if self.commands not in COMMANDS_CHOICES:
            raise ValueError(f"the command log is 'omit' or 'appendix', got {self.commands!r}")
        if self.session_notes not in SESSION_NOTES_CHOICES:
            raise ValueError(
                f"the sessions' notes are 'omit' or 'include', got {self.session_notes!r}"
            )


def in_order(default: Sequence[str], chosen: Sequence[str]) -> list[str]:
    """The sections of ``default`` with the ``chosen`` ones first, in the order chosen; a
    chosen key the report has not (a power section with no power measured) is left out."""
    first = [key for key in dict.fromkeys(chosen) if key in default]
    return first + [key for key in default if key not in first]


def parse_repeats(groups: Sequence[str]) -> tuple[tuple[int, ...], ...]:
    """``["3,5", "7,8,9"]`` -> ((3, 5), (7, 8, 9)); a ValueError names a bad set."""
    out = []
    for text in groups:
        try:
            ids = tuple(int(part) for part in text.split(",") if part.strip())
        except ValueError:
            raise ValueError(
                f"a repeat set is session ids separated by commas (3,5), got {text!r}"
            ) from None
        if len(ids) < 2:
            raise ValueError(f"a repeat set needs two sessions or more, got {text!r}")
        out.append(ids)
    return tuple(out)
