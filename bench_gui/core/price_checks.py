"""Prices that are accepted but doubted: said to the author when typed, never refused.

A price of 0 makes every array free and its cost per new order 0; a unit price of 1e-9 or
1e30 is a slip of the keyboard or of the unit (per byte, in cents); a currency code that is
not an ISO 4217 code ("XYZ") cannot be read by anyone. The store still keeps what was typed
(the author may mean it), but the command line and the Compare page say so at once.
"""

from __future__ import annotations

import math

# ISO 4217 codes of the currencies prices are commonly quoted in (a code outside this list is
# doubted, not refused).
KNOWN_CURRENCIES = frozenset(
    {
        "USD",
        "EUR",
        "GBP",
        "JPY",
        "CHF",
        "CNY",
        "CAD",
        "AUD",
        "NZD",
        "SEK",
        "NOK",
        "DKK",
        "PLN",
        "CZK",
        "HUF",
        "RON",
        "BGN",
        "ISK",
        "TRY",
        "RUB",
        "UAH",
        "ILS",
        "AED",
        "SAR",
        "QAR",
        "KWD",
        "INR",
        "PKR",
        "BDT",
        "LKR",
        "SGD",
        "HKD",
        "TWD",
        "KRW",
        "THB",
        "MYR",
        "IDR",
        "PHP",
        "VND",
        "BRL",
        "MXN",
        "ARS",
        "CLP",
        "COP",
        "PEN",
        "ZAR",
        "EGP",
        "NGN",
        "KES",
        "MAD",
    }
)
# Beyond these a figure is almost surely a slip (in any of the currencies above).
LIMITS = {
    "unit price": (0.01, 10_000_000.0),
    "array cost": (0.01, 1_000_000_000.0),
    "price per kWh": (0.0001, 1_000.0),
    "price per GiB": (0.0001, 1_000_000.0),
}


def price_doubt(value: float, what: str, currency: str = "") -> str | None:
    """Why ``value`` as ``what`` ("unit price", "array cost", "price per kWh"...) looks wrong,
    or None."""
    low, high = LIMITS.get(what, (0.01, 1e9))
    money = f"{value:g} {currency}".strip()
    if not math.isfinite(value):
        return f"the {what} {value} is not a number"
    if value == 0:
        return f"the {what} is 0: every cost that uses it will read 0 (free)"
    if value < low:
        return f"the {what} {money} is below {low:g}: is it in the right unit?"
    if value > high:
        return f"the {what} {money} is above {high:,.0f}: is it in the right unit?"
    return None


def currency_doubt(code: str) -> str | None:
    """Why a currency code looks wrong (not an ISO 4217 code we know), or None."""
    text = code.strip().upper()
    if text in KNOWN_CURRENCIES:
        return None
    return (
        f"{text or 'an empty code'} is not an ISO 4217 currency code bench-gui knows (USD, EUR,"
        " GBP, JPY...): a reader cannot tell what the prices are in"
    )


def doubts(values: list[tuple[float | None, str]], currency: str | None) -> list[str]:
    """Every doubt about some prices (value, what) in one currency."""
    said = [
        d
        for value, what in values
        if value is not None and (d := price_doubt(value, what, currency or "")) is not None
    ]
    if currency is not None and (d := currency_doubt(currency)) is not None:
        said.append(d)
    return said
