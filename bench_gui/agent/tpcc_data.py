"""TPROC-C rows as text, for every engine's loader: the generator and the column orders.

The load is CPU-bound, so the generator avoids per-value Python work: random strings come
from pools precomputed once per process (slices of one random buffer), per-column values are
drawn in bulk with ``random.choices`` over tables of preformatted strings. Each engine's
loader sends the rows its own way (PostgreSQL COPY, batched ODBC inserts).
"""

from __future__ import annotations

import functools
import random
import time
from typing import Final

from bench_gui.agent import tpcc_rand
from bench_gui.wire.tpcc_tables import ITEMS

_ALNUM: Final = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_UPPER: Final = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_DIGITS: Final = b"0123456789"
_POOL: Final = 1 << 15  # strings per pool
_WORDS: Final = 1 << 17  # 24-letter words in the dist-info buffer
_WORD_STEP: Final = 25  # a word and its tab
_STOCK_TAILS: Final = 1 << 16  # precomputed stock row tails
# A rate over less time than this is noise (a burst of rows queued before the clock started
# gave 73 million rows/s): progress says no rate (0) until this much time has passed.
RATE_MIN_S: Final = 1.0
# order_line's columns in the order the loader writes them: the two random ones last.
ORDER_LINE_COLUMNS: Final = (
    "ol_o_id, ol_d_id, ol_w_id, ol_supply_w_id, ol_number, ol_delivery_d, ol_quantity,"
    " ol_amount, ol_i_id, ol_dist_info"
)
# customer's columns as the loader writes them: c_last early, the rest comes from a pool.
CUSTOMER_COLUMNS: Final = (
    "c_id, c_d_id, c_w_id, c_last, c_first, c_middle, c_street_1, c_street_2, c_city,"
    " c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance,"
    " c_ytd_payment, c_payment_cnt, c_delivery_cnt, c_data"
)
_LINE_BLOCKS: Final = 1 << 13  # precomputed order-line blocks of each kind


def _table(alphabet: bytes) -> bytes:
    """A bytes.translate table mapping any byte to a character of the alphabet."""
    return bytes(alphabet[i % len(alphabet)] for i in range(256))


_ALNUM_T: Final = _table(_ALNUM)
_UPPER_T: Final = _table(_UPPER)
_DIGITS_T: Final = _table(_DIGITS)


