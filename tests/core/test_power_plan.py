"""The plan's [power] and [monitor] sections, the meter options, and power figures per step."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench_gui.core.plan import load_plan, plan_from_dict
from bench_gui.core.plan_model import Plan, PlanError
from bench_gui.core.power import (
    METER_KINDS,
    MeterNotFound,
    PowerLogError,
    PowerReading,
    agent_power_config,
    check_meter_options,
    default_options,
    get_meter_kind,
    load_meter_kinds,
    step_power_from_log,
    window_figures,
)


def problems_of(data: dict) -> dict[str, str]:
    with pytest.raises(PlanError) as info:
        plan_from_dict(data)
    return dict(info.value.problems)


def test_defaults_measure_no_power_and_sample_the_host() -> None:
    plan = plan_from_dict({})
    assert plan.power.meter == "none"
    assert plan.power.options == {}
    assert plan.power.idle_s == 30.0
    assert plan.monitor.enabled is True
    assert plan.monitor.devices == []


def test_a_rapl_plan_round_trips_through_toml(tmp_path: Path) -> None:
    plan = plan_from_dict(
        {
            "power": {
                "meter": "rapl",
                "options": {"root": "/tmp/powercap", "dram": False},
                "idle_s": 10,
                "interval_s": 0.5,
            },
            "monitor": {"devices": ["/dev/md0", "nvme0n1", "md0"]},
        }
    )
    assert plan.power.options == {"root": "/tmp/powercap", "dram": False}
    assert plan.monitor.devices == ["md0", "nvme0n1"]
    path = tmp_path / "plan.toml"
    plan.save(path)
    text = path.read_text()
    assert "[power]" in text
    assert "[power.options]" in text
    again = load_plan(path)
    assert again.power == plan.power
    assert again.monitor == plan.monitor


def test_meter_options_get_defaults_and_are_checked() -> None:
    plan = plan_from_dict({"power": {"meter": "redfish", "options": {"host": "bmc7"}}})
    assert plan.power.options == {
        "host": "bmc7",
        "port": 443,
        "user": "",
        "chassis": "",
        "verify_tls": True,  # certificates are checked unless the plan says otherwise
        "ca_file": "",
        "timeout_s": 5.0,
    }
    problems = problems_of(
        {
            "power": {
                "meter": "redfish",
                "options": {"port": 70000, "verify_tls": "no", "colour": "blue"},
                "idle_s": -1,
                "interval_s": 0,
            }
        }
    )
    assert problems["power.options.host"] == "is required for meter 'redfish'"
    assert problems["power.options.port"] == "must be between 1 and 65535"
    assert problems["power.options.verify_tls"] == "must be true or false, got 'no'"
    assert problems["power.options.colour"].startswith("unknown option for meter 'redfish'")
    assert problems["power.idle_s"].startswith("must be between 0 and 3600")
    assert problems["power.interval_s"].startswith("must be between 0.2 and 10")


def test_unknown_meters_and_bad_sections_name_the_field() -> None:
    problems = problems_of({"power": {"meter": "wattmeter9000", "unit": "W"}})
    assert problems["power.meter"].startswith("must be one of none, ipmi, redfish, rapl, csv")
    assert problems["power.unit"] == "unknown field"
    problems = problems_of({"power": "rapl", "monitor": {"devices": ["sda; rm -rf /"], "x": 1}})
    assert problems["power"] == "must be a table"
    assert problems["monitor.devices"] == "'sda; rm -rf /' is not a block device name"
    assert problems["monitor.x"] == "unknown field"
    problems = problems_of({"power": {"meter": "ipmi", "options": {"reading": "peak"}}})
    assert problems["power.options.reading"] == "must be one of instantaneous, average"
    problems = problems_of({"power": {"meter": "csv"}})
    assert problems["power.options.path"] == "is required for meter 'csv'"


def test_every_builtin_meter_has_a_plugin() -> None:
    kinds = load_meter_kinds()
    assert set(kinds) == set(METER_KINDS) - {"none"}
    assert kinds["rapl"].scope == "cpu"
    assert {kinds[k].scope for k in ("ipmi", "redfish", "csv")} == {"wall"}
    for name, kind in kinds.items():
        assert kind.check(default_options(name)) == check_meter_options(name, {})[1]
    with pytest.raises(MeterNotFound, match="no power meter plugin named 'x'"):
        get_meter_kind("x")


def test_agent_power_config() -> None:
    config, env = agent_power_config("rapl", {"root": "/sys/class/powercap"}, 30.0, 1.0)
    assert config == {
        "meter": "rapl",
        "options": {"root": "/sys/class/powercap", "dram": True},
        "idle_s": 30.0,
        "interval_s": 1.0,
        "scope": "cpu",
        "label": "RAPL (CPU package + DRAM)",
    }
    assert env == {}
    assert agent_power_config("none", {}, 30.0, 1.0) == ({"meter": "none"}, {})
    with pytest.raises(ValueError, match="power.options.path: is required"):
        agent_power_config("csv", {}, 0.0, 1.0)


def test_window_figures_seed_003() -> None:
    # 600 W over a 120 s window at 100,000 NOPM: 6 mW/NOPM, 0.36 J per new order, 72 kJ.
    figures = window_figures(600.0, 120.0, 100_000.0)
    assert figures.as_summary() == {
        "power_w": 600.0,
        "energy_j": 72_000.0,
        "mw_per_nopm": 6.0,
        "j_per_new_order": 0.36,
    }
    assert window_figures(600.0, 120.0, None).mw_per_nopm is None
    assert window_figures(600.0, 120.0, 0.0).j_per_new_order is None


def test_a_log_imported_after_the_run_gives_each_step_its_power() -> None:
    # A wall meter logged every 2 s: 300 W, then 420 W from t=1000.
    readings = [PowerReading(float(t), 300.0 if t < 1000 else 420.0) for t in range(900, 1200, 2)]
    steps = [
        {"step": 0, "vus": 8, "nopm": 60_000.0, "window_t0": 920.5, "window_t1": 980.5},
        {"step": 1, "vus": 16, "nopm": 84_000.0, "window_t0": 1010.0, "window_t1": 1070.0},
        {"step": 2, "vus": 24, "nopm": 90_000.0, "window_t0": 1190.0, "window_t1": 1250.0},
        {"step": 3, "vus": 32, "nopm": None},
    ]
    covered = [steps[0], steps[1], steps[3]]
    powers, skipped = step_power_from_log(covered, readings)
    out = [p.figures.as_summary() for p in powers]
    assert out[0]["power_w"] == pytest.approx(300.0)
    assert out[0]["mw_per_nopm"] == pytest.approx(5.0)
    assert out[0]["energy_j"] == pytest.approx(18_000.0)
    assert out[1]["power_w"] == pytest.approx(420.0)
    assert out[1]["j_per_new_order"] == pytest.approx(0.3)
    assert skipped == ["step 4 (32 VU): no measured window recorded"]
    with pytest.raises(PowerLogError, match=r"step 3 \(24 VU\)"):
        step_power_from_log(steps, readings)  # the log ends before step 3's window does
    assert steps[0].get("power_w") is None  # the input is left alone


def test_plan_object_defaults_match_validation() -> None:
    assert plan_from_dict(Plan().to_dict()) == Plan()
