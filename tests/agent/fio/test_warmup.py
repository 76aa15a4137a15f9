"""The steadiness rule each point is warmed to (pure arithmetic on per-second figures)."""

from __future__ import annotations

from bench_gui.agent.fio.warmup import WINDOW, SteadyJudge


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
