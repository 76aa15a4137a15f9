"""Storage economics of a comparison (seed 000): array cost, cost per new order, value, energy.

- Array cost = unit price x number of devices, the devices counted from the session's stored
  storage layout or entered by hand. A cost entered by hand that disagrees with unit price x
  count is used (the user said so) but flagged: seed 000 itself priced the HDD array at $3184
  in its Table 4 and used $3440 in Tables 5 and 6.
- Cost per new order = array cost / NOPM: "fixing a one-minute interval gives the number of
  new orders completed in one minute". Best and worst case: the user counts where the other
  array's cost per new order is most and least below the baseline's.
- Array value = NOPM per unit of currency spent on the array.
- Energy cost per new order = joules per new order (:func:`bench_gui.core.power`) in kWh x the
  power price; printed per million new orders, where the figures are readable.

Every figure carries the arithmetic that produced it, as text a report prints next to it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from bench_gui.core.compare import Comparison, format_advantage, format_ratio
from bench_gui.core.power import joules_per_new_order
from bench_gui.core.priced_storage import RecordedStorage, disagreement

JOULES_PER_KWH = 3_600_000.0
PER_MILLION = 1_000_000
# A hand-entered cost within this fraction (or one cent) of price x count agrees with it.
COST_TOLERANCE = 0.005
CURRENCY_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}


class EconomicsError(ValueError):
    """A cost cannot be worked out (a price is missing...); the message says what to add."""


# ---- inputs -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DevicePrice:
    """One entry of the device price list."""

    device: str
    unit_price: float
    currency: str = "USD"
    date: str = ""  # when the price was seen, ISO date
    source: str = ""  # where: "average of three single-unit prices, web shops"


@dataclass(frozen=True)
class PowerPrice:
    """The price of electricity."""

    per_kwh: float
    currency: str = "USD"
    date: str = ""
    source: str = ""


@dataclass(frozen=True)
class ArrayInput:
    """What a session's array is made of, and a cost entered by hand if any."""

    device: str | None = None
    count: int | None = None
    hand_cost: float | None = None
    currency: str | None = None  # of the hand cost; default: the device price's
    origin: str = "layout"  # "layout" (from the stored storage layout) or "hand"
    note: str = ""


# ---- formatting ---------------------------------------------------------------------------------


def format_money(value: float, currency: str = "USD") -> str:
    """``$5,048``, ``$1,262.50``, ``$0.17``, ``$0.00123``, ``1,250 CHF``."""
    if not math.isfinite(value):
        return "n/a"
    magnitude = abs(value)
    if magnitude >= 100:
        text = f"{magnitude:,.0f}" if magnitude == round(magnitude) else f"{magnitude:,.2f}"
    elif magnitude >= 0.01 or magnitude == 0:
        text = f"{magnitude:,.2f}"
    else:
        text = f"{magnitude:.3g}"
    sign = "-" if value < 0 else ""
    symbol = CURRENCY_SYMBOLS.get(currency.upper())
    return f"{sign}{symbol}{text}" if symbol else f"{sign}{text} {currency.upper()}"


def format_cost_change(other: float, baseline: float) -> str:
    """How the other's cost compares with the baseline's: ``15X lower``, ``20% lower``,
    ``25% higher`` (truncated like every ratio, see :mod:`bench_gui.core.compare`)."""
    if other <= 0 or baseline <= 0:
        return "n/a"
    if baseline / other >= 2:
        return f"{format_ratio(baseline / other)} lower"
    pct = (1.0 - other / baseline) * 100.0
    if pct >= 0:
        return f"{format_advantage(pct)} lower"
    return f"{format_advantage(-pct)} higher"


def _norm(name: str) -> str:
    return re.sub(r"[\s_\-]+", " ", name).strip().lower()


# ---- array cost ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ArrayCost:
    """The cost of one session's array and how it was worked out."""

    device: str | None
    count: int | None
    unit_price: float | None
    currency: str
    computed: float | None  # unit price x count
    hand_cost: float | None
    cost: float  # the figure used: the hand cost when given, else the computed one
    arithmetic: str
    flag: str | None = None  # a hand cost that disagrees with unit price x count
    price: DevicePrice | None = None
    origin: str = "layout"
    # The array priced is not the storage recorded (core.priced_storage.disagreement).
    storage_flag: str | None = None
    # The session whose array this is, when this session repeats it (one array, one price).
    priced_as: int | None = None


def find_price(device: str, prices: Sequence[DevicePrice]) -> DevicePrice | None:
    """The latest price of a device, names matched without case, spaces, ``_`` or ``-``."""
    matches = [p for p in prices if _norm(p.device) == _norm(device)]
    return max(matches, key=lambda p: p.date) if matches else None


