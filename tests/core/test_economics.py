"""Economics against seed 000's Tables 4-6: array cost, cost per new order, best/worst case."""

from __future__ import annotations

import pytest

from bench_gui.core.compare import SessionData, StepPoint, compare
from bench_gui.core.economics import (
    ArrayInput,
    DevicePrice,
    EconomicsError,
    PowerPrice,
    array_cost,
    cost_per_new_order,
    economics,
    energy_cost_per_new_order,
    find_price,
    format_cost_change,
    format_money,
    nopm_per_currency,
)

HDD = DevicePrice("SAS 15K RPM HDD 300GB", 199, "USD", "2015-06-01", "web shops")
SSD = DevicePrice("Micron S650DC 800GB", 1262, "USD", "2015-06-01", "web shops")
PRICES = [HDD, SSD]


@pytest.mark.parametrize(
    ("value", "currency", "text"),
    [
        (5048, "USD", "$5,048"),
        (1262.5, "usd", "$1,262.50"),
        (0.1668, "USD", "$0.17"),
        (2.52, "USD", "$2.52"),
        (0.00123, "EUR", "€0.00123"),
        (1250, "CHF", "1,250 CHF"),
        (-3, "GBP", "-£3.00"),
    ],
)
def test_format_money(value: float, currency: str, text: str) -> None:
    assert format_money(value, currency) == text


def test_table4_array_cost_from_the_price_list() -> None:
    ssd = array_cost(ArrayInput("Micron S650DC 800GB", 4), PRICES)
    assert ssd.cost == 5048
    assert ssd.arithmetic == "$1,262 x 4 = $5,048"
    assert ssd.flag is None
    hdd = array_cost(ArrayInput("sas_15k rpm  hdd-300gb", 16), PRICES)  # names matched loosely
    assert hdd.cost == 3184


def test_a_hand_cost_that_disagrees_is_used_and_flagged() -> None:
    # Seed 000 prices the HDD array at $199 x 16 = $3184 in Table 4, uses $3440 in Tables 5-6.
    hdd = array_cost(ArrayInput("SAS 15K RPM HDD 300GB", 16, hand_cost=3440), PRICES)
    assert hdd.cost == 3440
    assert hdd.flag == (
        "the hand-entered array cost $3,440 disagrees with unit price x count: $199 x 16 = $3,184"
    )
    assert hdd.arithmetic == "$3,440 (entered by hand); price list: $199 x 16 = $3,184"
    agrees = array_cost(ArrayInput("SAS 15K RPM HDD 300GB", 16, hand_cost=3185), PRICES)
    assert agrees.flag is None  # within half a percent
    alone = array_cost(ArrayInput(hand_cost=999, currency="eur"), [])
    assert (alone.cost, alone.currency, alone.flag) == (999, "EUR", None)


def test_missing_prices_say_what_to_add() -> None:
    with pytest.raises(EconomicsError, match="no price for device 'Unknown SSD': add it"):
        array_cost(ArrayInput("Unknown SSD", 4), PRICES)
    with pytest.raises(EconomicsError, match="no storage layout stored"):
        array_cost(ArrayInput(), PRICES)
    with pytest.raises(EconomicsError, match="number of Micron S650DC 800GB devices"):
        array_cost(ArrayInput("Micron S650DC 800GB"), PRICES)


def test_latest_price_wins() -> None:
    newer = DevicePrice("Micron S650DC 800GB", 999, "USD", "2016-01-01")
    assert find_price("micron s650dc 800gb", [SSD, newer]) is newer


def test_per_new_order_arithmetic() -> None:
    assert round(cost_per_new_order(5048, 30_267), 2) == 0.17
    assert round(cost_per_new_order(3440, 1365), 2) == 2.52
    assert round(nopm_per_currency(30_267, 5048), 2) == 6.0
    # 700 W at 440,000 NOPM: 60 * 700 / 440000 J per new order, at $0.12 per kWh
    cost = energy_cost_per_new_order(700, 440_000, 0.12)
    assert cost == pytest.approx(60 * 700 / 440_000 / 3_600_000 * 0.12)
    with pytest.raises(ValueError, match="NOPM must be positive"):
        cost_per_new_order(10, 0)


