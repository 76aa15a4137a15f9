"""The steadiness rule each point is warmed to (pure arithmetic on per-second figures)."""

from __future__ import annotations

from bench_gui.workloads.random_read.agent.warmup import WINDOW, SteadyJudge


def feed(judge: SteadyJudge, seconds: list[tuple[float, float]]) -> list[bool]:
    return [judge.push(ops, faults) for ops, faults in seconds]


def test_a_cache_still_filling_is_not_steady() -> None:
    # Major faults fall as the cache fills, ops/s climb: never steady while they move.
    filling = [(1000.0 * (i + 1), 2000.0 / (i + 1)) for i in range(4 * WINDOW)]
    assert not any(feed(SteadyJudge(), filling))


def test_settled_faults_and_ops_are_steady_after_two_windows() -> None:
    flat = [(50_000.0, 1_990.0), (51_000.0, 2_010.0)] * WINDOW
    said = feed(SteadyJudge(), flat)
    assert said[: 2 * WINDOW - 1] == [False] * (2 * WINDOW - 1)
    assert said[-1]


def test_an_in_memory_point_without_faults_is_steady() -> None:
    # A handful of stray faults a second is none: only ops/s must settle.
    judge = SteadyJudge()
    assert feed(judge, [(3e6, 3.0), (3.1e6, 0.0)] * WINDOW)[-1]


def test_ops_that_still_move_keep_it_warming() -> None:
    judge = SteadyJudge()
    rising = [(1000.0 * 2**i, 0.0) for i in range(2 * WINDOW)]
    assert not feed(judge, rising)[-1]


def test_a_cache_that_still_grows_is_not_steady_however_flat_the_faults() -> None:
    """A slow device faults at its own IOPS for as long as the cache fills: flat faults and
    flat ops/s while the file's resident bytes climb 800 KiB a second are not warm (a
    200-IOPS loop device was judged warm after 6 s with 17 of its 64 MiB cached)."""
    judge = SteadyJudge()
    said = [judge.push(700.0, 200.0, 17 * 2**20 + i * 800 * 1024) for i in range(6 * WINDOW)]
    assert not any(said)
    # Once it stops growing (full, or past RAM at its limit), the flat rates are the steady state.
    full = [judge.push(700.0, 200.0, 64 * 2**20) for _ in range(2 * WINDOW)]
    assert full[-1]


def test_growth_of_a_few_stray_pages_is_none() -> None:
    judge = SteadyJudge()
    said = [judge.push(3e6, 0.0, 2**30 + i * 4096) for i in range(2 * WINDOW)]
    assert said[-1]


def test_an_unreadable_cache_leaves_it_to_the_rates() -> None:
    judge = SteadyJudge()
    assert [judge.push(5e4, 2000.0, None) for _ in range(2 * WINDOW)][-1]
