"""A plan's several driver hosts: ``[driver] targets``, the split of each step's users
(``users`` or ``share``, an even split by default) and ``max_clock_offset_ms``; one host is
written and read exactly as before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench_gui.core.plan import load_plan, plan_from_dict, plan_from_toml
from bench_gui.core.plan_driver_checks import check_driver_hosts_saved
from bench_gui.core.plan_model import DEFAULT_MAX_CLOCK_OFFSET_MS, DEFAULT_MAX_OUTAGE_S, PlanError


def plan(driver: dict[str, Any], vus: Any = (2, 4, 9), **workload: Any) -> dict[str, Any]:
    return {
        "target": {"kind": "postgresql"},
        "workload": {"virtual_users": list(vus), **workload},
        "driver": driver,
    }


def problems(data: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(PlanError) as caught:
        plan_from_dict(data)
    return caught.value.problems


def test_one_host_is_written_as_before(tmp_path: Path) -> None:
    one = plan_from_dict(plan({"target": "lab-1"}))
    assert one.to_dict()["driver"] == {"target": "lab-1"}
    assert one.driver.hosts == ["lab-1"]
    assert one.driver.step_splits([2, 4, 9]) == [[2], [4], [9]]
    assert plan_from_dict(plan({})).to_dict()["driver"] == {"target": ""}
    assert plan_from_dict(plan({})).driver.hosts == []
    path = tmp_path / "one.toml"
    one.save(path)
    assert "targets" not in path.read_text()
    assert load_plan(path) == one


def test_several_hosts_split_evenly_and_round_trip(tmp_path: Path) -> None:
    several = plan_from_dict(plan({"targets": ["lab-1", "lab-2", "lab-3"]}, vus=[3, 10, 11]))
    assert several.driver.hosts == ["lab-1", "lab-2", "lab-3"]
    assert several.driver.target == "lab-1"  # the primary: it reads the database's counters
    assert several.driver.max_clock_offset_ms == DEFAULT_MAX_CLOCK_OFFSET_MS
    # The remainder goes one each to the first hosts, in the plan's order.
    assert several.driver.step_splits([3, 10, 11]) == [[1, 1, 1], [4, 3, 3], [4, 4, 3]]
    written = several.to_dict()["driver"]
    assert written == {
        "targets": ["lab-1", "lab-2", "lab-3"],
        "max_clock_offset_ms": 50.0,
        "max_outage_s": DEFAULT_MAX_OUTAGE_S,
    }
    path = tmp_path / "several.toml"
    several.save(path)
    assert load_plan(path) == several


def test_users_per_host_per_step_or_for_every_step() -> None:
    rows = plan_from_dict(plan({"targets": ["a", "b"], "users": [[1, 1], [3, 1], [5, 4]]}))
    assert rows.driver.step_splits([2, 4, 9]) == [[1, 1], [3, 1], [5, 4]]
    same = plan_from_dict(plan({"targets": ["a", "b"], "users": [6, 2]}, vus=[8, 8]))
    assert same.driver.users == [[6, 2], [6, 2]]
    assert same.driver.step_splits([8, 8]) == [[6, 2], [6, 2]]
    assert plan_from_toml(rows.to_toml()) == rows


def test_shares_split_in_proportion() -> None:
    shared = plan_from_dict(plan({"targets": ["a", "b"], "share": [3, 1]}, vus=[4, 10, 9]))
    assert shared.driver.share == [3.0, 1.0]
    # 10 x 3/4 = 7.5 and 2.5: the tie of remainders goes to the earlier host.
    assert shared.driver.step_splits([4, 10, 9]) == [[3, 1], [8, 2], [7, 2]]
    assert plan_from_toml(shared.to_toml()) == shared


def test_max_clock_offset_is_read_and_checked() -> None:
    ok = plan_from_dict(plan({"targets": ["a", "b"], "max_clock_offset_ms": 5}))
    assert ok.driver.max_clock_offset_ms == 5.0
    for bad in (0, -1, 1e9, "50", True):
        found = problems(plan({"targets": ["a", "b"], "max_clock_offset_ms": bad}))
        assert [name for name, _ in found] == ["driver.max_clock_offset_ms"], bad


def test_max_outage_is_read_and_checked() -> None:
    """A host's link may stay down this long before the run fails naming it: a bounded
    number of seconds, under the barrier's timeout (never for ever)."""
    assert plan_from_dict(plan({"targets": ["a", "b"]})).driver.max_outage_s == 120.0
    ok = plan_from_dict(plan({"targets": ["a", "b"], "max_outage_s": 30}))
    assert ok.driver.max_outage_s == 30.0
    for bad in (0, -1, 301, 1e9, "60", True, None):
        found = problems(plan({"targets": ["a", "b"], "max_outage_s": bad}))
        assert [name for name, _ in found] == ["driver.max_outage_s"], bad
        assert "from 1 to 300" in found[0][1]
    one = problems(plan({"targets": ["a"], "max_outage_s": 30}))
    assert [name for name, _ in one] == ["driver.max_outage_s"]


