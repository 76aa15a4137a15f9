"""Session names in a report: the full name once, where it is introduced, a short one after.

A brief names each configuration in headings, legends and table headers many times; a long
session name ("PostgreSQL 16 on 4 x Micron 7450 NVMe RAID 10, tuned") would fill every header
and break in the middle of words. So each session gets a short name, defined where the report
first names it ("... (below: NVMe RAID 10)") and used everywhere after:

1. a trailing parenthesis is dropped ("S650DC RAID 10 (4 x 800GB)" -> "S650DC RAID 10");
2. a long name loses the words it starts with in common with another session's name
   ("PostgreSQL 16 on NVMe..." / "PostgreSQL 16 on SATA..." -> "NVMe..." / "SATA...");
3. a name still longer than :data:`MAX_SHORT` is cut at its first comma, "with" or dash, or
   else after the words that fit;
4. if that makes two sessions look alike, they become "Config A", "Config B"...
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

MAX_SHORT = 28  # characters of a short name (a table header of two or three short lines)
MAX_LEAD = 14  # a shared start this short stays in front of what sets a name apart


def _drop_parenthesis(name: str) -> str:
    """Without its trailing parenthesis, unless that is the "(#12)" telling equal names apart."""
    if re.search(r" \(#\d+\)$", name):
        return name
    if name.endswith(")") and " (" in name:
        cut = name[: name.rindex(" (")].strip()
        if cut:
            return cut
    return name


# Punctuation a short name never ends (or starts) with: the hyphen, en and em dashes too.
_PUNCT = ",;:-–—"


def _bare(word: str) -> str:
    return word.strip("()[]" + _PUNCT).lower()


def _shared_start(words: list[str], others: list[list[str]]) -> int:
    """How many leading words ``words`` shares with the other name it shares most with
    (punctuation aside; never all of its words)."""
    best = 0
    for other in others:
        count = 0
        while count < min(len(words) - 1, len(other)) and _bare(words[count]) == _bare(
            other[count]
        ):
            count += 1
        best = max(best, count)
    return best


_WEAK_ENDS = frozenset(
    {"a", "an", "the", "of", "on", "in", "at", "to", "for", "and", "after", "with"}
)
_CUT = re.compile(r",\s|\s+with\s|\s+[-–—]\s|:\s|;\s")


def _cut(name: str, limit: int = MAX_SHORT) -> str:
    """A long name cut at its first comma, "with" or dash, or after the words that fit."""
    if len(name) <= limit:
        return name
    match = _CUT.search(name)
    if match is not None and 6 <= match.start() <= limit:
        return name[: match.start()].strip()
    out: list[str] = []
    for word in name.split():
        if out and len(" ".join([*out, word])) > limit:
            break
        out.append(word)
    while len(out) > 1 and (out[-1].lower() in _WEAK_ENDS or not out[-1].strip(_PUNCT)):
        out.pop()
    text = " ".join(out).rstrip(_PUNCT + " ")
    return text if len(text) <= limit + 8 else text[:limit].rstrip()


def short_names(names: Mapping[int, str]) -> dict[int, str]:
    """A short name per session (see the module's rules); distinct whenever the names are."""
    ids = list(names)
    short = {sid: _drop_parenthesis(names[sid]) for sid in ids}
    words = {sid: names[sid].split() for sid in ids}
    for sid in ids:
        if len(short[sid]) > MAX_SHORT:
            shared = _shared_start(words[sid], [w for other, w in words.items() if other != sid])
            if shared:
                rest = " ".join(words[sid][shared:]).lstrip(")" + _PUNCT + " ")
                rest = _drop_parenthesis(rest) or rest
                lead = _drop_parenthesis(" ".join(words[sid][:shared]).rstrip(",;:- "))
                if len(lead) <= MAX_LEAD and "(" not in lead:
                    # "HDD RAID 10, second run": what it shares, then what sets it apart.
                    rest = f"{lead}, {_cut(rest, MAX_SHORT - len(lead) - 2)}"
                short[sid] = rest
    short = {sid: _cut(s).rstrip(_PUNCT + " ") or _cut(s) for sid, s in short.items()}
    if len(set(short.values())) < len(short):
        letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
        short = {sid: f"Config {letters[i % 26]}" for i, sid in enumerate(ids)}
    return short


@dataclass(frozen=True)
class Naming:
    """Full and short names of a report's sessions."""

    full: Mapping[int, str]
    short: Mapping[int, str]

    def abbreviated(self, sid: int) -> bool:
        return self.full[sid] != self.short[sid]

    def introduce(self, sid: int) -> str:
        """The first mention: the full name, and the short one the report uses after."""
        if not self.abbreviated(sid):
            return self.full[sid]
        return f"{self.full[sid]} (below: {self.short[sid]})"


def naming(names: Mapping[int, str]) -> Naming:
    return Naming(dict(names), short_names(names))
