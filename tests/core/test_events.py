"""The desktop's one check of agent events: payload fields of the wrong type or range are
dropped (or the event refused when the field places it), and the seq rule that keeps one stray
line from costing the rest of a run."""

from __future__ import annotations

import copy
import json
import math
from typing import Any

import pytest

from bench_gui.core.events import (
    MAX_DEPTH,
    BadEvent,
    SeqGuard,
    Verdict,
    check_event,
    read_line,
)
from bench_gui.wire.protocol import Event, decode_line
from tests._fixtures.agent_events import agent_stream, sample, step_summary


def strict_json(value: Any) -> str:
    """What the store and an export must be able to write: standard JSON, valid UTF-8."""
    text = json.dumps(value, allow_nan=False, ensure_ascii=False)
    text.encode("utf-8")
    return text


def test_every_event_of_a_real_stream_passes_unchanged() -> None:
    for line in agent_stream(steps=2, samples=3):
        event = decode_line(line)
        checked = check_event(event)
        assert checked.dropped == (), line[:80]
        assert checked.warning() == ""
        assert checked.event == event


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [
        ("nopm_db", math.nan, "nopm_db: nan is not a finite number"),
        ("tpm_db", math.inf, "tpm_db: inf is not a finite number"),
        ("elapsed", 2**64, "elapsed: 18446744073709551616 does not fit 64 bits"),
        ("elapsed", "12", "elapsed: '12' is not a number"),
        ("nopm_driver", True, "nopm_driver: True is not a number"),
        ("latency_ms", [1, 2], "latency_ms: a list where an object belongs"),
        ("host", "busy", "host: 'busy' where an object belongs"),
        ("counts", {"new_order": -(2**70)}, "counts.new_order: -1180591620717411303424 does not"),
        ("rollbacks", -1, "rollbacks: -1 is below zero (a count)"),
        ("counts", {"new_order": 5, "payment": -3}, "counts.payment: -3 is below zero"),
        ("errors", {"deadlock": -1.5}, "errors.deadlock: -1.5 is below zero"),
        ("nopm_db", -600.0, "nopm_db: -600.0 is below zero"),
        ("db_not_answering_s", -2, "db_not_answering_s: -2 is below zero"),
    ],
)
def test_a_bad_sample_field_is_dropped_and_named(field: str, value: Any, named: str) -> None:
    data = sample(0, 4, 1)
    data[field] = value
    checked = check_event(Event("sample", 7, 1.0, data))
    assert field not in checked.event.data or checked.event.data[field] != value
    assert any(p.startswith(named) for p in checked.dropped), checked.dropped
    assert "sample #7 kept" in checked.warning()
    # The rest of the second is kept.
    assert checked.event.get("counts") or field == "counts"
    assert checked.event.get("vus") == 4
    strict_json(checked.event.data)


def test_a_number_deep_inside_is_dropped_alone() -> None:
    data = sample(0, 4, 1)
    data["host"]["disks"]["nvme0n1"]["util"] = math.nan
    data["latency_ms"]["all"]["p999"] = "slow"
    checked = check_event(Event("sample", 3, 1.0, data))
    disk = checked.event.data["host"]["disks"]["nvme0n1"]
    assert "util" not in disk
    assert disk["r_iops"] == 101.0
    assert checked.event.data["latency_ms"]["all"]["avg"] == 2.0
    assert sorted(checked.dropped) == [
        "host.disks.nvme0n1.util: nan is not a finite number",
        "latency_ms.all.p999: 'slow' is not a number",
    ]


def test_lone_surrogates_are_replaced_and_the_text_kept() -> None:
    checked = check_event(Event("log", 2, 1.0, {"level": "warn\ud800", "message": "a\udfffb"}))
    assert checked.event.data == {"level": "warn\ufffd", "message": "a\ufffdb"}
    assert "message: lone surrogates replaced" in checked.warning()
    strict_json(checked.event.data)