def array_cost(spec: ArrayInput, prices: Sequence[DevicePrice]) -> ArrayCost:
    """Array cost from the price list and/or a hand cost; raise EconomicsError when neither."""
    price = find_price(spec.device, prices) if spec.device else None
    computed = None
    if price is not None and spec.count:
        computed = price.unit_price * spec.count
    if spec.hand_cost is None and computed is None:
        if not spec.device:
            raise EconomicsError(
                "the array is unknown (no storage layout stored): enter its devices and count,"
                " or its cost, by hand"
            )
        if price is None:
            raise EconomicsError(
                f"no price for device {spec.device!r}: add it to the price list (unit price,"
                " currency, date, source) or enter the array cost by hand"
            )
        raise EconomicsError(f"the number of {spec.device} devices is unknown: enter it")
    currency = (spec.currency or (price.currency if price else "USD")).upper()
    if spec.hand_cost is not None:
        cost = spec.hand_cost
        arithmetic = f"{format_money(cost, currency)} (entered by hand)"
        flag = None
        if computed is not None and price is not None:
            unit = format_money(price.unit_price, price.currency)
            arithmetic += f"; price list: {unit} x {spec.count} = " + format_money(
                computed, price.currency
            )
            tolerance = max(COST_TOLERANCE * computed, 0.01)
            if price.currency.upper() != currency:
                flag = (
                    f"the hand-entered cost is in {currency}, the price of {spec.device} in"
                    f" {price.currency}: they cannot be checked against each other"
                )
            elif abs(cost - computed) > tolerance:
                flag = (
                    f"the hand-entered array cost {format_money(cost, currency)} disagrees"
                    f" with unit price x count: {unit} x {spec.count} ="
                    f" {format_money(computed, currency)}"
                )
    else:
        assert computed is not None
        assert price is not None
        cost = computed
        flag = None
        arithmetic = (
            f"{format_money(price.unit_price, currency)} x {spec.count} ="
            f" {format_money(computed, currency)}"
        )
    return ArrayCost(
        device=spec.device,
        count=spec.count,
        unit_price=price.unit_price if price else None,
        currency=currency,
        computed=computed,
        hand_cost=spec.hand_cost,
        cost=cost,
        arithmetic=arithmetic,
        flag=flag,
        price=price,
        origin=spec.origin,
    )


# ---- per new order ------------------------------------------------------------------------------


def cost_per_new_order(array_cost_value: float, nopm: float) -> float:
    """Array cost / NOPM: the array's purchase cost of one minute's new orders, per order."""
    if nopm <= 0:
        raise ValueError("NOPM must be positive")
    return array_cost_value / nopm


def nopm_per_currency(nopm: float, array_cost_value: float) -> float:
    """Array value (seed 000): measured NOPM / array purchase cost."""
    if array_cost_value <= 0:
        raise ValueError("the array cost must be positive")
    return nopm / array_cost_value


def energy_cost_per_new_order(watts: float, nopm: float, per_kwh: float) -> float:
    """The electricity one new order costs: joules per new order in kWh x price per kWh."""
    return joules_per_new_order(watts, nopm) / JOULES_PER_KWH * per_kwh


@dataclass(frozen=True)
class CostLevel:
    """A session's economics at one user count."""

    vus: int
    nopm: float
    cost_per_new_order: float | None
    nopm_per_currency: float | None
    watts: float | None
    joules_per_new_order: float | None
    energy_cost_per_million: float | None  # energy cost of a million new orders
    arithmetic: str  # "$5,048 / 30,267 NOPM = $0.17"


@dataclass(frozen=True)
class EconomicCase:
    """A worst or best case of seed 000's Tables 5 and 6: one user count, two arrays."""

    kind: str  # "worst" or "best"
    other_id: int
    vus: int
    baseline: CostLevel
    other: CostLevel
    change: str  # "15X lower"
    ratio: float  # baseline cost per new order / other's

    @property
    def title(self) -> str:
        return f"{self.kind.capitalize()}-case economics ({self.vus} users)"


@dataclass(frozen=True)
class Economics:
    """The economics of a comparison; ``messages`` say what is missing and why."""

    currency: str | None
    arrays: Mapping[int, ArrayCost]
    power_price: PowerPrice | None
    levels: Mapping[int, Mapping[int, CostLevel]]  # session id -> vus -> economics
    at_saturation: Mapping[int, CostLevel]
    cases: tuple[EconomicCase, ...]
    messages: tuple[str, ...] = field(default_factory=tuple)


