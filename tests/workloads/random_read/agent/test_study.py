"""What a random-read run settles before it starts: sizes, RAM, dataset points, fio's command
line, and every reason to refuse, each naming the field or what is missing."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from bench_gui.wire.fio_sizes import GIB, KIB, MIB, format_size, parse_size
from bench_gui.wire.run_config import RunConfig
from bench_gui.workloads.random_read.agent.cgroup import machine_ram
from bench_gui.workloads.random_read.agent.runner import FioError
from bench_gui.workloads.random_read.agent.study import Study, StudyError
from tests.workloads.random_read.agent.helpers import (
    agent_config,
    cgroup_filesystem_mounted,
    memory_cgroups_usable,
    need_fio,
    need_root,
)


def config(tmp_path: Path, **fields: Any) -> RunConfig:
    data = agent_config(tmp_path / "data")
    data.update(fields)
    return RunConfig.from_dict(data)


def test_sizes_read_as_fio_and_disk_makers_write_them() -> None:
    assert parse_size("1k") == KIB == parse_size("1KiB") == parse_size(1024)
    assert parse_size("512MiB") == 512 * MIB == parse_size("0.5 GiB")
    assert parse_size("2G") == 2 * GIB
    assert parse_size("1GB") == 10**9
    for bad, why in (
        ("1.5", "whole number of bytes"),
        ("12 furlongs", "unknown unit"),
        ("-1k", "is not a size"),
        (True, "is not a size"),
        (0, "positive"),
        ("9" * 30, "larger than"),
    ):
        with pytest.raises(ValueError, match=why):
            parse_size(bad)
    assert format_size(256 * MIB) == "256 MiB"
    assert format_size(1.5 * GIB) == "1.5 GiB"


def test_points_from_ram_multiples_and_absolute_sizes(tmp_path: Path) -> None:
    need_fio()
    cfg = config(tmp_path, dataset_sizes=[0.25, "100MiB", 2], drop_caches=False, block_size="4k")
    study = Study.check(cfg)
    ram = study.memory.bytes
    assert study.memory.source in ("machine", "agent_cgroup")
    assert study.memory.machine_bytes == machine_ram()
    quarter, absolute, double = study.points
    assert quarter.multiple == 0.25
    assert quarter.bytes == round(ram / 4 / MIB) * MIB
    assert quarter.label.startswith("0.25x RAM (")
    assert absolute.multiple is None
    assert absolute.bytes == 100 * MIB
    assert absolute.label == "100 MiB"
    assert double.bytes % (4 * KIB) == 0
    assert study.file_bytes == double.bytes  # the largest point, whole MiB
    assert not study.drop_caches
    assert any("not dropped" in n for n in study.notes)
    record = study.record()
    assert record["memory"]["label"] == study.memory.label
    assert record["caches_dropped"] is False
    assert [p["bytes"] for p in record["points"]] == [p.bytes for p in study.points]
    assert "--size=<dataset bytes>" in record["fio_command"]


def test_fio_s_command_line_is_the_seed_s_method(tmp_path: Path) -> None:
    need_fio()
    study = Study.check(config(tmp_path, drop_caches=False, warmup_s=600, measure_s=600))
    argv = study.point_argv(study.points[0])
    for option in (
        "--rw=randread",
        "--random_distribution=zipf:0.99:0",
        "--bs=1024",
        "--numjobs=8",
        "--ioengine=mmap",
        "--direct=0",
        "--output-format=json+",
        "--status-interval=1",
        "--time_based",
        "--runtime=600000ms",
        # The measured window reads the cache its warm-up left: not invalidated.
        "--invalidate=0",
        f"--size={study.points[0].bytes}",
    ):
        assert option in argv
    # The warm-up is a run of its own (stopped once steady, 600 s at most), on a dropped
    # and invalidated cache; fio's fixed ramp_time is no longer used.
    warm = study.point_argv(study.points[0], "warmup")
    assert "--invalidate=1" in warm
    assert "--runtime=600000ms" in warm
    assert not any(a.startswith("--ramp_time") for a in [*argv, *warm])
    raw = study.raw_argv()
    assert "--direct=1" in raw
    assert "--bs=4096" in raw
    assert f"--size={study.file_bytes}" in raw


def test_a_memory_limit_is_the_study_s_ram(tmp_path: Path) -> None:
    need_fio()
    need_root()
    memory_cgroups_usable()
    study = Study.check(config(tmp_path, memory_limit="256MiB", dataset_sizes=[0.5, 4]))
    assert study.memory.bytes == 256 * MIB
    assert study.memory.source == "cgroup_limit"
    assert study.memory.label == "cgroup limit: 256 MiB"
    assert [p.bytes for p in study.points] == [128 * MIB, GIB]


def test_refusals_name_what_is_wrong(tmp_path: Path) -> None:
    need_fio()
    cases: list[tuple[dict[str, Any], str]] = [
        ({"file": "relative/data"}, "workload.file must be an absolute path"),
        ({"file": ""}, "workload.file must be an absolute path"),
        ({"dataset_sizes": []}, "workload.dataset_sizes is empty"),
        ({"dataset_sizes": ["12 furlongs"]}, "workload.dataset_sizes: .*unknown unit"),
        ({"block_size": "huge"}, "workload.block_size"),
        ({"ioengine": "spdk"}, "workload.ioengine must be one of"),
        ({"action": "build"}, "can only be run"),
    ]
    for fields, message in cases:
        fields.setdefault("drop_caches", False)
        with pytest.raises(StudyError, match=message):
            Study.check(config(tmp_path, **fields))


def test_a_memory_limit_above_what_the_host_gives_is_refused(tmp_path: Path) -> None:
    """The limit is compared with the agent's cgroup as well as the machine's RAM: without a
    cgroup filesystem a limit is refused for that reason instead (a skip here)."""
    need_fio()
    cgroup_filesystem_mounted()
    with pytest.raises(StudyError, match="workload.memory_limit 64 TiB is more than"):
        Study.check(config(tmp_path, memory_limit="64TiB", drop_caches=False))


def test_dropping_caches_without_the_right_is_refused_clearly(tmp_path: Path) -> None:
    """As a user who may not write /proc/sys/vm/drop_caches (a real unprivileged process)."""
    need_fio()
    need_root()
    import subprocess
    import sys

    code = (
        "import os, sys\n"
        "from bench_gui.wire.run_config import RunConfig\n"
        "from bench_gui.workloads.random_read.agent.study import Study, StudyError\n"
        "os.setgid(65534); os.setuid(65534)\n"
        "try:\n"
        "    Study.check(RunConfig(kind='random_read', file='/tmp/x', dataset_sizes=[1]))\n"
        "except StudyError as exc:\n"
        "    print(exc)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[4]))
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert "needs root" in done.stdout, done.stderr
    assert "workload.drop_caches = false" in done.stdout


def test_fio_missing_is_said_with_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # a PATH where no fio lives
    with pytest.raises(FioError, match="fio is not installed.*apt-get install fio"):
        Study.check(config(tmp_path, drop_caches=False))
