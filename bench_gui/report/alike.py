"""Findings that say the same of several configurations, said once for all of them.

At 12 sessions six NVMe arrays that differ only in their device count each had a headline
"Micron 7450, 2 x 3.84TB: 99% lower average response time than HDD RAID 10 #1", its text and
its caveat, in every section, the bottom line and the notes: ten near-identical lines a
reader skims past. Findings whose configurations' names differ only in their numbers and
whose words differ only in their ratios (22X, 97%) are said once, the names listed ("Micron
7450, 2, 6 and 16 x 3.84TB") and each ratio given as the range it spans ("16–37X"), when
there are at least LEAST of them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import TypeVar

from bench_gui.report.parts import Block, Fact, Section

T = TypeVar("T")

LEAST = 3  # alike findings said once from this many
RATIO = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(X|%)")
NUMBER = re.compile(r"\d+(?:\.\d+)?")
NAME = "\x00"  # where the configuration's name stood
# A sentence about one configuration, said of several (the name stands before each).
PLURAL = (
    (f"{NAME}'s limit lies beyond", f"the limits of {NAME} lie beyond"),
    (f"{NAME}'s limit is not known", f"the limits of {NAME} are not known"),
    ("its figure at saturation is not", "their figures at saturation are not"),
    ("where its limit is", "where their limits are"),
    ("there it delivers", "there they deliver"),
    (f"{NAME} delivers", f"{NAME} deliver"),
    (f"{NAME} saturates", f"{NAME} saturate"),
    (f"{NAME} was measured", f"{NAME} were measured"),
    (f"{NAME} exceeds", f"{NAME} exceed"),
)


def join_names(names: Sequence[str]) -> str:
    """Names that differ in a word each, listed once: "Micron 7450, 2, 6 and 16 x 3.84TB";
    other names as "A, B and C"."""
    if len(names) == 1:
        return names[0]
    given, names = list(names), sorted(names, key=_natural)
    start = os.path.commonprefix(list(names)).rfind(" ") + 1  # on a word boundary
    tail = os.path.commonprefix([n[::-1] for n in names])[::-1]
    cut = tail.find(" ")
    tail = tail[cut:] if cut >= 0 else ""
    middles = [n[start : len(n) - len(tail)] for n in names]
    if all(middles) and not any(" " in m for m in middles):
        return names[0][:start] + _series(middles) + tail
    return _series(given)


def _natural(name: str) -> list[tuple[int, float, str]]:
    """Sort key: "2 x" before "16 x"."""
    parts = re.split(r"(\d+(?:\.\d+)?)", name)
    return [(0, float(p), "") if i % 2 else (1, 0.0, p) for i, p in enumerate(parts)]


def _series(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _shape(text: str) -> str:
    return RATIO.sub("\x01", text)


def _span(values: Sequence[tuple[str, str]]) -> str:
    """Ratios as the range they span: ``16X`` when alike, else ``16–37X``."""
    unit = values[0][1]
    numbers = sorted({v for v, _ in values}, key=float)
    if len(numbers) == 1:
        return numbers[0] + unit
    return f"{numbers[0]}–{numbers[-1]}{unit}"


def _merge_texts(texts: Sequence[str], names: str) -> str | None:
    """One text for several that differ in their ratios only (the name stands as NAME);
    None when a sentence about one configuration cannot be said of several."""
    spans = [_span(column) for column in zip(*(RATIO.findall(t) for t in texts), strict=True)]
    merged = texts[0]
    for singular, plural in PLURAL:
        merged = merged.replace(singular, plural)
    if f"{NAME}'s" in merged:
        return None
    pieces = RATIO.split(merged)
    out = []
    for i in range(0, len(pieces), 3):
        out.append(pieces[i])
        if i // 3 < len(spans):
            out.append(spans[i // 3])
    return "".join(out).replace(NAME, names)


def _subject(text: str, names: Sequence[str]) -> str | None:
    """The compared configuration a line is about: the longest name it starts with."""
    return next((n for n in names if text.startswith(n)), None)


def _name_shape(name: str) -> str:
    return NUMBER.sub("#", name)


def _groups(
    subjects: Sequence[str | None], keys: Sequence[tuple[str, ...] | None]
) -> dict[int, list[int]]:
    """Indexes of alike findings by the index of the first of them (LEAST or more)."""
    by_key: dict[tuple[str, ...], list[int]] = {}
    for i, (subject, key) in enumerate(zip(subjects, keys, strict=True)):
        if subject is not None and key is not None:
            by_key.setdefault((_name_shape(subject), *key), []).append(i)
    return {found[0]: found for found in by_key.values() if len(found) >= LEAST}


def _said_once(
    items: Sequence[T], groups: dict[int, list[int]], merge: Callable[[list[int]], list[T]]
) -> list[T]:
    """``items`` with each group of alike ones said once, at its first one's place (what
    ``merge`` makes of their indexes); the others as they are."""
    merged_away = {i for found in groups.values() for i in found[1:]}
    out: list[T] = []
    for i, item in enumerate(items):
        if i not in merged_away:
            found = groups.get(i)
            out.extend(merge(found) if found is not None else [item])
    return out


def _ordered(names: Iterable[str]) -> list[str]:
    return sorted({n for n in names if n}, key=len, reverse=True)


def _key(texts: Sequence[str], subject: str, names: Sequence[str]) -> tuple[str, ...] | None:
    """The finding's words with its name and ratios left out; None when it names another
    compared configuration (a longer name holding this one, say)."""
    key = []
    for text in texts:
        bare = text.replace(subject, NAME)
        if any(n in bare for n in names if n != subject and subject in n):
            return None
        key.append(_shape(bare))
    return tuple(key)


def merge_lines(lines: Sequence[str], names: Iterable[str]) -> list[str]:
    """Lines that start with a compared configuration's name and say alike things of it,
    said once (at the first one's place); other lines as they are."""
    known = _ordered(names)
    subjects = [_subject(line, known) for line in lines]
    keys = [
        _key([line], s, known) if s is not None else None
        for line, s in zip(lines, subjects, strict=True)
    ]
    groups = _groups(subjects, keys)

    def merge(found: list[int]) -> list[str]:
        names_here = join_names([subjects[j] or "" for j in found])
        texts = [lines[j].replace(subjects[j] or "", NAME) for j in found]
        one = _merge_texts(texts, names_here)
        return [one] if one is not None else [lines[j] for j in found]

    return _said_once(lines, groups, merge)


def merge_section(section: Section, names: Iterable[str]) -> Section:
    """A section whose alike findings (a headline about a compared configuration and the
    text and caveats after it that name it) are said once; the section as it was when
    none are alike."""
    known = _ordered(names)
    findings: list[list[Block]] = []  # a finding, or one other block
    for block in section.blocks:
        subject = _subject(block.content, known) if block.kind == "headline" else None
        if subject is not None:
            findings.append([block])
            continue
        last = findings[-1] if findings else None
        lead = _subject(last[0].content, known) if last and last[0].kind == "headline" else None
        if last and lead and block.kind in ("text", "message") and lead in block.content:
            last.append(block)
        else:
            findings.append([block])
    subjects = [
        _subject(f[0].content, known) if f[0].kind == "headline" else None for f in findings
    ]
    keys: list[tuple[str, ...] | None] = []
    for finding, subject in zip(findings, subjects, strict=True):
        if subject is None:
            keys.append(None)
            continue
        key = _key([b.content for b in finding], subject, known)
        keys.append(None if key is None else (*(b.kind for b in finding), *key))
    groups = _groups(subjects, keys)
    if not groups:
        return section

    def merge(found: list[int]) -> list[list[Block]]:
        names_here = join_names([subjects[j] or "" for j in found])
        merged = []
        for k, block in enumerate(findings[found[0]]):
            texts = [findings[j][k].content.replace(subjects[j] or "", NAME) for j in found]
            one = _merge_texts(texts, names_here)
            if one is None:
                return [findings[j] for j in found]
            merged.append(Block(block.kind, one))
        return [merged]

    blocks = [b for finding in _said_once(findings, groups, merge) for b in finding]
    return replace(section, blocks=blocks)


def merge_facts(facts: Sequence[Fact], names: Iterable[str]) -> list[Fact]:
    """Fast facts alike but for their configuration's name and ratios, said once, the value
    the range of all their ratios ("16X to 44X")."""
    known = _ordered(names)

    def subject(fact: Fact) -> str | None:
        return next((n for n in known if fact.detail.startswith(n)), None)

    subjects = [subject(f) for f in facts]
    keys = [
        _key([f.value, f.text, f.detail], s, known) if s is not None else None
        for f, s in zip(facts, subjects, strict=True)
    ]
    groups = _groups(subjects, keys)

    def merge(found: list[int]) -> list[Fact]:
        values = [v for j in found for v in RATIO.findall(facts[j].value)]
        value = _span(values).replace("–", _unit_to(values[0][1]))
        names_here = join_names([subjects[j] or "" for j in found])
        fact, name = facts[found[0]], subjects[found[0]] or ""
        text = fact.text.replace(name, names_here)
        return [Fact(value, text, fact.detail.replace(name, names_here))]

    return _said_once(facts, groups, merge)


def _unit_to(unit: str) -> str:
    """``16X to 44X``, ``95% to 99%``: as a fast fact writes a range."""
    return f"{unit} to "
