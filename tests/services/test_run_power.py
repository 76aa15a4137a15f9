"""A short real sweep with the RAPL meter on a powercap tree whose counters move (and wrap)
while the agent runs: the idle baseline, watts and host metrics in every sample, and per step
the power integrated over the measured window, mW per NOPM, J per new order and energy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench_gui.agent.hostmetrics import BlockTopology
from bench_gui.core.plan_model import Monitor, Plan, Power, Target
from bench_gui.services.run import RunController
from bench_gui.services.run_errors import RunError
from bench_gui.store import SessionStore
from bench_gui.wire.run_config import Workload
from tests._fixtures.pg import Clone
from tests._fixtures.powercap_tree import EnergyClock, PowercapTree

pytestmark = pytest.mark.integration

RANGE_UJ = 100_000_000  # 100 J: package 0 wraps every 2.5 s at 40 W
# Packages and DRAM count (40 + 20 + 4 + 2 = 66 W); core, psys and the MMIO copy never do.
WATTS = {
    "intel-rapl:0": 40.0,
    "intel-rapl:0:1": 4.0,
    "intel-rapl:1": 20.0,
    "intel-rapl:1:1": 2.0,
    "intel-rapl:0:0": 30.0,
    "intel-rapl:2": 150.0,
    "intel-rapl-mmio:0": 40.0,
}
CPU_WATTS = 66.0


def plan_for(pg_server: Any, database: str, root: Path) -> Plan:
    plan = Plan(
        name="rapl sweep",
        target=Target(kind="postgresql", host=pg_server.socket_dir, database=database),
        workload=Workload(warehouses=1, virtual_users=[1, 2], rampup_s=1, duration_s=4),
    )
    plan.power = Power(meter="rapl", options={"root": str(root)}, idle_s=2, interval_s=0.25)
    return plan


def test_sweep_with_rapl_stores_power_per_step(
    pg_server: Any, tpcc_db: Clone, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    tree = PowercapTree(tmp_path, max_range_uj=RANGE_UJ)
    store = SessionStore(tmp_path_factory.mktemp("store") / "sessions.sqlite3")
    controller = RunController(plan_for(pg_server, tpcc_db("power_rapl"), tree.root), store)
    with EnergyClock(tree, WATTS, RANGE_UJ):
        events = list(controller.events())
    assert controller.final is not None
    assert controller.final.get("status") == "ok", [e.data for e in events if e.kind == "error"]
    run_id = controller.session_id
    assert run_id is not None

    idle = [e for e in events if e.kind == "progress" and e.get("task") == "idle"]
    assert len(idle) >= 2
    assert idle[-1].get("power")["watts"] == pytest.approx(CPU_WATTS, rel=0.1)
    logs = [e.get("message") for e in events if e.kind == "log"]
    assert any(
        m.startswith("power: RAPL CPU power (2 packages + 2 DRAM; not wall power)") for m in logs
    )
    assert any(m.startswith("idle power 6") for m in logs)

    samples = store.samples(run_id)
    assert samples
    measured = [s for s in samples if s.phase == "measure"]
    watts = [s.extra["power"]["watts"] for s in measured if s.extra["power"]["watts"]]
    assert len(watts) >= 3
    assert sum(watts) / len(watts) == pytest.approx(CPU_WATTS, rel=0.1)
    host = measured[-1].extra["host"]
    assert set(host) >= {"cpu", "mem", "disks", "disk_total"}
    assert host["cpu"]["user"] + host["cpu"]["system"] > 0
    # The database's data directory is on this machine: its device is the one reported.
    data_dir = store.get_run(run_id).agent.get("data_directory")
    topology = BlockTopology()
    device = topology.whole(topology.device_of(data_dir) or "")
    assert device in host["disks"]

    steps = store.steps(run_id)
    assert [s.vus for s in steps] == [1, 2]
    for step in steps:
        summary = step.summary
        assert step.nopm is not None
        assert step.nopm > 0
        assert summary["power_meter"] == "rapl"
        assert summary["power_scope"] == "cpu"
        assert "not wall power" in summary["power_label"]
        assert summary["power_w"] == pytest.approx(CPU_WATTS, rel=0.03)
        assert summary["energy_j"] == pytest.approx(summary["power_w"] * step.window_s, rel=0.01)
        assert summary["mw_per_nopm"] == pytest.approx(
            1000 * summary["power_w"] / step.nopm, rel=1e-3
        )
        assert summary["j_per_new_order"] == pytest.approx(
            60 * summary["power_w"] / step.nopm, rel=1e-3
        )
        assert summary["idle_power_w"] == pytest.approx(CPU_WATTS, rel=0.05)
        assert summary["power_readings"] >= 12  # 4 s at 4 readings a second
        assert summary["window_t1"] - summary["window_t0"] == pytest.approx(step.window_s, abs=0.05)
        assert device in summary["host"]["disks"]
    store.close()


def test_a_meter_without_readings_stops_the_run_before_it_starts(
    pg_server: Any, tpcc_db: Clone, tmp_path: Path
) -> None:
    plan = plan_for(pg_server, tpcc_db("power_none"), tmp_path / "no-powercap")
    plan.monitor = Monitor(enabled=False)
    with SessionStore(tmp_path / "sessions.sqlite3") as store:
        controller = RunController(plan, store)
        with pytest.raises(RunError, match="no powercap tree at .*no-powercap"):
            list(controller.events())
        assert store.steps(controller.session_id) == []
