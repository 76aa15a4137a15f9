"""The plan printed in README.md is a valid plan with every section it shows."""

from __future__ import annotations

import tomllib
from pathlib import Path

from bench_gui.core.plan import plan_from_dict

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_plan_is_valid() -> None:
    text = README.read_text(encoding="utf-8")
    block = text.split("## A plan", 1)[1].split("```toml", 1)[1].split("```", 1)[0]
    data = tomllib.loads(block)
    plan = plan_from_dict(data)
    assert set(data) >= {"target", "workload", "driver", "power", "monitor", "os"}
    assert plan.power.meter == data["power"]["meter"]
    assert plan.os.enabled
    assert plan.os.changes()["vm.dirty_ratio"] == "10"
