"""``[workload] kind = "random_read"``: seed 004's study in a plan, every field checked and
named in its error, saved and read back as the same plan; TPROC-C plans stay as they were."""

from __future__ import annotations

import math
import tomllib

import pytest

from bench_gui.core.plan import plan_from_dict, plan_from_toml
from bench_gui.core.plan_checks import parse_dataset_sizes
from bench_gui.core.plan_model import Plan, PlanError
from bench_gui.wire.run_config import DEFAULT_DATASET_SIZES

SEED_004 = """
name = "SSD vs disk, seed 004"
[workload]
kind = "random_read"
dataset_sizes = [0.25, 0.5, 1, 1.5, 2, 4, "512MiB"]
block_size = "1k"
jobs = 8
ioengine = "mmap"
zipf_theta = 0.99
warmup_s = 600
measure_s = 600
file = "/mnt/bench/random-read.dat"
drop_caches = true
memory_limit = "256MiB"
raw_iops_s = 30
[driver]
target = "db1"
[monitor]
devices = ["nvme0n1"]
"""


def problems(data: dict[str, object]) -> dict[str, str]:
    with pytest.raises(PlanError) as info:
        plan_from_dict(data)
    return dict(info.value.problems)


def test_the_seed_s_plan_reads_and_round_trips() -> None:
    plan = plan_from_toml(SEED_004)
    wl = plan.workload
    assert wl.kind == "random_read"
    assert wl.dataset_sizes == [0.25, 0.5, 1, 1.5, 2, 4, "512MiB"]
    assert (wl.block_size, wl.jobs, wl.ioengine, wl.direct) == ("1k", 8, "mmap", False)
    assert (wl.zipf_theta, wl.warmup_s, wl.measure_s) == (0.99, 600.0, 600.0)
    assert (wl.memory_limit, wl.raw_iops_s, wl.drop_caches) == ("256MiB", 30.0, True)
    assert plan.driver.target == "db1"  # fio runs on an SSH host: no demo rule applies
    assert plan_from_toml(plan.to_toml()) == plan
    data = plan.to_dict()
    assert "target" not in data  # no database
    assert "warehouses" not in data["workload"]
    assert "virtual_users" not in data["workload"]
    assert data["workload"]["kind"] == "random_read"


def test_defaults_are_the_seed_s() -> None:
    plan = plan_from_dict({"workload": {"kind": "random_read", "file": "/data/f"}})
    wl = plan.workload
    assert list(wl.dataset_sizes) == list(DEFAULT_DATASET_SIZES)
    assert (wl.block_size, wl.jobs, wl.ioengine, wl.zipf_theta) == ("1k", 8, "mmap", 0.99)
    assert (wl.warmup_s, wl.measure_s, wl.drop_caches, wl.memory_limit) == (600, 600, True, "")
    assert plan.name == "Random-read sweep"
    # No file: the run puts it on the storage prepared on the host (resolved when it starts).
    assert plan_from_dict({"workload": {"kind": "random_read"}}).workload.file == ""


def test_a_tproc_c_plan_is_unchanged_by_the_new_kind() -> None:
    plan = Plan()
    data = plan.to_dict()
    for key in ("kind", "dataset_sizes", "memory_limit", "raw_iops_s", "file"):
        assert key not in data["workload"]
    assert plan_from_toml(plan.to_toml()) == plan
    assert plan_from_dict({"workload": {"kind": "tproc_c"}}).workload.kind == "tproc_c"


