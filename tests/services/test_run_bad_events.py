"""Odd payloads and bad lines through the whole desktop side: a real spool on the loopback sshd,
the real follower, the run controller's one check of every event, the session store, the CLI's
progress printer and the live model. The run is stored complete with every good event; each
bad value is named in the session log; nothing raises."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from bench_gui.cli.progress import ProgressPrinter
from bench_gui.core.plan_model import Driver, Plan, Target
from bench_gui.remote.ssh_transport import SSHTransport
from bench_gui.services.live_model import LiveModel
from bench_gui.services.run import RunController
from bench_gui.store import SessionStore
from bench_gui.wire.protocol import Event
from bench_gui.wire.run_config import Workload
from tests._fixtures.agent_events import agent_stream, ended_run_dir


@pytest.fixture
def store(tmp_path: Path) -> Any:
    with SessionStore(tmp_path / "sessions.sqlite3") as opened:
        yield opened


def odd_spool() -> tuple[list[bytes], dict[str, int]]:
    """A real run's lines, with wrong types and ranges in its payloads and bad lines among
    them; and the seqs of the events that must be refused whole."""
    lines = agent_stream(steps=2, samples=5)
    events = [json.loads(line) for line in lines]
    kinds = [e["kind"] for e in events]
    samples = [i for i, k in enumerate(kinds) if k == "sample"]
    ends = [i for i, e in enumerate(events) if e["kind"] == "step" and e["phase"] == "end"]
    hello, log = kinds.index("hello"), kinds.index("log")

    events[hello]["settings"] = ["not", "a", "dict"]
    odd = events[samples[1]]
    odd |= {"nopm_db": "NAN", "tpm_db": "INF", "elapsed": "12", "latency_ms": [1, 2]}
    odd |= {"phase": "\ud800measure", "host": "busy"}
    odd["counts"]["new_order"] = 2**64
    events[samples[2]]["power"]["watts"] = "HUGE"
    events[ends[0]]["summary"] |= {"power_w": "INF", "mw_per_nopm": "n/a"}
    events[ends[0]]["summary"]["latency_ms"]["all"]["p999"] = -(2**70)
    refused = {"sample": events[samples[3]]["seq"], "log": events[log]["seq"]}
    events[samples[3]]["step"] = "zero"
    events[log]["message"] = 42
    events[-1]["message"] = "sweep complete \udfff"

    # json.dumps writes NaN and Infinity as the agent never would: put them in by hand.
    out = [
        json.dumps(e)
        .replace('"NAN"', "NaN")
        .replace('"INF"', "Infinity")
        .replace('"HUGE"', "1e999")
        .encode()
        for e in events
    ]
    stray = dict(events[samples[0]], seq=999_999_999)
    out.insert(samples[0] + 1, json.dumps(stray).encode())
    out.insert(samples[4] + 1, b"[" * 100_000)
    out.insert(ends[1], b'{"v": 1, "kind": "log", "seq": 3, "t": 0, "n": ' + b"7" * 5000 + b"}")
    return out, refused


def strict_stream() -> io.TextIOWrapper:
    """A terminal that takes only valid UTF-8 (a lone surrogate would raise here)."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", write_through=True)


def test_odd_payloads_never_cost_the_run(sshd: Any, tmp_path: Path, store: SessionStore) -> None:
    lines, refused = odd_spool()
    run_dir = ended_run_dir(tmp_path, "odd", lines)
    sshd.trust()
    plan = Plan(
        name="odd payloads",
        target=Target(kind="postgresql", host="/nonexistent", database="odd"),
        workload=Workload(warehouses=1, virtual_users=[1, 2], rampup_s=2, duration_s=30),
        driver=Driver(target="loop"),
    )
    session_id = store.create_run(
        name=plan.name,
        plan=plan.to_dict(),
        plan_toml=plan.to_toml(),
        target={"kind": "postgresql", "driver": "loop"},
        engine="postgresql",
    )

    def controller() -> RunController:
        transport = SSHTransport(sshd.target(), remote_root=str(tmp_path / "cache"))
        return RunController(plan, store, transport=transport)

    out = strict_stream()
    printer = ProgressPrinter(out)
    model = LiveModel(capacity=100)
    seen: list[Event] = []
    for event in controller().reattach(session_id, str(run_dir)):
        seen.append(event)
        printer(event)
        model.feed(event)

    run = store.get_run(session_id)
    assert run.status == "complete"
    assert run.message == "sweep complete \ufffd"
    good = [json.loads(line) for line in agent_stream(steps=2, samples=5)]
    expected = [e["seq"] for e in good if e["kind"] == "sample" and e["seq"] != refused["sample"]]
    assert [s.seq for s in store.samples(session_id)] == expected
    odd = store.samples(session_id)[1]
    assert (odd.nopm_db, odd.tpm_db, odd.phase) == (None, None, "\ufffdmeasure")
    assert odd.counts == {"payment": 11, "delivery": 12, "stock_level": 13, "order_status": 14}
    assert odd.nopm_driver == 601.0  # the rest of the second is kept
    steps = store.steps(session_id)
    assert [(s.step, s.vus, s.nopm, s.complete) for s in steps] == [
        (0, 1, 6000.0, True),
        (1, 2, 6001.0, True),
    ]
    assert "power_w" not in steps[0].summary
    assert "p999" not in steps[0].latency_ms["all"]
    assert store.get_run(session_id).settings == {}

    warnings = [line.message for line in store.log(session_id) if line.level == "warning"]
    expected_warnings = [
        "agent event hello #1 kept; bad fields left out or repaired: settings:",
        "seq 999999999 jumps ahead of",
        "nopm_db: nan is not a finite number; tpm_db: inf is not a finite number",
        "power.watts: inf is not a finite number",
        f"unusable agent event, skipped: sample #{refused['sample']}: step: 'zero'",
        "nested too deeply",
        f"unusable agent event, skipped: log #{refused['log']}: message: 42 is not text",
        "summary.power_w: inf is not a finite number",
        "digits",
        "message: lone surrogates replaced by U+FFFD",
    ]
    assert len(warnings) == len(expected_warnings), warnings
    for warning, words in zip(warnings, expected_warnings, strict=True):
        assert words in warning, (words, warning)
    json.dumps(store.run_to_json(session_id), allow_nan=False)  # what an export writes

    printed = out.buffer.getvalue().decode("utf-8")  # type: ignore[attr-defined]
    assert "step 1 done: 1 VU  NOPM 6,000" in printed
    assert "step 2 done: 2 VU  NOPM 6,001" in printed
    assert "nested too deeply" in printed
    assert model.phase == "ok"
    assert [p.nopm for p in model.points] == [6000.0, 6001.0]
    assert model.tiles().vus == 2
    assert len(model.samples) == len(expected) + 1  # and the idle baseline's row

    # Re-attaching again finds nothing new and reports nothing twice.
    before = store.log(session_id)
    again = list(controller().reattach(session_id, str(run_dir)))
    assert again == []
    after = [line for line in store.log(session_id) if line.level == "warning"]
    assert len(after) == len([line for line in before if line.level == "warning"])
