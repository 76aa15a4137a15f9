"""How the Live page writes its figures: whole numbers, watts, mW per NOPM, milliseconds.

Each returns None for a missing value, which a tile shows as its placeholder.
"""

from __future__ import annotations


def fmt_int(value: float | None) -> str | None:
    return None if value is None else f"{value:,.0f}"


def fmt_watts(value: float | None) -> str | None:
    if value is None:
        return None
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}"


def fmt_ratio(value: float | None) -> str | None:
    """mW per NOPM: three figures and a steady number of decimals (0.412, 2.00, 41.2)."""
    if value is None:
        return None
    if value < 1:
        return f"{value:.3f}"
    if value < 10:
        return f"{value:.2f}"
    return f"{value:.1f}" if value < 100 else f"{value:,.0f}"


def fmt_ms(value: float | None) -> str | None:
    if value is None:
        return None
    return f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 1000 else f"{value:,.0f}"
