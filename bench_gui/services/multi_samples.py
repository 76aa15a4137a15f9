"""Several driver hosts' per-second samples as one stream (issue 18). Pure: no I/O.

Every host starts a step at the same instant (the agents' start barrier) and samples about once
a second; a loaded host samples late, skips a second, or gives two samples within one (its tick
catching up). So the hosts' samples are paired by **time**, never by their order (a missed or a
doubled sample would shift every later pair): each sample is placed at the whole second nearest
to when it was taken, counted from the step's start instant (``at``: its ``elapsed``, counted
from its host's own start, plus how late that host began, the ``late_s`` of its ``go``; the
desktop gave every host the one instant through the host's measured clock offset).
:class:`SampleMerger` gives out one merged sample a second once every host still running is
done with that second (it sampled at or past it: its next sample, at least 0.5 s later, is of a
later second), with

- the database's rates (``nopm_db``, ``tpm_db``, ``db_not_answering_s``) from the primary
  alone (never summed: every host's would count every host's orders);
- the drivers' counts, rollbacks, errors and rates summed, ``vus`` summed;
- the time of the step (phase, elapsed, remaining), the latency line and the host metrics of
  the primary (the step's exact latency comes from the merged histograms of its summary);
- each host's own figures under ``hosts`` (its users, driver NOPM and TPM, CPU in use, and
  ``at_s``, when it sampled, in seconds from the step's instant).

A host that gave no sample of a second but a later one (it skipped that second) is counted in
it with that later sample's users and rates (they are over an interval covering the second),
marked ``covering`` in its ``hosts`` entry; its counts stay with the second the sample is placed
at. Two samples of one host in one second are one: counts added, rates weighted by the time
each covers. A host whose start is not known counts as on time (``late_s`` 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

_SUMMED_RATES = ("nopm_driver", "tpm_driver")
_DATABASE_FIELDS = ("nopm_db", "tpm_db", "db_not_answering_s")
_WEIGHTED_RATES = ("nopm_driver", "tpm_driver", "nopm_db", "tpm_db")
_COUNTED = ("counts", "errors")


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _rate(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value):
        return None
    return float(value)


def _add_counts(total: dict[str, int], part: Any) -> None:
    if isinstance(part, dict):
        for key, value in part.items():
            total[str(key)] = total.get(str(key), 0) + _count(value)


def _cpu_busy(sample: dict[str, Any]) -> float | None:
    host = sample.get("host")
    cpu = host.get("cpu") if isinstance(host, dict) else None
    idle = _rate(cpu.get("idle")) if isinstance(cpu, dict) else None
    if idle is None or not isinstance(cpu, dict):
        return None
    iowait = _rate(cpu.get("iowait")) or 0.0
    return round(min(100.0, max(0.0, 100.0 - idle - iowait)), 1)


def second_of(at: float) -> int:
    """The whole second a sample taken ``at`` s after the step's instant is placed at (the
    nearest; a half goes up, so the window's closing fraction is a second of its own)."""
    return math.floor(at + 0.5)


@dataclass(frozen=True)
class Part:
    """One host's sample in a merged second: ``covering`` when it is the host's later sample
    standing in for a second the host did not sample (its users and rates only)."""

    host: str
    sample: dict[str, Any]
    at: float | None = None
    covering: bool = False


def merge_samples(
    samples: list[tuple[str, dict[str, Any]]] | list[Part], primary: str
) -> dict[str, Any]:
    """One second's samples of every host (name and payload, or :class:`Part`) as one payload
    (module docstring). Without the primary's (it was lost), the first host's gives the step's
    time and the database's rates are left out."""
    parts = [p if isinstance(p, Part) else Part(p[0], p[1]) for p in samples]
    own = [p for p in parts if not p.covering] or parts
    by_name = {p.host: p for p in parts}
    first = next((p for p in own if p.host == primary), own[0])
    base = dict(first.sample)
    counts: dict[str, int] = {}
    errors: dict[str, int] = {}
    rollbacks = 0
    rates: dict[str, float | None] = dict.fromkeys(_SUMMED_RATES, 0.0)
    hosts: list[dict[str, Any]] = []
    for part in parts:
        sample = part.sample
        if not part.covering:
            _add_counts(counts, sample.get("counts"))
            _add_counts(errors, sample.get("errors"))
            rollbacks += _count(sample.get("rollbacks"))
        for key in _SUMMED_RATES:
            value, total = _rate(sample.get(key)), rates[key]
            rates[key] = None if value is None or total is None else round(total + value, 1)
        entry: dict[str, Any] = {
            "host": part.host,
            "role": "primary" if part.host == primary else "secondary",
            "vus": _count(sample.get("vus")),
            "nopm_driver": _rate(sample.get("nopm_driver")),
            "tpm_driver": _rate(sample.get("tpm_driver")),
            "cpu_busy_pct": _cpu_busy(sample),
        }
        if part.at is not None:
            entry["at_s"] = round(part.at, 3)
        if part.covering:
            entry["covering"] = True
        hosts.append(entry)
    for key in _DATABASE_FIELDS:
        base.pop(key, None)
    if primary in by_name:
        source = by_name[primary].sample
        base.update({key: source[key] for key in _DATABASE_FIELDS if key in source})
    base.update(
        vus=sum(h["vus"] for h in hosts),
        counts=counts,
        errors=errors,
        rollbacks=rollbacks,
        hosts=hosts,
        **rates,
    )
    return base


