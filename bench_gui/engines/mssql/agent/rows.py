"""TPROC-C rows as Python tuples, for a loader that binds parameters (pyodbc).

The PostgreSQL loader writes COPY text (tab-separated, ``\\N`` for NULL) and lives next to
psycopg; an ODBC loader needs typed values instead. The random rules are the same (TPC-C
clause 4.3.3.1, as :mod:`bench_gui.agent.tpcc_data` applies them): alphanumeric strings of the
spec's lengths, 10% of item and stock data holding ORIGINAL, c_last from the syllables (c_id up
to 1000 in order, then NURand(255, 0, 999) with the load constant), customers shuffled over each
district's 3,000 orders, orders above 2,100 undelivered (no carrier, lines without a date and
with an amount, a new_order row each), 5 to 15 lines per order, 10% bad credit.

Money goes out as :class:`~decimal.Decimal` and times as whole-second datetimes: SQL Server's
``datetime`` cannot hold microseconds, and a bound value that carries them is refused.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterator
from decimal import Decimal
from typing import Any, Final

from bench_gui.agent import tpcc_rand
from bench_gui.wire.tpcc_tables import ITEMS

Row = tuple[Any, ...]

_ALNUM: Final = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_UPPER: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_BUFFER: Final = 1 << 20

ORDERS_PER_DISTRICT: Final = 3_000
FIRST_UNDELIVERED: Final = 2_101  # orders from here on are new orders

# Each table's columns in the order the tuples hold them, with the type they are bound as:
# ("int",), ("char", n) for char/varchar n, ("dec", precision, scale), ("datetime",).
COLUMNS: Final[dict[str, tuple[tuple[str, tuple[Any, ...]], ...]]] = {
    "item": (
        ("i_id", ("int",)),
        ("i_im_id", ("int",)),
        ("i_name", ("char", 24)),
        ("i_price", ("dec", 10, 2)),
        ("i_data", ("char", 50)),
    ),
    "warehouse": (
        ("w_id", ("int",)),
        ("w_name", ("char", 10)),
        ("w_street_1", ("char", 20)),
        ("w_street_2", ("char", 20)),
        ("w_city", ("char", 20)),
        ("w_state", ("char", 2)),
        ("w_zip", ("char", 9)),
        ("w_tax", ("dec", 10, 4)),
        ("w_ytd", ("dec", 19, 2)),
    ),
    "district": (
        ("d_id", ("int",)),
        ("d_w_id", ("int",)),
        ("d_name", ("char", 10)),
        ("d_street_1", ("char", 20)),
        ("d_street_2", ("char", 20)),
        ("d_city", ("char", 20)),
        ("d_state", ("char", 2)),
        ("d_zip", ("char", 9)),
        ("d_tax", ("dec", 10, 4)),
        ("d_ytd", ("dec", 19, 2)),
        ("d_next_o_id", ("int",)),
    ),
    "stock": (
        ("s_i_id", ("int",)),
        ("s_w_id", ("int",)),
        ("s_quantity", ("int",)),
        *((f"s_dist_{i:02d}", ("char", 24)) for i in range(1, 11)),
        ("s_ytd", ("int",)),
        ("s_order_cnt", ("int",)),
        ("s_remote_cnt", ("int",)),
        ("s_data", ("char", 50)),
    ),
    "customer": (
        ("c_id", ("int",)),
        ("c_d_id", ("int",)),
        ("c_w_id", ("int",)),
        ("c_first", ("char", 16)),
        ("c_middle", ("char", 2)),
        ("c_last", ("char", 16)),
        ("c_street_1", ("char", 20)),
        ("c_street_2", ("char", 20)),
        ("c_city", ("char", 20)),
        ("c_state", ("char", 2)),
        ("c_zip", ("char", 9)),
        ("c_phone", ("char", 16)),
        ("c_since", ("datetime",)),
        ("c_credit", ("char", 2)),
        ("c_credit_lim", ("dec", 19, 2)),
        ("c_discount", ("dec", 10, 4)),
        ("c_balance", ("dec", 19, 2)),
        ("c_ytd_payment", ("dec", 19, 2)),
        ("c_payment_cnt", ("int",)),
        ("c_delivery_cnt", ("int",)),
        ("c_data", ("char", 500)),
    ),
    "history": (
        ("h_c_id", ("int",)),
        ("h_c_d_id", ("int",)),
        ("h_c_w_id", ("int",)),
        ("h_d_id", ("int",)),
        ("h_w_id", ("int",)),
        ("h_date", ("datetime",)),
        ("h_amount", ("dec", 10, 2)),
        ("h_data", ("char", 24)),
    ),
    "orders": (
        ("o_id", ("int",)),
        ("o_d_id", ("int",)),
        ("o_w_id", ("int",)),
        ("o_c_id", ("int",)),
        ("o_entry_d", ("datetime",)),
        ("o_carrier_id", ("int",)),
        ("o_ol_cnt", ("int",)),
        ("o_all_local", ("int",)),
    ),
    "new_order": (
        ("no_o_id", ("int",)),
        ("no_d_id", ("int",)),
        ("no_w_id", ("int",)),
    ),
    "order_line": (
        ("ol_o_id", ("int",)),
        ("ol_d_id", ("int",)),
        ("ol_w_id", ("int",)),
        ("ol_number", ("int",)),
        ("ol_i_id", ("int",)),
        ("ol_supply_w_id", ("int",)),
        ("ol_delivery_d", ("datetime",)),
        ("ol_quantity", ("int",)),
        ("ol_amount", ("dec", 10, 2)),
        ("ol_dist_info", ("char", 24)),
    ),
}

_CENTS: Final = Decimal("0.01")
_TEN_THOUSANDTHS: Final = Decimal("0.0001")


class RowGen:
    """Draws the rows of one warehouse at a time; one per loader thread (not thread-safe)."""

    def __init__(self, seed: int | None = None, now: dt.datetime | None = None) -> None:
        self.rng = random.Random(seed)
        self.now = (now or dt.datetime.now()).replace(microsecond=0)
        rng = self.rng
        self._buf = "".join(rng.choices(_ALNUM, k=_BUFFER))

    # -- fields ----------------------------------------------------------------------------
    def astring(self, lo: int, hi: int) -> str:
        """Random alphanumeric string of lo..hi characters (a slice of one random buffer)."""
        n = self.rng.randint(lo, hi)
        at = self.rng.randrange(_BUFFER - n)
        return self._buf[at : at + n]

    def data(self, lo: int, hi: int) -> str:
        """Item or stock data: 10% hold ORIGINAL at a random place."""
        s = self.astring(lo, hi)
        if self.rng.random() < 0.1:
            at = self.rng.randrange(len(s) - 7)
            s = s[:at] + "ORIGINAL" + s[at + 8 :]
        return s

    def address(self) -> tuple[str, str, str, str, str]:
        """Street 1, street 2, city (10..20), state (2 letters), zip (4 digits + 11111)."""
        rng = self.rng
        state = "".join(rng.choices(_UPPER, k=2))
        zip_code = f"{rng.randrange(10_000):04d}11111"
        return (self.astring(10, 20), self.astring(10, 20), self.astring(10, 20), state, zip_code)

    def tax(self) -> Decimal:
        """0.0000 .. 0.2000."""
        return Decimal(self.rng.randint(0, 2000)) * _TEN_THOUSANDTHS

    # -- tables ----------------------------------------------------------------------------
    def item(self, first: int = 1, last: int = ITEMS) -> Iterator[Row]:
        rng = self.rng
        for i in range(first, last + 1):
            price = Decimal(rng.randint(100, 10_000)) * _CENTS
            yield (i, rng.randint(1, 10_000), self.astring(14, 24), price, self.data(26, 50))

    def warehouse(self, w: int) -> Row:
        return (w, self.astring(6, 10), *self.address(), self.tax(), Decimal("300000.00"))

    def district(self, w: int) -> Iterator[Row]:
        for d in range(1, tpcc_rand.DISTRICTS_PER_WAREHOUSE + 1):
            yield (
                d,
                w,
                self.astring(6, 10),
                *self.address(),
                self.tax(),
                Decimal("30000.00"),
                ORDERS_PER_DISTRICT + 1,
            )

    def stock(self, w: int, first: int = 1, last: int = ITEMS) -> Iterator[Row]:
        rng = self.rng
        for i in range(first, last + 1):
            at = rng.randrange(_BUFFER - 240)  # the ten s_dist_xx: one 240-letter slice
            buf = self._buf
            dists = [buf[at + k : at + k + 24] for k in range(0, 240, 24)]
            yield (i, w, rng.randint(10, 100), *dists, 0, 0, 0, self.data(26, 50))

    def last_name(self, c_id: int) -> str:
        """c_last: the syllables of c_id - 1 up to 1000, then NURand(255, 0, 999)."""
        if c_id <= 1000:
            return tpcc_rand.LAST_NAMES[c_id - 1]
        n = tpcc_rand.nurand(tpcc_rand.A_C_LAST, 0, 999, tpcc_rand.C_LAST_LOAD, self.rng)
        return tpcc_rand.LAST_NAMES[n]

    def customer(self, w: int, d: int) -> Iterator[Row]:
        rng = self.rng
        for c in range(1, tpcc_rand.CUSTOMERS_PER_DISTRICT + 1):
            yield (
                c,
                d,
                w,
                self.astring(8, 16),
                "OE",
                self.last_name(c),
                *self.address(),
                "".join(rng.choices("0123456789", k=16)),
                self.now,
                "BC" if rng.random() < 0.1 else "GC",
                Decimal("50000.00"),
                Decimal(rng.randint(0, 5000)) * _TEN_THOUSANDTHS,
                Decimal("-10.00"),
                Decimal("10.00"),
                1,
                0,
                self.astring(300, 500),
            )

    def history(self, w: int, d: int) -> Iterator[Row]:
        for c in range(1, tpcc_rand.CUSTOMERS_PER_DISTRICT + 1):
            yield (c, d, w, d, w, self.now, Decimal("10.00"), self.astring(12, 24))

    def orders(self, w: int, d: int) -> tuple[list[Row], list[Row], list[Row]]:
        """orders, new_order and order_line rows of one district."""
        rng = self.rng
        customers = list(range(1, ORDERS_PER_DISTRICT + 1))
        rng.shuffle(customers)
        orders: list[Row] = []
        new_order: list[Row] = []
        lines: list[Row] = []
        for o, c in zip(range(1, ORDERS_PER_DISTRICT + 1), customers, strict=True):
            delivered = o < FIRST_UNDELIVERED
            count = rng.randint(5, 15)
            carrier = rng.randint(1, 10) if delivered else None
            orders.append((o, d, w, c, self.now, carrier, count, 1))
            if not delivered:
                new_order.append((o, d, w))
            for n in range(1, count + 1):
                amount = Decimal("0.00") if delivered else Decimal(rng.randint(1, 999_999)) * _CENTS
                lines.append(
                    (
                        o,
                        d,
                        w,
                        n,
                        rng.randint(1, ITEMS),
                        w,
                        self.now if delivered else None,
                        5,
                        amount,
                        self.astring(24, 24),
                    )
                )
        return orders, new_order, lines
