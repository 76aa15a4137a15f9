"""The NOPM cross-check: the database's count of New-Orders against the driver's own.

NOPM is measured as HammerDB measures it: ``sum(d_next_o_id)`` read at the edges of the
measured window, which counts every New-Order committed in that database, whoever committed
it. The driver counts the New-Orders its own users committed in the same window. On a database
nobody else uses, the two agree up to the orders in flight at the window's edges (committed on
the server, not yet counted by the driver, at most about one per user at each edge). When they
disagree by more, the database's NOPM is not this run's alone (another load on the same
database, a second bench) or its counters are off, and the figure must not be reported as if it
were clean.

:func:`nopm_doubt` is the one rule; the Live page, the stored steps, the command line and the
reports all ask it.
"""

from __future__ import annotations

import math
from typing import Final

# The database's NOPM may differ from the driver's count by at most this much, in percent.
TOLERANCE_PCT: Final = 2.0
# Orders in flight at each edge of the window, per virtual user (see the module docstring).
IN_FLIGHT_PER_USER: Final = 1
ANOTHER_LOAD: Final = "another load on the server?"
COUNTERS_OFF: Final = "the database counted fewer New-Orders than the driver committed"


def _finite(value: float | None) -> float | None:
    if value is None or isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) and number >= 0 else None


def nopm_doubt(
    nopm_db: float | None,
    nopm_driver: float | None,
    window_s: float | None = None,
    vus: int | None = None,
) -> str | None:
    """Why a measured NOPM is doubtful, or None when the database and the driver agree.

    Doubtful: the database's NOPM and the driver's differ by more than :data:`TOLERANCE_PCT`
    of the driver's, and (when the window's length and the user count are known) by more New-
    Orders than could be in flight at the window's two edges. None too when either figure is
    missing or not a number: nothing to check.
    """
    db, driver = _finite(nopm_db), _finite(nopm_driver)
    if db is None or driver is None or db == driver:
        return None
    if driver > 0:
        pct = (db - driver) / driver * 100.0
        if abs(pct) <= TOLERANCE_PCT:
            return None
        change = f"{pct:+.0f}%" if pct < 50 else f"{db / driver:.1f}x"
    else:
        change = "none counted by the driver"
    seconds = _finite(window_s)
    users = _finite(vus)
    if seconds is not None and users is not None and seconds > 0:
        orders_apart = abs(db - driver) * seconds / 60.0
        if orders_apart <= 2 * IN_FLIGHT_PER_USER * users:
            return None
    reason = ANOTHER_LOAD if db > driver else COUNTERS_OFF
    return (
        f"NOPM doubtful: the database counted {db:,.0f}, the driver {driver:,.0f}"
        f" ({change}): {reason}"
    )
