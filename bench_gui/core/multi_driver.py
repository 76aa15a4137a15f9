"""Several driver hosts for one run: who takes how many virtual users, and one step's results.

A plan's ``[driver] targets`` names the hosts; each step's virtual users are split across them
(:func:`split_users`: an even split, or by ``share``, or the plan's own ``users``). Every host
runs the same agent with its part of the users; one of them, the primary (the first host), also
reads the database's counters. :func:`merge_step` turns the hosts' step summaries into the
step's one summary, by the rules of issue 18:

- NOPM and TPM are the database's, read on the primary alone: never summed across hosts (each
  host's would count every host's orders);
- the drivers' own New-Order rates are summed, and the sum is what the 2% cross-check of
  :mod:`bench_gui.core.crosscheck` compares the database's NOPM with;
- the transaction counts, rollbacks and errors are summed, the latency histograms merged
  exactly (HDR histograms add bucket by bucket), the percentiles read from the merged ones;
- each host's own figures stay (its users, transactions, driver NOPM, CPU), with a warning
  when a host's CPU passed :data:`CPU_WARN_PCT` over the window: an overloaded driver host holds
  the figures back, and the database is not what was measured.

Pure: no I/O. The histograms are decoded with the agent's own encoding
(:mod:`bench_gui.wire.hist`).
"""

from __future__ import annotations

import math
import struct
import zlib
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final

from hdrh.codec import HdrCookieException, HdrHistogramSettingsException, HdrLengthException
from hdrh.histogram import HdrHistogram

from bench_gui.core.crosscheck import nopm_doubt
from bench_gui.wire import hist
from bench_gui.wire.protocol import TX_KEYS

# A driver host busier than this (percent of its CPU, over the measured window) is flagged.
CPU_WARN_PCT: Final = 80.0
# Fields summed across hosts; the rest of a summary is the primary's.
_SUMMED_NUMBERS: Final = ("rollbacks", "error_count")
# What hdrh's decoder raises on text that is not one of its histograms.
_DECODE_ERRORS: Final = (
    ValueError,
    TypeError,
    IndexError,
    struct.error,
    zlib.error,
    HdrCookieException,
    HdrHistogramSettingsException,
    HdrLengthException,
)


class SplitError(ValueError):
    """A split of virtual users that cannot be made (a host would get none)."""


class MergeError(ValueError):
    """Step summaries of several hosts that cannot be merged (named host and field)."""


# -- splitting users ------------------------------------------------------------------------------


def even_split(total: int, hosts: int) -> list[int]:
    """``total`` users over ``hosts`` hosts as evenly as can be; the remainder goes one each to
    the first hosts in the plan's order (10 over 3: 4, 3, 3). Raises :class:`SplitError` when a
    host would get none."""
    if hosts < 1:
        raise SplitError("no driver host to split the users over")
    if total < hosts:
        raise SplitError(
            f"{total} virtual user{'' if total == 1 else 's'} for {hosts} driver hosts:"
            " each host needs at least one"
        )
    base, extra = divmod(total, hosts)
    return [base + (1 if i < extra else 0) for i in range(hosts)]


def share_split(total: int, shares: list[float]) -> list[int]:
    """``total`` users in proportion to ``shares`` (largest remainders; a tie goes to the
    earlier host), exactly: the parts always sum to ``total``. Raises :class:`SplitError`
    when a share is not a positive number or a host would get none."""
    if not shares:
        raise SplitError("no driver host to split the users over")
    weights: list[Fraction] = []
    for i, share in enumerate(shares):
        if isinstance(share, bool) or not isinstance(share, int | float) or not share > 0:
            raise SplitError(f"share {i + 1} is {share!r}: each share must be a positive number")
        if not math.isfinite(share):
            raise SplitError(f"share {i + 1} is {share!r}: each share must be a finite number")
        weights.append(Fraction(share))
    whole = sum(weights)
    quotas = [total * w / whole for w in weights]
    parts = [math.floor(q) for q in quotas]
    left = total - sum(parts)
    order = sorted(range(len(quotas)), key=lambda i: (-(quotas[i] - parts[i]), i))
    for i in order[:left]:
        parts[i] += 1
    for i, part in enumerate(parts):
        if part < 1:
            raise SplitError(
                f"{total} virtual users by shares {', '.join(f'{s:g}' for s in shares)} leave"
                f" host {i + 1} without any"
            )
    return parts


