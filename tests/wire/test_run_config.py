"""The run configuration is one schema: what the plan produces the agent reads, and a key the
agent does not know is refused by name, never dropped."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

import bench_gui
from bench_gui.core.plan import plan_from_toml
from bench_gui.remote.secrets import DbPassword
from bench_gui.services.run import agent_config
from bench_gui.wire.run_config import ConfigError, RunConfig, Workload

REPO = str(Path(bench_gui.__file__).resolve().parents[1])


def test_the_agent_reads_every_workload_field_with_the_plans_defaults() -> None:
    cfg = RunConfig.from_dict({})
    workload = asdict(Workload())
    assert {k: v for k, v in asdict(cfg).items() if k in workload} == workload


def test_unknown_keys_are_refused_naming_each() -> None:
    with pytest.raises(ConfigError) as caught:
        RunConfig.from_dict({"warehouses": 2, "virtual_user": [4], "zipf": 0.9})
    assert str(caught.value) == (
        "the run configuration has keys this agent does not know: virtual_user, zipf"
    )
    with pytest.raises(ConfigError, match="is a list, not an object"):
        RunConfig.from_dict([])  # type: ignore[arg-type]


def test_what_the_desktop_sends_for_each_workload_is_accepted(tmp_path: Path) -> None:
    tproc_c = plan_from_toml(
        '[target]\nkind = "postgresql"\nhost = "db1"\n[workload]\nvirtual_users = [3, 6]\n'
    )
    config, _env = agent_config(tproc_c, "run", DbPassword(None, "nowhere"))
    config.update(session_id=7, session_name="night", run_token="t0")  # as the services add
    cfg = RunConfig.from_dict(config)
    assert (cfg.engine, cfg.virtual_users, cfg.session_name) == ("postgresql", [3, 6], "night")

    random_read = plan_from_toml(
        f'[workload]\nkind = "random_read"\nfile = "{tmp_path / "data"}"\njobs = 2\n'
    )
    config, _env = agent_config(random_read, "run")
    cfg = RunConfig.from_dict(config)
    assert (cfg.kind, cfg.jobs, cfg.file) == ("random_read", 2, str(tmp_path / "data"))


def test_the_agent_refuses_an_unknown_key_with_an_error_event(tmp_path: Path) -> None:
    config = {"action": "status", "engine": "postgresql", "warehouse": 8}
    proc = subprocess.run(
        [sys.executable, "-m", "bench_gui.agent", "--lock-dir", str(tmp_path)],
        input=json.dumps(config),
        capture_output=True,
        text=True,
        env={"PYTHONPATH": REPO, "PATH": "/usr/bin:/bin"},
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    said = "the run configuration has keys this agent does not know: warehouse"
    assert [(e["kind"], e["message"]) for e in events] == [("error", said), ("done", said)]
    assert events[0]["fatal"] is True
    assert events[1]["status"] == "failed"
