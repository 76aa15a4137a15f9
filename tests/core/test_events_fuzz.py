"""Bounded, seeded fuzzing of the event stream: 1,000 mutated agent lines (bit flips, cuts, type
swaps, huge numbers, NaN and infinities, lone surrogates, deep nesting, seq changes, garbage)
through the desktop's boundary, the session store, the CLI's progress printer and the live
model. Zero unhandled exceptions, and no good event lost.

Reproducible: the mutations come from ``random.Random(SEED)``; a failure names the line's index,
and ``mutate(SEED)[index]`` rebuilds it.
"""

from __future__ import annotations

import copy
import io
import json
import math
import random
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench_gui.cli.progress import ProgressPrinter
from bench_gui.core.events import read_line
from bench_gui.core.plan_model import Driver, Plan, Target
from bench_gui.remote.ssh_transport import SSHAgentRun, SSHTransport
from bench_gui.services.live_model import LiveModel
from bench_gui.services.run import RunController
from bench_gui.store import SessionStore
from bench_gui.wire.protocol import ProtocolError
from bench_gui.wire.run_config import Workload
from tests._fixtures.agent_events import agent_stream, ended_run_dir

SEED = 15
MUTATIONS = 1000
LINE_LIMIT = 128 * 1024  # the follower's line limit in the stream test (the real one: 16 MiB)

Mutator = Callable[[random.Random, str], bytes]


