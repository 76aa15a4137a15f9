"""The back-off of a user whose connection broke, and the step's tally of lost connections."""

from __future__ import annotations

import random

from bench_gui.agent.outages import BACKOFF_FIRST_S, BACKOFF_MAX_S, Backoff, Outages


def test_the_back_off_doubles_to_its_cap_and_starts_again_once_connected() -> None:
    backoff = Backoff(random.Random(3))
    delays = [backoff.failed(100.0) - 100.0 for _ in range(10)]
    caps = [min(BACKOFF_MAX_S, BACKOFF_FIRST_S * 2**i) for i in range(10)]
    assert all(cap / 2 <= d <= cap for d, cap in zip(delays, caps, strict=True)), delays
    assert delays[-1] >= BACKOFF_MAX_S / 2
    backoff.reset()
    assert backoff.due == 0.0
    assert backoff.failed(5.0) - 5.0 <= BACKOFF_FIRST_S


def test_the_tally_says_how_many_users_for_how_long_and_who_is_still_down() -> None:
    outages = Outages()
    assert outages.summary_fields(0.0) == {}
    assert outages.problem(4, 0.0) == ""
    assert not outages.take(("tick", {}, {}, {}, False))
    for message in (("lost", 0, 10.0), ("lost", 1, 10.1), ("back", 0, 10.5), ("lost", 0, 11.0)):
        assert outages.take(message)
    assert outages.sample_fields() == {"vus_down": 2}
    assert outages.take(("back", 0, 11.2))
    assert outages.summary_fields(13.1) == {
        "connections_lost": {"users": 2, "times": 3, "longest_s": 3.0, "still_down": 1}
    }
    assert outages.problem(4, 13.1) == (
        "2 of 4 virtual users lost their connection (3 times, the longest for 3.0 s),"
        " 1 still without one at the step's end: the step did not run the planned load"
    )
