"""The saturation point of a sweep: the load at which more users stop buying throughput.

Seed 003 measured each configuration "at the maximum load the platform could reasonably
support" rather than at an arbitrary user count: the load was raised step by step until a stop
condition was met. The stop conditions here, all set by the user:

- the NOPM gain from one step to the next falls below ``min_gain_pct`` (a plateau, or a drop);
- the average response time of a step exceeds ``max_avg_ms``;
- the 99.9th percentile response time of a step exceeds ``max_p999_ms``.

The saturation point is the **last step before the stop condition**: the highest load that
still bought at least the minimum gain and kept latency within its limits. If the sweep ends
before any condition is met, the last step is reported with ``reached=False``: the sweep did
not find the limit ("not reached by 32 users"), and a reader must not take that load for one.
A sweep that meets the stop condition right after its first step (or at it, for a latency
limit) saturated at the first load tested (``first_step``): the range started too high to show
where the limit really is.

A drop is not a stop when the sweep went on and a later step beat the step before the drop by
the minimum gain (a noisy window at 2 users, then a peak at 4): the data shows the limit lies
further on, so the walk passes over it and says so (``passed_over``). A small positive gain
stays a stop, as it would have ended the sweep had it been run step by step.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

DEFAULT_MIN_GAIN_PCT = 5.0


def users(count: int | None) -> str:
    """A load in words: "1 user", "8 users"."""
    return f"{count} user" if count == 1 else f"{count} users"


@dataclass(frozen=True)
class StopConditions:
    """The user's thresholds; a limit of None is not checked."""

    min_gain_pct: float = DEFAULT_MIN_GAIN_PCT
    max_avg_ms: float | None = None
    max_p999_ms: float | None = None

    def describe(self) -> str:
        """The rule in words, for reports."""
        parts = [f"the NOPM gain from one step to the next falls below {self.min_gain_pct:g}%"]
        if self.max_avg_ms is not None:
            parts.append(f"the average response time exceeds {self.max_avg_ms:g} ms")
        if self.max_p999_ms is not None:
            parts.append(f"the 99.9th percentile response time exceeds {self.max_p999_ms:g} ms")
        return "; or ".join(parts)


@dataclass(frozen=True)
class LoadPoint:
    """One load level of a sweep (repeated steps already averaged)."""

    vus: int
    nopm: float | None
    avg_ms: float | None = None
    p999_ms: float | None = None


@dataclass(frozen=True)
class Gain:
    """NOPM gained from one load level to the next."""

    from_vus: int
    to_vus: int
    pct: float


@dataclass(frozen=True)
class Saturation:
    """Where a sweep saturated and why (``reason`` is a sentence a report can print)."""

    vus: int | None  # None: no step has a NOPM figure
    reached: bool  # False: the sweep ended before a stop condition
    reason: str
    trigger_vus: int | None = None  # the step that met the stop condition
    gains: tuple[Gain, ...] = field(default_factory=tuple)
    peak_vus: int | None = None  # the step with the highest NOPM
    short: str = ""  # the reason in a few words, for a table cell
    # Met at the first load tested: the range started too high to show the real limit.
    first_step: bool = False
    first_vus: int | None = None  # the lightest load measured
    last_vus: int | None = None  # the heaviest load measured
    # Loads where NOPM dropped but a later step beat the load before by the minimum gain:
    # taken for noise, not for the limit.
    passed_over: tuple[int, ...] = ()

    @property
    def not_reached(self) -> bool:
        """The sweep ended before a stop condition: its last step is no saturation point."""
        return not self.reached and self.vus is not None


def _over(value: float | None, limit: float | None) -> bool:
    return value is not None and limit is not None and value > limit


