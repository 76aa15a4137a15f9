"""What differs between a run on one driver host and a run on several is data: the policy the
one orchestrator reads (services/run_policy.py)."""

from __future__ import annotations

import pytest

from bench_gui.core.plan import plan_from_dict
from bench_gui.services.run_policy import ONE_HOST, SEVERAL_HOSTS, run_policy

SEVERAL = {"targets": ["lab-a", "lab-b"]}


@pytest.mark.parametrize(
    ("driver", "action", "policy"),
    [
        ({}, "run", ONE_HOST),  # this machine
        ({"target": "lab-a"}, "run", ONE_HOST),  # one SSH driver host
        (SEVERAL, "run", SEVERAL_HOSTS),
        (SEVERAL, "build", ONE_HOST),  # a build, check or status runs on the primary
        (SEVERAL, "check", ONE_HOST),
        (SEVERAL, "status", ONE_HOST),
    ],
)
def test_one_host_is_n_equals_one(driver: dict[str, object], action: str, policy: object) -> None:
    plan = plan_from_dict({"target": {"kind": "postgresql", "host": "db1"}, "driver": driver})
    assert run_policy(plan, action) == policy


def test_one_host_keeps_a_lost_run_and_several_fail_it_naming_the_host() -> None:
    assert (ONE_HOST.lost_host, ONE_HOST.numbering, ONE_HOST.clocks_first) == (
        "keep",
        "agent",
        False,
    )
    assert (SEVERAL_HOSTS.lost_host, SEVERAL_HOSTS.merged, SEVERAL_HOSTS.clocks_first) == (
        "fail",
        True,
        True,
    )
