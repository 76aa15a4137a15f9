"""Plans: validation names the field and the reason; TOML round trips."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench_gui.core.plan import Plan, PlanError, load_plan, parse_vu_list, plan_from_dict


def test_defaults_round_trip_through_toml(tmp_path: Path) -> None:
    plan = Plan(name="x")
    plan.workload.virtual_users = [8, 16, 24]
    path = tmp_path / "plan.toml"
    plan.save(path)
    again = load_plan(path)
    assert again == plan


@pytest.mark.parametrize(
    ("text", "expected"),
    [("8,16,24", [8, 16, 24]), ("8-32/8", [8, 16, 24, 32]), ([1, 2], [1, 2]), ("4", [4])],
)
def test_vu_lists(text: object, expected: list[int]) -> None:
    assert parse_vu_list(text) == expected


@pytest.mark.parametrize("text", ["8,x", "", "0,8", "-1", "8-4/2", [True], "1.5"])
def test_bad_vu_lists(text: object) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - the message is checked elsewhere
        parse_vu_list(text)


def test_every_bad_field_is_named() -> None:
    data = {
        "workload": {"warehouses": 0, "virtual_users": "8,x", "duration_s": -5, "colour": 1},
        "target": {"kind": "oracle", "port": 70000},
    }
    with pytest.raises(PlanError) as info:
        plan_from_dict(data)
    fields = dict(info.value.problems)
    assert "between 1 and" in fields["workload.warehouses"]
    assert "'x' is not a whole number" in fields["workload.virtual_users"]
    assert "-5" in fields["workload.duration_s"]
    assert fields["workload.colour"] == "unknown field"
    assert "must be one of" in fields["target.kind"]
    assert "65535" in fields["target.port"]
    assert "workload.warehouses" in str(info.value)


def test_malformed_toml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text("[workload\nwarehouses = 2\n")
    with pytest.raises(PlanError) as info:
        load_plan(path)
    assert "not valid TOML" in str(info.value)
    assert str(path) in str(info.value)


def test_missing_file_is_a_plan_error(tmp_path: Path) -> None:
    with pytest.raises(PlanError, match="cannot be read"):
        load_plan(tmp_path / "nope.toml")


def test_database_must_differ_from_admin_database() -> None:
    with pytest.raises(PlanError, match="target.database"):
        plan_from_dict({"target": {"database": "postgres"}})


def test_driver_target_round_trips_and_is_checked(tmp_path: Path) -> None:
    plan = plan_from_dict({"target": {"kind": "postgresql"}, "driver": {"target": "lab-1"}})
    assert plan.driver.target == "lab-1"
    path = tmp_path / "p.toml"
    plan.save(path)
    assert load_plan(path).driver.target == "lab-1"
    with pytest.raises(PlanError, match="driver.target: the embedded demo"):
        plan_from_dict({"driver": {"target": "lab-1"}})
    with pytest.raises(PlanError, match="driver.host: unknown field"):
        plan_from_dict({"driver": {"host": "x"}})
