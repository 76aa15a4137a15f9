"""How much of the user's own input an error message quotes back: the one rule for every error
text that echoes a key, a value or a list of problems, so that a 100,000-character key or 20,000
bad options make a message of a few lines, not megabytes. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

# Characters of one quoted piece of input (a key, a value, a field's path).
ECHO_CHARS: Final = 200
# Items of a list of problems shown before "and N more".
LISTED: Final = 20


def echoed(text: str, limit: int = ECHO_CHARS) -> str:
    """``text`` as an error quotes it: whole when short, else its start and its length."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


def listed(items: Sequence[str], limit: int = LISTED, sep: str = "; ", noun: str = "more") -> str:
    """The first ``limit`` items joined, then a count of the rest."""
    shown = sep.join(items[:limit])
    rest = len(items) - limit
    return f"{shown}{sep}and {rest:,} {noun}" if rest > 0 else shown


def problem_lines(problems: Iterable[tuple[str, str]], limit: int = LISTED) -> list[str]:
    """``field: reason`` pairs, one line each (each piece echoed), the first ``limit`` of
    them, then a line counting the rest."""
    items = list(problems)
    lines = [f"{echoed(name)}: {echoed(reason, 2 * ECHO_CHARS)}" for name, reason in items[:limit]]
    rest = len(items) - limit
    if rest > 0:
        lines.append(f"and {rest:,} more problem{'s' if rest != 1 else ''}")
    return lines


def problems_text(problems: Iterable[tuple[str, str]], limit: int = LISTED) -> str:
    """:func:`problem_lines` as one message."""
    return "; ".join(problem_lines(problems, limit))


__all__ = ["ECHO_CHARS", "LISTED", "echoed", "listed", "problem_lines", "problems_text"]