def test_the_input_event_is_left_as_it_was() -> None:
    data = sample(0, 1, 0)
    data["nopm_db"] = math.nan
    before = copy.deepcopy(data)
    check_event(Event("sample", 1, 1.0, data))
    assert data.keys() == before.keys()
    assert math.isnan(data["nopm_db"])


@pytest.mark.parametrize(
    ("kind", "data", "reason"),
    [
        ("sample", {"step": "0", "vus": 1}, "sample #5: step: '0' is not a whole number"),
        ("sample", {"step": 0}, "sample #5: no vus"),
        ("sample", {"step": 10**12, "vus": 1}, "step: 1000000000000 is not a whole number"),
        ("step", {"phase": "begin", "step": 0, "vus": 1}, "phase: 'begin' is not one of"),
        ("step", {"phase": "end", "step": -1, "vus": 1}, "step: -1 is not a whole number"),
        ("step", {"phase": "end", "step": 0, "vus": [1]}, "vus: a list is not a whole number"),
        ("log", {"level": "info", "message": 42}, "log #5: message: 42 is not text"),
        ("log", {"level": "info"}, "log #5: no message"),
    ],
)
def test_a_field_that_places_the_event_refuses_it(
    kind: str, data: dict[str, Any], reason: str
) -> None:
    with pytest.raises(BadEvent, match=reason.replace("[", r"\[")):
        check_event(Event(kind, 5, 1.0, data))


@pytest.mark.parametrize(
    ("seq", "t", "reason"),
    [
        (2**64, 1.0, "bad sequence number"),
        (True, 1.0, "bad sequence number"),
        (1, math.nan, "bad timestamp nan"),
        (1, 1e300, "bad timestamp"),
        (1, "soon", "bad timestamp 'soon'"),
    ],
)
def test_a_bad_header_refuses_the_event(seq: Any, t: Any, reason: str) -> None:
    with pytest.raises(BadEvent, match=reason):
        check_event(Event("done", seq, t, {"status": "ok"}))


def test_a_step_summary_keeps_its_step_without_the_bad_power_figures() -> None:
    summary = step_summary(1, 8)
    summary |= {"power_w": math.inf, "mw_per_nopm": "n/a"}
    summary["histograms"]["new_order"] = 7
    summary["complete"] = "yes"
    checked = check_event(
        Event("step", 9, 1.0, {"phase": "end", "step": 1, "vus": 8, "summary": summary})
    )
    kept = checked.event.data["summary"]
    assert kept["nopm"] == 6001.0
    assert kept["latency_ms"]["all"]["avg"] == 2.0
    assert "power_w" not in kept
    assert "mw_per_nopm" not in kept
    assert "new_order" not in kept["histograms"]
    assert "payment" in kept["histograms"]
    assert kept["complete"] is False  # never claim a completeness the agent did not report
    assert "summary.complete: 'yes' is not true or false, taken as false" in checked.dropped


def test_the_summary_event_keeps_its_good_steps_and_checks() -> None:
    good = step_summary(0, 1)
    checked = check_event(
        Event(
            "summary",
            30,
            1.0,
            {
                "steps": [good, "not a step", step_summary(1, 2) | {"vus": -3}],
                "checks": [{"name": "c1", "ok": True, "detail": "fine"}, ["x"]],
                "status": "ok",
            },
        )
    )
    steps = checked.event.data["steps"]
    assert [s.get("vus") for s in steps] == [1, None]  # the bad vus dropped, the step kept
    assert checked.event.data["checks"] == [{"name": "c1", "ok": True, "detail": "fine"}]
    assert len(checked.dropped) == 3


def test_nesting_past_the_limit_is_dropped() -> None:
    deep: Any = 1
    for _ in range(MAX_DEPTH + 2):
        deep = [deep]
    checked = check_event(Event("log", 1, 1.0, {"message": "m", "extra": deep}))
    assert f"nested deeper than {MAX_DEPTH} levels" in checked.warning()
    strict_json(checked.event.data)


