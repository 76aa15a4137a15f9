"""workload.profile: "spec" by default, "hammerdb" on request, anything else named at load."""

from __future__ import annotations

import pytest

from bench_gui.core.plan import plan_from_dict, plan_from_toml
from bench_gui.core.plan_model import PlanError


def test_the_default_is_the_spec_profile_and_it_is_written_back() -> None:
    plan = plan_from_dict({})
    assert plan.workload.profile == "spec"
    assert plan.to_dict()["workload"]["profile"] == "spec"


def test_hammerdb_is_read_and_kept() -> None:
    text = '[target]\nkind = "mariadb"\nhost = "db1"\n[workload]\nprofile = "hammerdb"\n'
    plan = plan_from_toml(text)
    assert plan.workload.profile == "hammerdb"
    assert plan_from_dict(plan.to_dict()).workload.profile == "hammerdb"


@pytest.mark.parametrize("value", ["HammerDB", "tpcc", "", 1])
def test_an_unknown_profile_is_named(value: object) -> None:
    with pytest.raises(PlanError) as caught:
        plan_from_dict({"workload": {"profile": value}})
    assert "workload.profile" in str(caught.value)


def test_a_random_read_plan_has_no_profile() -> None:
    with pytest.raises(PlanError, match=r"workload\.profile: a TPROC-C field"):
        plan_from_dict({"workload": {"kind": "random_read", "profile": "spec"}})
