"""What every engine's virtual users share: the counter slots, the worker spec, the mix.

A sweep step (:mod:`bench_gui.agent.driver`) starts worker processes with a
:class:`WorkerSpec`; each engine's ``worker_main`` counts into the shared slots laid out here
(committed per transaction type, then rollbacks, then errors) and draws its transactions and
their parameters with :class:`Params`, so the mix and the parameters are the same on every
engine.
"""

from __future__ import annotations

import math
import os
import random
import time
from dataclasses import dataclass
from typing import Any

from bench_gui.agent.tpcc_rand import C_ID, C_LAST_RUN, last_name
from bench_gui.wire.protocol import TX_KEYS, TX_TYPES

# Shared counter slots per worker: committed per tx type, then rollbacks, then errors.
SLOT_ROLLBACK = len(TX_KEYS)
SLOT_ERRORS = SLOT_ROLLBACK + 1
SLOTS = SLOT_ERRORS + 1
TX_INDEX = {key: i for i, key in enumerate(TX_KEYS)}

# HammerDB's draw U[1,23] as a table: the weights of the one transaction-type table.
TX_BY_DRAW = tuple(t.key for t in TX_TYPES for _ in range(t.weight))
# Keying and thinking times (seconds) per transaction type, TPC-C's values.
KEYING_S = {
    "new_order": 18.0,
    "payment": 3.0,
    "delivery": 2.0,
    "stock_level": 2.0,
    "order_status": 2.0,
}
THINK_MEAN_S = {
    "new_order": 12.0,
    "payment": 12.0,
    "delivery": 5.0,
    "stock_level": 5.0,
    "order_status": 10.0,
}
HIST_MAX_US = 3_600_000_000  # one hour, in microseconds
# The flags a step shares with its worker processes: [stop, measuring, hold].
FLAG_STOP, FLAG_MEASURING, FLAG_HOLD = 0, 1, 2
FLAGS = 3
HOLD_POLL_S = 0.001


def hold_until_started(flags: Any, parent: int) -> None:
    """Connected users wait here, idle, while the step holds them: with several driver hosts
    the users connect before the start barrier (ready means connected) and all begin at the
    barrier's instant, so connecting takes none of its lead. A stop or a dead parent ends the
    wait too (the caller's loop then ends). Flags without a hold slot (a caller of the two
    before it) never hold."""
    if len(flags) <= FLAG_HOLD:
        return
    while flags[FLAG_HOLD] and not flags[FLAG_STOP] and os.getppid() == parent:
        time.sleep(HOLD_POLL_S)


@dataclass
class WorkerSpec:
    """What one worker process needs: its users and the workload parameters."""

    worker: int
    conninfo: str
    vus: list[int]  # global virtual-user indices, 0-based
    total_vus: int
    warehouses: int
    all_warehouses: bool
    keying_thinking: bool
    seed: int
    profile: str = "spec"  # "spec" or "hammerdb": bench_gui.agent.profiles


def owned_warehouses(vu: int, total_vus: int, warehouses: int) -> list[int]:
    """Warehouses a user cycles through in all-warehouses mode (the reference's assignment)."""
    k = max(1, math.ceil(warehouses / total_vus))
    return sorted({(vu + j * total_vus) % warehouses + 1 for j in range(k)})


class Params:
    """Draws transaction types and their parameters as libpq text values (bytes)."""

    def __init__(self, warehouses: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.warehouses = warehouses
        self.names = [last_name(n).encode() for n in range(1000)]
        self.max_w = b"%d" % warehouses

    def nurand(self, a: int, x: int, y: int, c: int) -> int:
        # rand(0, a) and rand(x, y) drawn from random() directly: randint costs ~10x more.
        rnd = self.rng.random
        span = y - x + 1
        return (((int(rnd() * (a + 1)) | (int(rnd() * span) + x)) + c) % span) + x

    def choose_tx(self) -> str:
        return TX_BY_DRAW[int(self.rng.random() * len(TX_BY_DRAW))]

    def other_warehouse(self, w: int) -> int:
        other = int(self.rng.random() * (self.warehouses - 1)) + 1
        return other if other < w else other + 1

    def params(self, tx: str, w: int, stock_d: int) -> list[bytes | None]:
        rnd = self.rng.random
        if tx == "new_order":
            rbk = b"1" if rnd() < 0.01 else b"0"
            return [
                b"%d" % w,
                self.max_w,
                b"%d" % (int(rnd() * 10) + 1),
                b"%d" % self.nurand(1023, 1, 3000, C_ID),
                b"%d" % (int(rnd() * 11) + 5),
                rbk,
            ]
        if tx == "payment":
            d = int(rnd() * 10) + 1
            if self.warehouses > 1 and rnd() < 0.15:
                c_w, c_d = self.other_warehouse(w), int(rnd() * 10) + 1
            else:
                c_w, c_d = w, d
            byname = rnd() < 0.6
            name = self.names[self.nurand(255, 0, 999, C_LAST_RUN)] if byname else b""
            return [
                b"%d" % w,
                b"%d" % d,
                b"%d" % c_w,
                b"%d" % c_d,
                b"%d" % self.nurand(1023, 1, 3000, C_ID),
                b"1" if byname else b"0",
                b"%d" % (int(rnd() * 5000) + 1),
                name,
            ]
        if tx == "delivery":
            return [b"%d" % w, b"%d" % (int(rnd() * 10) + 1)]
        if tx == "stock_level":
            return [b"%d" % w, b"%d" % stock_d, b"%d" % (int(rnd() * 11) + 10)]
        byname = rnd() < 0.6
        name = self.names[self.nurand(255, 0, 999, C_LAST_RUN)] if byname else b""
        return [
            b"%d" % w,
            b"%d" % (int(rnd() * 10) + 1),
            b"%d" % self.nurand(1023, 1, 3000, C_ID),
            b"1" if byname else b"0",
            name,
        ]