def _cost_level(
    vus: int, nopm: float, watts: float | None, array: ArrayCost | None, power: PowerPrice | None
) -> CostLevel:
    cpno = value = None
    arithmetic = ""
    if array is not None and nopm > 0:
        cpno = cost_per_new_order(array.cost, nopm)
        value = nopm_per_currency(nopm, array.cost) if array.cost > 0 else None
        arithmetic = (
            f"{format_money(array.cost, array.currency)} / {nopm:,.0f} NOPM ="
            f" {format_money(cpno, array.currency)}"
        )
    joules = energy = None
    if watts is not None and nopm > 0:
        joules = joules_per_new_order(watts, nopm)
        if power is not None:
            energy = energy_cost_per_new_order(watts, nopm, power.per_kwh) * PER_MILLION
    return CostLevel(vus, nopm, cpno, value, watts, joules, energy, arithmetic)


def economics(
    comparison: Comparison,
    arrays: Mapping[int, ArrayInput],
    prices: Sequence[DevicePrice],
    power_price: PowerPrice | None = None,
    recorded: Mapping[int, RecordedStorage] | None = None,
) -> Economics:
    """Costs for every session and user count; what cannot be priced is said in ``messages``.
    ``recorded``: the storage each session recorded, checked against the array priced."""
    messages: list[str] = []
    costs: dict[int, ArrayCost] = {}
    same_array = one_price_per_array(comparison, arrays, prices)
    for s in comparison.sessions:
        spec = arrays.get(s.id, ArrayInput())
        first, why = same_array.get(s.id, (None, ""))
        try:
            costs[s.id] = array_cost(spec if first is None else arrays[first], prices)
        except EconomicsError as exc:
            messages.append(f"session {s.id} ({s.name}): {exc}")
            continue
        if first is not None:
            costs[s.id] = replace(costs[s.id], priced_as=first)
            if why:
                messages.append(f"session {s.id} ({s.name}): {why}")
        flag = costs[s.id].flag
        if flag:
            messages.append(f"session {s.id} ({s.name}): {flag}")
        storage = (recorded or {}).get(s.id)
        cost = costs[s.id]
        mismatch = storage and disagreement(cost.device, cost.count, storage)
        if mismatch:
            costs[s.id] = replace(cost, storage_flag=mismatch)
            messages.append(f"session {s.id} ({s.name}): {mismatch}")
    currencies = {c.currency for c in costs.values()}
    currency = next(iter(currencies)) if len(currencies) == 1 else None
    if len(currencies) > 1:
        messages.append(
            "the array costs are in different currencies ("
            + ", ".join(sorted(currencies))
            + "): costs are shown per session but not compared (no exchange rates are applied)"
        )
    if power_price is not None and currency is not None and power_price.currency != currency:
        messages.append(
            f"the power price is in {power_price.currency}, the arrays in {currency}:"
            " energy costs are shown in the power price's currency"
        )
    if comparison.has_power() and power_price is None:
        messages.append(
            "power was measured but no power price per kWh is set: energy cost per new order"
            " is left out"
        )

    levels: dict[int, dict[int, CostLevel]] = {}
    at_sat: dict[int, CostLevel] = {}
    for s in comparison.sessions:
        array = costs.get(s.id)
        by_vus: dict[int, CostLevel] = {}
        for vus, level in comparison.levels[s.id].items():
            nopm = level.value("nopm")
            if nopm is None or nopm <= 0:
                continue
            by_vus[vus] = _cost_level(vus, nopm, level.value("power_w"), array, power_price)
        levels[s.id] = by_vus
        sat = comparison.saturation[s.id].vus
        if sat is not None and sat in by_vus:
            at_sat[s.id] = by_vus[sat]

    cases: list[EconomicCase] = []
    base = comparison.baseline
    if currency is not None:
        for other in comparison.others:
            if other.id in comparison.baseline_repeats:
                continue  # the baseline's own array measured again: its difference is noise
            shared = []
            for vus in sorted(set(levels[base.id]) & set(levels[other.id])):
                b, o = levels[base.id][vus], levels[other.id][vus]
                if b.cost_per_new_order and o.cost_per_new_order:
                    shared.append((b.cost_per_new_order / o.cost_per_new_order, vus, b, o))
            if not shared:
                continue
            worst = min(shared, key=lambda item: item[0])
            best = max(shared, key=lambda item: item[0])
            for kind, (ratio, vus, b, o) in (("worst", worst), ("best", best)):
                assert b.cost_per_new_order is not None
                assert o.cost_per_new_order is not None
                change = format_cost_change(o.cost_per_new_order, b.cost_per_new_order)
                cases.append(EconomicCase(kind, other.id, vus, b, o, change, ratio))
    return Economics(
        currency=currency,
        arrays=costs,
        power_price=power_price,
        levels=levels,
        at_saturation=at_sat,
        cases=tuple(cases),
        messages=tuple(messages),
    )


