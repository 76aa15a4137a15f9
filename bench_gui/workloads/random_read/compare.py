"""Stored random-read sessions compared (seed 004, "it's RAM, not disk").

A random-read session is one fio sweep over dataset sizes: each point reads a prefix of one
file through a page cache held to the RAM of the study (a memory cgroup, or the machine), so a
point's figures depend on how much of its dataset fits in that RAM. Sessions are therefore
matched by the dataset as a **multiple of their own RAM** (the point's ``ram_ratio``), not by
bytes: two machines with 16 GiB each compare at 32 GiB, one with 8 GiB compares its 16 GiB
point with that. Multiples within :data:`MATCH_TOLERANCE` of each other match; every row says
how it was matched, and a point no other session measured keeps a row of its own.

Beyond memory the device pays for every miss: ops/s over the device's raw IOPS (the
*multiplier*, a short direct-I/O 4 KiB random-read pass stored with the session) says how far
the cache makes a device "hit above its weight". Headlines quote it only at points larger than
RAM; a point that fits in RAM measures memory and CPU, not the device, and is said to.

Pure: the input is the store's plain records (see :func:`session_from_record`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from bench_gui.core.compare import Ratio, throughput_ratio
from bench_gui.wire.fio_sizes import format_size
from bench_gui.workloads.random_read.session import (
    MATCH_TOLERANCE,
    WORKLOAD,
    RandomReadCompareError,
    RRPoint,
    RRSession,
    session_from_record,
)

_EPS = 1e-9


# ---- wording ----------------------------------------------------------------------------------


def multiple_text(ram_ratio: float) -> str:
    """``2x RAM``, ``0.25x RAM``, ``1.5x RAM`` (three significant digits at most)."""
    return f"{float(f'{ram_ratio:.3g}'):g}x RAM"


def multiplier_text(value: float) -> str:
    """``4.45X``: the multiplier over raw IOPS truncated to two decimals (never rounded up)."""
    if not math.isfinite(value):
        return "n/a"
    return f"{math.trunc(value * 100 + _EPS) / 100:,.2f}X"


def ops_text(value: float) -> str:
    return f"{value:,.0f}"


# ---- the comparison -----------------------------------------------------------------------------


@dataclass(frozen=True)
class MatchedRow:
    """One dataset size (as a multiple of RAM) across the sessions."""

    ram_ratio: float  # the baseline's multiple, or the first session's that measured it
    points: Mapping[int, RRPoint | None]  # session id -> its point, None where not measured
    ratios: Mapping[int, Ratio | None]  # other session id -> its ops/s / the baseline's
    how: str  # how the points were matched: "same multiple of RAM", "within 2% ...", ...

    @property
    def label(self) -> str:
        return multiple_text(self.ram_ratio)

    @property
    def beyond_memory(self) -> bool:
        return self.ram_ratio > 1.0 + _EPS


@dataclass(frozen=True)
class Headline:
    """A finding in words, with the figures it rests on."""

    text: str
    session_id: int
    kind: str  # "multiplier", "ratio" or "memory"
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class RRComparison:
    """Random-read sessions side by side, matched by dataset size as a multiple of RAM."""

    sessions: tuple[RRSession, ...]
    baseline_id: int
    rows: tuple[MatchedRow, ...]
    headlines: tuple[Headline, ...]
    notes: tuple[str, ...] = ()
    match_rule: str = ""
    names: Mapping[int, str] = field(default_factory=dict)

    @property
    def baseline(self) -> RRSession:
        return self.session(self.baseline_id)

    @property
    def others(self) -> tuple[RRSession, ...]:
        return tuple(s for s in self.sessions if s.id != self.baseline_id)

    def session(self, session_id: int) -> RRSession:
        for s in self.sessions:
            if s.id == session_id:
                return s
        raise KeyError(session_id)

    def name(self, session_id: int) -> str:
        return self.names.get(session_id) or self.session(session_id).name


def _check(sessions: Sequence[RRSession], baseline_id: int) -> None:
    if not sessions:
        raise RandomReadCompareError("a comparison needs at least one session (got none)")
    ids = [s.id for s in sessions]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise RandomReadCompareError(
            "each session can be compared once; listed twice: " + ", ".join(map(str, twice))
        )
    if baseline_id not in ids:
        raise RandomReadCompareError(
            f"the baseline (session {baseline_id}) must be one of the compared sessions"
            f" ({', '.join(map(str, ids))})"
        )
    for s in sessions:
        if s.status == "running":
            raise RandomReadCompareError(
                f"session {s.id} ({s.name}) is still running: compare it once it has finished"
            )
        if not s.points:
            why = f" ({'; '.join(s.left_out)})" if s.left_out else ""
            raise RandomReadCompareError(
                f"session {s.id} ({s.name}) has no complete dataset size{why}: nothing to compare"
            )


def _how(present: Sequence[RRPoint], names: Sequence[str], total: int) -> str:
    """How a row was matched, in a few words (a session that did not measure it shows a dash
    in every table, so it is not named here)."""
    ratios = [p.ram_ratio for p in present]
    if len(present) == 1 and total > 1:
        return f"only {names[0]}"
    if max(ratios) - min(ratios) <= _EPS * max(ratios):
        return "same multiple of RAM"
    return "within 2%: " + ", ".join(f"{r:.3g}x" for r in ratios)


def _rows(
    sessions: Sequence[RRSession], baseline: RRSession, names: Mapping[int, str]
) -> list[MatchedRow]:
    order = [baseline, *[s for s in sessions if s.id != baseline.id]]
    anchors: list[float] = []
    for s in order:  # the baseline's multiples first, then any the baseline did not measure
        for p in s.points:
            if all(abs(p.ram_ratio / a - 1.0) > MATCH_TOLERANCE + _EPS for a in anchors):
                anchors.append(p.ram_ratio)
    rows = []
    for anchor in sorted(anchors):
        points = {s.id: s.point_near(anchor) for s in sessions}
        base = points[baseline.id]
        base_ops = base.ops_s if base is not None else None
        ratios: dict[int, Ratio | None] = {}
        for s in sessions:
            mine = points[s.id]
            if s.id != baseline.id:
                ratios[s.id] = throughput_ratio(mine.ops_s if mine else None, base_ops)
        have = [s for s in order if points[s.id] is not None]
        how = _how(
            [pt for s in have if (pt := points[s.id]) is not None],
            [names[s.id] for s in have],
            len(sessions),
        )
        rows.append(MatchedRow(anchor, points, ratios, how))
    return rows


def _span(low: str, high: str) -> str:
    return low if low == high else f"{low} to {high}"


def multiplier_headline(session: RRSession, name: str) -> Headline:
    """How far the cache lifts ops/s over the device's raw IOPS beyond memory (or why not)."""
    beyond = [p for p in session.points if p.beyond_memory and p.multiplier is not None]
    if session.raw_iops is None and not beyond:
        return Headline(
            f"{name}: the raw device IOPS were not measured, so no multiplier is known",
            session.id,
            "multiplier",
        )
    if not beyond:
        return Headline(
            f"{name}: every dataset size fits in RAM: these ops/s measure memory and CPU, not"
            " the device",
            session.id,
            "memory",
        )
    lo = min(beyond, key=lambda p: p.multiplier or 0.0)
    hi = max(beyond, key=lambda p: p.multiplier or 0.0)
    assert lo.multiplier is not None
    assert hi.multiplier is not None
    raw_iops = session.raw_iops or hi.raw_iops
    raw = f"{ops_text(raw_iops)} raw IOPS" if raw_iops else "raw IOPS"
    # "4.45X as many reads a second as its raw IOPS": the seed's own measure (a multiple,
    # not "4.45X more", which a reader may take for 5.45 times as many).
    if lo is hi:
        text = (
            f"{name}: {multiplier_text(hi.multiplier)} as many reads a second as its raw IOPS"
            f" at {multiple_text(hi.ram_ratio)} ({ops_text(hi.ops_s or 0)} ops/s against"
            f" {raw})"
        )
    else:
        text = (
            f"{name}: {multiplier_text(hi.multiplier)} (at {multiple_text(hi.ram_ratio)}) to"
            f" {multiplier_text(lo.multiplier)} (at {multiple_text(lo.ram_ratio)}) as many"
            f" reads a second as its {raw}"
        )
    return Headline(text, session.id, "multiplier", lo.multiplier, hi.multiplier)


