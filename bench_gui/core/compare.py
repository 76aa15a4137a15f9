"""Comparison of two or more sessions against a baseline: the tables of seed 000 and seed 003.

Pure arithmetic over plain data (:class:`SessionData`, built from the session store by
:mod:`bench_gui.store.compare_input`), so the GUI, the command line and the reports show the
same figures and tests can check them against the seeds' published numbers.

Rules, applied everywhere a figure is printed:

- **Throughput ratio** ``r = other / baseline`` (NOPM, TPM). From ``r >= 2`` it reads as a
  multiple, ``"22X"`` (one decimal below 10X: ``"2.4X"``); below that as a change in percent,
  ``"+69%"``, ``"-12%"``.
- **Advantage** of a lower-is-better figure (response time, power per NOPM, cost per new order
  in percent): ``(1 - other / baseline) * 100``, so ``"95%"`` means 95% lower than the baseline
  and ``"-12%"`` means 12% higher.
- Printed ratios and advantages are **truncated toward zero, never rounded up**: the magnitude
  of a printed difference is never larger than the one measured (29.76 prints as 29X, 95.9%
  as 95%). Money is rounded to the cent as usual; it is a value, not a claim.
- Repeated steps (the same user count more than once in a session) are averaged; their
  spread is reported as mean, standard deviation and coefficient of variation (CV), and a
  difference smaller than twice the combined CV of the two sides is marked as within the
  noise. Sessions are repeats of one another only when the author says so (``repeat_groups``)
  or when everything recorded about their system is the same (an equal, non-empty
  ``SessionData.plan_key``). The author never declares the baseline a repeat of a session
  compared with it; a compared session recorded as the baseline's very system is its repeat
  (``Comparison.baseline_repeats``): their difference is the baseline's noise, not a finding.
- A report may cover one session alone: its figures, saturation and economics, no ratios.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from bench_gui.core.power import mw_per_nopm
from bench_gui.core.saturation import LoadPoint, Saturation, StopConditions, find_saturation

RATIO_X_FROM = 2.0  # from this ratio on, "22X" rather than "+120%"
NOISE_FACTOR = 2.0  # a difference under NOISE_FACTOR x the combined CV is "within noise"
_EPS = 1e-9

# Sections of the configuration table, in display order; unknown sections come after.
CONFIG_SECTIONS = (
    "Storage layout",
    "Hardware",
    "Operating system",
    "OS knobs",
    "Database",
    "Database settings",
    "Workload",
)
# The metrics a row of the comparison can be read by.
METRICS = ("nopm", "tpm", "avg_ms", "p999_ms", "mw_per_nopm")
METRIC_LABELS = {
    "nopm": "NOPM",
    "tpm": "TPM",
    "avg_ms": "Average response time (ms)",
    "p999_ms": "99.9th percentile response time (ms)",
    "mw_per_nopm": "Power per NOPM (mW)",
}


class CompareError(ValueError):
    """The sessions cannot be compared; the message says why and what to do."""


# ---- input ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StepPoint:
    """One measured sweep step of a session."""

    vus: int
    nopm: float | None
    tpm: float | None = None
    avg_ms: float | None = None
    p999_ms: float | None = None
    power_w: float | None = None  # average power over the measured window
    complete: bool = True
    step: int = 0
    # Why its NOPM is doubtful (the database and the driver disagree: core.crosscheck), or None.
    nopm_flag: str | None = None


@dataclass(frozen=True)
class SessionData:
    """A session as the comparison needs it (no bulk data)."""

    id: int
    name: str
    status: str
    steps: tuple[StepPoint, ...]
    # Section -> {key: value}, e.g. {"Database settings": {"shared_buffers": "30GB"}}.
    config: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # Sessions with the same non-empty key ran the same plan on a system recorded as the same
    # in every respect (inventory, storage, settings, notes): repeats of one another. Empty:
    # too little was recorded to tell, so the session is nobody's repeat.
    plan_key: str = ""
    created_at: str = ""
    # Which transactions its response times are of: "all", or "new_order" (New-Order only).
    latency_of: str = "all"
    # What names the measurement (the original's UUID for a copy, an import of a session the
    # store had): sessions with the same one are copies, never repeats. Empty: not known.
    measurement: str = ""


# ---- statistics and formatting ------------------------------------------------------------------


@dataclass(frozen=True)
class Stats:
    """Mean, sample standard deviation and CV of repeated measurements."""

    n: int
    mean: float
    std: float | None  # None for a single value
    cv_pct: float | None  # std / mean in percent
    low: float | None = None  # the range of the values
    high: float | None = None

    @staticmethod
    def of(values: Iterable[float]) -> Stats | None:
        items = [float(v) for v in values if v is not None and math.isfinite(v)]
        if not items:
            return None
        mean = statistics.fmean(items)
        if len(items) < 2:
            return Stats(len(items), mean, None, None, items[0], items[0])
        std = statistics.stdev(items)
        cv = std / mean * 100.0 if mean else None
        return Stats(len(items), mean, std, cv, min(items), max(items))


def _truncate(value: float, digits: int = 0) -> float:
    scale = 10.0**digits
    return math.trunc(value * scale + math.copysign(_EPS, value)) / scale


def format_ratio(ratio: float) -> str:
    """``22X`` from 2X up (``2.4X`` below 10X), else ``+69%``/``-12%``; truncated (see module)."""
    if not math.isfinite(ratio):
        return "n/a"
    if ratio >= RATIO_X_FROM:
        if ratio >= 10:
            return f"{_truncate(ratio):.0f}X"
        return f"{_truncate(ratio, 1):.1f}X"
    pct = _truncate((ratio - 1.0) * 100.0)
    return "±0%" if pct == 0 else f"{pct:+.0f}%"


def format_advantage(pct: float) -> str:
    """An advantage in percent, truncated toward zero: ``95%``, ``-12%``."""
    if not math.isfinite(pct):
        return "n/a"
    value = _truncate(pct)
    return f"{value:.0f}%" if value >= 0 else f"-{abs(value):.0f}%"


@dataclass(frozen=True)
class Ratio:
    """other / baseline of a higher-is-better figure."""

    value: float
    text: str


@dataclass(frozen=True)
class Advantage:
    """How much lower the other's figure is than the baseline's, in percent."""

    pct: float
    text: str


def throughput_ratio(other: float | None, baseline: float | None) -> Ratio | None:
    """other / baseline, or None when either is missing or the baseline is not positive."""
    if other is None or baseline is None or baseline <= 0:
        return None
    value = other / baseline
    return Ratio(value, format_ratio(value))


def lower_is_better(other: float | None, baseline: float | None) -> Advantage | None:
    """(1 - other / baseline) x 100, or None when either is missing."""
    if other is None or baseline is None or baseline <= 0:
        return None
    pct = (1.0 - other / baseline) * 100.0
    return Advantage(pct, format_advantage(pct))


# ---- aggregation ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Level:
    """A session at one user count: its complete steps at that count, averaged."""

    vus: int
    steps: int
    nopm: Stats | None
    tpm: Stats | None
    avg_ms: Stats | None
    p999_ms: Stats | None
    power_w: Stats | None
    # Why some of its steps' NOPM is doubtful (core.crosscheck); empty when none is.
    doubts: tuple[str, ...] = ()

    @property
    def doubtful(self) -> bool:
        """Its NOPM (and what is derived from it) cannot be taken as this run's alone."""
        return bool(self.doubts)

    def value(self, metric: str) -> float | None:
        """The mean of a metric (``mw_per_nopm`` from mean power and mean NOPM)."""
        if metric == "mw_per_nopm":
            if self.power_w is None or self.nopm is None or self.nopm.mean <= 0:
                return None
            return mw_per_nopm(self.power_w.mean, self.nopm.mean)
        stats: Stats | None = getattr(self, metric)
        return None if stats is None else stats.mean


