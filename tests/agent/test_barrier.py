"""Several driver hosts, the agent's side: two real agents (a primary and a secondary, each
with its own lock folder as on two hosts) against the session's private PostgreSQL wait at
the start barrier of each step, start it at the instant the go file names and never before;
only the primary reads the database's counters. A start signal that never comes ends the run
cleanly with the error naming the step and the go file; a stop while waiting ends it stopped.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from functools import partial
from pathlib import Path
from typing import Any

import psycopg
import pytest

import bench_gui
from bench_gui.agent.__main__ import _public_config
from bench_gui.agent.barrier import (
    Coordination,
    coordination_from_args,
    wait_until,
)
from bench_gui.agent.driver import worker_specs
from bench_gui.core.events import check_event
from bench_gui.core.multi_driver import merge_step
from bench_gui.engines.postgresql.agent.vu import STATEMENTS
from bench_gui.wire.go_file import beat_path, go_path, go_text, read_go
from bench_gui.wire.protocol import Event, decode_line
from bench_gui.wire.run_config import RunConfig
from tests._fixtures.pg import Clone, PgServer
from tests._fixtures.wait import wait_until as wait_for

REPO = str(Path(bench_gui.__file__).resolve().parents[1])
pytestmark = pytest.mark.integration


class Agent:
    """One agent process of a run of several hosts, followed through its spool."""

    def __init__(self, folder: Path, config: dict[str, Any], *options: str) -> None:
        folder.mkdir()
        self.spool = str(folder / "events.jsonl")
        (folder / "run.json").write_text(json.dumps(config), encoding="utf-8")
        argv = [sys.executable, "-m", "bench_gui.agent", "--config", str(folder / "run.json")]
        argv += ["--spool", self.spool, "--lock-dir", str(folder / "locks"), *options]
        (folder / "locks").mkdir()
        self.proc = subprocess.Popen(
            argv, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )

    def events(self) -> list[Event]:
        try:
            text = Path(self.spool).read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        return [decode_line(line) for line in text.splitlines(keepends=True) if line.endswith("\n")]

    def find(self, kind: str, **fields: Any) -> list[Event]:
        return [
            e
            for e in self.events()
            if e.kind == kind and all(e.get(k) == v for k, v in fields.items())
        ]

    def alive(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError(
                f"agent ended early: {self.proc.stderr and self.proc.stderr.read()}"
            )
        return True

    def ready(self, step: int) -> bool:
        return self.alive() and bool(
            self.find("progress", task="barrier", stage="ready", step=step)
        )

    def finish(self, timeout: float = 180) -> int:
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            if self.proc.stderr is not None:
                self.proc.stderr.close()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stderr is not None:
            self.proc.stderr.close()


@pytest.fixture
def agents() -> Any:
    made: list[Agent] = []
    yield made
    for agent in made:
        agent.kill()


def config(pg: PgServer, database: str, **extra: Any) -> dict[str, Any]:
    data = {
        "action": "run",
        "engine": "postgresql",
        "conninfo": pg.uri(database),
        "admin_conninfo": pg.uri("postgres"),
        "database": database,
        "warehouses": 1,
        "virtual_users": [1, 1],
        "rampup_s": 0.5,
        "duration_s": 2.0,
        "build": "never",
        "monitor": {"enabled": False},
    }
    data.update(extra)
    return data


def go(agents: list[Agent], step: int, lead_s: float) -> float:
    """Write each agent's go file for ``step`` the way the desktop does (a whole file renamed
    into place); the start instant, ``lead_s`` from now (one clock: one machine)."""
    start_at = time.time() + lead_s
    for agent in agents:
        temporary = go_path(agent.spool) + ".tmp"
        Path(temporary).write_text(go_text(step, start_at), encoding="utf-8")
        os.replace(temporary, go_path(agent.spool))
    return start_at


def users_connected(pg_server: PgServer, database: str) -> int:
    """The virtual users connected to ``database`` (their last statement is one the users
    prepare), none of them in a transaction."""
    with psycopg.connect(pg_server.uri(database), autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND query = ANY(%s)"
            " AND xact_start IS NULL",
            (database, [sql.decode() for sql in STATEMENTS.values()]),
        ).fetchone()
    assert row is not None
    return int(row[0])


def test_two_agents_start_each_step_at_the_go_instant_and_one_reads_the_counters(
    pg_server: PgServer, tpcc_db: Clone, tmp_path: Path, agents: list[Agent]
) -> None:
    database = tpcc_db("barrier_two")
    options = ("--barrier", "--barrier-timeout", "300")
    primary = Agent(
        tmp_path / "host-a",
        config(pg_server, database, first_user=[0, 0], total_users=[2, 2]),
        "--role",
        "primary",
        *options,
    )
    agents.append(primary)
    secondary = Agent(
        tmp_path / "host-b",
        config(pg_server, database, first_user=[1, 1], total_users=[2, 2]),
        "--role",
        "secondary",
        *options,
    )
    agents.append(secondary)

    starts: list[float] = []
    for step in (0, 1):
        for agent in agents:
            wait_for(partial(agent.ready, step), 120, f"agent ready for step {step + 1}")
        # Both wait: the go file of the step before is not this step's signal.
        assert not primary.find("step", phase="start", step=step)
        assert not secondary.find("step", phase="start", step=step)
        # Ready means connected: each host's user is in the database, idle, before the
        # instant (connecting takes none of the start's lead).
        assert users_connected(pg_server, database) == 2
        starts.append(go(agents, step, lead_s=3.0))

    assert primary.finish() == 0
    assert secondary.finish() == 0

    for agent, role in ((primary, "primary"), (secondary, "secondary")):
        # The desktop's one check of events takes every one whole.
        for event in agent.events():
            assert check_event(event).dropped == (), event
        (hello,) = agent.find("hello")
        assert hello.get("role") == role
        assert hello.get("barrier") == {"go_file": go_path(agent.spool), "timeout_s": 300.0}
        (done,) = agent.find("done")
        assert done.get("status") == "ok", done
        for step, start_at in enumerate(starts):
            (ready,) = agent.find("progress", task="barrier", stage="ready", step=step)
            assert ready.get("go_file") == go_path(agent.spool)
            assert ready.get("vus") == 1
            assert ready.get("connected") == 1
            assert ready.get("connect_s") >= 0
            (went,) = agent.find("progress", task="barrier", stage="go", step=step)
            # Never before the instant: the go event, and the step's first sample, after it.
            assert went.get("start_at") == start_at
            assert went.get("started_at") >= start_at
            assert went.t >= start_at
            assert went.get("late_s") >= 0
            assert went.get("connect_s") >= 0
            samples = agent.find("sample", step=step)
            assert samples, f"{role} step {step + 1} has no samples"
            assert min(s.t for s in samples) >= start_at
            (end,) = agent.find("step", phase="end", step=step)
            summary = end.get("summary")
            assert summary["start_at"] == start_at
            assert summary["started_at"] == went.get("started_at")
            assert summary["complete"] is True, summary

    # A step's samples cover the same seconds on both hosts: as many, the last one closing
    # the window on each (the desktop pairs them by time; none is left to one host).
    for step in (0, 1):
        mine = [agent.find("sample", step=step) for agent in agents]
        assert len(mine[0]) == len(mine[1]), [len(m) for m in mine]
        for samples in mine:
            assert samples[-1].get("phase") == "measure"
            assert samples[-1].get("remaining") == 0
            assert all(s.get("remaining") > 0 for s in samples[:-1])

    # Only the primary reads the database's counters.
    for sample in primary.find("sample"):
        assert "nopm_db" in sample.data
        assert "tpm_db" in sample.data
    for sample in secondary.find("sample"):
        assert "nopm_db" not in sample.data, sample
        assert "tpm_db" not in sample.data, sample
        assert sample.get("nopm_driver") is not None
    (primary_sum,) = primary.find("summary")
    (secondary_sum,) = secondary.find("summary")
    for a, b in zip(primary_sum.get("steps"), secondary_sum.get("steps"), strict=True):
        assert a["nopm"] > 0
        assert a["tpm"] > 0
        assert b["nopm"] is None
        assert b["tpm"] is None
        assert b["nopm_driver"] > 0
        assert sum(b["counts"].values()) > 0
        # The secondary left the schema to the primary: no facts of its own.
        assert "schema_before" not in b
        merged = merge_step([("a", a), ("b", b)], primary="a").summary
        assert merged["nopm"] == a["nopm"]
        assert merged["nopm_driver"] == pytest.approx(a["nopm_driver"] + b["nopm_driver"])
        assert merged["vus"] == 2


def test_no_start_signal_ends_the_run_cleanly_naming_the_step(
    pg_server: PgServer, tpcc_db: Clone, tmp_path: Path, agents: list[Agent]
) -> None:
    database = tpcc_db("barrier_timeout")
    agent = Agent(
        tmp_path / "host-a",
        config(pg_server, database, virtual_users=[1]),
        "--role",
        "secondary",
        "--barrier",
        "--barrier-timeout",
        "1.5",
    )
    agents.append(agent)
    # A go file of another step is there: it is not this step's signal.
    Path(go_path(agent.spool)).write_text(go_text(4, time.time()), encoding="utf-8")
    assert agent.finish() == 2
    (error,) = agent.find("error")
    assert error.get("fatal") is True
    assert error.get("code") == "barrier_timeout"
    message = error.get("message")
    assert message.startswith("step 1 (1 VU): no start signal within 1.5 s in ")
    assert go_path(agent.spool) in message
    assert "the start signal of step 5, not of step 1" in message
    assert "the run ends here with 0 finished steps" in message
    (summary,) = agent.find("summary")
    assert summary.get("steps") == []
    assert summary.get("status") == "failed"
    (done,) = agent.find("done")
    assert done.get("status") == "failed"
    assert not agent.find("step")  # no step began


def test_a_desktop_gone_ends_the_wait_without_the_barrier_timeout(
    pg_server: PgServer, tpcc_db: Clone, tmp_path: Path, agents: list[Agent]
) -> None:
    """Nobody probes the run (its desktop is gone): the agent ends it at the barrier once its
    heartbeat file stays unchanged for the desktop timeout, long before the barrier's."""
    database = tpcc_db("barrier_desktop_gone")
    options = ("--barrier", "--barrier-timeout", "3000", "--desktop-timeout", "1.5")
    agent = Agent(tmp_path / "host-a", config(pg_server, database), "--role", "secondary", *options)
    agents.append(agent)
    assert agent.finish() == 2
    beat = beat_path(agent.spool)
    (hello,) = agent.find("hello")
    assert hello.get("barrier") == {
        "go_file": go_path(agent.spool),
        "timeout_s": 3000.0,
        "beat_file": beat,
        "desktop_timeout_s": 1.5,
    }
    (error,) = agent.find("error")
    assert error.get("fatal") is True
    assert error.get("code") == "desktop_lost"
    message = error.get("message")
    assert message.startswith("step 1 (1 VU): the desktop has not probed this run for ")
    assert f"({beat} unchanged)" in message
    assert "the run ends here with 0 finished steps" in message
    (done,) = agent.find("done")
    assert done.get("status") == "failed"
    assert not agent.find("step")