class DataGen:
    """Generates the text rows of the TPROC-C tables for one process.

    Random strings are slices of one random buffer. The random part of a stock or customer
    row is drawn whole from a pool of precomputed row tails, and an order's lines from a pool
    of precomputed blocks, so a row costs about one draw and one f-string. Only the filler
    repeats between rows; every value the spec gives a rule for (ids, c_last, quantities,
    carriers, credit, ORIGINAL, delivered or not) is generated per row or drawn with the
    spec's distribution. COPY lists the columns in the order written (CUSTOMER_COLUMNS,
    ORDER_LINE_COLUMNS).
    """

    def __init__(self, seed: int | None = None, timestamp: str | None = None) -> None:
        rng = random.Random(seed)
        self.rng = rng
        self.ts = timestamp or time.strftime("%Y-%m-%d %H:%M:%S")
        self._buf = rng.randbytes(1 << 22).translate(_ALNUM_T).decode("ascii")
        words = rng.randbytes(_WORDS * 24).translate(_ALNUM_T).decode("ascii")
        # 24-letter words separated by tabs: a slice of 10 words is a row's ten s_dist_xx.
        self.words = "\t".join(words[i : i + 24] for i in range(0, len(words), 24))
        self.word_starts = range(0, (_WORDS - 10) * _WORD_STEP, _WORD_STEP)
        self.s_data = self._astrings(26, 50, original=True)
        self.i_data = self.s_data
        self.i_name = self._astrings(14, 24)
        self.first = self._astrings(8, 16)
        self.c_data = self._astrings(300, 500, size=_POOL // 4)
        self.h_data = self._astrings(12, 24)
        self.name = self._astrings(6, 10, size=1024)
        streets = self._astrings(10, 20)
        states = rng.randbytes(2 * _POOL).translate(_UPPER_T).decode("ascii")
        zips = rng.randbytes(4 * _POOL).translate(_DIGITS_T).decode("ascii")
        phones = rng.randbytes(16 * _POOL).translate(_DIGITS_T).decode("ascii")
        pick = rng.choices
        self.address = [
            f"{a}\t{b}\t{c}\t{states[2 * i : 2 * i + 2]}\t{zips[4 * i : 4 * i + 4]}11111"
            for i, (a, b, c) in enumerate(
                zip(
                    pick(streets, k=_POOL),
                    pick(streets, k=_POOL),
                    pick(streets, k=_POOL),
                    strict=True,
                )
            )
        ]
        self.phone = [phones[i : i + 16] for i in range(0, len(phones), 16)]
        self.tax = [f"0.{t:04d}" for t in range(0, 2001)]  # 0.0000 .. 0.2000
        self.discount = [f"0.{t:04d}" for t in range(0, 5001)]  # 0.0000 .. 0.5000
        self.price = [f"{p // 100}.{p % 100:02d}" for p in range(100, 10001)]
        self.amount = [f"{p // 100}.{p % 100:02d}" for p in pick(range(1, 1_000_000), k=_POOL)]
        self.qty = [str(q) for q in range(10, 101)]
        self.carrier = [str(c) for c in range(1, 11)]
        self.ol_cnt = range(5, 16)
        self.credit = ["GC"] * 9 + ["BC"]

    # The bigger pools are built on first use: the item loader needs none of them.

    @functools.cached_property
    def stock_tail(self) -> list[str]:
        """Stock rows after (s_i_id, s_w_id): quantity, the ten s_dist_xx (ten consecutive
        words of the buffer), the zero counters and s_data."""
        pick = self.rng.choices
        span = 10 * _WORD_STEP - 1
        words = self.words
        return [
            f"{q}\t{words[o : o + span]}\t0\t0\t0\t{data}"
            for q, o, data in zip(
                pick(self.qty, k=_STOCK_TAILS),
                pick(self.word_starts, k=_STOCK_TAILS),
                pick(self.s_data, k=_STOCK_TAILS),
                strict=True,
            )
        ]

    @functools.cached_property
    def line_blocks(self) -> tuple[list[list[str]], list[list[str]]]:
        """Order lines in blocks of 15 (ol_number 1..15), delivered ones and pending ones.

        The columns that name the order are left out (ORDER_LINE_COLUMNS order from
        ol_number on), so an order of n lines is one block's first n entries joined, with no
        Python work per line. Delivered lines have a delivery date and amount 0.00, pending
        ones no date and a random amount; all have quantity 5, a uniform random item and a
        random ol_dist_info.
        """
        pick = self.rng.choices
        words, ts = self.words, self.ts
        k = _LINE_BLOCKS * 15
        items = pick(range(1, ITEMS + 1), k=2 * k)
        dists = pick(self.word_starts, k=2 * k)
        amounts = pick(self.amount, k=k)
        done = [
            f"{j % 15 + 1}\t{ts}\t5\t0.00\t{i}\t{words[o : o + 24]}"
            for j, i, o in zip(range(k), items[:k], dists[:k], strict=True)
        ]
        todo = [
            f"{j % 15 + 1}\t\\N\t5\t{a}\t{i}\t{words[o : o + 24]}"
            for j, a, i, o in zip(range(k), amounts, items[k:], dists[k:], strict=True)
        ]
        return (
            [done[b : b + 15] for b in range(0, k, 15)],
            [todo[b : b + 15] for b in range(0, k, 15)],
        )

    def _astrings(
        self, lo: int, hi: int, *, size: int = _POOL, original: bool = False
    ) -> list[str]:
        """Random alphanumeric strings of length lo..hi; 10% contain ORIGINAL if asked."""
        rng, buf = self.rng, self._buf
        offsets = rng.choices(range(len(buf) - hi), k=size)
        lengths = rng.choices(range(lo, hi + 1), k=size)
        pool = [buf[o : o + n] for o, n in zip(offsets, lengths, strict=True)]
        if original:
            for i in range(0, size, 10):  # every tenth string: exactly 10% of the pool
                s = pool[i]
                at = rng.randrange(len(s) - 7)
                pool[i] = s[:at] + "ORIGINAL" + s[at + 8 :]
            rng.shuffle(pool)
        return pool

    # -- tables --------------------------------------------------------------------------

    def item(self, first: int, last: int) -> str:
        pick = self.rng.choices
        n = last - first + 1
        return "".join(
            [
                f"{i}\t{im}\t{name}\t{price}\t{data}\n"
                for i, im, name, price, data in zip(
                    range(first, last + 1),
                    pick(range(1, 10001), k=n),
                    pick(self.i_name, k=n),
                    pick(self.price, k=n),
                    pick(self.i_data, k=n),
                    strict=True,
                )
            ]
        )

    def warehouse(self, w: int) -> str:
        rng = self.rng
        return (
            f"{w}\t{rng.choice(self.name)}\t{rng.choice(self.address)}\t"
            f"{rng.choice(self.tax)}\t300000.00\n"
        )

    def district(self, w: int) -> str:
        rng = self.rng
        return "".join(
            f"{d}\t{w}\t{rng.choice(self.name)}\t{rng.choice(self.address)}\t"
            f"{rng.choice(self.tax)}\t30000.00\t3001\n"
            for d in range(1, 11)
        )

    def stock(self, w: int, first: int, last: int) -> str:
        n = last - first + 1
        return "".join(
            [
                f"{i}\t{w}\t{tail}\n"
                for i, tail in zip(
                    range(first, last + 1), self.rng.choices(self.stock_tail, k=n), strict=True
                )
            ]
        )

    def customer_last_names(self) -> list[str]:
        """c_last for c_id 1..3000: syllables of c_id-1 up to 1000, then NURand(255,0,999)."""
        names = tpcc_rand.LAST_NAMES
        n = tpcc_rand.CUSTOMERS_PER_DISTRICT - 1000
        pick = self.rng.choices
        c = tpcc_rand.C_LAST_LOAD
        drawn = [
            names[((a | b) + c) % 1000]
            for a, b in zip(pick(range(256), k=n), pick(range(1000), k=n), strict=True)
        ]
        return list(names) + drawn

    @functools.cached_property
    def customer_tail(self) -> list[str]:
        """Customer rows after (c_id, c_d_id, c_w_id, c_last), in CUSTOMER_COLUMNS order."""
        pick = self.rng.choices
        ts = self.ts
        return [
            f"{first}\tOE\t{addr}\t{phone}\t{ts}\t{credit}\t50000.00\t{disc}\t-10.00\t10.00"
            f"\t1\t0\t{data}"
            for first, addr, phone, credit, disc, data in zip(
                pick(self.first, k=_POOL),
                pick(self.address, k=_POOL),
                pick(self.phone, k=_POOL),
                pick(self.credit, k=_POOL),
                pick(self.discount, k=_POOL),
                pick(self.c_data, k=_POOL),
                strict=True,
            )
        ]

    def customer(self, w: int, d: int) -> str:
        """Customer rows of one district, in CUSTOMER_COLUMNS order."""
        n = tpcc_rand.CUSTOMERS_PER_DISTRICT
        return "".join(
            [
                f"{c}\t{d}\t{w}\t{last}\t{tail}\n"
                for c, last, tail in zip(
                    range(1, n + 1),
                    self.customer_last_names(),
                    self.rng.choices(self.customer_tail, k=n),
                    strict=True,
                )
            ]
        )

    def history(self, w: int, d: int) -> str:
        n = tpcc_rand.CUSTOMERS_PER_DISTRICT
        ts = self.ts
        return "".join(
            [
                f"{c}\t{d}\t{w}\t{d}\t{w}\t{ts}\t10.00\t{data}\n"
                for c, data in zip(range(1, n + 1), self.rng.choices(self.h_data, k=n), strict=True)
            ]
        )

    def orders(self, w: int, d: int) -> tuple[str, str, str]:
        """orders, new_order and order_line rows of one district."""
        rng = self.rng
        pick = rng.choices
        n = tpcc_rand.CUSTOMERS_PER_DISTRICT
        ts = self.ts
        customers = list(range(1, n + 1))
        rng.shuffle(customers)
        counts = pick(self.ol_cnt, k=n)
        # Orders up to 2100 are delivered (a carrier), the last 900 are not (NULL).
        carriers = pick(self.carrier, k=2100) + ["\\N"] * (n - 2100)
        orders = "".join(
            [
                f"{o}\t{d}\t{w}\t{c}\t{ts}\t{carrier}\t{k}\t1\n"
                for o, c, carrier, k in zip(
                    range(1, n + 1), customers, carriers, counts, strict=True
                )
            ]
        )
        new_order = "".join([f"{o}\t{d}\t{w}\n" for o in range(2101, n + 1)])

        # Lines: one precomputed block per order (see __init__), its head joined in front of
        # each line.
        delivered, pending = self.line_blocks
        blocks = pick(delivered, k=2100) + pick(pending, k=n - 2100)
        lines = []
        for o, cnt, block in zip(range(1, n + 1), counts, blocks, strict=True):
            head = f"{o}\t{d}\t{w}\t{w}\t"
            lines.append(head + ("\n" + head).join(block[:cnt]) + "\n")
        return orders, new_order, "".join(lines)


def rows_per_second(rows: int, seconds: float) -> float:
    """Rows per second over ``seconds``; 0 (no rate yet) below :data:`RATE_MIN_S`."""
    return rows / seconds if seconds >= RATE_MIN_S else 0.0