def _stats(points: Sequence[StepPoint], get: Callable[[StepPoint], float | None]) -> Stats | None:
    return Stats.of(v for p in points if (v := get(p)) is not None)


def levels_of(session: SessionData) -> dict[int, Level]:
    """Complete steps grouped by user count, in rising user count."""
    groups: dict[int, list[StepPoint]] = {}
    for point in session.steps:
        if point.complete and point.nopm is not None:
            groups.setdefault(point.vus, []).append(point)
    return {
        vus: Level(
            vus=vus,
            steps=len(points),
            nopm=_stats(points, lambda p: p.nopm),
            tpm=_stats(points, lambda p: p.tpm),
            avg_ms=_stats(points, lambda p: p.avg_ms),
            p999_ms=_stats(points, lambda p: p.p999_ms),
            power_w=_stats(points, lambda p: p.power_w),
            doubts=tuple(p.nopm_flag for p in points if p.nopm_flag),
        )
        for vus, points in sorted(groups.items())
    }


# ---- output -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Versus:
    """One session against the baseline at one load."""

    nopm: Ratio | None
    tpm: Ratio | None
    avg_ms: Advantage | None
    p999_ms: Advantage | None
    mw_per_nopm: Advantage | None
    noise_pct: float | None  # combined CV of the two NOPM figures, None when not repeated
    within_noise: bool  # the NOPM difference is smaller than NOISE_FACTOR x noise_pct
    doubtful: bool = False  # either side's NOPM is doubtful (Level.doubtful)