@pytest.mark.parametrize(
    ("other", "base", "text"),
    [(0.1668, 2.52, "15X lower"), (0.0583, 1.1513, "19X lower"), (0.8, 1.0, "20% lower"),
     (1.25, 1.0, "25% higher")],
)  # fmt: skip
def test_format_cost_change(other: float, base: float, text: str) -> None:
    assert format_cost_change(other, base) == text


def seed_sessions() -> list[SessionData]:
    hdd = SessionData(1, "HDD", "complete", (StepPoint(8, 1365), StepPoint(48, 2988, step=1)))
    ssd = SessionData(2, "SSD", "complete", (StepPoint(8, 30_267), StepPoint(48, 86_654, step=1)))
    return [hdd, ssd]


def test_tables_5_and_6_best_and_worst_case() -> None:
    c = compare(seed_sessions(), 1)
    arrays = {
        1: ArrayInput("SAS 15K RPM HDD 300GB", 16, hand_cost=3440),
        2: ArrayInput("Micron S650DC 800GB", 4),
    }
    e = economics(c, arrays, PRICES)
    worst, best = e.cases
    assert (worst.kind, worst.vus, worst.change) == ("worst", 8, "15X lower")
    assert format_money(worst.other.cost_per_new_order or 0) == "$0.17"
    assert format_money(worst.baseline.cost_per_new_order or 0) == "$2.52"
    assert worst.other.arithmetic == "$5,048 / 30,267 NOPM = $0.17"
    assert (best.kind, best.vus, best.change) == ("best", 48, "19X lower")
    assert format_money(best.other.cost_per_new_order or 0) == "$0.06"
    assert format_money(best.baseline.cost_per_new_order or 0) == "$1.15"
    assert e.currency == "USD"
    assert any("disagrees with unit price x count" in m for m in e.messages)


def test_missing_prices_leave_the_rest_of_the_economics() -> None:
    c = compare(seed_sessions(), 1)
    e = economics(
        c, {1: ArrayInput("Nothing", 16), 2: ArrayInput("Micron S650DC 800GB", 4)}, PRICES
    )
    assert list(e.arrays) == [2]
    assert e.cases == ()
    assert e.messages == (
        "session 1 (HDD): no price for device 'Nothing': add it to the price list (unit price,"
        " currency, date, source) or enter the array cost by hand",
    )
    assert e.levels[2][8].cost_per_new_order == pytest.approx(5048 / 30_267)
    assert e.levels[1][8].cost_per_new_order is None


def test_currencies_are_never_mixed() -> None:
    c = compare(seed_sessions(), 1)
    arrays = {1: ArrayInput(hand_cost=3000, currency="EUR"), 2: ArrayInput(hand_cost=5000)}
    e = economics(c, arrays, [])
    assert e.currency is None
    assert e.cases == ()
    assert any("different currencies (EUR, USD)" in m for m in e.messages)


def test_energy_needs_power_and_a_price() -> None:
    steps = (StepPoint(8, 1000, power_w=500), StepPoint(16, 1500, power_w=520, step=1))
    a = SessionData(1, "a", "complete", steps)
    b = SessionData(2, "b", "complete", tuple(StepPoint(p.vus, p.nopm, power_w=600) for p in steps))
    c = compare([a, b], 1)
    without = economics(c, {}, [])
    assert any("no power price per kWh" in m for m in without.messages)
    assert without.levels[1][8].joules_per_new_order == pytest.approx(30.0)
    assert without.levels[1][8].energy_cost_per_million is None
    priced = economics(c, {}, [], PowerPrice(0.12))
    assert priced.levels[1][8].energy_cost_per_million == pytest.approx(
        30.0 / 3_600_000 * 0.12 * 1_000_000
    )
