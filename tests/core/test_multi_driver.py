"""Several driver hosts: splitting each step's users, and merging the hosts' step summaries
(the database's counters from the primary alone, the drivers' counts summed for the 2%
cross-check, histograms merged exactly, each host's figures kept and an overloaded one
flagged)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bench_gui.core.crosscheck import nopm_doubt
from bench_gui.core.events import check_event
from bench_gui.core.multi_driver import (
    CPU_WARN_PCT,
    MergeError,
    SplitError,
    even_split,
    first_users,
    merge_step,
    share_split,
    step_splits,
)
from bench_gui.wire import hist
from bench_gui.wire.protocol import TX_KEYS, Event

# -- splits -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("total", "hosts", "parts"),
    [(10, 3, [4, 3, 3]), (11, 3, [4, 4, 3]), (9, 3, [3, 3, 3]), (2, 2, [1, 1]), (7, 1, [7])],
)
def test_an_even_split_gives_the_remainder_to_the_first_hosts(
    total: int, hosts: int, parts: list[int]
) -> None:
    assert even_split(total, hosts) == parts


def test_splits_always_sum_to_the_step_and_never_leave_a_host_out() -> None:
    rng = random.Random(18)
    for _ in range(2000):
        hosts = rng.randint(1, 6)
        total = rng.randint(hosts, 5000)
        assert sum(even_split(total, hosts)) == total
        shares = [rng.choice([0.5, 1, 1, 2, 3.25]) for _ in range(hosts)]
        exact = [total * share / sum(shares) for share in shares]
        try:
            parts, error = share_split(total, shares), ""
        except SplitError as exc:
            parts, error = [], str(exc)
        if error:  # only a host whose exact part is under one user can end up with none
            assert "without any" in error
            assert min(exact) < 1
            continue
        assert sum(parts) == total
        assert min(parts) >= 1
        # Never further than one user from the exact proportion.
        for part, quota in zip(parts, exact, strict=True):
            assert abs(part - quota) < 1


def test_shares_are_exact_and_ties_go_to_the_earlier_host() -> None:
    assert share_split(10, [1, 1, 1]) == [4, 3, 3]
    assert share_split(10, [3, 1]) == [8, 2]  # 7.5 / 2.5
    assert share_split(3, [0.1, 0.1, 0.1]) == [1, 1, 1]  # no float drift
    assert share_split(100, [2, 1, 1]) == [50, 25, 25]


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: even_split(2, 3), "2 virtual users for 3 driver hosts"),
        (lambda: even_split(5, 0), "no driver host"),
        (lambda: share_split(5, []), "no driver host"),
        (lambda: share_split(5, [1, 0]), "share 2 is 0"),
        (lambda: share_split(5, [1, float("nan")]), "share 2 is nan"),
        (lambda: share_split(5, [1, float("inf")]), "share 2 is inf"),
        (lambda: share_split(4, [10, 1]), "leave host 2 without any"),
    ],
)
def test_a_split_that_cannot_be_made_says_why(call: Any, words: str) -> None:
    with pytest.raises(SplitError, match=words.replace("(", r"\(")):
        call()


def test_step_splits_name_the_step_and_the_host() -> None:
    assert step_splits([2, 5], 2) == [[1, 1], [3, 2]]
    assert step_splits([4, 8], 2, users=[[3, 1], [2, 6]]) == [[3, 1], [2, 6]]
    assert step_splits([4, 4], 2, users=[[3, 1]]) == [[3, 1], [3, 1]]
    assert step_splits([4, 8], 2, share=[1, 3]) == [[1, 3], [2, 6]]
    with pytest.raises(SplitError, match=r"step 2 \(3 virtual users\): .* host 2 \('b'\)"):
        step_splits([20, 3], 2, share=[5, 1], names=["a", "b"])
    with pytest.raises(SplitError, match=r"step 1 \(4 virtual users\): \[4, 0\]: each host"):
        step_splits([4], 2, users=[[4, 0]])


def test_users_are_numbered_across_hosts() -> None:
    assert first_users([4, 3, 3]) == [0, 4, 7]


# -- merging ------------------------------------------------------------------------------------


def histogram(values_us: list[int]) -> Any:
    h = hist.new_histogram()
    for value in values_us:
        h.record_value(value)
    return h


def host_summary(
    vus: int,
    latencies: dict[str, list[int]],
    nopm: float | None,
    nopm_driver: float,
    idle: float | None = 60.0,
    **extra: Any,
) -> dict[str, Any]:
    """A step summary as an agent writes it, from real latencies (µs) per type."""
    hists = {k: histogram(v) for k, v in latencies.items()}
    sums = {k: sum(v) for k, v in latencies.items()}
    summary: dict[str, Any] = {
        "step": 1,
        "vus": vus,
        "nopm": nopm,
        "tpm": None if nopm is None else nopm * 2.3,
        "nopm_driver": nopm_driver,
        "window_s": 60.0,
        "rampup_s": 5.0,
        "duration_s": 60.0,
        "counts": {k: len(v) for k, v in latencies.items()},
        "rollbacks": 2,
        "errors": {"deadlock": 1},
        "error_count": 1,
        "latency_ms": hist.merged_summary(hists, sums),
        "histograms": {k: hist.encode(h) for k, h in hists.items()},
        "complete": True,
        "window_t0": 1_700_000_000.0,
        "window_t1": 1_700_000_060.0,
    }
    if idle is not None:
        cpu = {"user": 90.0 - idle, "system": 8.0, "iowait": 2.0, "idle": idle, "steal": 0.0}
        summary["host"] = {"cpu": cpu}
    summary.update(extra)
    return summary


def latencies(rng: random.Random, n: int, scale: int) -> dict[str, list[int]]:
    return {k: [rng.randint(200, scale) for _ in range(n)] for k in TX_KEYS[:3]}


def test_the_database_counters_come_from_the_primary_and_the_drivers_add_up() -> None:
    rng = random.Random(1)
    a_lat, b_lat = latencies(rng, 400, 9_000), latencies(rng, 300, 40_000)
    a = host_summary(6, a_lat, nopm=12_000.0, nopm_driver=7_000.0)
    b = host_summary(4, b_lat, nopm=11_950.0, nopm_driver=4_950.0, idle=50.0)
    merged = merge_step([("lab-1", a), ("lab-2", b)], primary="lab-1")
    s = merged.summary
    # Never summed: the database counted every host's orders already.
    assert s["nopm"] == 12_000.0
    assert s["tpm"] == a["tpm"]
    assert s["nopm_driver"] == 11_950.0
    assert s["vus"] == 10
    assert s["counts"] == {k: 700 for k in TX_KEYS[:3]}
    assert s["rollbacks"] == 4
    assert s["errors"] == {"deadlock": 2}
    assert s["error_count"] == 2
    assert s["complete"] is True
    assert s["window_s"] == 60.0
    assert s["window_t0"] == a["window_t0"]
    # The 2% rule of crosscheck.py, asked with the summed driver count.
    assert merged.doubt is None
    assert merged.doubt == nopm_doubt(s["nopm"], s["nopm_driver"], 60.0, 10)
    assert [h.host for h in merged.hosts] == ["lab-1", "lab-2"]
    assert [h.role for h in merged.hosts] == ["primary", "secondary"]
    assert [h.vus for h in merged.hosts] == [6, 4]
    assert [h.transactions for h in merged.hosts] == [1200, 900]
    assert [h.tpm_driver for h in merged.hosts] == [1202.0, 902.0]  # with the rollbacks
    assert [h.cpu_busy_pct for h in merged.hosts] == [38.0, 48.0]
    assert s["driver_hosts"][1]["host"] == "lab-2"
    # The merged summary is a step summary the desktop's event check takes whole.
    event = Event("step", 9, 1.0, {"phase": "end", "step": 1, "vus": 10, "summary": s})
    assert check_event(event).dropped == ()
    assert merged.warnings == []
    assert "driver_warnings" not in s


def test_histograms_merge_exactly() -> None:
    rng = random.Random(2)
    a_lat, b_lat = latencies(rng, 500, 5_000), latencies(rng, 250, 80_000)
    merged = merge_step(
        [
            ("a", host_summary(5, a_lat, 100.0, 50.0)),
            ("b", host_summary(5, b_lat, None, 50.0)),
        ],
        primary="a",
    ).summary
    for key in TX_KEYS[:3]:
        alone = histogram(a_lat[key] + b_lat[key])  # one histogram of every latency
        got = hist.decode(merged["histograms"][key])
        assert got.get_total_count() == alone.get_total_count() == 750
        for pct in (50.0, 95.0, 99.0, 99.9, 100.0):
            assert got.get_value_at_percentile(pct) == alone.get_value_at_percentile(pct)
        exact = hist.summarize(alone, sum(a_lat[key] + b_lat[key]))
        assert merged["latency_ms"][key] == exact
    every = [v for lat in (a_lat, b_lat) for vals in lat.values() for v in vals]
    assert merged["latency_ms"]["all"]["avg"] == pytest.approx(
        sum(every) / len(every) / 1000, abs=1e-3
    )
    assert merged["latency_ms"]["all"]["max"] == hist.summarize(histogram(every))["max"]  # type: ignore[index]


def test_a_busy_driver_host_is_flagged_by_name() -> None:
    rng = random.Random(3)
    busy = host_summary(4, latencies(rng, 50, 900), None, 10.0, idle=5.0)
    calm = host_summary(4, latencies(rng, 50, 900), 20.0, 10.0, idle=70.0)
    merged = merge_step([("calm", calm), ("busy", busy)], primary="calm")
    assert [h.cpu_busy_pct for h in merged.hosts] == [28.0, 93.0]
    assert len(merged.warnings) == 1
    assert "driver host 'busy' was 93% busy over step 2's window" in merged.warnings[0]
    assert f"over {CPU_WARN_PCT:.0f}%" in merged.warnings[0]
    assert merged.summary["driver_warnings"] == merged.warnings
    # A host exactly at the limit is not flagged; one without host metrics has no CPU.
    edge = host_summary(4, latencies(rng, 5, 900), None, 1.0, idle=18.0)  # 100-18-2 = 80
    blind = host_summary(4, latencies(rng, 5, 900), None, 1.0, idle=None)
    merged = merge_step([("calm", calm), ("edge", edge), ("blind", blind)], primary="calm")
    assert merged.warnings == []
    assert [h.cpu_busy_pct for h in merged.hosts] == [28.0, 80.0, None]


def test_the_summed_driver_count_finds_a_missing_host() -> None:
    """The database counted both hosts' orders; with one host's count alone the 2% rule
    speaks, with both it is quiet."""
    rng = random.Random(4)
    a = host_summary(5, latencies(rng, 20, 900), 10_000.0, 5_000.0)
    b = host_summary(5, latencies(rng, 20, 900), None, 5_000.0)
    assert merge_step([("a", a), ("b", b)], "a").doubt is None
    alone = merge_step([("a", a)], "a")
    assert alone.doubt is not None
    assert "another load" in alone.doubt


def test_an_incomplete_host_makes_the_step_incomplete() -> None:
    rng = random.Random(5)
    a = host_summary(2, latencies(rng, 20, 900), 100.0, 60.0)
    b = host_summary(
        2, latencies(rng, 20, 900), None, 40.0, complete=False, problems=["stopped early"]
    )
    s = merge_step([("a", a), ("b", b)], "a").summary
    assert s["complete"] is False
    assert s["problems"] == ["b: stopped early", "not complete on b"]


def test_a_host_without_a_driver_count_leaves_the_sum_unknown() -> None:
    rng = random.Random(6)
    a = host_summary(2, latencies(rng, 5, 900), 100.0, 60.0)
    b = host_summary(2, latencies(rng, 5, 900), None, 1.0)
    b["nopm_driver"] = None  # a step that never opened its window
    merged = merge_step([("a", a), ("b", b)], "a")
    assert merged.summary["nopm_driver"] is None
    assert merged.doubt is None  # nothing to check


@pytest.mark.parametrize(
    ("hosts", "primary", "words"),
    [
        ([], "a", "no host's step summary"),
        ([("a", {"step": 0, "vus": 1})], "b", "primary host 'b' gave no summary"),
        ([("a", {"step": 0, "vus": 1}), ("a", {"step": 0, "vus": 1})], "a", "'a' gave two"),
        (
            [("a", {"step": 0, "vus": 1}), ("b", {"step": 1, "vus": 1})],
            "a",
            "different steps: 'a' step 0, 'b' step 1",
        ),
        ([("a", {"step": 0, "vus": -1})], "a", "host 'a': vus is -1"),
        ([("a", {"step": 0, "vus": 1, "counts": {"payment": -3}})], "a", "counts.payment"),
        ([("a", {"step": 0, "vus": 1, "counts": [1]})], "a", "counts is not a table"),
        ([("a", {"step": 0, "vus": 1, "rollbacks": 1.5})], "a", "rollbacks is 1.5"),
        ([("a", "text")], "a", "host 'a': its step summary is not a table"),
        (
            [("a", {"step": 0, "vus": 1, "histograms": {"payment": "bm90IGhkcg=="}})],
            "a",
            "host 'a': histogram payment cannot be decoded",
        ),
    ],
)
def test_summaries_that_cannot_be_merged_name_the_host(
    hosts: list[tuple[str, Any]], primary: str, words: str
) -> None:
    with pytest.raises(MergeError, match=words.replace("(", r"\(")):
        merge_step(hosts, primary)
