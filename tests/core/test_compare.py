"""Comparison rules: ratios, advantages, repeats, missing steps and bad input."""

from __future__ import annotations

import pytest

from bench_gui.core.compare import (
    CompareError,
    SessionData,
    Stats,
    StepPoint,
    compare,
    format_advantage,
    format_ratio,
    lower_is_better,
    throughput_ratio,
)
from bench_gui.core.saturation import StopConditions


def session(
    sid: int,
    rows: list[tuple[int, float]],
    status: str = "complete",
    plan_key: str = "",
    config: dict[str, dict[str, str]] | None = None,
) -> SessionData:
    steps = tuple(
        StepPoint(vus=v, nopm=n, tpm=n * 2.3, avg_ms=1000 / n * v, p999_ms=8000 / n * v, step=i)
        for i, (v, n) in enumerate(rows)
    )
    return SessionData(sid, f"s{sid}", status, steps, config or {}, plan_key)


@pytest.mark.parametrize(
    ("ratio", "text"),
    [
        (22.17, "22X"),
        (29.76, "29X"),  # truncated, never rounded up
        (29.0, "29X"),
        (28.999999999, "29X"),  # float noise of an exact 29 is not a truncation
        (2.0, "2.0X"),
        (2.46, "2.4X"),
        (9.99, "9.9X"),
        (1.69, "+69%"),
        (1.999, "+99%"),
        (1.35, "+35%"),
        (1.0, "±0%"),
        (0.955, "-4%"),
        (0.5, "-50%"),
        (0.04, "-96%"),
    ],
)
def test_format_ratio(ratio: float, text: str) -> None:
    assert format_ratio(ratio) == text


@pytest.mark.parametrize(
    ("pct", "text"), [(95.9, "95%"), (97.0, "97%"), (69.99, "69%"), (-12.7, "-12%"), (0.4, "0%")]
)
def test_format_advantage(pct: float, text: str) -> None:
    assert format_advantage(pct) == text


def test_ratio_and_advantage_need_a_positive_baseline() -> None:
    assert throughput_ratio(10, 0) is None
    assert throughput_ratio(None, 5) is None
    assert lower_is_better(5, None) is None
    adv = lower_is_better(14, 300)
    assert adv is not None
    assert adv.text == "95%"
    assert round(adv.pct, 2) == 95.33


def test_stats() -> None:
    stats = Stats.of([100.0, 110.0, 90.0])
    assert stats is not None
    assert (stats.n, stats.mean, stats.std) == (3, 100.0, 10.0)
    assert stats.cv_pct == pytest.approx(10.0)
    one = Stats.of([5.0])
    assert one is not None
    assert one.std is None
    assert Stats.of([]) is None


def test_steps_in_one_session_only_are_shown() -> None:
    base = session(1, [(8, 1000), (16, 1800), (24, 2400)])
    other = session(2, [(8, 2000), (16, 4000), (32, 7000)])
    c = compare([other, base], baseline_id=1)
    assert [s.id for s in c.sessions] == [1, 2]  # the baseline first
    assert [r.vus for r in c.rows] == [8, 16, 24, 32]
    assert c.common_vus == (8, 16)
    row24 = c.rows[2]
    assert row24.levels[1] is not None
    assert row24.levels[2] is None
    assert row24.missing_in == (2,)
    assert row24.versus[2] is None
    assert c.rows[3].levels[1] is None
    assert c.rows[0].versus[2] is not None
    assert any("not measured in every session" in n and "24, 32" in n for n in c.notes)


def test_repeated_steps_are_averaged_and_their_noise_shown() -> None:
    base = session(1, [(8, 1000), (8, 1100), (8, 900), (16, 2000)], plan_key="a")
    other = session(2, [(8, 1050), (16, 4000)], plan_key="b")
    c = compare([base, other], 1)
    level = c.levels[1][8]
    assert level.steps == 3
    assert level.nopm is not None
    assert level.nopm.mean == 1000
    assert level.nopm.cv_pct == pytest.approx(10.0)
    vs8 = c.rows[0].versus[2]
    assert vs8 is not None
    assert vs8.noise_pct == pytest.approx(10.0)
    assert vs8.within_noise  # +5% against a 10% CV
    vs16 = c.rows[1].versus[2]
    assert vs16 is not None
    assert vs16.noise_pct is None
    assert not vs16.within_noise
    assert [(r.vus, r.nopm.n) for r in c.repeatability] == [(8, 3)]


def test_sessions_of_one_recorded_system_are_repeats_of_each_other() -> None:
    base = session(3, [(8, 3000), (16, 6000)], plan_key="other")
    a = session(1, [(8, 1000), (16, 2000)], plan_key="same")
    b = session(2, [(8, 1100), (16, 2100)], plan_key="same")
    result = compare([base, a, b], 3)
    groups = {(r.session_ids, r.vus, r.basis) for r in result.repeatability}
    assert groups == {((1, 2), 8, "same system"), ((1, 2), 16, "same system")}
    assert result.repeatability[0].label == "#1 s1, #2 s2"
    vs = result.rows[0].versus[1]
    assert vs is not None
    assert vs.noise_pct == pytest.approx(6.73, abs=0.01)  # CV of 1000 and 1100


def test_the_baseline_is_never_a_repeat_of_a_compared_session() -> None:
    # Issue 14: an HDD baseline and an SSD run of one plan were averaged ("noise ±182.7%").
    hdd = session(1, [(8, 1000), (16, 2000)], plan_key="same")
    ssd = session(2, [(8, 22_000), (16, 52_000)], plan_key="same")
    result = compare([hdd, ssd], 1)
    assert result.repeatability == ()
    assert all(vs is None or vs.noise_pct is None for r in result.rows for vs in r.versus.values())
    with pytest.raises(CompareError, match="the baseline .session 1. cannot be a repeat"):
        compare([hdd, ssd], 1, repeat_groups=[(1, 2)])


