"""A built-in workload kit is one folder: each face it names lives in
``bench_gui/workloads/<name>/``, but for the few shared models named here, so adding a
workload is that folder and its entry points (ARCHITECTURE.md, "How to add a workload kit")."""

from __future__ import annotations

import pytest

from bench_gui.workloads.base import kits
from bench_gui.workloads.contract import WorkloadKit

# (kit, face) -> where it lives instead, and why that is not the kit's folder.
SHARED: dict[tuple[str, str], str] = {
    # The plan's [workload] fields are the plan model's and the agent's run configuration's.
    ("tproc_c", "plan_fields"): "bench_gui.core.plan_model:",
    ("random_read", "plan_fields"): "bench_gui.wire.fio_sizes:",
    # A database target in a few words, the store's for every database session.
    ("tproc_c", "target_summary"): "bench_gui.store.run_rows:",
}

BUILT_IN = [kit for kit in kits() if kit.name in ("tproc_c", "random_read")]


@pytest.mark.parametrize("kit", BUILT_IN, ids=lambda kit: kit.name)
def test_every_face_of_a_built_in_kit_is_in_its_folder(kit: WorkloadKit) -> None:
    outside = {
        face: where
        for face, where in kit.faces.items()
        if not where.startswith(f"bench_gui.workloads.{kit.name}.")
        and not where.startswith(SHARED.get((kit.name, face), "\0"))
    }
    assert outside == {}


def test_both_built_in_kits_are_checked() -> None:
    assert sorted(kit.name for kit in BUILT_IN) == ["random_read", "tproc_c"]


def test_the_agent_runs_random_read_from_its_kit_s_folder() -> None:
    from bench_gui.agent.workloads import AGENT_WORKLOADS, agent_workload

    assert AGENT_WORKLOADS["random_read"].startswith("bench_gui.workloads.random_read.agent.")
    workload = agent_workload("random_read")
    assert workload is not None
    assert workload.single_host
    assert workload.lock_key()[1] == ["random-read"]
    assert agent_workload("tproc_c") is None  # the agent's own sweep
