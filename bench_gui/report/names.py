"""Session names in a report: the full name once, where it is introduced, a short one after.

A brief names each configuration in headings, legends and table headers many times; a long
session name ("PostgreSQL 16 on 4 x Micron 7450 NVMe RAID 10, tuned") would fill every header
and break in the middle of words. So each session gets a short name, defined where the report
first names it ("... (below: NVMe RAID 10)") and used everywhere after. Short names are made
from what differs between the sessions, the same way for every session (balanced), never cut
inside a parenthesis, and always distinct:

1. the parts of a name (between commas, semicolons or spaced dashes) that every session shares
   are left out ("HDD RAID 10, PostgreSQL 15" / "NVMe RAID 10, PostgreSQL 15" -> "HDD RAID 10"
   / "NVMe RAID 10");
2. if that is still longer than :data:`MAX_SHORT` for some session, every session loses its
   parentheses, whole ("S650DC RAID 10 (4 x 800GB SAS SSD)" -> "S650DC RAID 10");
3. if still too long, every session keeps the first part of its name, if those stay distinct;
   a name still too long then loses the words it starts with in common with another session's name
   (a product and its version stay together: "PostgreSQL 15 tuned", never "tuned" or "15"),
   then is cut at its first comma, "with" or dash, or after the words that fit;
4. names still alike get their session's number ("HDD RAID 10 #14", "HDD RAID 10 #15").

The author may name sessions (:func:`check_short_names`); those names win.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

MAX_SHORT = 28  # characters of a short name (a table header of two or three short lines)
MAX_LEAD = 14  # a shared start this short stays in front of what sets a name apart
MAX_AUTHOR = 40  # an author's short name is a header too

# The "(#12)" the report adds to tell equal session names apart.
_ID_MARK = re.compile(r"\s*\(#(\d+)\)$")
# Punctuation a short name never ends (or starts) with: the hyphen, en and em dashes too.
_PUNCT = ",;:-–—"
_WEAK_ENDS = frozenset(
    {"a", "an", "the", "of", "on", "in", "at", "to", "for", "and", "after", "with", "vs", "x"}
)
_CUT = re.compile(r",\s|\s+with\s|\s+[-–—]\s|:\s|;\s")
_VERSION = re.compile(r"^v?\d+(\.\d+)*[a-z]?$", re.IGNORECASE)


def _words(text: str) -> list[str]:
    """Words, a parenthesis (with what it holds) counting as one word so no cut falls in it."""
    out: list[str] = []
    depth = 0
    for word in text.split():
        if depth:
            out[-1] += " " + word
        else:
            out.append(word)
        depth = max(0, depth + word.count("(") - word.count(")"))
    return out


def _clauses(text: str) -> list[str]:
    """The parts of a name between top-level commas, semicolons and spaced dashes."""
    parts: list[str] = []
    current: list[str] = []
    for word in _words(text):
        bare = word.rstrip(",;")
        if word in {"-", "–", "—"}:
            parts.append(" ".join(current))
            current = []
            continue
        current.append(bare)
        if bare != word and word.count("(") == word.count(")"):
            parts.append(" ".join(current))
            current = []
    parts.append(" ".join(current))
    return [p.strip() for p in parts if p.strip(_PUNCT + " ")]


def _drop_groups(text: str) -> str:
    """``text`` without its parentheses (each dropped whole), unless that leaves nothing."""
    kept: list[str] = []
    for word in _words(text):
        bare = word.rstrip(",;")
        if bare.startswith("(") and bare.endswith(")"):
            if bare != word and kept:
                kept[-1] = kept[-1].rstrip(",;") + word[len(bare) :]
            continue
        kept.append(word)
    out = " ".join(kept).strip(_PUNCT + " ")
    return out or text


def _without_groups(own: dict[int, str]) -> dict[int, str]:
    """Names without their parentheses; names that only their parentheses set apart keep
    what those hold, as plain words ("Micron 7450 NVMe RAID 10 2 x 3.84TB" among other counts
    of the array), while the others lose theirs ("SATA SSD mirror", not "SATA SSD mirror 2 x
    Samsung" because two other names needed their parentheses)."""
    bare = {sid: _drop_groups(text) for sid, text in own.items()}
    groups: dict[str, list[int]] = {}
    for sid, text in bare.items():
        groups.setdefault(_key(text), []).append(sid)
    out = dict(bare)
    for members in groups.values():
        if len({_key(own[sid]) for sid in members}) > 1:
            for sid in members:
                words = " ".join(re.sub(r"[()]", " ", own[sid]).split())
                out[sid] = re.sub(r"\s+([,;:])", r"\1", words)
    return out


def _key(text: str) -> str:
    return " ".join(text.lower().split())


def _tidy(text: str) -> str:
    words = text.split()
    while len(words) > 1 and (words[-1].lower() in _WEAK_ENDS or not words[-1].strip(_PUNCT)):
        words.pop()
    return " ".join(words).strip(_PUNCT + " ")


def _cut(name: str, limit: int = MAX_SHORT) -> str:
    """A long name cut at its first comma, "with" or dash, or after the words that fit; never
    inside a parenthesis (one that does not fit is left out whole)."""
    if len(name) <= limit:
        return name
    match = _CUT.search(name)
    if (
        match is not None
        and 6 <= match.start() <= limit
        and name[: match.start()].count("(") == name[: match.start()].count(")")
    ):
        return _tidy(name[: match.start()])
    out: list[str] = []
    for word in _words(name):
        if out and len(" ".join([*out, word])) > limit:
            if word.startswith("("):
                continue  # a later plain word may still fit
            if _VERSION.match(_bare(word)) and out[-1][:1].isupper():
                # "RAID 10" stays whole: a little long, or without both words.
                if len(" ".join([*out, word])) <= limit + 4:
                    out.append(word)
                elif len(out) > 1:
                    out.pop()
            break
        out.append(word)
    return _tidy(" ".join(out)) or out[0]


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


def _own_part(words: list[str], shared: int) -> int:
    """Where the words that set a name apart begin: a version stays with its product
    ("PostgreSQL 15 tuned"), and a single trailing word keeps the phrase before it."""

    def versioned(i: int) -> bool:  # "15" in "PostgreSQL 15", not "4" in "on 4 x"
        return (
            0 < i < len(words)
            and bool(_VERSION.match(_bare(words[i])))
            and words[i - 1][:1].isupper()
            and not words[i - 1].endswith((",", ";"))
        )

    def counted(i: int) -> bool:  # "2 x" in "on 2 x SATA SSD": a count stays with its devices
        return 0 < i <= len(words) and (
            _bare(words[i - 1]) in ("x", "×")
            or (_bare(words[i - 1]).isdigit() and i < len(words) and _bare(words[i]) in ("x", "×"))
        )

    start = shared
    while counted(start):
        start -= 1
    while versioned(start):
        start -= 1
    if start == shared and len(words) - start == 1 and start > 0:
        start -= 1
        while versioned(start):
            start -= 1
    return start


def _shorten(text: str, others: list[list[str]]) -> tuple[str, str]:
    """One name too long for a header, made short from what sets it apart; and the start it
    dropped as shared with another name ("" if none)."""
    if len(text) <= MAX_SHORT:
        return text, ""
    words = text.split()
    shared = _shared_start(words, others)
    if not shared:
        return _cut(text), ""
    start = _own_part(words, shared)
    rest = " ".join(words[start:]).lstrip(")" + _PUNCT + " ")
    lead = " ".join(words[:start]).rstrip(_PUNCT + " ")
    if lead and len(lead) <= MAX_LEAD and "(" not in lead:
        # "HDD RAID 10, second run": what it shares, then what sets it apart.
        room = MAX_SHORT - len(lead) - 2
        own = _cut(rest, room)
        if len(own.split()) > shared - start:  # what sets it apart survives the cut
            return f"{lead}, {own}", ""
    return _cut(rest), " ".join(words[:start])


def _strip_common_leads(own: dict[int, str]) -> dict[int, str]:
    """Names of as many parts each lose the words every name starts that part with
    ("HammerDB TPROC-C PostgreSQL 4 VU, 2026-11-23 16:35" -> "4 VU, 16:35")."""
    split = {sid: _clauses(text) for sid, text in own.items()}
    if len(split) < 2 or len({len(parts) for parts in split.values()}) != 1:
        return own
    out = {sid: list(parts) for sid, parts in split.items()}
    for k in range(len(next(iter(split.values())))):
        words = [parts[k].split() for parts in split.values()]
        lead = 0
        while all(len(w) > lead + 1 for w in words) and len({_bare(w[lead]) for w in words}) == 1:
            lead += 1
        rests = [w[lead:] for w in words]
        if k == 0 and (lead < 2 or any(len(r) < 2 for r in rests)):
            continue  # "PostgreSQL 15" keeps its product
        if any(
            r[0].startswith("(") or (len(r) == 1 and _VERSION.match(_bare(r[0]))) for r in rests
        ):
            continue  # a parenthesis is not cut into, nor a version cut from its product
        for sid in out:
            out[sid][k] = " ".join(out[sid][k].split()[lead:])
    made = {sid: ", ".join(parts) for sid, parts in out.items()}
    if len({_key(t) for t in made.values()}) < len({_key(t) for t in own.values()}):
        return own
    return made


def _first_and_difference(own: dict[int, str]) -> dict[int, str] | None:
    """Each name's first part, and for names that share it what sets the rest apart:
    "Micron S650DC RAID 10" / "Micron S650DC RAID 10, tuned" beside "HDD RAID 10", rather
    than the storage dropped from the two ("PostgreSQL 15" / "PostgreSQL 15 tuned", which
    read as engines against "HDD RAID 10, PostgreSQL 15"). None when that is not short and
    distinct."""
    parts = {sid: _clauses(text) for sid, text in own.items()}
    firsts = {sid: p[0] for sid, p in parts.items()}
    extras: dict[int, str] = {}
    for sid, p in parts.items():
        rest = " ".join(p[1:]).split()
        others = [
            " ".join(parts[o][1:]).split()
            for o in parts
            if o != sid and _key(firsts[o]) == _key(firsts[sid])
        ]
        if not others:
            continue
        common = min(_common_words(rest, other) for other in others)
        if common and common < len(rest) and _VERSION.match(_bare(rest[common])):
            common -= 1  # "PostgreSQL 16", never a bare "16"
        extras[sid] = " ".join(rest[common:]).strip(_PUNCT + " ")
    out: dict[int, str] = {}
    for sid in parts:
        first = firsts[sid]
        apart = [f for f in firsts.values() if _key(f) != _key(first)]
        # Sessions on one array read alike: one cut of their shared first part for all
        # ("Micron S650DC RAID 10" / "Micron S650DC RAID 10, tuned").
        longest = max(
            (len(extras.get(o, "")) for o in parts if _key(firsts[o]) == _key(first)), default=0
        )
        room = MAX_SHORT - longest - 2
        extra = extras.get(sid, "")
        if longest and len(first) > room >= 10:
            cut = _cut(first, room)  # "Micron S650DC, PostgreSQL 16"
            out[sid] = f"{cut}, {extra}" if extra else cut
        else:
            out[sid] = f"{first}, {extra}" if extra else _fit_first(first, apart)
    if len({_key(t) for t in out.values()}) < len({_key(t) for t in own.values()}):
        return None  # (a repeat's identical name stays identical: it is marked later)
    if any(len(t) > MAX_SHORT for t in out.values()):
        return None
    return out


def _fit_first(first: str, others: list[str]) -> str:
    """A first part too long for a header: a cut of what it shares with the others, then what
    sets it apart ("Micron 7450 NVMe, 2 x 3.84TB" among other counts of the same array)."""
    if len(first) <= MAX_SHORT:
        return first
    words = first.split()
    shared = _shared_start(words, [o.split() for o in others])
    if not shared:
        return _cut(first)
    start = _own_part(words, shared)

    def own(name: list[str]) -> str:
        return " ".join(name[start:]).lstrip(")" + _PUNCT + " ")

    rest = own(words)
    lead = " ".join(words[:start]).rstrip(_PUNCT + " ")
    # Its siblings (the same lead, another count) get the same cut of the lead: "Micron 7450,
    # 2 x 3.84TB" beside "Micron 7450, 10 x 3.84TB", not "Micron 7450 NVMe, 2 x 3.84TB".
    siblings = [
        o.split()
        for o in others
        if [_bare(w) for w in o.split()[:start]] == [_bare(w) for w in words[:start]]
    ]
    room = MAX_SHORT - max(len(own(name)) for name in [words, *siblings]) - 2
    if lead and room >= 10:
        return f"{_cut(lead, room)}, {rest}"
    return _cut(rest)


def _common_words(words: list[str], other: list[str]) -> int:
    count = 0
    while count < min(len(words), len(other)) and _bare(words[count]) == _bare(other[count]):
        count += 1
    return count


def _balance(short: dict[int, str], dropped: dict[int, str]) -> dict[int, str]:
    """A start dropped from one name is dropped from the names that kept it too, when enough
    is left ("PostgreSQL 15" / "PostgreSQL 15 tuned", not "HDD RAID 10 PostgreSQL 15")."""
    out = dict(short)
    for start in {d for d in dropped.values() if d}:
        for sid, text in short.items():
            rest = text[len(start) :].lstrip(_PUNCT + " ")
            if not dropped.get(sid) and text.startswith(start + " ") and len(rest.split()) > 1:
                out[sid] = rest
    return out


def short_names(
    names: Mapping[int, str], chosen: Mapping[int, str] | None = None
) -> dict[int, str]:
    """A short name per session (see the module's rules); always distinct. ``chosen``: the
    author's names for some sessions (checked by :func:`check_short_names`), kept as given."""
    ids = list(names)
    plain = {sid: _ID_MARK.sub("", names[sid]).strip() or names[sid] for sid in ids}
    clauses = {sid: _clauses(plain[sid]) for sid in ids}
    everywhere = (
        set.intersection(*({_key(c) for c in cl} for cl in clauses.values())) if ids else set()
    )
    kept = {
        sid: [c for c in clauses[sid] if _key(c) not in everywhere] if len(ids) > 1 else []
        for sid in ids
    }
    own = {sid: ", ".join(kept[sid] or clauses[sid]) or plain[sid] for sid in ids}
    only_shared = [sid for sid in ids if not kept[sid]]
    if only_shared and len(only_shared) < len(ids):
        # One session is only what all share ("X" / "X, tuned"): all keep a short lead of it.
        lead = _cut(_drop_groups(clauses[only_shared[0]][0]), MAX_LEAD)
        own = {sid: ", ".join([lead, *kept[sid]]) for sid in ids}
    if any(len(text) > MAX_SHORT for text in own.values()):
        own = _strip_common_leads(own)
    if any(len(text) > MAX_SHORT for text in own.values()):
        own = _without_groups(own)
    if any(len(text) > MAX_SHORT for text in own.values()):
        firsts = {sid: _clauses(text)[0] for sid, text in own.items()}
        if len({_key(t) for t in firsts.values()}) == len({_key(t) for t in own.values()}):
            own = firsts  # each its first part: balanced ("HDD RAID 10" / "S650DC RAID 10")
        else:
            own = _first_and_difference(own) or own
    if any(len(text) > MAX_SHORT for text in own.values()):
        split = {sid: text.split() for sid, text in own.items()}
        made = {
            sid: _shorten(own[sid], [w for other, w in split.items() if other != sid])
            for sid in ids
        }
        own = _balance({sid: m[0] for sid, m in made.items()}, {s: m[1] for s, m in made.items()})
    short = {sid: text.rstrip(_PUNCT + " ") or text for sid, text in own.items()}
    short.update({sid: text for sid, text in (chosen or {}).items() if sid in short})
    counts: dict[str, int] = {}
    for text in short.values():
        counts[_key(text)] = counts.get(_key(text), 0) + 1
    for sid, text in short.items():
        if counts[_key(text)] > 1 and sid not in (chosen or {}):
            mark = f" #{sid}"
            if len(text) + len(mark) > MAX_SHORT:
                text = _cut(_drop_groups(text), MAX_SHORT - len(mark))
            short[sid] = text + mark
    return short


def check_short_names(chosen: Mapping[int, str], session_ids: list[int]) -> dict[int, str]:
    """The author's short names, trimmed; a ValueError names an unknown session, an empty or
    too long name, or a name given to two sessions."""
    out: dict[int, str] = {}
    seen: dict[str, int] = {}
    for sid, text in chosen.items():
        name = " ".join(str(text).split())
        if sid not in session_ids:
            raise ValueError(f"a short name for session #{sid}, which the report does not compare")
        if not name:
            raise ValueError(f"the short name of session #{sid} is empty")
        if len(name) > MAX_AUTHOR:
            raise ValueError(
                f"the short name of session #{sid} is {len(name)} characters; a table header"
                f" takes {MAX_AUTHOR} at most: {name!r}"
            )
        if _key(name) in seen:
            raise ValueError(
                f"sessions #{seen[_key(name)]} and #{sid} would both be called {name!r}"
            )
        seen[_key(name)] = sid
        out[sid] = name
    return out


def parse_short_names(items: list[str]) -> dict[int, str]:
    """``["14=HDD", "15=NVMe tuned"]`` -> {14: "HDD", 15: "NVMe tuned"}; a ValueError names a
    bad item."""
    out: dict[int, str] = {}
    for item in items:
        sid_text, sep, name = item.partition("=")
        try:
            sid = int(sid_text.strip().lstrip("#"))
        except ValueError:
            sid = -1
        if not sep or sid < 0:
            raise ValueError(f"a short name is ID=NAME (14=HDD RAID 10), got {item!r}")
        if sid in out:
            raise ValueError(f"session #{sid} is given two short names")
        out[sid] = name
    return out


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


def naming(names: Mapping[int, str], chosen: Mapping[int, str] | None = None) -> Naming:
    return Naming(dict(names), short_names(names, chosen))