def test_sessions_with_nothing_recorded_are_nobodys_repeats() -> None:
    # An empty key: too little was recorded about the systems to tell that they are the same.
    base = session(1, [(8, 500)], plan_key="x")
    a, b = session(2, [(8, 1000)]), session(3, [(8, 1100)])
    assert compare([base, a, b], 1).repeatability == ()


def test_the_author_says_which_sessions_are_repeats() -> None:
    base = session(1, [(8, 500)], plan_key="x")
    a = session(2, [(8, 1000)], plan_key="a")
    b = session(3, [(8, 1100)], plan_key="b")
    c = session(4, [(8, 1300)], plan_key="a")
    result = compare([base, a, b, c], 1, repeat_groups=[(2, 3)])
    groups = {(r.session_ids, r.basis) for r in result.repeatability}
    assert groups == {((2, 3), "declared")}  # 4 shares 2's key, but 2 is in the author's set
    with pytest.raises(CompareError, match="not compared: 9"):
        compare([base, a, b], 1, repeat_groups=[(2, 9)])
    with pytest.raises(CompareError, match="one repeat set only; listed again: 3"):
        compare([base, a, b, c], 1, repeat_groups=[(2, 3), (3, 4)])
    with pytest.raises(CompareError, match="two sessions or more"):
        compare([base, a, b], 1, repeat_groups=[(2,)])


def test_one_session_alone_makes_a_report() -> None:
    alone = compare([session(1, [(8, 1000), (16, 1500), (24, 1520)])], 1)
    assert alone.others == ()
    assert [r.vus for r in alone.rows] == [8, 16, 24]
    assert all(r.versus == {} for r in alone.rows)
    assert alone.saturation[1].vus == 16


def test_incomplete_steps_are_left_out_with_a_note() -> None:
    base = session(1, [(8, 1000), (16, 2000)])
    steps = (StepPoint(8, 2000), StepPoint(16, 500, complete=False, step=1))
    other = SessionData(2, "stopped", "incomplete", steps)
    c = compare([base, other], 1)
    assert c.rows[1].levels[2] is None
    assert any("step 2 (16 users) was stopped" in n for n in c.notes)
    assert any("ended incomplete" in n for n in c.notes)


def test_bad_input_is_refused_with_a_clear_message() -> None:
    a = session(1, [(8, 1000)])
    with pytest.raises(CompareError, match="at least one session .got none."):
        compare([], 1)
    with pytest.raises(CompareError, match="listed twice: 1"):
        compare([a, a], 1)
    with pytest.raises(CompareError, match=r"baseline \(session 9\) must be one of"):
        compare([a, session(2, [(8, 5)])], 9)
    running = session(2, [(8, 2000)], status="running")
    with pytest.raises(CompareError, match="session 2 .* is still running"):
        compare([a, running], 1)
    empty = SessionData(3, "empty", "failed", ())
    with pytest.raises(CompareError, match="session 3 .* has no complete measured step"):
        compare([a, empty], 1)


def test_no_common_user_count_still_compares_at_saturation() -> None:
    base = session(1, [(8, 1000), (16, 1900), (24, 1950)])
    other = session(2, [(32, 5000), (64, 9000), (96, 9100)])
    c = compare([base, other], 1)
    assert c.common_vus == ()
    assert any(
        "shares no user count with the baseline" in n and "compare them at saturation" in n
        for n in c.notes
    )
    assert all(r.versus[2] is None for r in c.rows)
    at = c.at_saturation[1]
    assert at.saturation.vus == 64
    assert at.versus is not None
    assert at.versus.nopm is not None
    assert at.versus.nopm.text == "4.7X"  # 9000 / 1900, truncated
    with pytest.raises(KeyError):
        c.extremes(2, "nopm")


def test_extremes_and_stop_conditions() -> None:
    base = session(1, [(8, 1000), (16, 1500), (24, 1600)])
    other = session(2, [(8, 1500), (16, 3000), (24, 3500)])
    c = compare([base, other], 1, StopConditions(min_gain_pct=10))
    (lo_vus, lo), (hi_vus, hi) = c.extremes(2, "nopm")
    assert (lo_vus, hi_vus) == (8, 24)
    assert lo == pytest.approx(1.5)
    assert hi == pytest.approx(3500 / 1600)
    assert c.saturation[1].vus == 16  # +6.7% to 24 users
    assert c.saturation[2].vus == 24  # +16.7%: still paying off; not reached
    assert not c.saturation[2].reached


def test_configuration_side_by_side() -> None:
    a = session(1, [(8, 1)], config={"Database settings": {"work_mem": "64MB", "x": "1"}})
    b = session(
        2,
        [(8, 2)],
        config={"Database settings": {"work_mem": "64MB", "x": "2"}, "Hardware": {"CPU": "Z"}},
    )
    c = compare([a, b], 1)
    rows = {(r.section, r.key): (r.values, r.differs) for r in c.config}
    assert rows[("Database settings", "work_mem")] == ({1: "64MB", 2: "64MB"}, False)
    assert rows[("Database settings", "x")] == ({1: "1", 2: "2"}, True)
    assert rows[("Hardware", "CPU")] == ({1: None, 2: "Z"}, True)
    assert [r.section for r in c.config][0] == "Hardware"  # fixed section order