def test_a_desktop_that_probes_keeps_the_agent_waiting(
    pg_server: PgServer, tpcc_db: Clone, tmp_path: Path, agents: list[Agent]
) -> None:
    """The heartbeat file touched (as the desktop's probes do) more often than the desktop
    timeout: the agent waits on past it, and starts the step when its go file comes."""
    database = tpcc_db("barrier_desktop_here")
    options = ("--barrier", "--barrier-timeout", "3000", "--desktop-timeout", "5")
    agent = Agent(tmp_path / "host-a", config(pg_server, database, virtual_users=[1]), *options)
    agents.append(agent)
    beat = Path(beat_path(agent.spool))
    wait_for(lambda: agent.ready(0), 120, "the agent at the barrier")
    waited = time.monotonic()
    while time.monotonic() - waited < 8:  # longer than the timeout: only the beats keep it
        beat.touch()
        assert agent.alive()
        time.sleep(0.2)
    go([agent], 0, lead_s=0.5)
    assert agent.finish() == 0
    (done,) = agent.find("done")
    assert done.get("status") == "ok", agent.find("error")
    assert not agent.find("error")


def test_a_stop_while_waiting_ends_the_run_stopped(
    pg_server: PgServer, tpcc_db: Clone, tmp_path: Path, agents: list[Agent]
) -> None:
    database = tpcc_db("barrier_stop")
    agent = Agent(tmp_path / "host-a", config(pg_server, database), "--barrier")
    agents.append(agent)
    wait_for(lambda: agent.ready(0), 120, "the agent at the barrier")
    agent.proc.send_signal(signal.SIGTERM)
    assert agent.finish() == 0
    (done,) = agent.find("done")
    assert done.get("status") == "stopped"
    (hello,) = agent.find("hello")
    assert "role" not in hello.data  # a barrier alone: the agent reads its counters
    assert not agent.find("step")


