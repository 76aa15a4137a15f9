"""fio's JSON stream: split into objects however it arrives, read, turned into seconds.

The stream is real fio output (a short mmap run with a warm-up, ``json+`` status every
second); crafted streams cover what a real run rarely shows (text between objects, a cut
object, a reset without latencies).
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bench_gui.workloads.random_read.agent.status import (
    JsonObjects,
    Reading,
    SecondTracker,
    bin_percentiles,
    reading,
    window_result,
)
from tests.workloads.random_read.agent.helpers import need_fio


@pytest.fixture(scope="module")
def fio_stream(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Real fio stdout: 2 jobs, 2 s warm-up, 3 s measured, a status every second."""
    fio = need_fio()
    folder = tmp_path_factory.mktemp("fio-stream")
    data = folder / "data"
    subprocess.run(
        [fio, "--name=w", f"--filename={data}", "--size=16M", "--rw=write", "--bs=1M"],
        check=True,
        capture_output=True,
    )
    done = subprocess.run(
        [
            fio,
            "--name=r",
            f"--filename={data}",
            "--size=16M",
            "--rw=randread",
            "--random_distribution=zipf:0.99:0",
            "--bs=1k",
            "--numjobs=2",
            "--ioengine=mmap",
            "--group_reporting",
            "--output-format=json+",
            "--status-interval=1",
            "--time_based",
            "--ramp_time=2",
            "--runtime=3",
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


def _all(stream: str, chunks: list[int]) -> tuple[list[dict[str, Any]], JsonObjects]:
    splitter = JsonObjects()
    out: list[dict[str, Any]] = []
    at = 0
    for size in chunks:
        out += splitter.feed(stream[at : at + size])
        at += size
    out += splitter.feed(stream[at:])
    out += splitter.close()
    return out, splitter


def test_objects_come_out_whole_however_the_text_is_cut(fio_stream: str) -> None:
    whole, splitter = _all(fio_stream, [])
    assert len(whole) >= 4  # statuses of the warm-up and the window, then the result
    assert splitter.skipped == []
    rng = random.Random(4)
    for _ in range(5):
        chunks = [rng.randint(1, 700) for _ in range(len(fio_stream) // 300)]
        pieces, _ = _all(fio_stream, chunks)
        assert pieces == whole
    assert all("jobs" in obj for obj in whole)


def test_text_outside_objects_and_broken_objects_are_set_aside() -> None:
    good = json.dumps({"jobs": [{"read": {"total_ios": 5}}]}, indent=2)
    broken = '{\n  "jobs": [\n}'
    stream = f'fio: a warning on stdout\n{good}\n{broken}\n[1, 2]\n{good}\n{{\n  "cut": '
    objects, splitter = _all(stream, [7, 13])
    assert len(objects) == 2
    assert splitter.skipped[0] == "fio: a warning on stdout"
    assert any("not JSON" in s for s in splitter.skipped)
    assert "[1, 2]" in splitter.skipped
    assert any("unfinished" in s for s in splitter.skipped)
    assert reading({"no": "jobs"}) is None


def test_warm_up_then_window_as_fio_counted_it(fio_stream: str) -> None:
    objects, _ = _all(fio_stream, [])
    readings = [r for r in map(reading, objects) if r is not None]
    tracker = SecondTracker(warmup_s=1.0)
    seconds = [tracker.push(r) for r in readings[:-1]]
    phases = [s.phase for s in seconds if s is not None]
    assert phases[0] == "warmup"
    assert phases[-1] == "measure"
    assert phases == sorted(phases, key=lambda p: p == "measure")  # never back to warm-up
    measured = [s for s in seconds if s is not None and s.phase == "measure"]
    for second in measured:
        assert second.ios > 0
        assert second.seconds > 0
        lat = second.latency_ms
        assert lat is not None
        assert lat["p50"] <= lat["p95"] <= lat["p99"] <= lat["p999"] <= lat["max"]
    # The window's seconds add up to the last status's count (fio's counters since the reset).
    assert sum(s.ios for s in measured) == readings[-2].ios
    for second in seconds:
        assert second is None or second.ios >= 0
    final = window_result(readings[-1])
    assert final.window_s == pytest.approx(3.0, abs=0.1)
    assert final.ops_s == pytest.approx(final.ios / final.window_s, rel=0.01)
    assert final.ios >= readings[-2].ios


def test_percentiles_from_the_histogram_match_fios_own(fio_stream: str) -> None:
    objects, _ = _all(fio_stream, [])
    final = reading(objects[-1])
    assert final is not None
    assert final.bins
    assert final.percentiles
    ours = bin_percentiles(final.bins, final.percentiles.keys())
    for pct, value in final.percentiles.items():
        # Same buckets, same rule: fio's value, or its neighbour bucket (~1.6% apart).
        assert ours[pct] == pytest.approx(value, rel=0.04), pct


def _reading(t_ms: int, runtime_ms: int, ios: int, clat_n: int = 0) -> Reading:
    bins = {1000: clat_n} if clat_n else None
    return Reading(
        t_ms=t_ms,
        elapsed_s=t_ms // 1000,
        runtime_ms=runtime_ms,
        ios=ios,
        io_bytes=ios * 1024,
        clat_n=clat_n,
        clat_mean_ns=1000.0 if clat_n else 0.0,
        clat_max_ns=1000.0 if clat_n else 0.0,
        bins=bins,
        percentiles={},
        error=0,
        major_faults=0,
        minor_faults=0,
        usr_cpu=0.0,
        sys_cpu=0.0,
        version="fio-3.33",
    )


def test_a_reset_without_latencies_still_starts_the_window_from_zero() -> None:
    """A device so slow that no read completed in the first measured second: the counters
    went back (the warm-up's end), so the second counts from the reset, never negative."""
    tracker = SecondTracker(warmup_s=2.0)
    first = tracker.push(_reading(1000, 1000, 500))
    second = tracker.push(_reading(2000, 2000, 900))
    reset = tracker.push(_reading(3000, 800, 0))
    after = tracker.push(_reading(4000, 1800, 300, clat_n=300))
    assert first is not None
    assert first.phase == "warmup"
    assert first.ios == 500
    assert second is not None
    assert second.ios == 400
    assert second.seconds == 1.0
    assert reset is not None
    assert reset.phase == "measure"
    assert reset.ios == 0
    assert reset.seconds == pytest.approx(0.8)
    assert after is not None
    assert after.ios == 300
    assert after.latency_ms is not None
    assert after.latency_ms["p50"] == pytest.approx(0.001)


def test_without_warm_up_every_second_is_measured() -> None:
    tracker = SecondTracker(warmup_s=0)
    first = tracker.push(_reading(1000, 1000, 100, clat_n=100))
    assert first is not None
    assert first.phase == "measure"
    assert first.ops_s == 100.0


def test_fio_s_result_of_a_real_file(tmp_path: Path) -> None:
    """Fields read as fio names them (one job, no group reporting: summed all the same)."""
    obj = {
        "fio version": "fio-3.33",
        "timestamp_ms": 5000,
        "jobs": [
            {
                "elapsed": 3,
                "error": 0,
                "majf": 7,
                "minf": 2,
                "usr_cpu": 10.0,
                "sys_cpu": 5.0,
                "read": {
                    "total_ios": 2000,
                    "io_bytes": 2048000,
                    "runtime": 2000,
                    "clat_ns": {
                        "N": 2000,
                        "mean": 500.0,
                        "max": 9000.0,
                        "percentile": {"50.000000": 400, "99.000000": 2000, "99.900000": 8000},
                        "bins": {"400": 1500, "2000": 480, "8000": 20},
                    },
                },
            }
        ],
    }
    found = reading(obj)
    assert found is not None
    assert found.major_faults == 7
    assert found.version == "fio-3.33"
    result = window_result(found)
    assert result.ops_s == 1000.0
    assert result.mbs == pytest.approx(1.024)
    assert result.latency_ms["p50"] == pytest.approx(0.0004)
    assert result.latency_ms["p95"] == pytest.approx(0.002)  # from the bins: fio gave none
    assert result.latency_ms["p999"] == pytest.approx(0.008)
    assert result.latency_ms["max"] == pytest.approx(0.009)
