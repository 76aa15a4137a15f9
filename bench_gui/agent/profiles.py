"""The two transaction profiles and HammerDB's draws of the transactions' parameters.

- ``spec`` (the default): our routines, TPC-C as written (NURand customers and items, distinct
  items in an order, every column the spec updates, a real New-Order rollback) with
  :class:`~bench_gui.agent.users.Params`' draws.
- ``hammerdb``: HammerDB 6.0's own logic per engine, re-expressed in routines of their own
  names (``hdb_*``) beside ours, and its drivers' draws (:class:`HammerDbParams`): uniform
  customer ids, C = 123 for last names, its remote-warehouse rules. Its faults are kept, so a
  run here compares like for like with a HammerDB result; docs/profiles.md lists them.

Both sets of routines are built with every schema under distinct names, so a run of one
profile can never call the other's by mistake; the session records the plan's profile.
"""

from __future__ import annotations

from typing import Final

from bench_gui.agent.users import Params

PROFILES: Final = ("spec", "hammerdb")
# HammerDB's run-time constant C for last names (its loader uses the same one).
HAMMERDB_C_LAST: Final = 123


class ProfileError(ValueError):
    """A profile this agent does not know."""


def check_profile(profile: str) -> str:
    """``profile`` if it is one of :data:`PROFILES`, else a clear error."""
    if profile not in PROFILES:
        raise ProfileError(f"unknown profile {profile!r}: one of {', '.join(PROFILES)}")
    return profile


class HammerDbParams(Params):
    """HammerDB's drivers' draws, in the argument order of our ``hdb_*`` routines.

    New-Order: district, customer (uniform 1..3000) and line count; the items, their supply
    warehouses and the rollback are drawn inside the routine, as HammerDB does. Payment:
    85% home, else a random district of another warehouse (of the same one when there is only
    one); 60% by name (NURand(255, 0, 999) with C = 123), the id drawn uniformly either way.
    Order-Status the same without the remote case. ``names=False`` leaves the last name out
    of Payment's and Order-Status' values (PostgreSQL: HammerDB's prepared statements pass
    the literal text ``'$8'``/``'$5'`` instead, which
    :mod:`bench_gui.engines.postgresql.agent.hammerdb`
    reproduces).
    """

    def __init__(self, warehouses: int, seed: int, names: bool = True) -> None:
        super().__init__(warehouses, seed)
        self.with_names = names

    def uniform(self, low: int, high: int) -> int:
        """HammerDB's RandomNumber: an integer in [low, high], every value alike."""
        return low + int(self.rng.random() * (high + 1 - low))

    def params(self, tx: str, w: int, stock_d: int) -> list[bytes | None]:
        rnd = self.uniform
        if tx == "new_order":
            return [
                b"%d" % w,
                self.max_w,
                b"%d" % rnd(1, 10),
                b"%d" % rnd(1, 3000),
                b"%d" % rnd(5, 15),
            ]
        if tx == "payment":
            d = rnd(1, 10)
            c_w, c_d = w, d
            if rnd(1, 100) > 85:
                c_d = rnd(1, 10)
                c_w = rnd(1, self.warehouses)
                while c_w == w and self.warehouses != 1:
                    c_w = rnd(1, self.warehouses)
            byname = rnd(1, 100) <= 60
            values: list[bytes | None] = [
                b"%d" % w,
                b"%d" % d,
                b"%d" % c_w,
                b"%d" % c_d,
                b"%d" % rnd(1, 3000),
                b"1" if byname else b"0",
                b"%d" % rnd(1, 5000),
            ]
            return values + [self._name(byname)] if self.with_names else values
        if tx == "delivery":
            return [b"%d" % w, b"%d" % rnd(1, 10)]
        if tx == "stock_level":
            return [b"%d" % w, b"%d" % stock_d, b"%d" % rnd(10, 20)]
        byname = rnd(1, 100) <= 60
        values = [
            b"%d" % w,
            b"%d" % rnd(1, 10),
            b"%d" % rnd(1, 3000),
            b"1" if byname else b"0",
        ]
        return values + [self._name(byname)] if self.with_names else values

    def _name(self, byname: bool) -> bytes:
        number = self.nurand(255, 0, 999, HAMMERDB_C_LAST)
        return self.names[number] if byname else b""


def params_for(profile: str, warehouses: int, seed: int, names: bool = True) -> Params:
    """The parameter generator of a profile (``names``: see :class:`HammerDbParams`)."""
    if check_profile(profile) == "hammerdb":
        return HammerDbParams(warehouses, seed, names)
    return Params(warehouses, seed)