def versus(other: Level | None, baseline: Level | None, noise_pct: float | None) -> Versus | None:
    """The ratios and advantages of ``other`` against ``baseline`` (None if either is missing)."""
    if other is None or baseline is None:
        return None
    nopm = throughput_ratio(other.value("nopm"), baseline.value("nopm"))
    within = (
        nopm is not None
        and noise_pct is not None
        and abs(nopm.value - 1.0) * 100.0 < NOISE_FACTOR * noise_pct
    )
    return Versus(
        nopm=nopm,
        tpm=throughput_ratio(other.value("tpm"), baseline.value("tpm")),
        avg_ms=lower_is_better(other.value("avg_ms"), baseline.value("avg_ms")),
        p999_ms=lower_is_better(other.value("p999_ms"), baseline.value("p999_ms")),
        mw_per_nopm=lower_is_better(other.value("mw_per_nopm"), baseline.value("mw_per_nopm")),
        noise_pct=noise_pct,
        within_noise=within,
        doubtful=other.doubtful or baseline.doubtful,
    )


@dataclass(frozen=True)
class UserCountRow:
    """One user count: every session's level (None where it was not measured)."""

    vus: int
    levels: Mapping[int, Level | None]  # by session id, baseline first
    versus: Mapping[int, Versus | None]  # by non-baseline session id

    @property
    def missing_in(self) -> tuple[int, ...]:
        return tuple(sid for sid, level in self.levels.items() if level is None)


@dataclass(frozen=True)
class SaturationRow:
    """A session at its saturation point, against the baseline at the baseline's."""

    session_id: int
    saturation: Saturation
    level: Level | None
    versus: Versus | None  # None for the baseline itself


@dataclass(frozen=True)
class RepeatRow:
    """Repeated measurements of one plan at one user count."""

    label: str
    session_ids: tuple[int, ...]
    vus: int
    nopm: Stats
    tpm: Stats | None
    avg_ms: Stats | None
    p999_ms: Stats | None
    # Why these are repeats: "steps" (one session ran the user count more than once),
    # "declared" (the author said so), "same system" (everything recorded is the same) or
    # "baseline repeat" (the baseline and sessions recorded as the same system).
    basis: str = "steps"


