"""The stop condition of seed 003: the load at which more users stop buying throughput."""

from __future__ import annotations

from collections.abc import Sequence

from bench_gui.core.saturation import LoadPoint, StopConditions, find_saturation

SEED003_BASELINE = [(48, 200_000), (96, 330_000), (144, 400_000), (192, 440_000), (240, 445_000)]


def points(rows: Sequence[tuple[int, float]], avg: float = 2.0) -> list[LoadPoint]:
    return [LoadPoint(v, n, avg + v / 100, 10 * avg + v / 10) for v, n in rows]


def test_plateau_stops_at_the_last_step_that_paid_off() -> None:
    sat = find_saturation(points(SEED003_BASELINE), StopConditions(min_gain_pct=5))
    assert sat.vus == 192
    assert sat.reached
    assert sat.trigger_vus == 240
    assert "from 192 to 240 users changed NOPM by +1.1%" in sat.reason
    assert "5% minimum gain" in sat.reason
    assert sat.short == "NOPM +1.1% at 240 (< 5%)"
    assert [round(g.pct, 1) for g in sat.gains] == [65.0, 21.2, 10.0, 1.1]


def test_the_threshold_is_the_users_choice() -> None:
    sat = find_saturation(points(SEED003_BASELINE), StopConditions(min_gain_pct=15))
    assert sat.vus == 144  # 144 -> 192 gained 10%, below 15%
    sat = find_saturation(points(SEED003_BASELINE), StopConditions(min_gain_pct=0.5))
    assert sat.vus == 240
    assert not sat.reached
    assert sat.reason.startswith("not reached: NOPM still rose +1.1% at the last step (240")


def test_a_drop_is_a_stop() -> None:
    sat = find_saturation(points([(8, 100), (16, 180), (24, 170)]), StopConditions())
    assert sat.vus == 16
    assert "-5.6%" in sat.reason
    assert sat.peak_vus == 16


def test_latency_limits() -> None:
    rows = [LoadPoint(8, 100, 5, 50), LoadPoint(16, 190, 9, 80), LoadPoint(32, 300, 25, 400)]
    sat = find_saturation(rows, StopConditions(min_gain_pct=5, max_avg_ms=20))
    assert sat.vus == 16
    assert "average response time at 32 users (25.0 ms) exceeds the 20 ms limit" in sat.reason
    sat = find_saturation(rows, StopConditions(min_gain_pct=5, max_p999_ms=100))
    assert sat.vus == 16
    assert "99.9th percentile" in sat.reason
    sat = find_saturation(rows, StopConditions(max_p999_ms=10))
    assert sat.vus is None
    assert "already exceeds the 10 ms limit" in sat.reason


def test_unsorted_input_missing_values_and_a_single_step() -> None:
    rows = [LoadPoint(32, 300), LoadPoint(8, 100), LoadPoint(16, None), LoadPoint(16, 200)]
    assert find_saturation(rows, StopConditions()).vus == 32
    single = find_saturation([LoadPoint(8, 100)], StopConditions())
    assert single.vus == 8
    assert not single.reached
    assert "only one load level" in single.reason
    assert find_saturation([LoadPoint(8, None)], StopConditions()).vus is None


def test_describe() -> None:
    text = StopConditions(5, 20, 100).describe()
    assert text == (
        "the NOPM gain from one step to the next falls below 5%; or the average response time"
        " exceeds 20 ms; or the 99.9th percentile response time exceeds 100 ms"
    )