def test_unknown_fields_are_kept_but_scrubbed() -> None:
    line = json.dumps(
        {"v": 1, "kind": "done", "seq": 4, "t": 1.0, "status": "ok", "newer": {"a": 1, "b": 1e999}}
    )
    checked = read_line(line)
    assert checked.event.data["newer"] == {"a": 1}
    assert checked.dropped == ("newer.b: inf is not a finite number",)


def test_a_long_list_of_problems_is_summed_up() -> None:
    data = {"message": "m", **{f"x{i}": math.nan for i in range(10)}}
    warning = check_event(Event("log", 1, 1.0, data)).warning()
    assert warning.endswith("and 4 more")


# -- the seq rule -----------------------------------------------------------------------------


def run_guard(seqs: list[int], resume_after: int = 0, flush: bool = True) -> list[tuple[int, bool]]:
    """(seq, passed on?) for every verdict, in order."""
    guard = SeqGuard(resume_after=resume_after)
    verdicts: list[Verdict] = []
    for seq in seqs:
        verdicts += guard.push(Event("log", seq, 1.0, {"message": "m"}), f"line {seq}")
    if flush:
        verdicts += guard.flush()
    return [(v.event.seq, v.problem is None) for v in verdicts]


def test_a_far_future_seq_is_one_bad_line() -> None:
    out = run_guard([1, 2, 3, 999_999_999, 4, 5, 6])
    assert out == [
        (1, True),
        (2, True),
        (3, True),
        (999_999_999, False),
        (4, True),
        (5, True),
        (6, True),
    ]


def test_a_small_stray_jump_costs_only_its_line() -> None:
    # a bit flip turned seq 4 into 14: 4 is missing, 14 is not followed by 15
    out = run_guard([1, 2, 3, 14, 5, 6])
    assert out == [(1, True), (2, True), (3, True), (14, False), (5, True), (6, True)]


def test_repeated_and_backward_seqs_are_bad_lines() -> None:
    out = run_guard([1, 2, 2, 3, 1, 4])
    assert out == [(1, True), (2, True), (2, False), (3, True), (1, False), (4, True)]


def test_a_real_gap_passes_once_the_stream_goes_on_from_it() -> None:
    # the agent could not write events 4-9 to its spool (a full disk): nothing else is lost
    out = run_guard([1, 2, 3, 10, 11, 12])
    assert out == [(1, True), (2, True), (3, True), (10, True), (11, True), (12, True)]


def test_a_held_event_at_the_end_passes_when_its_jump_is_plausible() -> None:
    assert run_guard([1, 2, 5]) == [(1, True), (2, True), (5, True)]
    assert run_guard([1, 2, 999_999_999]) == [(1, True), (2, True), (999_999_999, False)]
    assert run_guard([1, 2, 5], flush=False) == [(1, True), (2, True)]  # still held


def test_the_stream_going_on_past_a_jump_makes_it_real() -> None:
    # every other line corrupt (their seqs unreadable): every good line still passes
    out = run_guard([1, 3, 5, 7, 8])
    assert out == [(1, True), (3, True), (5, True), (7, True), (8, True)]
    out = run_guard([1, 2, 50, 70, 71, 72])
    assert out == [(1, True), (2, True), (50, True), (70, True), (71, True), (72, True)]


def test_of_two_jumps_the_farther_is_the_stray() -> None:
    out = run_guard([1, 2, 50, 999_999_999, 51, 52])
    assert out == [(1, True), (2, True), (999_999_999, False), (50, True), (51, True), (52, True)]


def test_a_jump_the_stream_comes_back_under_is_the_stray() -> None:
    # seq 3 bit-flipped to 7: the stream goes on with 4, 5... under it
    out = run_guard([1, 2, 7, 4, 5, 6, 7, 8])
    assert out == [
        (1, True),
        (2, True),
        (7, False),
        (4, True),
        (5, True),
        (6, True),
        (7, True),
        (8, True),
    ]


