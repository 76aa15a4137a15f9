"""Error texts quote at most a little of the user's input: one rule (:mod:`bench_gui.core.echo`)
for plans, storage layouts and agent events; the full problem list stays on the error. The CLI
is run on such a plan file for real."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import tomli_w

from bench_gui.core.echo import echoed, listed
from bench_gui.core.events import BadEvent, check_event
from bench_gui.core.plan import plan_from_dict
from bench_gui.core.plan_model import PlanError
from bench_gui.core.storage import LayoutError, layout_from_dict
from bench_gui.wire.protocol import Event

HUGE = "k" * 100_000


def base_plan() -> dict:
    return {
        "name": "echo",
        "target": {"kind": "postgresql", "host": "/tmp", "database": "d"},
        "workload": {"warehouses": 1, "virtual_users": [1]},
    }


def test_echoed_keeps_short_text_and_cuts_long_text_with_its_length() -> None:
    assert echoed("short") == "short"
    assert echoed(HUGE) == "k" * 200 + "… (100,000 characters)"
    assert listed(["a", "b", "c"], 2) == "a; b; and 1 more"


def test_a_huge_key_in_a_plan_is_quoted_short() -> None:
    plan = base_plan()
    plan["workload"][HUGE] = 1
    with pytest.raises(PlanError) as info:
        plan_from_dict(plan)
    text = str(info.value)
    assert len(text) < 400
    assert "(100,009 characters): unknown field" in text
    assert info.value.problems[0][0] == f"workload.{HUGE}"  # the whole name stays on the error


def test_twenty_thousand_bad_options_make_a_short_message_and_a_count() -> None:
    plan = base_plan()
    for i in range(20_000):
        plan["workload"][f"bad_option_{i:05d}_" + "x" * 40] = i
    with pytest.raises(PlanError) as info:
        plan_from_dict(plan)
    text = str(info.value)
    assert len(text) < 4_000
    assert text.endswith("; and 19,980 more problems")
    assert len(info.value.problems) == 20_000


def test_a_storage_layout_with_huge_and_many_keys_is_quoted_short() -> None:
    layout = {"devices": ["/dev/sdb"], "mount": {"point": "/mnt/x", HUGE: 1}}
    layout["filesystem"] = {f"opt{i}": 1 for i in range(5_000)}
    with pytest.raises(LayoutError) as info:
        layout_from_dict(layout)
    assert len(str(info.value)) < 4_000
    assert "more problems" in str(info.value)


def test_an_event_with_huge_keys_is_reported_short() -> None:
    data = {"step": 0, "vus": 1, "counts": {HUGE + str(i): "x" for i in range(50)}}
    checked = check_event(Event("sample", 3, 1.0, data))
    assert len(checked.dropped) == 50
    assert len(checked.warning()) < 3_000
    assert checked.warning().endswith("; and 44 more")
    with pytest.raises(BadEvent) as info:
        check_event(Event("sample", 4, 1.0, {"step": HUGE, "vus": 1}))
    assert len(str(info.value)) < 600


def test_the_cli_prints_a_bounded_error_for_a_plan_of_twenty_thousand_bad_options(
    tmp_path: Path,
) -> None:
    plan = base_plan()
    plan["workload"].update({f"o{i}": i for i in range(20_000)})
    plan["workload"][HUGE] = 1
    path = tmp_path / "plan.toml"
    path.write_bytes(tomli_w.dumps(plan).encode())
    proc = subprocess.run(
        [sys.executable, "-m", "bench_gui", "--db", str(tmp_path / "s.db"), "run", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
        check=False,
    )
    assert proc.returncode != 0
    assert "and 19,981 more problems" in proc.stderr, proc.stderr[-500:]
    assert len(proc.stderr) + len(proc.stdout) < 5_000
