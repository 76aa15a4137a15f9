"""Plans: validation names the field and the reason; TOML round trips."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench_gui.core.plan import load_plan, plan_from_dict
from bench_gui.core.plan_checks import parse_vu_list
from bench_gui.core.plan_model import Plan, PlanError


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


def test_the_stall_limit_is_a_workload_field_named_in_its_errors() -> None:
    """workload.db_stall_limit_s: how long a hung database may stay silent (issue 15)."""
    assert Plan().workload.db_stall_limit_s == 120.0
    plan = plan_from_dict({"workload": {"db_stall_limit_s": 30}})
    assert plan.workload.db_stall_limit_s == 30.0
    assert plan.to_dict()["workload"]["db_stall_limit_s"] == 30.0
    for bad, reason in ((0, "between 1 and 86400"), ("soon", "must be a number of seconds")):
        with pytest.raises(PlanError) as info:
            plan_from_dict({"workload": {"db_stall_limit_s": bad}})
        assert reason in dict(info.value.problems)["workload.db_stall_limit_s"]


def test_a_plan_that_is_not_utf8_is_one_clear_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes('name = "caf\u00e9"\n[target]\nhost = "db1"\n'.encode("latin-1"))
    with pytest.raises(PlanError) as info:
        load_plan(path)
    assert info.value.problems == [
        (str(path), "is not UTF-8 text (byte 0xe9 on line 1): save it as UTF-8")
    ]
    # A byte-order mark (Windows editors write one) is not a problem.
    path.write_bytes(b"\xef\xbb\xbf" + 'name = "caf\u00e9"\n'.encode())
    assert load_plan(path).name == "caf\u00e9"


def test_a_huge_file_is_not_read_as_a_plan(tmp_path: Path) -> None:
    path = tmp_path / "huge.toml"
    path.write_bytes(b"# " + b"x" * (2 * 1024 * 1024) + b"\n")
    with pytest.raises(PlanError, match="larger than 1024 KiB: not a plan"):
        load_plan(path)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            "[workload]\nwarehouses = " + "9" * 5000,
            "is not a usable plan: a number has thousands of digits",
        ),
        ("a = " + "[" * 5000 + "]" * 5000, "nest too deeply"),
    ],
)
def test_values_toml_reads_but_python_cannot_are_plan_errors(
    tmp_path: Path, text: str, reason: str
) -> None:
    path = tmp_path / "odd.toml"
    path.write_text(text)
    with pytest.raises(PlanError, match=reason):
        load_plan(path)


def test_step_and_user_limits_are_said_with_their_reason() -> None:
    with pytest.raises(ValueError, match="at most 100 .each step is a full ramp-up"):
        parse_vu_list(list(range(1, 102)))
    with pytest.raises(ValueError, match="at most 5000 .each is a database connection"):
        parse_vu_list("8,5001")
    assert len(parse_vu_list("1-100")) == 100
    assert parse_vu_list([5000]) == [5000]


def test_drop_ends_sessions_is_a_confirmation_that_reaches_the_agent() -> None:
    """Issue 26: ending other sessions to drop a SQL Server database is asked for by name."""
    from bench_gui.wire.run_config import RunConfig

    plan = plan_from_dict({"workload": {"drop_ends_sessions": True}})
    assert plan.workload.drop_ends_sessions is True
    assert Plan().workload.drop_ends_sessions is False
    assert RunConfig.from_dict({"drop_ends_sessions": True}).drop_ends_sessions is True
    with pytest.raises(PlanError, match="workload.drop_ends_sessions"):
        plan_from_dict({"workload": {"drop_ends_sessions": "yes"}})