@dataclass(frozen=True)
class _Held:
    """A host's sample placed at a second: when it was taken and how long it covers."""

    sample: dict[str, Any]
    at: float
    span: float


def _weighted(a: float | None, b: float | None, a_span: float, b_span: float) -> float | None:
    if a is None or b is None or a_span + b_span <= 0:
        return b
    return round((a * a_span + b * b_span) / (a_span + b_span), 3)


def _combined(first: _Held, then: _Held) -> _Held:
    """Two samples of one host in one second as one: the later's fields, the counts of both,
    each rate weighted by the time each sample covers."""
    sample = dict(then.sample)
    for key in _COUNTED:
        total: dict[str, int] = {}
        _add_counts(total, first.sample.get(key))
        _add_counts(total, then.sample.get(key))
        sample[key] = total
    sample["rollbacks"] = _count(first.sample.get("rollbacks")) + _count(
        then.sample.get("rollbacks")
    )
    for key in _WEIGHTED_RATES:
        if key in sample:
            sample[key] = _weighted(
                _rate(first.sample.get(key)), _rate(then.sample.get(key)), first.span, then.span
            )
    return _Held(sample, then.at, first.span + then.span)


class SampleMerger:
    """Pairs the hosts' samples of each step by time and hands out the merged ones."""

    def __init__(self, hosts: list[str], primary: str) -> None:
        self.hosts = list(hosts)
        self.primary = primary
        self._live = set(hosts)
        # step -> second -> host -> its sample placed there
        self._pending: dict[int, dict[int, dict[str, _Held]]] = {}
        # host -> (step, at) of its newest sample. An agent's samples are at least 0.5 s apart
        # (its next tick is never sooner), so once a host sampled at ``at`` >= a second, its
        # next sample is of a later second: that second is complete for it.
        self._reached: dict[str, tuple[int, float]] = {}
        self._last_at: dict[tuple[str, int], float] = {}  # (host, step) -> its newest ``at``
        self._given: dict[int, int] = {}  # step -> the last second given out
        self._late: dict[tuple[str, int], float] = {}  # (host, step) -> how late it began

    def went(self, host: str, step: int, late_s: float) -> None:
        """``host`` began ``step`` ``late_s`` past its instant (its ``go``): its samples of the
        step were taken that much later than their ``elapsed`` says."""
        self._late[(host, step)] = late_s

    def add(self, host: str, sample: dict[str, Any]) -> list[dict[str, Any]]:
        """Take one host's sample; the merged samples now complete, in order."""
        step = _count(sample.get("step"))
        elapsed = _rate(sample.get("elapsed")) or 0.0
        late = self._late.get((host, step), 0.0)
        at = elapsed + late
        second = second_of(at)
        given = self._given.get(step)
        if given is not None and second <= given:
            second = given + 1  # that second went out already: the next one to go
        before = self._last_at.get((host, step), late)  # the first covers from its start
        self._last_at[(host, step)] = max(before, at)
        held = _Held(sample, at, max(0.0, at - before))
        seconds = self._pending.setdefault(step, {}).setdefault(second, {})
        there = seconds.get(host)
        seconds[host] = held if there is None else _combined(there, held)
        self._reached[host] = max(self._reached.get(host, (step, at)), (step, at))
        return self._ready()

    def host_gone(self, host: str) -> list[dict[str, Any]]:
        """A host ended (or was lost): its missing seconds are no longer waited for."""
        self._live.discard(host)
        return self._ready()

    def step_ended(self, step: int) -> list[dict[str, Any]]:
        """Every host ended ``step``: what is left of it (and before it) goes out with the
        hosts that gave it."""
        out: list[dict[str, Any]] = []
        for done in sorted(s for s in self._pending if s <= step):
            while self._pending.get(done):
                out.append(self._give(done, min(self._pending[done])))
            self._pending.pop(done, None)
        return out

    def _ready(self) -> list[dict[str, Any]]:
        """Every second every live host is done with, in order."""
        out: list[dict[str, Any]] = []
        nothing = (-1, -math.inf)
        for step in sorted(self._pending):
            seconds = self._pending[step]
            while seconds:
                second = min(seconds)
                if not all(self._reached.get(h, nothing) >= (step, second) for h in self._live):
                    return out
                out.append(self._give(step, second))
        return out

    def _give(self, step: int, second: int) -> dict[str, Any]:
        seconds = self._pending[step]
        got = seconds.pop(second)
        self._given[step] = max(self._given.get(step, second), second)
        parts = []
        for name in self.hosts:
            if name in got:
                parts.append(Part(name, got[name].sample, got[name].at))
                continue
            later = [s for s in seconds if s > second and name in seconds[s]]
            if later:  # the host skipped this second: its next sample covers it
                held = seconds[min(later)][name]
                parts.append(Part(name, held.sample, held.at, covering=True))
        return merge_samples(parts, self.primary)
