"""Seed 004's economics: SSDs do not replace disk, they replace the RAM a disk needs.

The question: to serve ``target`` random reads a second from a dataset of ``dataset`` bytes,
how much RAM must cache it on each storage configuration? Each session measured ops/s at
several dataset sizes against a fixed RAM; read the other way, that is ops/s against the
**fraction of the dataset held in RAM** (RAM / dataset). The RAM a configuration needs is
the fraction at which its measured curve reaches the target, times the dataset:

- between two measured points the curve is interpolated linearly in log(ops/s) (ops/s span
  orders of magnitude between "in RAM" and "mostly on disk"), from the low-RAM side: the
  least RAM that reaches the target;
- a target already met at the smallest fraction measured gives an upper bound ("at most");
- a target no measured point reaches is said to be out of the measured range ("more than"),
  never extrapolated.

This assumes, as the seed does, that a configuration's curve depends on the dataset as a
multiple of RAM, not on their absolute sizes. RAM is priced per GiB from the price list
(:func:`bench_gui.core.economics.ram_price`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from bench_gui.core.economics import RAM_PRICE_HELP, DevicePrice, RamPrice, format_money, ram_price
from bench_gui.wire.fio_sizes import GIB, format_size
from bench_gui.workloads.random_read.compare import (
    RandomReadCompareError,
    RRComparison,
    RRPoint,
    RRSession,
    multiple_text,
    ops_text,
)

METHOD = (
    "RAM needed = (fraction of the dataset in RAM at which the measured ops/s reach the"
    " target) x dataset size; between two measured points ops/s are interpolated linearly"
    " in their logarithm; outside the measured points nothing is extrapolated."
)


@dataclass(frozen=True)
class RamNeed:
    """The RAM one configuration needs to reach the target."""

    session_id: int
    name: str
    # "measured": interpolated between two measured points (or on one); "at_most": already
    # met at the least RAM measured (an upper bound); "more_than": no point measured reaches it.
    bound: str
    fraction: float  # RAM / dataset (the value, or the bound)
    ram_bytes: float  # fraction x dataset
    between: tuple[RRPoint, RRPoint] | None
    text: str  # "384 GiB (0.38 of the dataset), between 2x RAM and 1x RAM"
    cost: float | None = None
    cost_text: str = ""

    @property
    def ram_gib(self) -> float:
        return self.ram_bytes / GIB


@dataclass(frozen=True)
class RamEconomics:
    """The RAM (GiB and cost) each configuration needs for one target and dataset."""

    target_ops_s: float
    dataset_bytes: int
    needs: tuple[RamNeed, ...]  # in the comparison's session order
    price: RamPrice | None
    findings: tuple[str, ...]  # each compared configuration against the baseline, in words
    messages: tuple[str, ...]  # what is missing (a RAM price...) and how to add it
    method: str = METHOD

    def need(self, session_id: int) -> RamNeed:
        for n in self.needs:
            if n.session_id == session_id:
                return n
        raise KeyError(session_id)


def _interpolate(a: RRPoint, b: RRPoint, target: float) -> float:
    """The RAM fraction between points ``a`` and ``b`` (fraction ascending) at ``target``."""
    fa, fb = a.ram_fraction, b.ram_fraction
    ya, yb = a.ops_s or 0.0, b.ops_s or 0.0
    if ya > 0 and yb > 0:
        ya, yb, y = math.log(ya), math.log(yb), math.log(target)
    else:
        y = target
    if yb == ya:
        return fa
    return fa + (fb - fa) * (y - ya) / (yb - ya)


def ram_fraction_for(
    points: Sequence[RRPoint], target_ops_s: float
) -> tuple[str, float, tuple[RRPoint, RRPoint] | None]:
    """(bound, RAM fraction, the two points it lies between) for ``target_ops_s``; see the
    module for the bounds. ``points`` need not be sorted."""
    usable = sorted((p for p in points if p.ops_s is not None), key=lambda p: p.ram_fraction)
    if not usable:
        raise RandomReadCompareError("no measured point to read the RAM from")
    first = usable[0]
    if (first.ops_s or 0.0) >= target_ops_s:
        return "at_most", first.ram_fraction, None
    for a, b in zip(usable, usable[1:], strict=False):
        if (a.ops_s or 0.0) < target_ops_s <= (b.ops_s or 0.0):
            return "measured", _interpolate(a, b, target_ops_s), (a, b)
    return "more_than", usable[-1].ram_fraction, None


def gib_number(gib: float) -> str:
    """A GiB figure as every view of the calculator prints it: three significant digits
    below 100 (``0.25``, ``12.5``), whole above (``384``), so a table and its text agree."""
    return f"{gib:,.0f}" if gib >= 100 else f"{gib:,.3g}"


def _gib(num_bytes: float) -> str:
    return f"{gib_number(num_bytes / GIB)} GiB"


def _need(
    session: RRSession, name: str, target: float, dataset: int, price: RamPrice | None
) -> RamNeed:
    bound, fraction, between = ram_fraction_for(session.points, target)
    ram = fraction * dataset
    share = f"{fraction:.2f} of the dataset" if fraction < 10 else f"{fraction:.3g}x the dataset"
    if bound == "measured":
        assert between is not None
        a, b = between
        where = (
            f"at {multiple_text(a.ram_ratio)}"
            if a is b or a.ram_ratio == b.ram_ratio
            else f"between {multiple_text(a.ram_ratio)} and {multiple_text(b.ram_ratio)}"
        )
        text = f"{_gib(ram)} ({share}), {where}"
    elif bound == "at_most":
        text = (
            f"at most {_gib(ram)} ({share}): met at the least RAM measured"
            f" ({ops_text(session.points[-1].ops_s or 0)} ops/s at"
            f" {multiple_text(session.points[-1].ram_ratio)}); less was not measured"
        )
    else:
        best = max(session.points, key=lambda p: p.ops_s or 0.0)
        whole = " even with the whole dataset in RAM" if fraction >= 1 else ""
        text = (
            f"more than {_gib(ram)} ({share}): not reached{whole} in the measured range (at"
            f" most {ops_text(best.ops_s or 0)} ops/s, at {multiple_text(best.ram_ratio)})"
        )
    cost = None
    cost_text = ""
    if price is not None:
        cost = ram / GIB * price.per_gib
        prefix = {"measured": "", "at_most": "at most ", "more_than": "more than "}[bound]
        cost_text = prefix + format_money(cost, price.currency)
    return RamNeed(session.id, name, bound, fraction, ram, between, text, cost, cost_text)


def _interval(need: RamNeed) -> tuple[float, float]:
    """The RAM a need allows, as (least, most) bytes."""
    if need.bound == "at_most":
        return 0.0, need.ram_bytes
    if need.bound == "more_than":
        return need.ram_bytes, math.inf
    return need.ram_bytes, need.ram_bytes


def _finding(other: RamNeed, base: RamNeed, price: RamPrice | None) -> str:
    """The other configuration's RAM against the baseline's, only as far as the bounds allow:
    an exact difference when both crossed the target in the measured range, else the least
    difference the bounds guarantee, else that the range does not tell."""
    o_lo, o_hi = _interval(other)
    b_lo, b_hi = _interval(base)

    def money(num_bytes: float) -> str:
        if price is None:
            return ""
        return f" ({format_money(num_bytes / GIB * price.per_gib, price.currency)} of RAM)"

    def amount(need: RamNeed) -> str:
        word = {"measured": "", "at_most": "at most ", "more_than": "more than "}[need.bound]
        return word + _gib(need.ram_bytes)

    sides = f": {amount(other)} against {amount(base)}"
    if other.bound == base.bound == "measured":
        diff = base.ram_bytes - other.ram_bytes
        word = "less" if diff >= 0 else "more"
        return (
            f"{other.name} needs {_gib(abs(diff))} {word} RAM than {base.name}"
            f"{money(abs(diff))}{sides}"
        )
    if b_lo - o_hi > 0:
        diff = b_lo - o_hi
        return (
            f"{other.name} needs at least {_gib(diff)} less RAM than {base.name}{money(diff)}"
            f"{sides}"
        )
    if o_lo - b_hi > 0:
        diff = o_lo - b_hi
        return (
            f"{other.name} needs at least {_gib(diff)} more RAM than {base.name}{money(diff)}"
            f"{sides}"
        )
    return (
        f"{other.name} against {base.name}{sides}: the measured range does not tell which"
        " needs less"
    )


def default_target(comparison: RRComparison) -> tuple[float, int]:
    """A target worth asking about, and its dataset: the best ops/s any configuration
    measured at the largest dataset (as a multiple of RAM) beyond memory, and that point's
    dataset bytes (every point when none is beyond memory)."""
    rows = [r for r in comparison.rows if r.beyond_memory] or list(comparison.rows)
    row = max(rows, key=lambda r: r.ram_ratio)
    best = max(
        (p for p in row.points.values() if p is not None and p.ops_s is not None),
        key=lambda p: p.ops_s or 0.0,
    )
    return float(best.ops_s or 0.0), best.dataset_bytes


def ram_economics(
    comparison: RRComparison,
    target_ops_s: float,
    dataset_bytes: int,
    prices: Sequence[DevicePrice] = (),
) -> RamEconomics:
    """The RAM (GiB, and cost when the price list has RAM) each configuration needs to serve
    ``target_ops_s`` random reads a second from ``dataset_bytes``; RandomReadCompareError
    names a target or dataset that is not positive."""
    if not (isinstance(target_ops_s, int | float) and math.isfinite(target_ops_s)):
        raise RandomReadCompareError(f"target ops/s must be a number, got {target_ops_s!r}")
    if target_ops_s <= 0:
        raise RandomReadCompareError(f"target ops/s must be positive, got {target_ops_s:g}")
    if dataset_bytes <= 0:
        raise RandomReadCompareError(f"the dataset size must be positive, got {dataset_bytes}")
    price = ram_price(prices)
    needs = tuple(
        _need(s, comparison.name(s.id), target_ops_s, dataset_bytes, price)
        for s in comparison.sessions
    )
    by_id = {n.session_id: n for n in needs}
    base = by_id[comparison.baseline_id]
    findings = tuple(_finding(by_id[s.id], base, price) for s in comparison.others)
    messages = [] if price is not None else [f"no RAM price, so no RAM cost: {RAM_PRICE_HELP}"]
    for n in needs:
        if n.fraction > 1 and n.bound != "at_most":
            messages.append(
                f"{n.name} reaches the target only with more RAM than the dataset itself"
                f" ({n.fraction:.2f} of it): only a dataset wholly cached serves this rate"
            )
    return RamEconomics(
        target_ops_s=float(target_ops_s),
        dataset_bytes=int(dataset_bytes),
        needs=needs,
        price=price,
        findings=findings,
        messages=tuple(messages),
    )


def describe_target(econ: RamEconomics) -> str:
    """``150,000 ops/s from a 1 TiB dataset``."""
    return f"{ops_text(econ.target_ops_s)} ops/s from a {format_size(econ.dataset_bytes)} dataset"


__all__ = [
    "METHOD",
    "RamEconomics",
    "RamNeed",
    "default_target",
    "describe_target",
    "gib_number",
    "ram_economics",
    "ram_fraction_for",
]