def step_splits(
    virtual_users: list[int],
    hosts: int,
    users: list[list[int]] | None = None,
    share: list[float] | None = None,
    names: list[str] | None = None,
) -> list[list[int]]:
    """Each step's users per host (one row per step, one column per host, in the plan's host
    order): the plan's own ``users`` rows when given, else by ``share``, else an even split.
    Raises :class:`SplitError` naming the step (from 1), and the host by ``names`` when
    given, when a step cannot be split."""
    rows: list[list[int]] = []
    for index, total in enumerate(virtual_users):
        try:
            if users:
                row = list(users[index] if len(users) > 1 else users[0])
                if len(row) != hosts:
                    raise SplitError(f"{row} has {len(row)} counts for {hosts} driver hosts")
                if sum(row) != total:
                    raise SplitError(f"{row} sums to {sum(row)}, not {total}")
                if min(row) < 1:
                    raise SplitError(f"{row}: each host needs at least one user")
            elif share:
                row = share_split(total, share)
            else:
                row = even_split(total, hosts)
        except SplitError as exc:
            text = str(exc)
            for i, name in enumerate(names or []):
                text = text.replace(f"host {i + 1} ", f"host {i + 1} ({name!r}) ")
            raise SplitError(f"step {index + 1} ({total} virtual users): {text}") from None
        rows.append(row)
    return rows


def first_users(row: list[int]) -> list[int]:
    """The global index of each host's first user in one step (host 2's users follow host
    1's): the agents number their users so, and all-warehouses mode spreads them alike."""
    out, before = [], 0
    for count in row:
        out.append(before)
        before += count
    return out


# -- merging one step ---------------------------------------------------------------------------


@dataclass(frozen=True)
class HostFigures:
    """One driver host's own figures in a step: what an overloaded host is seen by."""

    host: str
    role: str  # "primary" (read the database's counters) or "secondary"
    vus: int
    transactions: int  # committed, every type, in the measured window
    nopm_driver: float | None
    tpm_driver: float | None  # committed and rolled back, per minute of the window
    cpu_busy_pct: float | None  # 100 - idle over the window; None without host metrics
    complete: bool

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class MergedStep:
    """One step over every host: the summary (the agent's fields, merged), the hosts' own
    figures, warnings for people, and the NOPM cross-check's verdict (None: they agree)."""

    summary: dict[str, Any]
    hosts: list[HostFigures] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    doubt: str | None = None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _cpu_busy(summary: dict[str, Any]) -> float | None:
    """The host's CPU in use over the window: 100 less idle and I/O wait (both idle CPU)."""
    host = summary.get("host")
    cpu = host.get("cpu") if isinstance(host, dict) else None
    idle = _number(cpu.get("idle")) if isinstance(cpu, dict) else None
    if idle is None or not isinstance(cpu, dict):
        return None
    iowait = _number(cpu.get("iowait")) or 0.0
    return round(min(100.0, max(0.0, 100.0 - idle - iowait)), 1)


def _counts(summary: dict[str, Any], name: str, host: str) -> dict[str, int]:
    value = summary.get(name) or {}
    if not isinstance(value, dict):
        raise MergeError(f"host {host!r}: {name} is not a table of counts")
    out: dict[str, int] = {}
    for key, count in value.items():
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise MergeError(f"host {host!r}: {name}.{key} is {count!r}, not a count")
        out[str(key)] = count
    return out


def _add(total: dict[str, int], part: dict[str, int]) -> None:
    for key, count in part.items():
        total[key] = total.get(key, 0) + count


def _host_figures(host: str, role: str, summary: dict[str, Any]) -> HostFigures:
    counts = _counts(summary, "counts", host)
    committed = sum(counts.values())
    rollbacks = summary.get("rollbacks", 0)
    if isinstance(rollbacks, bool) or not isinstance(rollbacks, int) or rollbacks < 0:
        raise MergeError(f"host {host!r}: rollbacks is {rollbacks!r}, not a count")
    window = _number(summary.get("window_s"))
    # As the agent's samples count it: committed and rolled back, per minute.
    tpm = round((committed + rollbacks) * 60.0 / window, 1) if window else None
    vus = summary.get("vus")
    if isinstance(vus, bool) or not isinstance(vus, int) or vus < 0:
        raise MergeError(f"host {host!r}: vus is {vus!r}, not a user count")
    return HostFigures(
        host=host,
        role=role,
        vus=vus,
        transactions=committed,
        nopm_driver=_number(summary.get("nopm_driver")),
        tpm_driver=tpm,
        cpu_busy_pct=_cpu_busy(summary),
        complete=summary.get("complete") is True,
    )