@pytest.mark.parametrize(
    ("driver", "field", "words"),
    [
        ({"targets": []}, "driver.targets", "two or more"),
        ({"targets": "a,b"}, "driver.targets", "two or more"),
        ({"targets": ["a", "b b"]}, "driver.targets", "'b b' is not a saved SSH target"),
        ({"targets": ["a", 7]}, "driver.targets", "7 is not a saved SSH target"),
        ({"targets": ["a", "b", "a"]}, "driver.targets", "'a' is named more than once"),
        ({"targets": ["local", "b"]}, "driver.targets", "'local' is this machine"),
        ({"targets": ["a", "b"], "target": "a"}, "driver.target", "not both"),
        ({"targets": ["a"], "share": [1]}, "driver.share", "two or more driver hosts"),
        ({"target": "a", "share": [1, 2]}, "driver.share", "several driver hosts"),
        ({"target": "a", "users": [2]}, "driver.users", "several driver hosts"),
        ({"max_clock_offset_ms": 10}, "driver.max_clock_offset_ms", "several driver hosts"),
        ({"targets": ["a", "b"], "users": [1, 1], "share": [1, 1]}, "driver.share", "not both"),
        ({"targets": ["a", "b"], "users": [[1, 1], [2, 2]]}, "driver.users", "2 rows for 3"),
        ({"targets": ["a", "b"], "users": [1, 1, 0]}, "driver.users", "must be each host's"),
        ({"targets": ["a", "b"], "users": [[1, 1, 1]] * 3}, "driver.users", "3 counts for 2"),
        ({"targets": ["a", "b"], "users": "1,1"}, "driver.users", "must be each host's"),
        (
            {"targets": ["a", "b"], "users": [[1, 1], [2, 2], [4, 4]]},
            "driver.users",
            "step 3 (9 virtual users): [4, 4] sums to 8, not 9",
        ),
        ({"targets": ["a", "b"], "share": [1]}, "driver.share", "one positive number per"),
        ({"targets": ["a", "b"], "share": [1, 0]}, "driver.share", "one positive number per"),
        ({"targets": ["a", "b"], "share": [1, "x"]}, "driver.share", "one positive number per"),
        (
            {"targets": ["a", "b"], "share": [10, 1]},
            "driver.share",
            "step 1 (2 virtual users): 2 virtual users by shares 10, 1 leave host 2 ('b')",
        ),
        (
            {"targets": ["a", "b", "c"]},
            "driver.targets",
            "step 1 (2 virtual users): 2 virtual users for 3 driver hosts",
        ),
    ],
)
def test_every_bad_value_is_named_with_its_field(
    driver: dict[str, Any], field: str, words: str
) -> None:
    found = problems(plan(driver))
    assert any(name == field and words in reason for name, reason in found), found


def test_several_hosts_need_a_tproc_c_server_without_resets() -> None:
    for names in (["a", "b"], ["a"]):
        demo = problems({"driver": {"targets": names}})
        assert ("driver.targets", "the embedded demo runs on this machine only") in demo
    fio = problems({"workload": {"kind": "random_read"}, "driver": {"targets": ["a", "b"]}})
    assert any(n == "driver.targets" and "fio on one host" in r for n, r in fio), fio
    reset = problems(plan({"targets": ["a", "b"]}, reset_between_steps=True))
    assert any(n == "driver.targets" and "reset_between_steps" in r for n, r in reset), reset


def test_one_host_as_a_list_is_the_same_as_target() -> None:
    listed = plan_from_dict(plan({"targets": ["lab-1"]}))
    assert listed == plan_from_dict(plan({"target": "lab-1"}))


def test_problems_of_the_driver_come_with_the_rest() -> None:
    found = problems(
        {
            "target": {"kind": "postgresql", "port": 0},
            "driver": {"targets": ["a", "a"], "shares": [1, 1]},
        }
    )
    names = [name for name, _ in found]
    assert "target.port" in names
    assert "driver.shares" in names
    assert "driver.targets" in names
    # A bad name does not hide a bad split.
    found = problems(plan({"targets": ["a", "a"], "share": [1]}))
    assert [name for name, _ in found] == ["driver.targets", "driver.share"]


def test_a_bad_sweep_is_not_split() -> None:
    found = problems(plan({"targets": ["a", "b"], "share": [1, 1]}, vus=[0]))
    assert [name for name, _ in found] == ["workload.virtual_users"]


def test_hosts_that_are_not_saved_targets_are_named() -> None:
    several = plan_from_dict(plan({"targets": ["lab-1", "lab-9", "lab-8"]}, vus=[3]))
    with pytest.raises(PlanError) as caught:
        check_driver_hosts_saved(several, ["lab-2", "lab-1"])
    assert caught.value.problems == [
        ("driver.targets", "'lab-9' is not a saved SSH target (saved: lab-1, lab-2)"),
        ("driver.targets", "'lab-8' is not a saved SSH target (saved: lab-1, lab-2)"),
    ]
    check_driver_hosts_saved(several, ["lab-1", "lab-8", "lab-9"])  # all saved: no error
    one = plan_from_dict(plan({"target": "lab-3"}))
    with pytest.raises(PlanError, match=r"driver.target: 'lab-3' is not a saved SSH target"):
        check_driver_hosts_saved(one, [])
    check_driver_hosts_saved(plan_from_dict(plan({})), [])  # this machine: nothing to check
