"""Seed 004's economics (core.random_read_economics): the RAM each storage needs for a target,
read from the measured curves, with bounds where the target is outside them."""

from __future__ import annotations

import math
from dataclasses import asdict
from pathlib import Path

import pytest

from bench_gui.core.economics import DevicePrice, ram_price
from bench_gui.store import SessionStore
from bench_gui.wire.fio_sizes import GIB
from bench_gui.workloads.random_read.compare import (
    RandomReadCompareError,
    RRComparison,
    compare_random_read,
    session_from_record,
)
from bench_gui.workloads.random_read.economics import (
    default_target,
    ram_economics,
    ram_fraction_for,
)
from tests._fixtures.random_read_sessions import seed004

TIB = 1024 * GIB


@pytest.fixture
def seed(tmp_path: Path) -> RRComparison:
    with SessionStore(tmp_path / "sessions.sqlite3") as store:
        hdd, ssd = seed004(store)
        sessions = [
            session_from_record(asdict(store.get_run(i)), [asdict(s) for s in store.steps(i)])
            for i in (hdd, ssd)
        ]
    return compare_random_read(sessions, hdd, {hdd: "HDD", ssd: "SSD"})


def test_interpolated_between_the_points_around_the_target(seed: RRComparison) -> None:
    """150,000 ops/s on the SSD lies between 2x RAM (146,850) and 1.5x RAM (210,000): RAM
    fractions 0.5 and 0.667, interpolated in log(ops/s)."""
    ssd = seed.others[0]
    bound, fraction, between = ram_fraction_for(ssd.points, 150_000.0)
    assert bound == "measured"
    assert between is not None
    assert [p.ram_ratio for p in between] == [2.0, 1.5]
    share = math.log(150_000 / 146_850) / math.log(210_000 / 146_850)
    assert fraction == pytest.approx(0.5 + share * (2 / 3 - 0.5))
    assert 0.5 < fraction < 2 / 3


def test_the_ram_each_storage_needs_and_what_it_costs(seed: RRComparison) -> None:
    prices = [DevicePrice("DDR3 8GB DIMM", 80.0, "USD", "2014-07-01", "web shop")]
    econ = ram_economics(seed, 150_000.0, TIB, prices)
    hdd, ssd = econ.need(seed.baseline_id), econ.need(seed.others[0].id)
    assert econ.price is not None
    assert econ.price.per_gib == 10.0
    assert econ.price.arithmetic == "$80.00 / 8 GiB = $10.00 per GiB"
    assert ssd.bound == hdd.bound == "measured"
    assert ssd.ram_gib == pytest.approx(1024 * ssd.fraction)
    assert ssd.cost == pytest.approx(ssd.ram_gib * 10.0)
    # The disk reaches 150,000 ops/s only between 1x and 0.5x RAM: more RAM than the dataset.
    assert hdd.fraction > 1
    assert hdd.ram_bytes > 2 * ssd.ram_bytes
    assert econ.findings[0].startswith("SSD needs ")
    assert " less RAM than HDD ($" in econ.findings[0]
    assert any(m.startswith("HDD reaches the target only with more RAM than the dataset")
               for m in econ.messages)  # fmt: skip


def test_out_of_the_measured_range_is_a_bound_not_an_extrapolation(seed: RRComparison) -> None:
    # Less than the SSD's 4x-RAM figure: met with the least RAM measured, so at most that.
    econ = ram_economics(seed, 50_000.0, TIB)
    ssd = econ.need(seed.others[0].id)
    assert ssd.bound == "at_most"
    assert ssd.fraction == pytest.approx(0.25)
    assert ssd.text.startswith("at most 256 GiB (0.25 of the dataset): met at the least RAM")
    # More than anything measured: "more than", naming the best point.
    econ = ram_economics(seed, 5_000_000.0, TIB)
    hdd = econ.need(seed.baseline_id)
    assert hdd.bound == "more_than"
    assert hdd.text == (
        "more than 2,048 GiB (2.00 of the dataset): not reached even with the whole dataset in"
        " RAM in the measured range (at most 2,600,000 ops/s, at 0.5x RAM)"
    )
    assert "the measured range does not tell which needs less" in econ.findings[0]
    assert econ.messages[0].startswith("no RAM price, so no RAM cost: add RAM to the price")


def test_bounds_still_tell_the_difference_when_they_allow_it(seed: RRComparison) -> None:
    # The SSD meets 103,950 ops/s at its least RAM (at most 0.25); the disk needs 1.43.
    econ = ram_economics(seed, 103_950.0, 64 * GIB)
    ssd = econ.need(seed.others[0].id)
    assert ssd.bound == "at_most"
    assert econ.findings[0].startswith("SSD needs at least ")
    assert econ.findings[0].endswith(": at most 16 GiB against 91.6 GiB")


def test_the_default_question_is_the_best_rate_at_the_largest_dataset(seed: RRComparison) -> None:
    assert default_target(seed) == (103_950.0, 64 * GIB)


def test_bad_targets_are_named(seed: RRComparison) -> None:
    with pytest.raises(RandomReadCompareError, match="target ops/s must be positive, got -5"):
        ram_economics(seed, -5, TIB)
    with pytest.raises(RandomReadCompareError, match="dataset size must be positive"):
        ram_economics(seed, 1000, 0)


def test_ram_prices_from_the_price_list() -> None:
    assert ram_price([DevicePrice("Micron 7450 PRO 3.84TB", 500.0)]) is None
    per_gb = ram_price([DevicePrice("RAM per GB", 3.5, "EUR", "2026-01-01")])
    assert per_gb is not None
    assert (per_gb.per_gib, per_gb.currency, per_gb.arithmetic) == (3.5, "EUR", "€3.50 per GiB")
    latest = ram_price(
        [
            DevicePrice("DDR4 RDIMM 32GB", 160.0, "USD", "2025-01-01"),
            DevicePrice("DDR5 RDIMM 64GB", 240.0, "USD", "2026-06-01"),
        ]
    )
    assert latest is not None
    assert latest.per_gib == 3.75
    assert latest.entry.device == "DDR5 RDIMM 64GB"
