"""A forged pair of far-future seqs in a real spool, followed over the loopback sshd by the real
follower and run controller into a real session store: the pair costs its two lines and the run
is stored complete; a session an older reader stored with the pair on top (its high-water mark
poisoned) is repaired by re-attaching, from the spool."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench_gui.core.plan_model import Driver, Plan, Target
from bench_gui.remote.ssh_transport import SSHTransport
from bench_gui.services.run import RunController
from bench_gui.store import SessionStore
from bench_gui.wire.protocol import decode_line
from bench_gui.wire.run_config import Workload
from tests._fixtures.agent_events import agent_stream, ended_run_dir

FORGED = 10**9


@pytest.fixture
def store(tmp_path: Path) -> Any:
    with SessionStore(tmp_path / "sessions.sqlite3") as opened:
        yield opened


def forged_spool() -> tuple[list[bytes], list[int], int]:
    """A real run's lines with two consecutive far-future copies of its first sample (their
    times copied too) after it: the lines, the real samples' seqs, and where the pair is."""
    real = agent_stream(steps=2, samples=5)
    events = [json.loads(line) for line in real]
    first = next(i for i, e in enumerate(events) if e["kind"] == "sample")
    pair = [json.dumps(dict(events[first], seq=FORGED + k)) for k in range(2)]
    lines = [line.encode() for line in [*real[: first + 1], *pair, *real[first + 1 :]]]
    samples = [e["seq"] for e in events if e["kind"] == "sample"]
    return lines, samples, first + 1


def setup(sshd: Any, tmp_path: Path, store: SessionStore, lines: list[bytes]) -> tuple[int, Path]:
    run_dir = ended_run_dir(tmp_path, "forged", lines)
    sshd.trust()
    session_id = store.create_run(
        name="forged",
        plan=plan().to_dict(),
        plan_toml=plan().to_toml(),
        target={"kind": "postgresql", "driver": "loop"},
        engine="postgresql",
    )
    return session_id, run_dir


def plan() -> Plan:
    return Plan(
        name="forged",
        target=Target(kind="postgresql", host="/nonexistent", database="forged"),
        workload=Workload(warehouses=1, virtual_users=[1, 2], rampup_s=2, duration_s=30),
        driver=Driver(target="loop"),
    )


def follow(sshd: Any, tmp_path: Path, store: SessionStore, session_id: int, run_dir: Path) -> None:
    transport = SSHTransport(sshd.target(), remote_root=str(tmp_path / "cache"))
    try:
        for _event in RunController(plan(), store, transport=transport).reattach(
            session_id, str(run_dir)
        ):
            pass
    finally:
        transport.close()


def test_a_forged_seq_pair_costs_its_two_lines_not_the_run(
    sshd: Any, tmp_path: Path, store: SessionStore
) -> None:
    lines, samples, _ = forged_spool()
    session_id, run_dir = setup(sshd, tmp_path, store, lines)
    follow(sshd, tmp_path, store, session_id, run_dir)

    run = store.get_run(session_id)
    assert run.status == "complete", run.message
    assert [s.seq for s in store.samples(session_id)] == samples
    assert store.last_seq(session_id) == len(lines) - 2
    warnings = [line.message for line in store.log(session_id) if line.level == "warning"]
    jumps = [w for w in warnings if "jumps ahead" in w]
    assert len(jumps) == 2, warnings
    assert f"seq {FORGED} jumps ahead of 5, farther than this stream goes" in jumps[0]
    assert f"seq {FORGED + 1} jumps ahead of 5" in jumps[1]


def test_a_session_poisoned_by_a_forged_pair_is_repaired_from_its_spool(
    sshd: Any, tmp_path: Path, store: SessionStore
) -> None:
    lines, samples, at = forged_spool()
    session_id, run_dir = setup(sshd, tmp_path, store, lines)
    # What an older reader stored: the events up to the pair, then the pair (its high-water
    # mark), after which it refused every real event as a repeat.
    for line in lines[: at + 2]:
        store.add_event(session_id, decode_line(line))
    assert store.last_seq(session_id) == FORGED + 1
    store.close_unfinished(session_id, "the agent ended without finishing the run")

    follow(sshd, tmp_path, store, session_id, run_dir)

    run = store.get_run(session_id)
    assert run.status == "complete", run.message
    assert [s.seq for s in store.samples(session_id)][: len(samples)] == samples
