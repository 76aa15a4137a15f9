"""TPM and NOPM from two readings of SQL Server's counters, as HammerDB computes them."""

from __future__ import annotations

import pytest

from bench_gui.agent.engines import Snapshot
from bench_gui.engines.mssql.agent.counters import CounterError, rates, snapshot_from_row


def test_rates_from_two_readings() -> None:
    first = snapshot_from_row((30_010, 1_000_000), t=100.0)
    last = snapshot_from_row((31_210, 1_090_000), t=220.0)  # two minutes later
    r = rates(first, last)
    assert r.seconds == 120.0
    assert r.new_orders == 1_200
    assert r.batch_requests == 90_000
    assert r.nopm == 600.0  # 1,200 new orders over 2 minutes
    assert r.tpm == 45_000.0


def test_uneven_window() -> None:
    r = rates(Snapshot(0.0, 0, 0), Snapshot(45.0, 30, 900))
    assert r.nopm == pytest.approx(40.0)
    assert r.tpm == pytest.approx(1200.0)


def test_bigint_sums_stay_exact() -> None:
    base = 2**40  # SUM(CAST(d_next_o_id AS bigint)) over many warehouses
    r = rates(Snapshot(0.0, base, 2**50), Snapshot(60.0, base + 7, 2**50 + 11))
    assert (r.new_orders, r.batch_requests, r.nopm, r.tpm) == (7, 11, 7.0, 11.0)


@pytest.mark.parametrize(
    ("first", "last", "message"),
    [
        (Snapshot(10.0, 5, 5), Snapshot(10.0, 6, 6), "not later"),
        (Snapshot(0.0, 100, 5), Snapshot(60.0, 90, 6), "schema was reloaded"),
        (Snapshot(0.0, 100, 500), Snapshot(60.0, 110, 20), "server restarted"),
    ],
)
def test_impossible_windows_are_refused(first: Snapshot, last: Snapshot, message: str) -> None:
    with pytest.raises(CounterError, match=message):
        rates(first, last)


def test_missing_counters_say_why() -> None:
    with pytest.raises(CounterError, match="VIEW SERVER STATE"):
        snapshot_from_row((30_010, None), t=0.0)
    with pytest.raises(CounterError, match="district is empty"):
        snapshot_from_row((None, 5), t=0.0)
    with pytest.raises(CounterError, match="no row"):
        snapshot_from_row(None, t=0.0)
