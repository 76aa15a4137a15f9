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
    assert sat.reason.startswith("not reached by 240 users: NOPM still rose +1.1% at the last")
    assert sat.short == "not reached by 240 users"
    assert sat.not_reached
    assert not sat.first_step


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


def test_a_sweep_still_rising_at_its_last_step_did_not_saturate() -> None:
    # The SSD of issue 14: still +10.6% at 32 users.
    rows = [(4, 20_000), (8, 38_000), (16, 60_000), (24, 75_000), (32, 82_950)]
    sat = find_saturation(points(rows), StopConditions(min_gain_pct=5))
    assert (sat.vus, sat.reached, sat.not_reached) == (32, False, True)
    assert sat.reason == (
        "not reached by 32 users: NOPM still rose +10.6% at the last step; the sweep ended"
        " before a stop condition"
    )
    assert (sat.first_vus, sat.last_vus) == (4, 32)


def test_saturating_at_the_first_step_says_the_range_started_too_high() -> None:
    sat = find_saturation(points([(4, 9000), (8, 9100), (16, 8700)]), StopConditions())
    assert (sat.vus, sat.reached, sat.first_step) == (4, True, True)
    assert sat.reason.endswith(
        "it saturated at the first load tested (4 users): the range started too high to show"
        " where the limit is"
    )
    assert sat.short == "NOPM +1.1% at 8 (< 5%); first step"
    later = find_saturation(points([(4, 1000), (8, 1900), (16, 1950)]), StopConditions())
    assert (later.vus, later.first_step) == (8, False)
    over = find_saturation([LoadPoint(8, 100, 30, 90)], StopConditions(max_avg_ms=20))
    assert (over.vus, over.first_step) == (None, True)
    assert "the range started too high" in over.reason


def test_a_dip_that_a_later_step_beats_is_noise_not_the_limit() -> None:
    # A study's fast system at 1/2/4/8 users: a noisy window at 2, then its peak at 4. The
    # brief read "saturates at the first load tested (1 users): the range started too high".
    rows = [(1, 6_079), (2, 5_051), (4, 15_065), (8, 14_730)]
    sat = find_saturation(points(rows), StopConditions())
    assert (sat.vus, sat.reached, sat.first_step, sat.trigger_vus) == (4, True, False, 8)
    assert sat.passed_over == (2,)
    assert sat.reason.endswith(
        "(NOPM dropped at 2 users, then rose past the minimum gain at a heavier load: taken for"
        " noise)"
    )
    # A later step that does not beat the load before the dip by the minimum gain: a stop.
    held = find_saturation(points([(8, 100), (16, 180), (24, 170), (32, 185)]), StopConditions())
    assert (held.vus, held.passed_over) == (16, ())
    # Still rising at the end after a passed-over dip: not reached, and the dip named.
    rising = find_saturation(points([(1, 100), (2, 98), (4, 200), (8, 260)]), StopConditions())
    assert (rising.vus, rising.reached, rising.passed_over) == (8, False, (2,))
    assert "taken for noise" in rising.reason
    # A small gain is the stop rule itself, whatever comes after (a slow, steady rise).
    slow = find_saturation(points([(8, 100), (16, 115), (24, 130)]), StopConditions(20))
    assert (slow.vus, slow.passed_over) == (8, ())


def test_one_user_is_one_user() -> None:
    single = find_saturation([LoadPoint(1, 100)], StopConditions())
    assert single.reason.startswith("only one load level (1 user) was measured")
    first = find_saturation(points([(1, 9000), (2, 9100), (4, 8700)]), StopConditions())
    assert "first load tested (1 user):" in first.reason
    assert "from 1 to 2 users" in first.reason