def test_each_kind_refuses_the_other_s_fields() -> None:
    found = problems({"workload": {"kind": "random_read", "warehouses": 4, "rampup_s": 1}})
    assert found["workload.warehouses"] == 'a TPROC-C field: not used by kind = "random_read"'
    assert "workload.rampup_s" in found
    found = problems({"workload": {"jobs": 8, "memory_limit": "1GiB"}})
    assert found["workload.jobs"] == 'only for kind = "random_read"'
    assert "workload.memory_limit" in found
    found = problems({"workload": {"kind": "random_read"}, "target": {"kind": "postgresql"}})
    assert "uses no database" in found["target"]
    assert (
        "must be one of tproc_c, random_read"
        in problems({"workload": {"kind": "oltp"}})["workload.kind"]
    )


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("dataset_sizes", [], "is empty"),
        ("dataset_sizes", [0], "a RAM multiple must be above 0"),
        ("dataset_sizes", [-1], "a RAM multiple must be above 0"),
        ("dataset_sizes", [math.nan], "a RAM multiple must be above 0"),
        ("dataset_sizes", [2000], "at most 1024"),
        ("dataset_sizes", ["12 furlongs"], "unknown unit"),
        ("dataset_sizes", ["100k"], "less than 1 MiB"),
        ("dataset_sizes", [1, 1.0], "repeats 1"),
        ("dataset_sizes", ["1GiB", "1024MiB"], "repeats '1GiB'"),
        ("dataset_sizes", [True], "neither a RAM multiple nor a size"),
        ("dataset_sizes", list(range(1, 200)), "at most 100"),
        ("dataset_sizes", 4, "must be a list"),
        ("block_size", "3k", "power of two"),
        ("block_size", "2MiB", "power of two up to 1 MiB"),
        ("block_size", "256", "less than 512 B"),
        ("block_size", 1.5, "must be a size"),
        ("jobs", 0, "between 1 and 256"),
        ("ioengine", "io_uring", "must be one of mmap, psync, libaio"),
        ("direct", "yes", "true or false"),
        ("zipf_theta", 1, "1 is not allowed"),
        ("zipf_theta", 0, "between 0.001 and 100"),
        ("zipf_theta", "high", "must be a number"),
        ("warmup_s", -1, "between 0 and 86400 seconds"),
        ("measure_s", 0, "between 1 and 86400 seconds"),
        ("file", "relative/path", "absolute path"),
        ("file", "/data/", "absolute path of a file"),
        ("file", "/data/a\nb", "line breaks"),
        ("drop_caches", 1, "true or false"),
        ("memory_limit", "32MiB", "less than 64 MiB"),
        ("memory_limit", "lots", "not a size"),
        ("memory_limit", 1.5, "must be a size"),
        ("raw_iops_s", 7200, "between 0 and 3600 seconds"),
    ],
)
def test_a_bad_field_is_named_with_why(field: str, value: object, reason: str) -> None:
    found = problems({"workload": {"kind": "random_read", field: value}})
    assert f"workload.{field}" in found, found
    assert reason in found[f"workload.{field}"]


def test_engine_and_direct_i_o_go_together() -> None:
    found = problems({"workload": {"kind": "random_read", "direct": True}})
    assert "direct I/O needs ioengine psync or libaio" in found["workload.direct"]
    found = problems({"workload": {"kind": "random_read", "ioengine": "libaio"}})
    assert "libaio needs direct = true" in found["workload.ioengine"]
    plan = plan_from_dict(
        {"workload": {"kind": "random_read", "ioengine": "libaio", "direct": True}}
    )
    assert plan.workload.direct
    assert plan_from_dict({"workload": {"kind": "random_read", "ioengine": "psync"}})


def test_every_problem_is_reported_at_once() -> None:
    found = problems(
        {"workload": {"kind": "random_read", "jobs": 0, "block_size": "3k", "measure_s": 0}}
    )
    assert {"workload.jobs", "workload.block_size", "workload.measure_s"} <= set(found)


def test_dataset_sizes_as_text_read_like_the_list() -> None:
    assert parse_dataset_sizes("0.25, 1, 4, 512MiB") == [0.25, 1, 4, "512MiB"]
    assert tomllib.loads(plan_from_toml(SEED_004).to_toml())["workload"]["dataset_sizes"][-1] == (
        "512MiB"
    )
