"""The real agent running the random-read sweep with real fio: what it says, second by
second and point by point, every event as the desktop checks it; a memory limit, a stop, a
second run refused by the lock, caches left alone."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from bench_gui.core.events import check_event
from bench_gui.wire.protocol import decode_line
from tests.workloads.random_read.agent.helpers import (
    REPO,
    agent_config,
    kinds,
    memory_cgroups_usable,
    need_fio,
    need_root,
    run_agent,
    step_summaries,
)


def checked(events: list[dict[str, Any]]) -> None:
    """Every event passes the desktop's one check with nothing dropped."""
    for event in events:
        result = check_event(decode_line(json.dumps(event)))
        assert result.dropped == (), (event["kind"], result.dropped)


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    need_fio()
    need_root()
    folder = tmp_path_factory.mktemp("sweep")
    config = agent_config(
        folder / "data", dataset_sizes=["4MiB", "8MiB"], warmup_s=2, measure_s=2, raw_iops_s=2
    )
    events, done = run_agent(config, folder / "first")
    again, done_again = run_agent(config, folder / "again")
    return {"events": events, "done": done, "again": again, "done_again": done_again}


def test_a_run_says_what_it_is_then_each_point(sweep: dict[str, Any]) -> None:
    events, done = sweep["events"], sweep["done"]
    assert done.returncode == 0, done.stderr[-2000:]
    checked(events)
    hello = events[0]
    assert hello["kind"] == "hello"
    assert hello["engine"] == "fio"
    assert hello["workload"] == "random_read"
    assert hello["fio_version"].startswith("fio-")
    record = hello["random_read"]
    assert [p["bytes"] for p in record["points"]] == [4 << 20, 8 << 20]
    assert record["memory"]["source"] in ("machine", "agent_cgroup")
    assert record["caches_dropped"] is True
    assert record["file_bytes"] == 8 << 20
    prepare = [e for e in kinds(events, "progress") if e["task"] == "prepare"]
    assert prepare
    assert prepare[-1]["done"] == prepare[-1]["total"] == 8 << 20
    raw_done = [e for e in kinds(events, "progress") if e.get("stage") == "done"]
    assert len(raw_done) == 1
    raw = raw_done[0]["raw_iops"]
    assert raw["iops"] > 0
    assert raw["direct"] is True
    assert raw["block_size"] == 4096
    starts = [e for e in kinds(events, "step") if e["phase"] == "start"]
    assert [s["dataset_bytes"] for s in starts] == [4 << 20, 8 << 20]
    summary = kinds(events, "summary")[0]
    assert summary["status"] == "ok"
    assert summary["raw_iops"] == raw
    assert events[-1]["kind"] == "done"
    assert events[-1]["status"] == "ok"


def test_each_second_carries_operations_and_latency(sweep: dict[str, Any]) -> None:
    samples = kinds(sweep["events"], "sample")
    for step in (0, 1):
        seconds = [s for s in samples if s["step"] == step]
        phases = [s["phase"] for s in seconds]
        assert "warmup" in phases
        assert "measure" in phases
        assert phases.index("measure") > phases.index("warmup")
        for s in seconds:
            assert s["ops_s"] > 0
            assert s["vus"] == 8
            assert s["counts"]["read"] > 0
            assert s["dataset_bytes"] == (4 << 20 if step == 0 else 8 << 20)
            if s["phase"] == "measure":
                lat = s["latency_ms"]["read"]
                assert lat["p50"] <= lat["p99"] <= lat["p999"] <= lat["max"]
            else:
                assert s["latency_ms"] == {}  # fio records none in its warm-up
        assert any("host" in s for s in seconds)


def test_each_point_s_result_is_fio_s_measured_window(sweep: dict[str, Any]) -> None:
    events = sweep["events"]
    raw = kinds(events, "summary")[0]["raw_iops"]["iops"]
    for index, s in enumerate(step_summaries(events)):
        assert s["step"] == index
        assert s["workload"] == "random_read"
        assert s["complete"] is True
        assert "problems" not in s
        assert s["window_s"] == pytest.approx(2.0, abs=0.2)
        assert s["ops_s"] == pytest.approx(s["counts"]["read"] / s["window_s"], rel=0.01)
        assert s["mbs"] == pytest.approx(s["ops_s"] * 1024 / 1e6, rel=0.01)
        assert s["raw_iops"] == raw
        assert s["multiplier"] == pytest.approx(s["ops_s"] / raw, rel=0.001)
        assert s["ram_multiple"] is None
        assert s["dataset_label"] in ("4 MiB", "8 MiB")
        assert s["ram_ratio"] == pytest.approx(s["dataset_bytes"] / s["memory_bytes"], abs=1e-4)
        assert s["caches_dropped"] is True
        lat = s["latency_ms"]["read"]
        assert 0 < lat["p50"] <= lat["p95"] <= lat["p99"] <= lat["p999"] <= lat["max"]
        assert s["host"]["cpu"]  # host metrics over the window, as for TPROC-C
        assert s["window_t1"] > s["window_t0"]


