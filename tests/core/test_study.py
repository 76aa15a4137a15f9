"""The study file: every field checked at load, each problem named by its path; a system with
the shared sections is an ordinary plan checked by the plan's own checks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench_gui.core.study import load_study, study_from_dict, study_from_toml
from bench_gui.core.study_model import StudyError, system_fingerprint


def minimal(**extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "Two servers",
        "baseline": "a",
        "workload": {"warehouses": 1, "virtual_users": [1, 2], "rampup_s": 1, "duration_s": 3},
        "systems": {
            "a": {"name": "Server A", "target": {"kind": "postgresql", "host": "a.example"}},
            "b": {"name": "Server B", "target": {"kind": "postgresql", "host": "b.example"}},
        },
    }
    data.update(extra)
    return data


def problems(data: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(StudyError) as info:
        study_from_dict(data)
    return dict(info.value.problems)


def test_a_system_with_the_shared_workload_is_an_ordinary_plan() -> None:
    study = study_from_dict(minimal())
    assert [s.key for s in study.systems] == ["a", "b"]
    plan = study.system("b").plan
    assert plan.name == "Server B"
    assert plan.target.host == "b.example"
    assert plan.workload.virtual_users == [1, 2]
    assert study.baseline == "a"
    assert study.key == "two-servers"
    assert study.tag == "study:two-servers"


def test_plan_problems_are_named_where_they_are_in_the_study() -> None:
    data = minimal()
    data["workload"]["virtual_users"] = "0-5"
    data["systems"]["b"]["target"]["port"] = 70000
    data["systems"]["b"]["target"]["colour"] = "red"
    found = problems(data)
    assert "systems.b.target.port" in found
    assert "systems.b.target.colour" in found
    # The shared workload's problem once, under its own path (not once per system).
    assert [k for k in found if k.startswith("workload")] == ["workload.virtual_users"]


def test_a_system_sets_where_its_data_is_but_never_the_sweep() -> None:
    data = minimal()
    data["systems"]["a"]["workload"] = {"virtual_users": [64]}
    assert "a system sets only where" in problems(data)["systems.a.workload.virtual_users"]


@pytest.mark.parametrize(
    ("edit", "path"),
    [
        ({"baseline": "c"}, "baseline"),
        ({"stop": {"min_gain_pct": -1}}, "stop.min_gain_pct"),
        ({"stop": {"max_avg_ms": 0}}, "stop.max_avg_ms"),
        ({"stop": {"speed": 1}}, "stop.speed"),
        ({"prices": {"device": [{"device": "X", "unit_price": 0}]}}, "prices.device[0].unit_price"),
        ({"prices": {"device": [{"unit_price": 3}]}}, "prices.device[0].device"),
        (
            {"prices": {"device": [{"device": "X", "unit_price": 3, "currency": "usd"}]}},
            "prices.device[0].currency",
        ),
        ({"prices": {"power": {"per_kwh": "cheap"}}}, "prices.power.per_kwh"),
        ({"prices": {"power": {"per_kwh": 0.1, "date": "yesterday"}}}, "prices.power.date"),
        ({"report": {"paper": "a5"}}, "report.paper"),
        ({"report": {"latency": "p99"}}, "report.latency"),
        ({"report": {"formats": ["docx"]}}, "report.formats"),
        ({"report": {"output": "../elsewhere"}}, "report.output"),
        ({"report": {"appendix": "yes"}}, "report.appendix"),
        ({"report": {"reproduce": "yes"}}, "report.reproduce"),
        ({"report": {"target_ops": 100}}, "report.target_ops"),
        ({"key": "Has Spaces"}, "key"),
        ({"colour": "red"}, "colour"),
        ({"name": ""}, "name"),
    ],
)
def test_every_bad_field_is_named_by_its_path(edit: dict[str, Any], path: str) -> None:
    assert path in problems(minimal(**edit))


def test_system_keys_storage_and_tuning_are_checked() -> None:
    data = minimal()
    data["systems"]["Bad Key"] = {"target": {"kind": "postgresql", "host": "x"}}
    data["systems"]["a"]["storage"] = {"devices": "X", "count": 0, "speed": 1}
    data["systems"]["a"]["tuning"] = {"profile": 3, "restart": "no"}
    found = problems(data)
    for path in (
        "systems.Bad Key",
        "systems.a.storage.count",
        "systems.a.storage.speed",
        "systems.a.tuning.profile",
        "systems.a.tuning.restart",
    ):
        assert path in found, found


def test_two_systems_may_not_share_a_name() -> None:
    data = minimal()
    data["systems"]["b"]["name"] = "Server A"
    assert "systems.b.name" in problems(data)


def test_a_random_read_study_has_no_stop_condition_nor_tuning() -> None:
    data = {
        "name": "rr",
        "workload": {"kind": "random_read", "dataset_sizes": ["64MiB"]},
        "stop": {"min_gain_pct": 5},
        "systems": {"ssd": {"workload": {"file": "/tmp/x.dat"}, "tuning": {"profile": "p"}}},
    }
    found = problems(data)
    assert found["stop"] == "a random-read study has no stop condition (dataset sizes)"
    assert found["systems.ssd.tuning"] == "a random-read study has no database to tune"


def test_a_tproc_c_study_refuses_the_random_read_brief_s_options() -> None:
    found = problems(minimal(report={"target_ops": 100000, "dataset": "2GiB"}))
    assert found["report.target_ops"] == "only for a random-read study"
    assert found["report.dataset"] == "only for a random-read study"
    # The random-read study itself takes them.
    study = study_from_dict(
        {
            "name": "rr",
            "workload": {"kind": "random_read", "dataset_sizes": ["64MiB"]},
            "systems": {"ssd": {"workload": {"file": "/tmp/x.dat"}}},
            "report": {"target_ops": 100000, "dataset": "2GiB"},
        }
    )
    assert study.report.target_ops == 100000


def test_syntax_errors_and_unreadable_files_are_study_errors(tmp_path: Path) -> None:
    with pytest.raises(StudyError) as info:
        study_from_toml("name = ", "s.toml")
    assert info.value.problems[0][0] == "s.toml"
    with pytest.raises(StudyError) as info:
        load_study(tmp_path / "missing.toml")
    assert "cannot be read" in info.value.problems[0][1]


def test_the_fingerprint_follows_the_plan_storage_and_tuning() -> None:
    first = study_from_dict(minimal()).system("a")
    data = minimal()
    assert system_fingerprint(study_from_dict(data).system("a")) == system_fingerprint(first)
    data["systems"]["a"]["storage"] = {"devices": "X", "count": 2}
    assert system_fingerprint(study_from_dict(data).system("a")) != system_fingerprint(first)
    data = minimal()
    data["workload"]["duration_s"] = 4
    assert system_fingerprint(study_from_dict(data).system("a")) != system_fingerprint(first)


def test_the_shared_workload_is_checked_when_there_is_no_system_yet() -> None:
    found = problems({"name": "x", "workload": {"virtual_users": "0"}})
    assert "systems" in found
    assert "workload.virtual_users" in found


def test_short_names_are_checked_at_load_with_their_path() -> None:
    study = study_from_dict(minimal(report={"short_names": {"a": " Server  A ", "b": "B"}}))
    assert study.report.short_names == {"a": "Server A", "b": "B"}
    found = problems(
        minimal(report={"short_names": {"a": "Same", "b": "same", "c": "C", "d": "x" * 41}})
    )
    assert found["report.short_names.b"] == "is the short name of a too"
    assert found["report.short_names.c"].startswith("is not a system of the study (a, b)")
    assert "report.short_names.d" in found
    too_long = problems(minimal(report={"short_names": {"a": "x" * 41}}))
    assert too_long["report.short_names.a"].startswith("is 41 characters")
    found = problems(minimal(report={"short_names": {"a": "", "b": 3}}))
    assert found["report.short_names.a"] == "must not be empty"
    assert "report.short_names.b" in found
    assert "report.short_names" in problems(minimal(report={"short_names": "a=A"}))


def test_the_brief_order_names_sections_of_this_kind_of_brief() -> None:
    study = study_from_dict(minimal(report={"order": ["power", "throughput"]}))
    assert study.report.order == ["power", "throughput"]
    found = problems(minimal(report={"order": ["throughput", "multiplier", "throughput"]}))
    assert found["report.order[1]"].startswith("'multiplier' is not a section of this brief")
    assert found["report.order[2]"] == "'throughput' is named twice"
    assert "report.order" in problems(minimal(report={"order": "throughput"}))


def test_a_system_s_layout_is_read_at_load_and_its_devices_confirmed(tmp_path: Path) -> None:
    (tmp_path / "fast.toml").write_text(
        'name = "fast"\n[[devices]]\npath = "/dev/sdq"\n[filesystem]\ntype = "xfs"\n'
        '[mount]\npoint = "/mnt/fast"\n'
    )

    def study(storage: str) -> Path:
        path = tmp_path / "study.toml"
        path.write_text(
            'name = "x"\n[workload]\nvirtual_users = [1]\n'
            '[systems.a.target]\nkind = "postgresql"\nhost = "a.example"\n'
            f"[systems.a.storage]\n{storage}\n"
        )
        return path

    loaded = load_study(study('layout = "fast.toml"\nconfirm = ["sdq"]'))
    assert loaded.system("a").storage.layout == "fast.toml"
    with pytest.raises(StudyError) as info:
        load_study(study('layout = "fast.toml"\nconfirm = ["sdr"]'))
    assert dict(info.value.problems)["systems.a.storage.confirm"].startswith(
        "must name exactly the layout's devices (/dev/sdq)"
    )
    with pytest.raises(StudyError) as info:
        load_study(study('layout = "gone.toml"\nconfirm = ["sdq"]'))
    assert "systems.a.storage.layout" in dict(info.value.problems)
    with pytest.raises(StudyError) as info:
        load_study(study('layout = "fast.toml"'))
    assert "is required with a layout" in dict(info.value.problems)["systems.a.storage.confirm"]