def find_saturation(points: Sequence[LoadPoint], conditions: StopConditions) -> Saturation:
    """Walk the sweep in rising load and stop at the first stop condition."""
    usable = sorted(
        (p for p in points if p.nopm is not None and math.isfinite(p.nopm)), key=lambda p: p.vus
    )
    if not usable:
        return Saturation(None, False, "no step has a NOPM figure", short="no NOPM")
    peak = max(usable, key=lambda p: p.nopm or 0.0)
    gains: list[Gain] = []
    passed: list[int] = []
    first = usable[0]
    # A first step already over a latency limit: the limit is below anything measured.
    for label, value, limit in (
        ("average", first.avg_ms, conditions.max_avg_ms),
        ("99.9th percentile", first.p999_ms, conditions.max_p999_ms),
    ):
        if _over(value, limit):
            return Saturation(
                None,
                True,
                f"the {label} response time at the lightest load ({users(first.vus)},"
                f" {value:,.1f} ms) already exceeds the {limit:g} ms limit: the range started"
                " too high",
                trigger_vus=first.vus,
                peak_vus=peak.vus,
                short=f"{label} latency over {limit:g} ms from {users(first.vus)}",
                first_step=True,
                first_vus=first.vus,
                last_vus=usable[-1].vus,
            )
    for index, (before, after) in enumerate(zip(usable, usable[1:], strict=False)):
        assert before.nopm is not None
        assert after.nopm is not None
        pct = (after.nopm - before.nopm) / before.nopm * 100.0 if before.nopm > 0 else math.inf
        gains.append(Gain(before.vus, after.vus, pct))
        reason = short = ""
        if _over(after.avg_ms, conditions.max_avg_ms):
            reason = (
                f"the average response time at {users(after.vus)} ({after.avg_ms:,.1f} ms)"
                f" exceeds the {conditions.max_avg_ms:g} ms limit"
            )
            short = f"avg {after.avg_ms:,.1f} ms > {conditions.max_avg_ms:g} ms at {after.vus}"
        elif _over(after.p999_ms, conditions.max_p999_ms):
            reason = (
                f"the 99.9th percentile response time at {users(after.vus)}"
                f" ({after.p999_ms:,.1f} ms) exceeds the {conditions.max_p999_ms:g} ms limit"
            )
            short = f"p99.9 {after.p999_ms:,.1f} ms > {conditions.max_p999_ms:g} ms at {after.vus}"
        elif pct < 0 and _beaten_later(before, usable[index + 2 :], conditions.min_gain_pct):
            passed.append(after.vus)
        elif pct < conditions.min_gain_pct:
            reason = (
                f"going from {before.vus} to {users(after.vus)} changed NOPM by {pct:+.1f}%,"
                f" below the {conditions.min_gain_pct:g}% minimum gain"
            )
            short = f"NOPM {pct:+.1f}% at {after.vus} (< {conditions.min_gain_pct:g}%)"
        if reason:
            reason += _passed_words(passed)
            at_first = before is first
            if at_first:
                reason += (
                    f"; it saturated at the first load tested ({users(first.vus)}): the range"
                    " started too high to show where the limit is"
                )
                short = f"{short}; first step"
            return Saturation(
                before.vus,
                True,
                reason,
                trigger_vus=after.vus,
                gains=tuple(gains),
                peak_vus=peak.vus,
                short=short,
                first_step=at_first,
                first_vus=first.vus,
                last_vus=usable[-1].vus,
                passed_over=tuple(passed),
            )
    last = usable[-1]
    short = f"not reached by {users(last.vus)}"
    if len(usable) == 1:
        reason = f"only one load level ({users(last.vus)}) was measured: no saturation point"
        short = "one load level only"
    else:
        reason = (
            f"not reached by {users(last.vus)}: NOPM still rose {gains[-1].pct:+.1f}% at the last"
            " step; the sweep ended before a stop condition" + _passed_words(passed)
        )
    return Saturation(
        last.vus,
        False,
        reason,
        gains=tuple(gains),
        peak_vus=peak.vus,
        short=short,
        first_vus=first.vus,
        last_vus=last.vus,
        passed_over=tuple(passed),
    )


def _beaten_later(before: LoadPoint, later: Sequence[LoadPoint], min_gain_pct: float) -> bool:
    """A later step beat ``before`` by the minimum gain: a drop after it was noise."""
    assert before.nopm is not None
    bar = before.nopm * (1.0 + min_gain_pct / 100.0)
    return any(p.nopm is not None and p.nopm >= bar for p in later)


def _passed_words(passed: Sequence[int]) -> str:
    if not passed:
        return ""
    loads = " and ".join(users(v) for v in passed)
    return (
        f" (NOPM dropped at {loads}, then rose past the minimum gain at a heavier load:"
        " taken for noise)"
    )
