"""NURand and the customer last names."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from bench_gui.agent import tpcc_rand


def test_last_names() -> None:
    assert tpcc_rand.last_name(0) == "BARBARBAR"
    assert tpcc_rand.last_name(371) == "PRICALLYOUGHT"
    assert tpcc_rand.last_name(999) == "EINGEINGEING"
    assert len(set(tpcc_rand.LAST_NAMES)) == 1000
    with pytest.raises(ValueError, match="outside"):
        tpcc_rand.last_name(1000)


def test_constants_follow_the_specification() -> None:
    delta = abs(tpcc_rand.C_LAST_RUN - tpcc_rand.C_LAST_LOAD)
    assert 65 <= delta <= 119
    assert delta not in (96, 112)
    assert 0 <= tpcc_rand.C_LAST_LOAD <= 255
    assert 0 <= tpcc_rand.C_ID <= 1023
    assert 0 <= tpcc_rand.C_OL_I_ID <= 8191


@pytest.mark.parametrize(
    ("a", "x", "y", "c"), [(255, 0, 999, 223), (1023, 1, 3000, 259), (8191, 1, 100_000, 7911)]
)
def test_nurand_stays_in_range_and_is_skewed(a: int, x: int, y: int, c: int) -> None:
    rng = random.Random(7)
    draws = [tpcc_rand.nurand(a, x, y, c, rng) for _ in range(20_000)]
    assert min(draws) >= x
    assert max(draws) <= y
    counts = Counter(draws)
    # a uniform draw over y-x+1 values would give each about 20000/(y-x+1) hits
    assert max(counts.values()) > 3 * 20_000 / (y - x + 1)


def test_run_helpers() -> None:
    rng = random.Random(3)
    assert all(1 <= tpcc_rand.run_customer_id(rng) <= 3000 for _ in range(1000))
    assert all(1 <= tpcc_rand.run_item_id(rng) <= 100_000 for _ in range(1000))
    assert tpcc_rand.run_last_name(rng) in tpcc_rand.LAST_NAMES
