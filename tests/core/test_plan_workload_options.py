"""A workload kit's own fields are a plan's ``[workload.options]`` table, not fields of the
shared ``Workload``: its kit checks them when the plan is read (each problem named
``workload.options.<name>``), the plan writes them only when it has some, and the agent's
configuration carries them. A built-in kit declares none, so its plans stay as they were."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from bench_gui.agent.__main__ import _public_config
from bench_gui.core.plan import load_plan, plan_from_dict, plan_from_toml
from bench_gui.core.plan_model import Plan, PlanError
from bench_gui.remote.secrets import DbPassword
from bench_gui.services.agent_config import agent_config
from bench_gui.wire.run_config import RunConfig
from bench_gui.workloads import base
from tests._fixtures import options_kit


@pytest.fixture
def burst_kit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry with the test kit beside the built-in ones (as before afterwards)."""
    monkeypatch.setattr(base, "_KITS", dict(base._load()))
    base.register(options_kit.KIT)


def burst(**options: object) -> dict[str, object]:
    return {"name": "bursts", "workload": {"kind": "burst", "options": options}}


def problems_of(data: dict[str, object]) -> list[tuple[str, str]]:
    with pytest.raises(PlanError) as refused:
        plan_from_dict(data)
    return refused.value.problems


@pytest.mark.usefixtures("burst_kit")
def test_a_kit_s_options_are_read_and_checked_by_its_kit() -> None:
    plan = plan_from_dict(burst(threads=8, burst_s=2, sizes=["4k", "1m"]))
    assert plan.workload.kind == "burst"
    # As given (an integer for a float option is the float), no default filled in.
    assert plan.workload.options == {"threads": 8, "burst_s": 2.0, "sizes": ["4k", "1m"]}
    assert isinstance(plan.workload.options["burst_s"], float)
    assert plan_from_dict(burst()).workload.options == {}
    assert plan_from_dict({"workload": {"kind": "burst"}}).workload.options == {}


@pytest.mark.usefixtures("burst_kit")
def test_wrong_and_unknown_options_are_named_with_the_reason() -> None:
    problems = problems_of(burst(threads="8", verify=1, burst_s=True, colour="red"))
    assert sorted(problems) == [
        ("workload.options.burst_s", "must be a number, not a boolean"),
        (
            "workload.options.colour",
            "unknown option (the options are: threads, burst_s, pattern, verify, sizes)",
        ),
        ("workload.options.threads", "must be an integer, not a string ('8')"),
        ("workload.options.verify", "must be a boolean (true or false), not an integer (1)"),
    ]
    # The kit's own plan checks see the options as read.
    assert problems_of(burst(threads=0)) == [("workload.options.threads", "must be at least 1")]
    # What the agent could not read as JSON is refused at the boundary, before the kit's check.
    assert problems_of(burst(pattern=datetime.date(2026, 11, 29))) == [
        (
            "workload.options.pattern",
            "is a date or time, which the agent cannot read: write it as a string",
        )
    ]
    not_a_table = {"workload": {"kind": "burst", "options": [1, 2]}}
    assert problems_of(not_a_table) == [("workload.options", "must be a table, not an array")]


@pytest.mark.parametrize(
    ("kind", "label"), [("tproc_c", "TPROC-C"), ("random_read", "Random read")]
)
def test_a_built_in_kit_has_no_options(kind: str, label: str) -> None:
    data = {"workload": {"kind": kind, "options": {"threads": 8, "depth": 2}}}
    assert [p for p in problems_of(data) if p[0].startswith("workload.options")] == [
        ("workload.options.threads", f"the {label} workload ({kind}) has no options"),
        ("workload.options.depth", f"the {label} workload ({kind}) has no options"),
    ]
    # An empty table is no option: the plan is the one without it, and writes none.
    plan = plan_from_dict({"workload": {"kind": kind, "options": {}}})
    assert plan == plan_from_dict({"workload": {"kind": kind}})
    assert "options" not in plan.to_dict()["workload"]
    assert "[workload.options]" not in plan.to_toml()


def test_an_unknown_kind_s_options_are_not_checked_by_another_kit() -> None:
    problems = problems_of({"workload": {"kind": "nosuch", "options": {"threads": 8}}})
    assert [field for field, _reason in problems] == ["workload.kind"]


@pytest.mark.usefixtures("burst_kit")
def test_options_round_trip_through_toml(tmp_path: Path) -> None:
    plan = plan_from_dict(burst(threads=8, pattern="square", verify=True, sizes=["4k"]))
    text = plan.to_toml()
    assert "[workload.options]" in text
    assert "[target]" not in text  # the kit uses no database
    assert plan_from_toml(text) == plan
    path = tmp_path / "burst.toml"
    plan.save(path)
    assert load_plan(path) == plan
    assert load_plan(path).to_toml() == text
    # A plan written without options has none in its file.
    assert "[workload.options]" not in plan_from_dict(burst()).to_toml()


def test_a_default_plan_writes_no_options() -> None:
    assert "options" not in Plan().to_dict()["workload"]
    assert "[workload.options]" not in plan_from_toml(Plan().to_toml()).to_toml()


@pytest.mark.usefixtures("burst_kit")
def test_the_agent_s_configuration_carries_the_options() -> None:
    plan = plan_from_dict(burst(threads=8, sizes=["4k", "1m"]))
    config, env = agent_config(plan, "run")
    assert env == {}
    cfg = RunConfig.from_dict(config)
    assert (cfg.kind, cfg.options) == ("burst", {"threads": 8, "sizes": ["4k", "1m"]})
    assert _public_config(cfg)["options"] == {"threads": 8, "sizes": ["4k", "1m"]}
    # None set: none sent (an agent older than options would refuse the key), none echoed.
    config, _env = agent_config(plan_from_dict(burst()), "run")
    assert "options" not in config
    assert "options" not in _public_config(RunConfig.from_dict(config))


def test_a_built_in_kit_s_configuration_and_hello_have_no_options(tmp_path: Path) -> None:
    tproc_c = plan_from_toml('[target]\nkind = "postgresql"\nhost = "db1"\n')
    config, _env = agent_config(tproc_c, "run", DbPassword(None, "nowhere"))
    assert "options" not in config
    assert "options" not in _public_config(RunConfig.from_dict(config))
    random_read = plan_from_toml(
        f'[workload]\nkind = "random_read"\nfile = "{tmp_path / "data"}"\n'
    )
    config, _env = agent_config(random_read, "run")
    assert "options" not in config
