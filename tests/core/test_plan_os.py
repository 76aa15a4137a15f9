"""The plan's ``[os]`` section: knobs applied for the run, checked field by field."""

from __future__ import annotations

import tomllib

import pytest

from bench_gui.core.plan import plan_from_dict
from bench_gui.core.plan_host_checks import os_knob_problem
from bench_gui.core.plan_model import OsKnobs, Plan, PlanError

PLAN = """
[target]
kind = "postgresql"
host = "db"

[driver]
target = "lab"

[os]
preset = "micron-9300-linux"
knobs = { "vm.dirty_ratio" = "10", read_ahead_kb = 4096, "block.nvme0n1.scheduler" = "none" }
data_dir = "/var/lib/postgresql/18/main"
devices = "nvme0n1, /dev/nvme1n1"
"""


def test_an_os_section_round_trips() -> None:
    plan = plan_from_dict(tomllib.loads(PLAN))
    assert plan.os.preset == "micron-9300-linux"
    assert plan.os.knobs == {
        "vm.dirty_ratio": "10",
        "read_ahead_kb": "4096",
        "block.nvme0n1.scheduler": "none",
    }
    assert plan.os.devices == ["nvme0n1", "nvme1n1"]
    # The section's own knobs win over the preset's.
    changes = plan.os.changes()
    assert changes["vm.dirty_ratio"] == "10"
    assert changes["read_ahead_kb"] == "4096"
    assert changes["kernel.numa_balancing"] == "0"  # from the preset
    again = plan_from_dict(tomllib.loads(plan.to_toml()))
    assert again == plan
    assert '"vm.dirty_ratio" = "10"' in plan.to_toml()


def test_a_plan_without_knobs_has_no_os_section() -> None:
    assert "os" not in Plan().to_dict()
    assert "[os]" not in Plan().to_toml()
    assert not Plan().os.enabled
    assert plan_from_dict(Plan().to_dict()) == Plan()


def test_every_bad_value_names_its_field() -> None:
    data = {
        "os": {
            "preset": "fast-please",
            "knobs": {
                "net.core.somaxconn": "1024",
                "vm.dirty_ratio": "lots",
                "transparent_hugepage": "sometimes",
                "scheduler": "No Way",
                "read_ahead_kb": True,
                "block.sda.nr_requests": "64",
            },
            "host": "not a name",
            "data_dir": "relative/dir",
            "devices": ["sda", "../etc"],
            "persist": True,
        }
    }
    with pytest.raises(PlanError) as info:
        plan_from_dict(data)
    problems = dict(info.value.problems)
    assert "no OS preset 'fast-please'" in problems["os.preset"]
    assert "not a knob bench-gui knows" in problems["os.knobs.net.core.somaxconn"]
    assert "not a knob bench-gui knows" in problems["os.knobs.block.sda.nr_requests"]
    assert problems["os.knobs.vm.dirty_ratio"] == "must be a whole number, got 'lots'"
    assert "always, madvise, never" in problems["os.knobs.transparent_hugepage"]
    assert "not an I/O scheduler name" in problems["os.knobs.scheduler"]
    assert "got True" in problems["os.knobs.read_ahead_kb"]
    assert "saved SSH target" in problems["os.host"]
    assert "absolute path" in problems["os.data_dir"]
    assert "'../etc' is not a block device name" in problems["os.devices"]
    assert problems["os.persist"] == "unknown field"
    with pytest.raises(PlanError, match="os: must be a table"):
        plan_from_dict({"os": "vm.dirty_ratio=10"})


def test_knobs_the_kernel_may_lack_are_accepted() -> None:
    # Whether this kernel has a knob is the host's answer at run time, not a plan error.
    assert os_knob_problem("kernel.sched_min_granularity_ns", "10000000") == ""
    assert os_knob_problem("vm.dirty_expire_centisecs", "1500") == ""
    assert os_knob_problem("transparent_hugepage.defrag", "defer+madvise") == ""
    assert os_knob_problem("block.md0.read_ahead_kb", "8192") == ""
    assert os_knob_problem("read_ahead_kb", "") == "is empty"


def test_the_demo_runs_on_this_machine() -> None:
    with pytest.raises(PlanError) as info:
        plan_from_dict({"os": {"knobs": {"vm.swappiness": "1"}, "host": "lab"}})
    assert dict(info.value.problems)["os.host"].startswith("the embedded demo runs on this")
    plan = plan_from_dict({"os": {"knobs": {"vm.swappiness": "1"}, "host": "local"}})
    assert plan.os == OsKnobs(knobs={"vm.swappiness": "1"}, host="local")
    assert plan.os.enabled


def test_several_driver_hosts_must_name_the_knobs_host() -> None:
    """One driver host is taken to be the database host; of several, none is: the plan says
    where the knobs go, or is refused naming the field."""
    data = tomllib.loads(PLAN)
    data["driver"] = {"targets": ["lab-1", "lab-2"]}
    with pytest.raises(PlanError) as caught:
        plan_from_dict(data)
    assert any(
        field == "os.host" and "several driver hosts" in why for field, why in caught.value.problems
    )
    data["os"]["host"] = "db-host"
    assert plan_from_dict(data).os.host == "db-host"
    data["os"]["host"] = "local"
    assert plan_from_dict(data).os.host == "local"