def ratio_headline(
    rows: Sequence[MatchedRow], other: RRSession, name: str, base_name: str
) -> Headline | None:
    """The other's ops/s against the baseline's at matched sizes beyond memory (else all)."""
    matched = [(r, x) for r in rows if (x := r.ratios.get(other.id)) is not None]
    beyond = [(r, x) for r, x in matched if r.beyond_memory]
    chosen = beyond or matched
    if not chosen:
        return None
    lo = min(chosen, key=lambda item: item[1].value)
    hi = max(chosen, key=lambda item: item[1].value)
    where = "beyond RAM" if beyond else "in RAM (no matched size larger than RAM)"

    def phrase(x: Ratio) -> str:
        if x.text.endswith("X"):
            return f"{x.text} the ops/s"
        return f"{x.text.lstrip('+-')} {'more' if x.value >= 1 else 'fewer'} ops/s"

    if lo[1].text == hi[1].text:
        text = f"{name}: {phrase(hi[1])} of {base_name} at {hi[0].label}"
        if len(chosen) > 1:
            text = f"{name}: {phrase(hi[1])} of {base_name} {where}"
    else:
        text = (
            f"{name}: from {phrase(lo[1])} (at {lo[0].label}) to {phrase(hi[1])} (at"
            f" {hi[0].label}) of {base_name}"
        )
    if not beyond:
        text += " — in RAM, so not a device difference"
    return Headline(text, other.id, "ratio", lo[1].value, hi[1].value)