@dataclass(frozen=True)
class ConfigRow:
    """One configuration item, side by side."""

    section: str
    key: str
    values: Mapping[int, str | None]  # by session id
    differs: bool


@dataclass(frozen=True)
class Comparison:
    """Everything the comparison tables, charts and reports show."""

    sessions: tuple[SessionData, ...]  # the baseline first
    conditions: StopConditions
    levels: Mapping[int, Mapping[int, Level]]  # session id -> vus -> level
    rows: tuple[UserCountRow, ...]
    common_vus: tuple[int, ...]
    saturation: Mapping[int, Saturation]
    at_saturation: tuple[SaturationRow, ...]
    repeatability: tuple[RepeatRow, ...]
    config: tuple[ConfigRow, ...]
    notes: tuple[str, ...]
    # Compared sessions that repeat the baseline (baseline_repeats): noise, not findings.
    baseline_repeats: tuple[int, ...] = ()
    # Sets of two or more sessions that measured one system (repeat_sets: declared by the
    # author, the baseline and its repeats, or recorded as the same), in comparison order.
    repeat_sets: tuple[tuple[int, ...], ...] = ()

    @property
    def baseline(self) -> SessionData:
        return self.sessions[0]

    @property
    def others(self) -> tuple[SessionData, ...]:
        return self.sessions[1:]

    def session(self, session_id: int) -> SessionData:
        for session in self.sessions:
            if session.id == session_id:
                return session
        raise KeyError(session_id)

    def has_power(self) -> bool:
        levels = (level for by_vus in self.levels.values() for level in by_vus.values())
        return any(level.power_w is not None for level in levels)

    def extremes(self, other_id: int, metric: str) -> tuple[tuple[int, float], tuple[int, float]]:
        """(users, value) of the smallest and largest ratio/advantage of one session across
        the user counts both measured; raise KeyError when there is none."""
        found: list[tuple[int, float]] = []
        for row in self.rows:
            vs = row.versus.get(other_id)
            item = getattr(vs, metric, None) if vs is not None else None
            if isinstance(item, Ratio):
                found.append((row.vus, item.value))
            elif isinstance(item, Advantage):
                found.append((row.vus, item.pct))
        if not found:
            raise KeyError(metric)
        low = min(found, key=lambda f: f[1])
        high = max(found, key=lambda f: f[1])
        return low, high


def _label(sessions: Sequence[SessionData]) -> str:
    return ", ".join(f"#{s.id} {s.name}" for s in sessions)


def _check(sessions: Sequence[SessionData], baseline_id: int) -> list[str]:
    notes: list[str] = []
    if not sessions:
        raise CompareError("a report needs at least one session (got none)")
    ids = [s.id for s in sessions]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise CompareError(
            "each session can be compared once; listed twice: " + ", ".join(map(str, duplicates))
        )
    if baseline_id not in ids:
        raise CompareError(
            f"the baseline (session {baseline_id}) must be one of the compared sessions"
            f" ({', '.join(map(str, ids))})"
        )
    for s in sessions:
        if s.status == "running":
            raise CompareError(
                f"session {s.id} ({s.name}) is still running: compare it once it has finished"
                " (stop it, or let it end; what it measured so far is kept)"
            )
        complete = [p for p in s.steps if p.complete and p.nopm is not None]
        if not complete:
            raise CompareError(
                f"session {s.id} ({s.name}) has no complete measured step: nothing to compare"
            )
        if s.status in ("failed", "incomplete"):
            notes.append(
                f"session {s.id} ({s.name}) ended {s.status}: only its complete steps are compared"
            )
        for p in s.steps:
            if not p.complete:
                notes.append(
                    f"session {s.id} ({s.name}): step {p.step + 1} ({p.vus} users) was stopped"
                    " before its measured window ended and is left out"
                )
            elif p.nopm_flag:
                notes.append(
                    f"session {s.id} ({s.name}): step {p.step + 1} ({p.vus} users): {p.nopm_flag};"
                    " its NOPM and every ratio made from it are doubtful (marked ⚑)"
                )
    return notes