def test_resuming_passes_over_what_the_reader_has_without_reporting_it_again() -> None:
    # a re-attach reads the spool from its start; the store has events up to 5
    out = run_guard([1, 2, 999_999_999, 3, 3, 4, 5, 6, 7, 6, 8], resume_after=5)
    assert out == [(6, True), (7, True), (6, False), (8, True)]
    guard = SeqGuard(resume_after=5)
    assert guard.replaying
    guard.push(Event("log", 1, 1.0, {}), "")
    assert guard.replaying
    assert guard.last == 1


def timed_guard(items: list[tuple[int, float]], have: frozenset[int] | None = None) -> list:
    guard = SeqGuard(resume_after=max(have) if have else 0, have=have)
    verdicts: list[Verdict] = []
    for seq, t in items:
        verdicts += guard.push(Event("log", seq, t, {"message": "m"}), f"line {seq}")
    verdicts += guard.flush()
    return [(v.event.seq, v.problem is None) for v in verdicts]


def test_a_forged_far_future_pair_is_two_bad_lines() -> None:
    # the second "goes on" from the first, but the jump from the last accepted seq is farther
    # than the stream writes in that time
    items = [(1, 1.0), (2, 2.0), (10**9, 2.0), (10**9 + 1, 2.0), (3, 3.0), (4, 4.0)]
    assert timed_guard(items) == [
        (1, True),
        (2, True),
        (10**9, False),
        (10**9 + 1, False),
        (3, True),
        (4, True),
    ]
    # a pair within MAX_SEQ_GAP but far beyond the stream's rate: the same
    items = [(1, 1.0), (2, 2.0), (5_000, 2.5), (5_001, 2.5), (3, 3.0)]
    assert timed_guard(items) == [(1, True), (2, True), (5_000, False), (5_001, False), (3, True)]


def test_a_long_real_gap_passes_at_the_streams_rate() -> None:
    # 20 events a second, then 60 s of lines the agent could not write: 1,200 missing
    items = [(i, i / 20) for i in range(1, 101)] + [(1_301, 65.0), (1_302, 65.05)]
    out = timed_guard(items)
    assert all(ok for _, ok in out)
    assert [seq for seq, _ in out][-2:] == [1_301, 1_302]
    # the same jump with no time passed is a forgery
    items = [(i, i / 20) for i in range(1, 101)] + [(1_301, 5.0), (1_302, 5.0), (101, 5.1)]
    assert timed_guard(items)[-3:] == [(1_301, False), (1_302, False), (101, True)]


def test_a_stored_stream_poisoned_by_a_forged_pair_gets_its_real_events_again() -> None:
    have = frozenset({1, 2, 10**9, 10**9 + 1})  # an older reader stored the pair
    items = [(1, 1.0), (2, 2.0), (10**9, 2.0), (10**9 + 1, 2.0), (3, 3.0), (4, 4.0)]
    assert timed_guard(items, have) == [(10**9, False), (10**9 + 1, False), (3, True), (4, True)]


def test_a_negative_count_in_a_step_summary_is_dropped() -> None:
    summary = {"step": 0, "vus": 4, "nopm": 600.0, "rollbacks": -7, "counts": {"new_order": -1}}
    checked = check_event(
        Event("step", 9, 1.0, {"phase": "end", "step": 0, "vus": 4, "summary": summary})
    )
    kept = checked.event.data["summary"]
    assert "rollbacks" not in kept
    assert kept["counts"] == {}
    assert kept["nopm"] == 600.0
    assert sorted(checked.dropped) == [
        "summary.counts.new_order: -1 is below zero (a count)",
        "summary.rollbacks: -7 is below zero (a count)",
    ]
