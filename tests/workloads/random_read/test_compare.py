"""Random-read sessions compared (core.random_read_compare): sessions stored through the real
store with seed 004's figures, read back as the comparison reads them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import pytest

from bench_gui.core.compare import CompareError
from bench_gui.store import SessionStore
from bench_gui.wire.fio_sizes import GIB
from bench_gui.workloads.base import workload_of_record
from bench_gui.workloads.mix import check_same_workload
from bench_gui.workloads.random_read.compare import (
    RandomReadCompareError,
    RRSession,
    compare_random_read,
    multiple_text,
    multiplier_headline,
    multiplier_text,
    session_from_record,
)
from tests._fixtures.random_read_sessions import HDD, SSD, seed004, store_random_read
from tests._fixtures.seed_sessions import build_seed000


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SessionStore]:
    with SessionStore(tmp_path / "sessions.sqlite3") as opened:
        yield opened


def read(store: SessionStore, run_id: int) -> RRSession:
    detail = store.get_run(run_id)
    return session_from_record(asdict(detail), [asdict(s) for s in store.steps(run_id)])


def test_a_stored_session_reads_as_points_by_ram_multiple(store: SessionStore) -> None:
    hdd, ssd = seed004(store)
    session = read(store, ssd)
    assert session.memory_bytes == 16 * GIB
    assert session.raw_iops == SSD["raw"]
    assert [p.ram_ratio for p in session.points] == [0.5, 1.0, 1.5, 2.0, 4.0]
    assert [p.dataset_bytes for p in session.points] == [8 * GIB, 16 * GIB, 24 * GIB, 32 * GIB,
                                                         64 * GIB]  # fmt: skip
    two = session.points[3]
    assert two.label == "2x RAM (32 GiB)"
    assert two.ops_s == 146_850
    assert two.multiplier == pytest.approx(4.45)
    assert two.beyond_memory
    assert not session.points[1].beyond_memory  # 1x: the dataset is as large as RAM
    assert session.block_size == 1024
    assert session.fio_command[0] == "--name=bench-gui-random-read"


def test_ratio_at_each_matched_size_and_the_headlines(store: SessionStore) -> None:
    hdd, ssd = seed004(store)
    c = compare_random_read([read(store, hdd), read(store, ssd)], hdd)
    assert [r.label for r in c.rows] == ["0.5x RAM", "1x RAM", "1.5x RAM", "2x RAM", "4x RAM"]
    assert {r.how for r in c.rows} == {"same multiple of RAM"}
    two = c.rows[3]
    ratio = two.ratios[ssd]
    assert ratio is not None
    assert ratio.value == pytest.approx(146_850 / 530)
    assert ratio.text == "277X"  # truncated: 277.07
    in_ram = c.rows[0].ratios[ssd]
    assert in_ram is not None
    assert in_ram.text == "+19%"
    texts = [h.text for h in c.headlines]
    # The ratio headline quotes the sizes beyond RAM only.
    assert texts[0] == (
        "SSD Crucial m4 128GB: from 259X the ops/s (at 1.5x RAM) to 277X the ops/s (at 4x RAM)"
        " of HDD 7.2k 3TB"
    )
    assert texts[2] == (
        "SSD Crucial m4 128GB: 6.36X (at 1.5x RAM) to 3.15X (at 4x RAM) as many reads a second"
        " as its 33,000 raw IOPS"
    )
    assert "HDD 7.2k 3TB: 3.24X (at 1.5x RAM) to 1.50X (at 4x RAM)" in texts[1]
    assert c.notes == ()


def test_a_single_point_beyond_ram_reads_as_the_seed_says_it(store: SessionStore) -> None:
    sid = store_random_read(
        store, "SSD m4", SSD["raw"], (3_100_000.0, 146_850.0), multiples=(0.5, 2.0)
    )
    headline = multiplier_headline(read(store, sid), "SSD m4")
    assert headline.text == (
        "SSD m4: 4.45X as many reads a second as its raw IOPS at 2x RAM (146,850 ops/s against"
        " 33,000 raw IOPS)"
    )
    assert headline.low == headline.high == pytest.approx(4.45)


def test_points_within_ram_say_they_measure_memory(store: SessionStore) -> None:
    sid = store_random_read(store, "in RAM", 30_000.0, (3e6, 2.9e6), multiples=(0.25, 0.5))
    headline = multiplier_headline(read(store, sid), "in RAM")
    assert headline.kind == "memory"
    assert "measure memory and CPU, not the device" in headline.text


def test_matched_by_multiple_of_each_sessions_own_ram(store: SessionStore) -> None:
    """8 GiB and 16 GiB machines compare at the same multiple, i.e. at different byte sizes;
    a multiple within 2% matches, one the other did not measure keeps its own row."""
    small = store_random_read(
        store, "small box", 250.0, (2e6, 500.0, 380.0), multiples=(0.5, 2.0, 4.0), memory=8 * GIB
    )
    big = store_random_read(
        store, "big box", 33_000.0, (3e6, 146_000.0, 120_000.0), multiples=(0.5, 2.03, 3.0)
    )
    c = compare_random_read([read(store, small), read(store, big)], small)
    assert [round(r.ram_ratio, 2) for r in c.rows] == [0.5, 2.0, 3.0, 4.0]
    two = c.rows[1]
    assert two.how == "within 2%: 2x, 2.03x"
    small_point, big_point = two.points[small], two.points[big]
    assert small_point is not None
    assert big_point is not None
    assert (small_point.dataset_bytes, big_point.dataset_bytes) == (16 * GIB, int(2.03 * 16 * GIB))
    assert c.rows[2].points[small] is None
    assert c.rows[2].ratios[big] is None
    assert c.rows[2].how == "only big box"
    assert c.rows[3].how == "only small box"
    assert any("the RAM of the study differs" in n for n in c.notes)


def test_a_mix_of_workloads_is_refused_naming_both(store: SessionStore) -> None:
    hdd_tpcc, _ = build_seed000(store)
    rr = store_random_read(store, "SSD m4", SSD["raw"], SSD["ops"])
    kinds = [
        (sid, store.get_run(sid).name, workload_of_record(asdict(store.get_run(sid))))
        for sid in (rr, hdd_tpcc)
    ]
    with pytest.raises(CompareError) as caught:
        check_same_workload(kinds)
    text = str(caught.value)
    assert f"session {rr} (SSD m4) is a random-read study" in text
    assert f"session {hdd_tpcc} (HDD RAID 10 (16 x 15K SAS)) is a TPROC-C sweep" in text
    with pytest.raises(RandomReadCompareError, match="is not a random-read study"):
        session_from_record(asdict(store.get_run(hdd_tpcc)), [])


def test_bad_requests_are_named(store: SessionStore) -> None:
    hdd, ssd = seed004(store)
    sessions = [read(store, hdd), read(store, ssd)]
    with pytest.raises(RandomReadCompareError, match=r"baseline \(session 99\)"):
        compare_random_read(sessions, 99)
    with pytest.raises(RandomReadCompareError, match="listed twice: 1"):
        compare_random_read([sessions[0], sessions[0]], hdd)


def test_a_session_without_raw_iops_or_a_finished_point(store: SessionStore) -> None:
    hdd = store_random_read(store, "no raw pass", None, HDD["ops"])
    session = read(store, hdd)
    assert session.raw_iops is None
    assert all(p.multiplier is None for p in session.points)
    c = compare_random_read([session], hdd)
    assert c.notes == (f"session {hdd} (no raw pass) has no raw-IOPS pass: no multiplier",)
    assert "raw device IOPS were not measured" in c.headlines[0].text
    # A run stopped before its first point ended has nothing to compare.
    empty = store.create_run("stopped", {"workload": {"kind": "random_read"}}, "", {
        "kind": "random_read"}, "fio")  # fmt: skip
    store.finish_run(empty, "incomplete")
    with pytest.raises(RandomReadCompareError, match="did not record the RAM of its study"):
        read(store, empty)


def test_wording_helpers_truncate() -> None:
    assert multiplier_text(4.4599) == "4.45X"
    assert multiplier_text(10_400.0) == "10,400.00X"
    assert multiple_text(0.25) == "0.25x RAM"
    assert multiple_text(2.0) == "2x RAM"
    assert multiple_text(1.0 / 3) == "0.333x RAM"


def test_a_point_stopped_early_is_left_out_and_said(store: SessionStore) -> None:
    from bench_gui.wire.protocol import Event

    sid = store_random_read(store, "cut short", SSD["raw"], (3e6, 146_850.0), (0.5, 2.0))
    summary = {"step": 2, "vus": 8, "workload": "random_read", "dataset_bytes": 64 * GIB,
               "dataset_label": "4x RAM (64 GiB)", "ram_ratio": 4.0, "ops_s": 90_000.0,
               "complete": False}  # fmt: skip
    store.add_event(sid, Event("step", 9000, 1_795_000_500.0, {"phase": "end", "step": 2,
                                                              "summary": summary}))  # fmt: skip
    session = read(store, sid)
    assert [p.ram_ratio for p in session.points] == [0.5, 2.0]
    assert session.left_out == ("4x RAM (64 GiB): stopped before its measured window ended",)
    c = compare_random_read([session], sid)
    assert c.notes[0] == (
        f"session {sid} (cut short): 4x RAM (64 GiB): stopped before its measured window ended,"
        " left out"
    )


def test_points_and_the_calculator_stand_on_the_data_cache_measured(
    store: SessionStore,
) -> None:
    """A 256 MiB limit of which fio's own memory took 57 MiB: the data had 199 MiB of cache
    (measured past the limit), so the "4x" point is 5.15x the data's RAM and the RAM the
    calculator finds is a share of what the data really had, not of the limit."""
    from bench_gui.workloads.random_read.compare import compare_random_read
    from bench_gui.workloads.random_read.economics import ram_economics

    mib = 1 << 20
    sid = store_random_read(
        store,
        "loop SSD",
        10_000.0,
        (2_000_000.0, 30_000.0),
        (0.25, 4.0),
        memory=256 * mib,
        data_cache=(64 * mib, 199 * mib),
    )
    session = read(store, sid)
    assert session.memory_bytes == 199 * mib
    assert session.memory_label == (
        "page cache measured for the data: 199 MiB (cgroup limit: 256 MiB, of which 57 MiB"
        " held fio's own memory and other pages)"
    )
    assert [round(p.ram_ratio, 3) for p in session.points] == [0.322, 5.146]
    assert session.points[1].multiplier == pytest.approx(3.0)
    econ = ram_economics(compare_random_read([session], sid), 30_000.0, 1024 * mib)
    # The target is met at the 4x point: RAM = dataset / 5.146, not dataset / 4.
    assert econ.needs[0].ram_bytes == pytest.approx(1024 * mib * 199 / 1024, rel=1e-3)


def test_without_a_full_cache_the_limit_stays_the_ram(store: SessionStore) -> None:
    """Every point fit (its whole dataset cached) or none measured it: the limit is kept."""
    mib = 1 << 20
    sid = store_random_read(
        store, "fits", 10_000.0, (2e6, 1.9e6), (0.25, 0.5), memory=256 * mib,
        data_cache=(64 * mib, 128 * mib),
    )  # fmt: skip
    assert read(store, sid).memory_bytes == 256 * mib
    assert [p.ram_ratio for p in read(store, sid).points] == [0.25, 0.5]