# -- the parts on their own ---------------------------------------------------------------------


def test_a_go_file_is_read_only_when_whole_and_for_its_step(tmp_path: Path) -> None:
    path = str(tmp_path / "events.jsonl.go")
    assert read_go(path, 0) == (None, "")
    Path(path).write_text(go_text(2, 1_800_000_000.25), encoding="utf-8")
    assert read_go(path, 2) == (1_800_000_000.25, "")
    assert read_go(path, 1) == (None, "it is the start signal of step 3, not of step 2")
    Path(path).write_text('{"step": 2, "start_', encoding="utf-8")  # half written
    start, why = read_go(path, 2)
    assert start is None
    assert "not a start signal" in why
    for text in ('{"step": 2}', '{"step": true, "start_at": 5}', '{"step": 2, "start_at": -1}'):
        Path(path).write_text(text, encoding="utf-8")
        start, why = read_go(path, 2)
        assert start is None
        assert "not a step and its start time" in why, text
    Path(path).write_text("[1, 2]", encoding="utf-8")
    assert read_go(path, 2) == (None, "it holds no start signal")


def test_waiting_for_an_instant_never_ends_before_it() -> None:
    stop = threading.Event()
    instant = time.time() + 0.3
    assert wait_until(instant, stop) is True
    assert time.time() >= instant
    stop.set()
    assert wait_until(time.time() + 3600, stop) is False