def _notes(sessions: Sequence[RRSession]) -> list[str]:
    notes = [f"session {s.id} ({s.name}): {why}, left out" for s in sessions for why in s.left_out]
    if len({s.memory_bytes for s in sessions}) > 1:
        notes.append(
            "the RAM of the study differs ("
            + ", ".join(f"{s.name}: {format_size(s.memory_bytes)}" for s in sessions)
            + "): dataset sizes are matched as multiples of each session's own RAM, so a row"
            " compares different byte sizes"
        )
    for label, values in (
        ("block size", [s.block_size for s in sessions]),
        ("fio jobs", [s.jobs for s in sessions]),
        ("Zipf theta", [s.zipf_theta for s in sessions]),
        ("I/O engine", [s.ioengine or None for s in sessions]),
    ):
        if len({v for v in values if v is not None}) > 1:
            notes.append(
                f"the sessions read with different {label}s ("
                + ", ".join(f"{s.name}: {v}" for s, v in zip(sessions, values, strict=True))
                + "): their ops/s are of different work"
            )
    for s in sessions:
        for p in s.points:
            if p.warm is False:
                notes.append(
                    f"session {s.id} ({s.name}): {multiple_text(p.ram_ratio)} was measured"
                    " before its cache was steady (the warm-up reached its cap): its ops/s"
                    " may be low"
                )
        if s.raw_iops is None:
            notes.append(f"session {s.id} ({s.name}) has no raw-IOPS pass: no multiplier")
        if s.caches_dropped is False:
            notes.append(
                f"session {s.id} ({s.name}): the page cache was not dropped between points"
                " (not root?): a point may have started warm"
            )
    return notes


def compare_random_read(
    sessions: Sequence[RRSession], baseline_id: int, names: Mapping[int, str] | None = None
) -> RRComparison:
    """Match the sessions' points by RAM multiple, take ops/s ratios to the baseline, and word
    the findings. ``names``: how headlines name the sessions (default: their stored names)."""
    _check(sessions, baseline_id)
    named = {s.id: (names or {}).get(s.id) or s.name for s in sessions}
    baseline = next(s for s in sessions if s.id == baseline_id)
    rows = _rows(sessions, baseline, named)
    headlines = [
        h
        for s in sessions
        if s.id != baseline_id
        and (h := ratio_headline(rows, s, named[s.id], named[baseline_id])) is not None
    ]
    headlines += [multiplier_headline(s, named[s.id]) for s in sessions]
    rule = (
        "Dataset sizes are matched as multiples of each session's RAM for the study (dataset"
        f" bytes / RAM bytes), equal to within {MATCH_TOLERANCE:.0%}; a size one session did"
        " not measure is shown with a dash, never estimated."
    )
    return RRComparison(
        sessions=tuple(sessions),
        baseline_id=baseline_id,
        rows=tuple(rows),
        headlines=tuple(headlines),
        notes=tuple(_notes(sessions)),
        match_rule=rule,
        names=named,
    )


__all__ = [
    "MATCH_TOLERANCE",
    "WORKLOAD",
    "Headline",
    "MatchedRow",
    "RRComparison",
    "RRPoint",
    "RRSession",
    "RandomReadCompareError",
    "compare_random_read",
    "multiple_text",
    "multiplier_headline",
    "multiplier_text",
    "ops_text",
    "ratio_headline",
    "session_from_record",
]