def _merge_latency(
    parts: list[tuple[str, dict[str, Any]]],
) -> tuple[dict[str, str], dict[str, dict[str, float]]]:
    """Every host's histograms added per transaction type; their encodings and summaries.

    The mean of a merged type is the hosts' exact means weighted by their counts (each agent
    reports its mean from the exact sum of latencies, not the histogram's buckets).
    """
    merged: dict[str, HdrHistogram] = {}
    sums: dict[str, int] = {}
    for host, summary in parts:
        encoded = summary.get("histograms") or {}
        latency = summary.get("latency_ms") or {}
        if not isinstance(encoded, dict) or not isinstance(latency, dict):
            raise MergeError(f"host {host!r}: histograms and latency_ms must be tables")
        for key, text in encoded.items():
            if not isinstance(text, str):
                raise MergeError(f"host {host!r}: histogram {key} is not an encoded histogram")
            try:
                one = hist.decode(text)
            except _DECODE_ERRORS as exc:
                raise MergeError(
                    f"host {host!r}: histogram {key} cannot be decoded: {exc}"
                ) from None
            merged.setdefault(key, hist.new_histogram()).add(one)
            stats = latency.get(key)
            avg = _number(stats.get("avg")) if isinstance(stats, dict) else None
            mean_us = avg * 1000.0 if avg is not None else one.get_mean_value()
            sums[key] = sums.get(key, 0) + round(mean_us * one.get_total_count())
    # Display order: the protocol's transaction types first, anything else after.
    ordered = {k: merged[k] for k in (*TX_KEYS, *sorted(set(merged) - set(TX_KEYS))) if k in merged}
    encodings = {k: hist.encode(h) for k, h in ordered.items() if h.get_total_count()}
    return encodings, hist.merged_summary(ordered, sums)


def merge_step(hosts: list[tuple[str, dict[str, Any]]], primary: str) -> MergedStep:
    """The step summaries of every host (name, summary; the primary's among them) as one.

    The primary's summary gives everything not merged (the window, the database's NOPM and
    TPM, its host metrics and power); ``vus``, the counts, rollbacks and errors are summed,
    ``nopm_driver`` is the sum of the hosts' driver NOPM, the histograms are merged. The
    merged summary keeps each host's figures under ``driver_hosts`` and the warnings under
    ``driver_warnings``. Raises :class:`MergeError` naming the host of a bad summary.
    """
    if not hosts:
        raise MergeError("no host's step summary to merge")
    names = [name for name, _ in hosts]
    for name in names:
        if names.count(name) > 1:
            raise MergeError(f"host {name!r} gave two summaries of the step")
    if primary not in names:
        raise MergeError(f"the primary host {primary!r} gave no summary of the step")
    by_name = dict(hosts)
    for name, summary in hosts:
        if not isinstance(summary, dict):
            raise MergeError(f"host {name!r}: its step summary is not a table")
    steps = {by_name[name].get("step") for name in names}
    if len(steps) != 1:
        shown = ", ".join(f"{name!r} step {by_name[name].get('step')!r}" for name in names)
        raise MergeError(f"the summaries are of different steps: {shown}")

    figures = [
        _host_figures(name, "primary" if name == primary else "secondary", summary)
        for name, summary in hosts
    ]
    merged = dict(by_name[primary])
    counts: dict[str, int] = {}
    errors: dict[str, int] = {}
    numbers = dict.fromkeys(_SUMMED_NUMBERS, 0)
    problems: list[str] = []
    for name, summary in hosts:
        _add(counts, _counts(summary, "counts", name))
        _add(errors, _counts(summary, "errors", name))
        for key in _SUMMED_NUMBERS:
            value = summary.get(key, 0)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise MergeError(f"host {name!r}: {key} is {value!r}, not a count")
            numbers[key] += value
        said = summary.get("problems") or []
        problems += [f"{name}: {text}" for text in (said if isinstance(said, list) else [said])]
    drivers = [f.nopm_driver for f in figures]
    nopm_driver = None if None in drivers else round(sum(d for d in drivers if d is not None), 1)
    encodings, latency = _merge_latency(hosts)
    vus = sum(f.vus for f in figures)
    merged.update(
        vus=vus,
        counts=counts,
        errors=errors,
        rollbacks=numbers["rollbacks"],
        nopm_driver=nopm_driver,
        latency_ms=latency,
        histograms=encodings,
        complete=all(f.complete for f in figures),
    )
    if "error_count" in merged or numbers["error_count"]:
        merged["error_count"] = numbers["error_count"]
    incomplete = [f.host for f in figures if not f.complete]
    if incomplete:
        problems.append(f"not complete on {', '.join(incomplete)}")
    if problems:
        merged["problems"] = problems
    else:
        merged.pop("problems", None)

    warnings = []
    step = merged.get("step")
    label = f"step {step + 1}" if isinstance(step, int) else "the step"
    for f in figures:
        if f.cpu_busy_pct is not None and f.cpu_busy_pct > CPU_WARN_PCT:
            warnings.append(
                f"driver host {f.host!r} was {f.cpu_busy_pct:.0f}% busy over {label}'s window"
                f" (over {CPU_WARN_PCT:.0f}%): the driver may be what held the figures back,"
                " not the database; give it fewer users or add a host"
            )
    doubt = nopm_doubt(merged.get("nopm"), nopm_driver, _number(merged.get("window_s")), vus)
    merged["driver_hosts"] = [f.to_dict() for f in figures]
    if warnings:
        merged["driver_warnings"] = warnings
    return MergedStep(summary=merged, hosts=figures, warnings=warnings, doubt=doubt)