def _deep(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


BAD_VALUES: tuple[Any, ...] = (
    math.nan,
    math.inf,
    -math.inf,
    2**64,
    -(2**70),
    10**30,
    1e308,
    -0.0,
    "\ud800",
    "tail \udfff",
    "12",
    "",
    [],
    {},
    [[1, "x"]],
    {"a": {"b": None}},
    None,
    True,
    False,
    _deep(40),
)
HUGE_NUMBERS = (
    "9" * 5000,
    "1" + "0" * 4200,
    "1e999",
    "-1e999",
    "1e-999",
    "12345678901234567890123",
)
GARBAGE = (b"", b"   ", b"\x00\x01\x02", b"null", b"[]", b"{}", b'"str"', b"1e999", b"\xff" * 10)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += _paths(item, (*prefix, i))
    return out


def _set(body: Any, path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        body = body[key]
    body[path[-1]] = value


def _dump(body: Any) -> bytes:
    return json.dumps(body).encode()  # NaN and Infinity as Python writes them; \\ud800 escaped


def bit_flip(rng: random.Random, line: str) -> bytes:
    data = bytearray(line.encode())
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(data))
        data[i] ^= 1 << rng.randrange(8)
    return bytes(data)


def truncate(rng: random.Random, line: str) -> bytes:
    return line.encode()[: rng.randrange(len(line))]


def type_swap(rng: random.Random, line: str) -> bytes:
    body = json.loads(line)
    for _ in range(rng.randint(1, 3)):
        path = rng.choice(_paths(body))
        _set(body, path, copy.deepcopy(rng.choice(BAD_VALUES)))
    return _dump(body)


def huge_number(rng: random.Random, line: str) -> bytes:
    numbers = list(re.finditer(r"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?", line))
    m = rng.choice(numbers)
    return (line[: m.start()] + rng.choice(HUGE_NUMBERS) + line[m.end() :]).encode()


def seq_change(rng: random.Random, line: str) -> bytes:
    body = json.loads(line)
    seq = body["seq"]
    body["seq"] = rng.choice(
        [999_999_999, 0, -1, seq - 1, seq + 1, seq + 2, seq + 1000, 2**63, 2**64, "5", 1.5, True]
    )
    return _dump(body)


def nesting(rng: random.Random, line: str) -> bytes:
    choice = rng.randrange(3)
    if choice == 0:
        return b"[" * 100_000
    if choice == 1:
        body = json.loads(line)
        _set(body, rng.choice(_paths(body)), _deep(rng.choice([17, 50, 400])))
        return _dump(body)
    return line[:-1].encode() + b', "deep": ' + b'{"a":' * 3000 + b"1" + b"}" * 3000 + b"}"


def garbage(rng: random.Random, line: str) -> bytes:
    choice = rng.randrange(4)
    if choice == 0:
        return rng.choice(GARBAGE)
    if choice == 1:
        return bytes(rng.randrange(256) for _ in range(rng.randint(1, 80))).replace(b"\n", b"")
    if choice == 2:
        return (line + line).encode()  # two events on one line
    return line[:-1].encode() + b', "pad": "' + b"p" * (LINE_LIMIT + rng.randrange(5000)) + b'"}'


def keys(rng: random.Random, line: str) -> bytes:
    body = json.loads(line)
    payload = [k for k in body if k not in ("v", "kind", "seq", "t")]
    if payload and rng.random() < 0.5:
        del body[rng.choice(payload)]
    else:
        body[rng.choice(["", "\ud83d", "kind ", "x" * 300, "seq"])] = rng.choice(BAD_VALUES)
    return _dump(body)


MUTATORS: tuple[Mutator, ...] = (
    bit_flip,
    truncate,
    type_swap,
    type_swap,
    huge_number,
    seq_change,
    nesting,
    garbage,
    keys,
)


def base_lines() -> list[str]:
    return agent_stream(steps=8, samples=250)


def mutate(seed: int) -> dict[int, bytes]:
    """{index in the base stream: its mutated line}: every other line, the first and the last
    (``done``) left whole."""
    rng = random.Random(seed)
    lines = base_lines()
    picked = list(range(1, len(lines) - 1, 2))[:MUTATIONS]
    assert len(picked) == MUTATIONS
    return {i: rng.choice(MUTATORS)(rng, lines[i]) for i in picked}


def strict_stream() -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", write_through=True)


def stored_json_is_standard(path: Path, run_id: int) -> None:
    """Every JSON text the store wrote for the run parses as standard JSON (no NaN, no
    Infinity) and every text column is valid UTF-8."""

    def refuse(token: str) -> Any:
        raise ValueError(f"non-standard JSON constant {token}")

    with sqlite3.connect(path) as conn:
        conn.text_factory = bytes
        for table, columns in {
            "events": ("data",),
            "samples": ("counts", "errors", "latency_ms", "extra", "phase"),
            "steps": ("latency", "counts", "errors", "summary"),
            "run_log": ("message", "level"),
        }.items():
            for row in conn.execute(
                f"SELECT {', '.join(columns)} FROM {table} WHERE run_id = ?", (run_id,)
            ):
                for column, value in zip(columns, row, strict=True):
                    if value is None:
                        continue
                    text = value.decode("utf-8")
                    if column not in ("phase", "message", "level"):
                        json.loads(text, parse_constant=refuse)


def test_mutations_are_reproducible() -> None:
    assert mutate(SEED) == mutate(SEED)
    kinds = {m.__name__ for m in MUTATORS}
    assert len(kinds) == 8


def test_every_mutated_line_alone(tmp_path: Path) -> None:
    """Each line on its own through the one check, the store, the printer and the live model."""
    mutated = mutate(SEED)
    path = tmp_path / "sessions.sqlite3"
    refused = kept = repaired = 0
    with SessionStore(path) as store:
        run_id = store.create_run("fuzz", {}, "", {}, "postgresql")
        printer = ProgressPrinter(strict_stream())
        model = LiveModel(capacity=64)
        for index, line in mutated.items():
            try:
                checked = read_line(line)
            except ProtocolError:
                refused += 1
                continue
            except Exception as exc:  # noqa: BLE001 - the fuzz's verdict: name the line
                pytest.fail(f"line {index}: {type(exc).__name__}: {exc}")
            kept += 1
            repaired += bool(checked.dropped)
            event = checked.event
            try:
                json.dumps(event.data, allow_nan=False)
                store.add_event(run_id, event)
                printer(event)
                model.feed(event)
                model.tiles()
                checked.warning().encode("utf-8")
            except Exception as exc:  # noqa: BLE001 - the fuzz's verdict: name the line
                pytest.fail(
                    f"line {index} ({event.kind} #{event.seq}): {type(exc).__name__}: {exc}"
                )
        stored_json_is_standard(path, run_id)
    # The mix really exercises both outcomes.
    assert refused > 200
    assert kept > 200
    assert repaired > 100


def test_a_mutated_stream_through_the_desktop(sshd: Any, isolated: Any, tmp_path: Path) -> None:
    """The mutated lines among the good ones, in one spool on the loopback sshd, followed and
    stored by the run controller; the events it yields go to the printer and the live model."""
    lines = base_lines()
    mutated = mutate(SEED)
    spool = [mutated.get(i, line.encode()) for i, line in enumerate(lines)]
    run_dir = ended_run_dir(tmp_path, "fuzz", spool)
    sshd.trust()

    def small_lines(run: SSHAgentRun) -> None:
        run.max_line_bytes = LINE_LIMIT

    transport = SSHTransport(
        sshd.target(), remote_root=str(tmp_path / "cache"), on_started=small_lines
    )
    plan = Plan(
        name="fuzz",
        target=Target(kind="postgresql", host="/nonexistent", database="fuzz"),
        workload=Workload(warehouses=1, virtual_users=[1, 2, 4, 8], rampup_s=2, duration_s=30),
        driver=Driver(target="loop"),
    )
    path = tmp_path / "sessions.sqlite3"
    with SessionStore(path) as store:
        session_id = store.create_run("fuzz", plan.to_dict(), plan.to_toml(), {}, "postgresql")
        printer = ProgressPrinter(strict_stream())
        model = LiveModel(capacity=2000)
        yielded = 0
        for event in RunController(plan, store, transport=transport).reattach(
            session_id, str(run_dir)
        ):
            yielded += 1
            printer(event)
            model.feed(event)
        model.tiles()
        assert store.get_run(session_id).status == "complete"
        with sqlite3.connect(path) as conn:
            stored = {
                seq
                for (seq,) in conn.execute("SELECT seq FROM events WHERE run_id = ?", (session_id,))
            }
        good = {i + 1 for i in range(len(lines)) if i not in mutated}
        assert good <= stored, sorted(good - stored)[:20]
        assert len(stored) < len(lines)  # some mutated lines were refused
        warnings = [line for line in store.log(session_id) if line.level == "warning"]
        assert len(warnings) > 300
        stored_json_is_standard(path, session_id)
    assert yielded > len(good)
