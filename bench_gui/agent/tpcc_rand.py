"""TPC-C random helpers shared by the loader and the driver.

NURand and the last-name syllables are defined by the TPC-C specification (clause 2.1.6 and
4.3.2.3); the run-time and load-time constants live here once so the loader, the driver and the
server-side routines cannot drift apart.
"""

from __future__ import annotations

import random
from typing import Final

from bench_gui.wire.tpcc_tables import ITEMS

# NURand constants C. For C_LAST the run and load constants must differ by 65..119 (excluding
# 96 and 112) so the run-time name distribution is not the load-time one: 223 - 157 = 66.
C_LAST_LOAD: Final = 157
C_LAST_RUN: Final = 223
C_ID: Final = 259
C_OL_I_ID: Final = 7911

# NURand A values for each field.
A_C_LAST: Final = 255
A_C_ID: Final = 1023
A_OL_I_ID: Final = 8191

CUSTOMERS_PER_DISTRICT: Final = 3_000
DISTRICTS_PER_WAREHOUSE: Final = 10

SYLLABLES: Final = ("BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING")


def nurand(a: int, x: int, y: int, c: int, rng: random.Random | None = None) -> int:
    """Non-uniform random number in [x, y]: ((rand(0,a) | rand(x,y)) + c) mod (y-x+1) + x."""
    r = rng if rng is not None else random
    return (((r.randint(0, a) | r.randint(x, y)) + c) % (y - x + 1)) + x


def last_name(n: int) -> str:
    """Customer last name for n in 0..999: one syllable per decimal digit (e.g. 371 -> PRI...)."""
    if not 0 <= n <= 999:
        raise ValueError(f"last-name number {n} outside 0..999")
    return SYLLABLES[n // 100] + SYLLABLES[(n // 10) % 10] + SYLLABLES[n % 10]


# All 1000 names, indexed by their number: the loader and driver look them up instead of
# concatenating syllables per call.
LAST_NAMES: Final[tuple[str, ...]] = tuple(last_name(n) for n in range(1000))


def run_last_name(rng: random.Random | None = None) -> str:
    """A last name drawn as the driver must draw it at run time (NURand(255,0,999), C_LAST_RUN)."""
    return LAST_NAMES[nurand(A_C_LAST, 0, 999, C_LAST_RUN, rng)]


def run_customer_id(rng: random.Random | None = None) -> int:
    """A customer id drawn as at run time: NURand(1023, 1, 3000) with C_ID."""
    return nurand(A_C_ID, 1, CUSTOMERS_PER_DISTRICT, C_ID, rng)


def run_item_id(rng: random.Random | None = None) -> int:
    """An item id drawn as at run time: NURand(8191, 1, 100000) with C_OL_I_ID."""
    return nurand(A_OL_I_ID, 1, ITEMS, C_OL_I_ID, rng)