def test_the_next_run_reuses_the_file(sweep: dict[str, Any]) -> None:
    assert sweep["done_again"].returncode == 0, sweep["done_again"].stderr[-2000:]
    logs = [e["message"] for e in kinds(sweep["again"], "log")]
    assert any(m.startswith("reusing the data file") for m in logs)
    assert not [e for e in kinds(sweep["again"], "progress") if e["task"] == "prepare"]


def test_a_memory_limit_holds_the_page_cache(tmp_path: Path) -> None:
    need_fio()
    need_root()
    memory_cgroups_usable()
    config = agent_config(
        tmp_path / "data",
        dataset_sizes=[0.5, 2],
        memory_limit="128MiB",
        warmup_s=1,
        measure_s=2,
        raw_iops_s=0,
    )
    events, done = run_agent(config, tmp_path / "run")
    assert done.returncode == 0, done.stderr[-2000:]
    checked(events)
    memory = events[0]["random_read"]["memory"]
    assert memory["source"] == "cgroup_limit"
    assert memory["bytes"] == 128 << 20
    assert memory["label"] == "cgroup limit: 128 MiB"
    used = [s["memory_used_bytes"] for s in kinds(events, "sample")]
    assert used
    assert max(used) <= 128 << 20
    summaries = step_summaries(events)
    assert [s["dataset_bytes"] for s in summaries] == [64 << 20, 256 << 20]
    for s in summaries:
        assert 0 < s["memory_peak_bytes"] <= (128 << 20) + 4096
        assert s["raw_iops"] is None
        assert s["multiplier"] is None
    # The 2x point filled the limit: the cache could not hold it all.
    assert summaries[1]["memory_peak_bytes"] > 100 << 20
    logs = [e["message"] for e in kinds(events, "log")]
    assert any("raw-IOPS pass skipped" in m for m in logs)
    leftovers = subprocess.run(
        ["sh", "-c", "find /sys/fs/cgroup -maxdepth 6 -name 'bench-gui-fio-*' -type d"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    agent_pid = events[0]["pid"]
    assert not [f for f in leftovers if f"bench-gui-fio-{agent_pid}-" in f]


def test_caches_left_alone_are_said_so(tmp_path: Path) -> None:
    need_fio()
    config = agent_config(
        tmp_path / "data", dataset_sizes=["2MiB"], drop_caches=False, raw_iops_s=0, measure_s=1
    )
    events, done = run_agent(config, tmp_path / "run")
    assert done.returncode == 0, done.stderr[-2000:]
    assert events[0]["random_read"]["caches_dropped"] is False
    warnings = [e["message"] for e in kinds(events, "log") if e["level"] == "warning"]
    assert any("page cache not dropped" in m for m in warnings)
    assert step_summaries(events)[0]["caches_dropped"] is False


def test_a_stop_keeps_what_was_measured_and_the_lock_refuses_a_second_run(
    tmp_path: Path,
) -> None:
    need_fio()
    config = agent_config(
        tmp_path / "data",
        dataset_sizes=["4MiB", "8MiB"],
        drop_caches=False,
        raw_iops_s=0,
        warmup_s=1,
        measure_s=60,
    )
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    env = dict(os.environ, PYTHONPATH=str(REPO))
    argv = [sys.executable, "-m", "bench_gui.agent", "--config", str(path)]
    argv += ["--lock-dir", str(tmp_path / "locks")]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    events: list[dict[str, Any]] = []
    try:
        for line in proc.stdout:
            events.append(json.loads(line))
            if events[-1]["kind"] == "sample" and events[-1]["phase"] == "measure":
                break
        second = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
        assert second.returncode == 4
        refused = [json.loads(x) for x in second.stdout.splitlines()]
        assert refused[0]["kind"] == "error"
        assert refused[0]["code"] == "locked"
        assert "random reads on" in refused[0]["message"]
        proc.send_signal(signal.SIGTERM)
        events += [json.loads(line) for line in proc.stdout]
    finally:
        proc.wait(60)
        proc.stdout.close()
    assert proc.returncode == 0
    checked(events)
    summaries = step_summaries(events)
    assert len(summaries) == 1  # the second point never started
    stopped = summaries[0]
    assert stopped["complete"] is False
    assert "stopped" in stopped["problems"][0]
    assert "of the planned 60 s" in stopped["problems"][0]
    assert stopped["ops_s"] > 0  # what was measured is kept
    assert kinds(events, "summary")[0]["status"] == "stopped"
    assert events[-1]["kind"] == "done"
    assert events[-1]["status"] == "stopped"
    time.sleep(0.2)
    fio_left = subprocess.run(
        ["pgrep", "-f", "--", f"--filename={tmp_path / 'data'}"], capture_output=True, check=False
    )
    assert fio_left.returncode == 1, "fio still runs after the agent ended"