def _priceable(spec: ArrayInput, prices: Sequence[DevicePrice]) -> bool:
    try:
        array_cost(spec, prices)
    except EconomicsError:
        return False
    return True


def _given(spec: ArrayInput) -> bool:
    """Whether the author said something about this array (device, count or cost)."""
    return spec.hand_cost is not None or spec.origin == "hand"


def one_price_per_array(
    comparison: Comparison, arrays: Mapping[int, ArrayInput], prices: Sequence[DevicePrice]
) -> dict[int, tuple[int, str]]:
    """Sessions that measured one array again, each with the session whose price it takes,
    and what the author is told when its own entry would have priced it otherwise.

    Repeats (:attr:`Comparison.repeat_sets`) measured one array: a brief gives it one price.
    The set's price is that of its first session the author priced (a device, a count or a
    cost given), else of its first session that can be priced: seed 000's HDD array, given as
    $3,440 on the baseline, is not $3,184 (unit price x count) on its repeat."""
    out: dict[int, tuple[int, str]] = {}
    names = {s.id: s.name for s in comparison.sessions}
    for members in comparison.repeat_sets:
        specs = {sid: arrays.get(sid, ArrayInput()) for sid in members}
        first = next((sid for sid in members if _given(specs[sid])), None)
        if first is None:
            first = next((sid for sid in members if _priceable(specs[sid], prices)), members[0])
        if first not in arrays:
            continue
        for sid in members:
            if sid == first:
                continue
            why = ""
            if specs[sid] != specs[first]:
                own: ArrayCost | None = None
                used: ArrayCost | None = None
                if _priceable(specs[sid], prices) and _priceable(specs[first], prices):
                    own, used = array_cost(specs[sid], prices), array_cost(specs[first], prices)
                if own is not None and used is not None and own.cost != used.cost:
                    why = (
                        f"it repeats session {first} ({names[first]}) on the same array, so it"
                        f" is priced as that array, {format_money(used.cost, used.currency)},"
                        f" not {format_money(own.cost, own.currency)} ({own.arithmetic})"
                    )
            out[sid] = (first, why)
    return out


# ---- RAM (seed 004: "SSDs replace RAM") ---------------------------------------------------------

# A price-list entry is RAM when its name starts with one of these words.
RAM_WORDS = ("ram", "memory", "dram", "dimm", "rdimm", "lrdimm", "ddr3", "ddr4", "ddr5")
_RAM_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*(gib|gb|tib|tb)\b")
RAM_PRICE_HELP = (
    "add RAM to the price list: bench-gui prices device add 'RAM per GB' 3.50 --currency USD,"
    " or a module by its size: bench-gui prices device add 'DDR5 RDIMM 64GB' 240"
)


@dataclass(frozen=True)
class RamPrice:
    """The price of RAM per GiB, from one price-list entry (a module, or a rate per GB)."""

    per_gib: float
    currency: str
    entry: DevicePrice
    arithmetic: str  # "$240 / 64 GiB = $3.75 per GiB"


def ram_price(prices: Sequence[DevicePrice]) -> RamPrice | None:
    """The latest RAM entry of the price list as a price per GiB, or None.

    An entry is RAM when its name starts with RAM, memory, DRAM, DIMM or DDR3/4/5. Its size is
    read from the name ("DDR5 RDIMM 64GB": the unit price buys 64 GiB, as modules are sold);
    "per GB" (or no size at all) makes the unit price a price per GiB."""
    found = [
        p for p in prices if _norm(p.device).split(" ", 1)[0] in RAM_WORDS and p.unit_price > 0
    ]
    if not found:
        return None
    entry = max(found, key=lambda p: p.date)
    name = _norm(entry.device)
    match = None if re.search(r"\bper\b", name) else _RAM_SIZE.search(name)
    unit = format_money(entry.unit_price, entry.currency)
    if match is None:
        return RamPrice(entry.unit_price, entry.currency.upper(), entry, f"{unit} per GiB")
    gib = float(match.group(1)) * (1024 if match.group(2).startswith("t") else 1)
    per_gib = entry.unit_price / gib
    return RamPrice(
        per_gib,
        entry.currency.upper(),
        entry,
        f"{unit} / {gib:g} GiB = {format_money(per_gib, entry.currency)} per GiB",
    )