def test_one_host_is_unchanged_and_options_are_checked(tmp_path: Path) -> None:
    one = Coordination()
    assert one.hello_fields() == {}
    assert one.reads_counters
    assert not one.barrier
    public = _public_config(RunConfig(conninfo="host=/x", admin_conninfo="host=/x"))
    assert "first_user" not in public
    assert "total_users" not in public
    assert "options" not in public  # a workload kit's own fields: none here
    several = _public_config(RunConfig(first_user=[0], total_users=[2]))
    assert several["first_user"] == [0]
    with pytest.raises(ValueError, match="--barrier needs --spool"):
        coordination_from_args("primary", True, 60, None)
    with pytest.raises(ValueError, match="role must be one of primary, secondary"):
        Coordination(role="leader")
    with pytest.raises(ValueError, match="timeout must be positive"):
        Coordination(timeout_s=0)
    with pytest.raises(ValueError, match="desktop's timeout must be 0"):
        Coordination(go_file="/x.go", desktop_timeout_s=-1)
    with pytest.raises(ValueError, match="--desktop-timeout is the barrier's"):
        coordination_from_args(None, False, 60, str(tmp_path / "events.jsonl"), 30)
    watched = coordination_from_args("primary", True, 60, str(tmp_path / "events.jsonl"), 30)
    assert watched.beat_file == str(tmp_path / "events.jsonl.beat")
    assert coordination_from_args("primary", True, 60, str(tmp_path / "e.jsonl")).beat_file == ""
    made = coordination_from_args("secondary", True, 60, str(tmp_path / "events.jsonl"))
    assert made.go_file == str(tmp_path / "events.jsonl.go")
    assert not made.reads_counters


def test_several_hosts_number_their_users_one_after_another() -> None:
    one = RunConfig(virtual_users=[5], warehouses=10, all_warehouses=True)
    assert [s.vus for s in worker_specs(one, "c", 0, 5, 2, 7)] == [[0, 2, 4], [1, 3]]
    assert {s.total_vus for s in worker_specs(one, "c", 0, 5, 2, 7)} == {5}
    # Host 2 of a step of 8 users split 5 + 3: its users are 5, 6 and 7 of 8.
    second = RunConfig(virtual_users=[4, 3], first_user=[4, 5], total_users=[8, 8])
    specs = worker_specs(second, "c", 1, 3, 2, 7)
    assert [s.vus for s in specs] == [[5, 7], [6]]
    assert {s.total_vus for s in specs} == {8}
    # The same plan seed gives each host's workers their own draws.
    first_host = RunConfig(virtual_users=[4, 5], first_user=[0, 0], total_users=[8, 8])
    seeds = {s.seed for s in worker_specs(first_host, "c", 1, 5, 2, 7)}
    assert seeds.isdisjoint(s.seed for s in specs)