# A repeat of the baseline differs from it by run-to-run noise: never by half as much again.
REPEAT_SPREAD = 1.5


def repeat_sets(
    sessions: Sequence[SessionData],
    baseline_id: int,
    declared: Sequence[Sequence[int]] = (),
) -> list[tuple[list[SessionData], str]]:
    """The sessions that are repeats of one another, each set with its basis.

    The author's ``declared`` sets come first; the other sessions are grouped by an equal,
    non-empty plan key. The baseline is never grouped with a session compared with it, and a
    copy of a session (the same measurement) is never a repeat of it: it stands alone.
    """
    by_id = {s.id: s for s in sessions}
    taken: set[int] = set()
    out: list[tuple[list[SessionData], str]] = []
    for group in declared:
        ids = list(dict.fromkeys(group))
        unknown = [i for i in ids if i not in by_id]
        if unknown:
            raise CompareError(
                "a repeat set names sessions that are not compared: " + ", ".join(map(str, unknown))
            )
        if baseline_id in ids and len(ids) > 1:
            raise CompareError(
                f"the baseline (session {baseline_id}) cannot be a repeat of a session compared"
                " with it: compare the repeats of the baseline on their own"
            )
        again = [i for i in ids if i in taken]
        if again:
            raise CompareError(
                "a session can be in one repeat set only; listed again: "
                + ", ".join(map(str, again))
            )
        if len(ids) < 2:
            raise CompareError(f"a repeat set needs two sessions or more (got {ids})")
        copies = _copies([by_id[i] for i in ids])
        if copies:
            raise CompareError(
                "a copy of a session is the same measurement, not a repeat of it: "
                + ", ".join(f"session {c} is a copy of session {o}" for c, o in copies)
            )
        taken.update(ids)
        out.append(([by_id[i] for i in ids], "declared"))
    of_base = set(baseline_repeats(sessions, baseline_id))
    by_key: dict[str, list[SessionData]] = {}
    for s in sessions:
        if s.id in taken:
            continue
        if s.id in of_base:
            key = f"session:{baseline_id}"  # the baseline and its repeats: its noise
        else:
            key = s.plan_key if s.plan_key and s.id != baseline_id else f"session:{s.id}"
        members = by_key.get(key, [])
        if s.measurement and any(m.measurement == s.measurement for m in members):
            key = f"session:{s.id}"  # a copy of one already in the set
        by_key.setdefault(key, []).append(s)
    for key, members in by_key.items():
        if len(members) < 2:
            basis = "steps"
        elif key == f"session:{baseline_id}":
            basis = "baseline repeat"
        else:
            basis = "same system"
        out.append((members, basis))
    return out


def _copies(sessions: Sequence[SessionData]) -> list[tuple[int, int]]:
    """(copy, the first session of the same measurement) for every copy among ``sessions``."""
    first: dict[str, int] = {}
    out = []
    for s in sessions:
        if s.measurement in first:
            out.append((s.id, first[s.measurement]))
        elif s.measurement:
            first[s.measurement] = s.id
    return out


def _nopm_by_vus(s: SessionData) -> dict[int, float]:
    return {p.vus: p.nopm for p in s.steps if p.complete and p.nopm}


def spread_of(a: SessionData, b: SessionData) -> float | None:
    """The largest NOPM ratio (>= 1) between two sessions at their common user counts."""
    x, y = _nopm_by_vus(a), _nopm_by_vus(b)
    ratios = [max(x[v], y[v]) / min(x[v], y[v]) for v in set(x) & set(y)]
    return max(ratios) if ratios else None


