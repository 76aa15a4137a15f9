"""The random-read Live model on a real run: the real agent ran real fio on a loop device under a
64 MiB memory cgroup (three dataset sizes: 0.5x, 1x and 2x that "RAM"), and every figure the
model gives is checked against the events the agent wrote, as it took them and as the store
gives them back (a replayed or re-attached session)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from bench_gui.services.reattach import stored_events
from bench_gui.store import SessionStore
from bench_gui.wire.protocol import Event
from bench_gui.workloads.random_read.live_model import (
    SMOOTHING,
    RandomReadLive,
    dataset_text,
    is_random_read,
    ram_multiple_text,
    short_size,
)
from tests.services.random_read_recording import LIMIT_MIB, MULTIPLES, WARMUP_S, recorded


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Event], str]:
    return recorded(tmp_path_factory)


def _samples(events: list[Event], step: int) -> list[Event]:
    return [e for e in events if e.kind == "sample" and e.get("step") == step]


def _ends(events: list[Event]) -> list[dict[str, Any]]:
    return [e.data["summary"] for e in events if e.kind == "step" and e.get("phase") == "end"]


def _fed(events: list[Event]) -> RandomReadLive:
    model = RandomReadLive()
    model.begin("real run", WARMUP_S, 3, 2)
    model.feed_all(events)
    return model


def _index(events: list[Event], test: Any) -> int:
    return next(i for i, e in enumerate(events) if test(e))


def test_every_dataset_size_becomes_a_point_with_fio_s_own_figures(
    run: tuple[list[Event], str],
) -> None:
    events, _device = run
    model = _fed(events)
    ends = _ends(events)
    assert len(ends) == len(MULTIPLES)
    assert [p.step for p in model.points] == [0, 1, 2]
    assert [p.ram_ratio for p in model.points] == pytest.approx(list(MULTIPLES))
    assert [p.dataset_bytes for p in model.points] == [int(m * LIMIT_MIB) << 20 for m in MULTIPLES]
    for point, summary in zip(model.points, ends, strict=True):
        read = summary["latency_ms"]["read"]
        assert point.ops_s == summary["ops_s"] > 0
        assert point.mbs == summary["mbs"]
        assert (point.p50_ms, point.p99_ms, point.p999_ms) == (
            read["p50"],
            read["p99"],
            read["p999"],
        )
        assert point.multiplier == summary["multiplier"]
        assert point.complete
    raw = next(e for e in events if e.get("stage") == "done").data["raw_iops"]
    assert model.raw_iops == raw["iops"] > 0
    assert "direct I/O" in model.raw_method
    assert model.planned_ratios() == pytest.approx(list(MULTIPLES))
    assert model.memory_bytes == LIMIT_MIB << 20
    assert model.memory_label == f"cgroup limit: {LIMIT_MIB} MiB"
    assert model.fio_version.startswith("fio-")
    assert model.phase == "ok"
    assert model.ended
    # The study's point: once the dataset no longer fits the RAM, reads go to the device.
    assert model.points[0].ops_s > model.points[2].ops_s  # type: ignore[operator]


def test_the_phase_follows_the_run_from_the_file_to_the_last_point(
    run: tuple[list[Event], str],
) -> None:
    events, _device = run
    model = RandomReadLive()
    model.begin("real run", WARMUP_S, 3, 2)
    assert model.phase_label == "Starting"
    seen: list[str] = []
    for event in events:
        model.feed(event)
        if not seen or seen[-1] != model.phase:
            seen.append(model.phase)
    expected = ["preparing", "raw_iops", "dropping"]
    for point in range(len(MULTIPLES)):
        expected += ["warmup", "measure"]
        expected.append("dropping" if point < len(MULTIPLES) - 1 else "finishing")
    assert seen == [*expected, "ok"]


def test_a_point_s_seconds_are_on_its_own_clock_with_its_measured_window(
    run: tuple[list[Event], str],
) -> None:
    events, device = run
    second = _samples(events, 1)
    cut = _index(events, lambda e: e is second[-1])
    model = _fed(events[: cut + 1])
    assert model.step == 1
    assert model.phase == "measure"
    assert list(model.point_seconds("elapsed")) == [s.get("elapsed") for s in second]
    assert list(model.point_seconds("ops_s")) == [s.get("ops_s") for s in second]
    assert list(model.point_seconds("mbs")) == [s.get("mbs") for s in second]
    measured = [s.get("phase") == "measure" for s in second]
    assert list(model.point_seconds("measured").astype(bool)) == measured
    p99 = model.point_seconds("p99")
    for value, sample in zip(p99, second, strict=True):
        read = sample.get("latency_ms").get("read")
        if read:
            assert value == read["p99"]
        else:
            assert math.isnan(value)  # fio records no latency in its warm-up
    reads = [s.get("host")["disks"][device]["r_iops"] for s in second]
    assert model.device == device
    assert list(model.point_seconds("device_r_iops")) == reads
    # The window opens where the warm-up ended and grows with each measured second.
    first_measured = next(s for s in second if s.get("phase") == "measure")
    assert model.window is not None
    start, end = model.window
    assert start == max(first_measured.get("elapsed") - 1.0, WARMUP_S)
    assert end == second[-1].get("elapsed")
    # The whole run's seconds are all kept: both points so far.
    assert len(model.seconds) == len(_samples(events, 0)) + len(second)


def test_the_tiles_follow_the_point_then_show_its_result(run: tuple[list[Event], str]) -> None:
    events, _device = run
    last = _samples(events, 2)
    warm = [s for s in last if s.get("phase") == "warmup"]
    at_warmup = _index(events, lambda e: e is warm[-1])
    tiles = _fed(events[: at_warmup + 1]).tiles()
    assert not tiles.measured
    assert tiles.p99_ms is None
    assert tiles.p999_ms is None
    assert tiles.ops_s == pytest.approx(np.mean([s.get("ops_s") for s in warm[-SMOOTHING:]]))
    assert tiles.dataset == f"2× RAM · {2 * LIMIT_MIB} MiB"
    assert (tiles.point, tiles.point_count) == (3, 3)

    model = _fed(events[: _index(events, lambda e: e is last[-1]) + 1])
    tiles = model.tiles()
    measured = [s for s in last if s.get("phase") == "measure"]
    assert tiles.measured
    assert tiles.ops_s == pytest.approx(np.mean([s.get("ops_s") for s in measured[-SMOOTHING:]]))
    assert tiles.p99_ms == measured[-1].get("latency_ms")["read"]["p99"]
    assert tiles.p999_ms == measured[-1].get("latency_ms")["read"]["p999"]
    assert tiles.result_of is None

    # Between points and at the end: the finished point's own result.
    after_first = _index(events, lambda e: e.kind == "step" and e.get("phase") == "end")
    tiles = _fed(events[: after_first + 1]).tiles()
    summary = events[after_first].data["summary"]
    assert tiles.result_of is not None
    assert tiles.result_of.step == 0
    assert tiles.ops_s == summary["ops_s"]
    assert tiles.p99_ms == summary["latency_ms"]["read"]["p99"]
    assert tiles.dataset == f"0.5× RAM · {LIMIT_MIB // 2} MiB"


def test_the_countdown_is_the_phase_s_not_the_point_s(run: tuple[list[Event], str]) -> None:
    events, _device = run
    warm = next(e for e in events if e.kind == "sample" and e.get("phase") == "warmup")
    model = _fed(events[: _index(events, lambda e: e is warm) + 1])
    # The agent says what is left of the whole point; the warm-up ends a window earlier.
    assert model.phase_remaining() == pytest.approx(max(0.0, warm.get("remaining") - 3))
    assert model.phase_remaining(model.remaining_at + 0.5) == pytest.approx(  # type: ignore[operator]
        max(0.0, warm.get("remaining") - 3.5)
    )
    measured = next(e for e in events if e.kind == "sample" and e.get("phase") == "measure")
    model = _fed(events[: _index(events, lambda e: e is measured) + 1])
    assert model.phase_remaining() == pytest.approx(measured.get("remaining"))
    assert _fed(events).phase_remaining() is None


def test_a_stored_session_gives_the_same_view(run: tuple[list[Event], str]) -> None:
    """What the store gives back (a replayed or re-attached session) makes the same points and
    seconds as the live stream did."""
    events, _device = run
    store = SessionStore()
    try:
        run_id = store.create_run(
            name="random reads", plan={}, plan_toml="", target={"kind": "random_read"}, engine="fio"
        )
        for event in events:
            store.add_event(run_id, event)
        store.finish_run(run_id, "complete", "")
        replayed = stored_events(store, run_id)
    finally:
        store.close()
    assert any(is_random_read(e) for e in replayed)
    live, again = _fed(events), _fed(replayed)
    assert again.points == live.points
    assert again.raw_iops == live.raw_iops
    assert again.planned == live.planned
    for column in ("elapsed", "ops_s", "p99", "device_r_iops"):
        np.testing.assert_array_equal(again.seconds.column(column), live.seconds.column(column))


def test_odd_payloads_are_skipped_not_fatal(run: tuple[list[Event], str]) -> None:
    events, _device = run
    model = _fed(events[:3])
    before = len(model.seconds)
    model.feed(Event("sample", 999, events[2].t + 1, {"step": "one", "ops_s": "fast"}))
    model.feed(Event("step", 1000, events[2].t + 2, {"phase": "end", "summary": {"step": 0}}))
    model.feed(Event("progress", 1001, events[2].t + 3, {"task": "raw_iops", "raw_iops": 5}))
    assert len(model.seconds) == before
    assert model.points == []
    assert model.raw_iops is None


def test_sizes_are_written_as_people_say_them() -> None:
    assert short_size(4 << 30) == "4.0 GiB"
    assert short_size(1.5 * (1 << 30)) == "1.5 GiB"
    assert short_size(256 << 20) == "256 MiB"
    assert short_size(1000 << 20) == "1,000 MiB"
    assert ram_multiple_text(2.0) == "2× RAM"
    assert ram_multiple_text(0.375) == "0.375× RAM"
    assert dataset_text(4 << 30, 2.0) == "2× RAM · 4.0 GiB"
    assert dataset_text(48 << 20, None) == "48 MiB"


def test_the_file_being_written_shows_its_progress(run: tuple[list[Event], str]) -> None:
    """The agent's ``prepare`` progress a second while it writes the file: half way, then
    all of it."""
    events, _device = run
    written = next(e for e in events if e.get("task") == "prepare")
    total, rate = written.get("total"), written.get("rate")
    half = Event("progress", written.seq, written.t, {**written.data, "done": total // 2})
    model = _fed([events[0], half])
    assert model.phase == "preparing"
    assert model.phase_label == "Pre-allocating 50%"
    assert model.progress is not None
    assert model.progress.fraction == pytest.approx(0.5)
    assert model.phase_remaining() == pytest.approx((total - total // 2) / (rate * 1e6))
    # All written: the raw-IOPS pass comes next. (The recording's first prepare event is not
    # always the whole file: on a loaded machine the file took more than its first second.)
    model.feed(Event("progress", written.seq, written.t, {**written.data, "done": total}))
    assert model.phase == "raw_iops"
    assert model.progress is None
