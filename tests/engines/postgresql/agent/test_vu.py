"""The virtual users' draws: the mix, NURand ranges, all-warehouses ownership."""

from __future__ import annotations

from collections import Counter

from bench_gui.engines.postgresql.agent.vu import TX_BY_DRAW, _Params, owned_warehouses
from bench_gui.wire.protocol import TX_TYPES


def test_mix_follows_the_transaction_table() -> None:
    params = _Params(warehouses=4, seed=7)
    n = 230_000
    counts = Counter(params.choose_tx() for _ in range(n))
    for tx in TX_TYPES:
        assert abs(counts[tx.key] / n - tx.weight / 23) < 0.005
    assert len(TX_BY_DRAW) == 23


def test_nurand_stays_in_range_and_is_skewed() -> None:
    params = _Params(warehouses=1, seed=3)
    draws = [params.nurand(1023, 1, 3000, 259) for _ in range(60_000)]
    assert min(draws) >= 1
    assert max(draws) <= 3000
    top = Counter(draws).most_common(300)
    # Non-uniform: the 10% most frequent ids take clearly more than 10% of the draws.
    assert sum(c for _, c in top) / len(draws) > 0.2


def test_parameters_are_well_formed() -> None:
    params = _Params(warehouses=3, seed=11)
    for _ in range(2000):
        new_order = params.params("new_order", 2, 5)
        assert new_order[0] == b"2"
        assert new_order[1] == b"3"
        assert 1 <= int(new_order[2]) <= 10
        assert 5 <= int(new_order[4]) <= 15
        payment = params.params("payment", 2, 5)
        assert 1 <= int(payment[2]) <= 3
        assert payment[5] in (b"0", b"1")
        if payment[5] == b"1":
            assert payment[7]  # a real last name is bound when paying by name
        assert 1 <= int(payment[6]) <= 5000
        stock = params.params("stock_level", 2, 5)
        assert stock[1] == b"5"
        assert 10 <= int(stock[2]) <= 20


def test_other_warehouse_is_never_home() -> None:
    params = _Params(warehouses=5, seed=1)
    for home in range(1, 6):
        seen = {params.other_warehouse(home) for _ in range(500)}
        assert home not in seen
        assert seen == set(range(1, 6)) - {home}


def test_all_warehouses_are_owned_once_between_the_users() -> None:
    warehouses, users = 10, 4
    owned = [owned_warehouses(u, users, warehouses) for u in range(users)]
    flat = [w for ws in owned for w in ws]
    assert set(flat) == set(range(1, warehouses + 1))
    assert all(len(ws) == 3 for ws in owned)  # k = ceil(10 / 4)