def same_system_apart(sessions: Sequence[SessionData], baseline_id: int) -> list[SessionData]:
    """Sessions recorded as the baseline's very system whose NOPM is too far from it for a
    repeat (more than REPEAT_SPREAD apart): what was recorded cannot tell them apart."""
    base = next((s for s in sessions if s.id == baseline_id), None)
    if base is None or not base.plan_key:
        return []
    return [
        s
        for s in sessions
        if s.id != baseline_id
        and s.plan_key == base.plan_key
        and ((spread := spread_of(s, base)) is None or spread > REPEAT_SPREAD)
    ]


def baseline_repeats(sessions: Sequence[SessionData], baseline_id: int) -> tuple[int, ...]:
    """The compared sessions that ran the baseline's plan on a system recorded as the same,
    with NOPM within REPEAT_SPREAD of it: repeats of the baseline, whose difference from it is
    noise, never a finding. (An HDD and an SSD array that recorded too little to tell apart
    are far more than that apart: they stay two configurations.)"""
    base = next((s for s in sessions if s.id == baseline_id), None)
    if base is None or not base.plan_key:
        return ()
    apart = {s.id for s in same_system_apart(sessions, baseline_id)}
    return tuple(
        s.id
        for s in sessions
        if s.id != baseline_id
        and s.plan_key == base.plan_key
        and s.id not in apart
        and not (s.measurement and s.measurement == base.measurement)  # a copy: no repeat
    )


def _repeatability(sets: Sequence[tuple[list[SessionData], str]]) -> list[RepeatRow]:
    """Repeated measurements: user counts repeated in a session, and sets of repeat sessions."""
    rows: list[RepeatRow] = []
    for members, basis in sets:
        points: dict[int, list[StepPoint]] = {}
        for s in members:
            for p in s.steps:
                if p.complete and p.nopm is not None:
                    points.setdefault(p.vus, []).append(p)
        for vus, group in sorted(points.items()):
            if len(group) < 2:
                continue
            nopm = _stats(group, lambda p: p.nopm)
            assert nopm is not None
            rows.append(
                RepeatRow(
                    label=_label(members),
                    session_ids=tuple(s.id for s in members),
                    vus=vus,
                    nopm=nopm,
                    tpm=_stats(group, lambda p: p.tpm),
                    avg_ms=_stats(group, lambda p: p.avg_ms),
                    p999_ms=_stats(group, lambda p: p.p999_ms),
                    basis=basis,
                )
            )
    return rows


def _noise(repeats: Sequence[RepeatRow], session_id: int, vus: int) -> float | None:
    for row in repeats:
        if row.vus == vus and session_id in row.session_ids:
            return row.nopm.cv_pct
    return None


def _combined(a: float | None, b: float | None) -> float | None:
    if a is None and b is None:
        return None
    return math.hypot(a or 0.0, b or 0.0)


def config_rows(sessions: Sequence[SessionData]) -> list[ConfigRow]:
    """Every configuration item any session stored, side by side, sections in a fixed order."""
    sections = [name for name in CONFIG_SECTIONS if any(name in s.config for s in sessions)]
    extra = sorted({n for s in sessions for n in s.config if n not in CONFIG_SECTIONS})
    rows: list[ConfigRow] = []
    for section in [*sections, *extra]:
        keys: list[str] = []
        for s in sessions:
            for key in s.config.get(section, {}):
                if key not in keys:
                    keys.append(key)
        for key in keys:
            values = {s.id: s.config.get(section, {}).get(key) for s in sessions}
            rows.append(ConfigRow(section, key, values, len(set(values.values())) > 1))
    return rows


