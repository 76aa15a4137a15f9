"""The agent's side of the profiles: an unknown one is refused by name before anything runs;
the profile travels in the run configuration to every worker."""

from __future__ import annotations

import io
import json
import threading

import pytest

from bench_gui.agent.__main__ import run
from bench_gui.agent.driver import worker_specs
from bench_gui.agent.profiles import HammerDbParams, ProfileError, check_profile, params_for
from bench_gui.agent.users import Params
from bench_gui.wire.protocol import EventWriter
from bench_gui.wire.run_config import RunConfig


def test_an_unknown_profile_ends_the_run_with_its_name() -> None:
    sink = io.StringIO()
    cfg = RunConfig.from_dict({"profile": "hammer", "conninfo": "host=/nowhere"})
    assert run(cfg, EventWriter(sink), threading.Event()) == 2
    events = [json.loads(line) for line in sink.getvalue().splitlines()]
    done = events[-1]
    assert done["kind"] == "done"
    assert done["status"] == "failed"
    assert "unknown profile 'hammer'" in done["message"]


def test_the_profile_reaches_every_worker() -> None:
    cfg = RunConfig.from_dict({"profile": "hammerdb", "warehouses": 2})
    specs = worker_specs(cfg, "host=x", 0, 4, 2, 1)
    assert [s.profile for s in specs] == ["hammerdb", "hammerdb"]
    assert RunConfig().profile == "spec"


def test_each_profile_has_its_draws() -> None:
    assert type(params_for("spec", 1, 1)) is Params
    assert isinstance(params_for("hammerdb", 1, 1), HammerDbParams)
    with pytest.raises(ProfileError, match="unknown profile 'tpcc'"):
        check_profile("tpcc")