def compare(
    sessions: Sequence[SessionData],
    baseline_id: int,
    conditions: StopConditions | None = None,
    repeat_groups: Sequence[Sequence[int]] = (),
) -> Comparison:
    """Compare sessions against the baseline (one session alone: its own figures only);
    ``repeat_groups`` are the sets of sessions the author says are repeats of one another.
    Raise :class:`CompareError` on bad input."""
    conditions = conditions or StopConditions()
    notes = _check(sessions, baseline_id)
    ordered = tuple(
        [s for s in sessions if s.id == baseline_id] + [s for s in sessions if s.id != baseline_id]
    )
    base = ordered[0]
    levels = {s.id: levels_of(s) for s in ordered}
    sets = repeat_sets(ordered, base.id, repeat_groups)
    repeats = _repeatability(sets)
    all_vus = sorted({vus for by_vus in levels.values() for vus in by_vus})
    common = tuple(v for v in all_vus if all(v in levels[s.id] for s in ordered))

    rows: list[UserCountRow] = []
    for vus in all_vus:
        row_levels = {s.id: levels[s.id].get(vus) for s in ordered}
        vs = {
            s.id: versus(
                row_levels[s.id],
                row_levels[base.id],
                _combined(_noise(repeats, s.id, vus), _noise(repeats, base.id, vus)),
            )
            for s in ordered[1:]
        }
        rows.append(UserCountRow(vus, row_levels, vs))

    for s in ordered[1:]:
        shared = sorted(set(levels[s.id]) & set(levels[base.id]))
        if not shared:
            notes.append(
                f"session {s.id} ({s.name}) shares no user count with the baseline"
                f" ({base.name}: {_users(levels[base.id])}; {s.name}: {_users(levels[s.id])}),"
                " so no per-user-count ratio can be made: compare them at saturation"
            )
    for s in same_system_apart(ordered, base.id):
        notes.append(
            f"session {s.id} ({s.name}) is recorded as the very system of the baseline"
            f" ({base.name}) yet its NOPM differs from it by more than {REPEAT_SPREAD:g}X: what"
            " was recorded cannot tell them apart (describe their storage), so they are"
            " compared as two configurations, not as repeats"
        )
    only = [row.vus for row in rows if row.missing_in]
    if only and common:
        notes.append(
            "user counts not measured in every session are shown with the sessions that have"
            f" them: {', '.join(map(str, only))}"
        )

    saturation = {
        s.id: find_saturation(
            [
                LoadPoint(v, lv.value("nopm"), lv.value("avg_ms"), lv.value("p999_ms"))
                for v, lv in levels[s.id].items()
            ],
            conditions,
        )
        for s in ordered
    }
    base_sat = saturation[base.id]
    base_level = levels[base.id].get(base_sat.vus) if base_sat.vus is not None else None
    at_sat: list[SaturationRow] = []
    for s in ordered:
        sat = saturation[s.id]
        level = levels[s.id].get(sat.vus) if sat.vus is not None else None
        sat_vs = None
        if s.id != base.id:
            sat_vs = versus(
                level,
                base_level,
                _combined(
                    _noise(repeats, s.id, sat.vus or 0),
                    _noise(repeats, base.id, base_sat.vus or 0),
                ),
            )
        at_sat.append(SaturationRow(s.id, sat, level, sat_vs))
        if sat.vus is None:
            notes.append(f"session {s.id} ({s.name}): no saturation point: {sat.reason}")

    return Comparison(
        sessions=ordered,
        conditions=conditions,
        levels=levels,
        rows=tuple(rows),
        common_vus=common,
        saturation=saturation,
        at_saturation=tuple(at_sat),
        repeatability=tuple(repeats),
        config=tuple(config_rows(ordered)),
        notes=tuple(notes),
        baseline_repeats=tuple(
            sid
            for sid in baseline_repeats(ordered, base.id)
            if not any(sid in g for g in repeat_groups)
        ),
        repeat_sets=tuple(
            tuple(s.id for s in ordered if s.id in {m.id for m in members})
            for members, basis in sets
            if len(members) > 1 and basis != "steps"
        ),
    )


def _users(by_vus: Mapping[int, Level]) -> str:
    return ", ".join(map(str, by_vus)) + " users"
