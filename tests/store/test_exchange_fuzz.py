"""Fuzzing ``sessions import``: whatever a session file holds, the only error is a
SessionFileError, a refused file changes nothing, and an accepted one can be shown.

Fifty mutated exports of a real session (samples, steps, log, events, tags, note, array),
seeded and reproducible: values replaced and records broken then signed again (so the checks
behind the checksum are reached), JSON text damaged, gzip streams damaged or inflating past the
limit, the document's header changed. Every session an import accepts is then read the way
users read it: ``sessions list``, ``sessions show`` with and without ``--json``, ``attach``,
the Sessions page's tables and the stored events a re-attach replays.
"""

from __future__ import annotations

import copy
import gzip
import json
import math
import random
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench_gui.cli.main import main as cli
from bench_gui.services.reattach import find_candidates, stored_events
from bench_gui.services.session_view import run_header, run_samples, run_steps
from bench_gui.store import SessionFileError, SessionStore, export_session, import_session
from bench_gui.store.exchange import checksum
from tests._fixtures.seed_sessions import store_session, sweep

SEED = 15
CASES = 50
# Small enough that a few of the cases pass it: what the limit does is the same at any size.
LIMIT = 2 * 1024 * 1024

ODD_VALUES: list[Any] = [
    None,
    True,
    0,
    -1,
    2**63,
    -(2**63) - 1,
    10**30,
    1.5,
    -0.0,
    1e308,
    "",
    "x" * 5000,
    "\u202eevil\x1b[31m",
    "NaN",
    [],
    [1, "a"],
    {},
    {"a": {"b": [1]}},
    "2026-13-45T99:00:00",
]


def session_file(store: SessionStore, folder: Path) -> dict[str, Any]:
    """A realistic session with every kind of record, exported as a document."""
    points = [
        {"vus": vus, "nopm": 1000.0 * vus, "avg": 2.0 * vus, "p999": 20.0 * vus, "power_w": 300.0}
        for vus in (8, 16, 24)
    ]
    events = sweep("PostgreSQL 16.2", {"shared_buffers": "8GB"}, points, 60.0, 180.0, True)
    run_id = store_session(store, "fuzz base", events, commands=("mkfs.xfs /dev/md0",))
    store.add_tags(run_id, ["raid10", "ssd"])
    store.set_note(run_id, "four SAS SSDs")
    path = export_session(store, run_id, folder / "base.json")
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


# Where most value mutations go: what the store's columns, ``sessions show``, the session list
# and re-attach read ("*": any item of a list).
HOT_PATHS = [
    ("run", "name"),
    ("run", "status"),
    ("run", "created_at"),
    ("run", "finished_at"),
    ("run", "target", "port"),
    ("run", "plan", "driver"),
    ("run", "settings"),
    ("steps", "*", "vus"),
    ("steps", "*", "nopm"),
    ("steps", "*", "latency_ms", "all"),
    ("steps", "*", "latency_ms", "all", "avg"),
    ("steps", "*", "counts", "new_order"),
    ("steps", "*", "histograms"),
    ("samples", "*", "t"),
    ("samples", "*", "latency_ms", "all"),
    ("samples", "*", "extra"),
    ("events", "*", "data"),
    ("events", "*", "data", "server"),
    ("events", "*", "kind"),
    ("log", "*", "message"),
    ("tags",),
    ("array",),
]


def hot_node(rng: random.Random, session: dict[str, Any]) -> tuple[Any, Any] | None:
    """The container and key of one of the :data:`HOT_PATHS` (None if the file has none)."""
    container: Any = session
    path = rng.choice(HOT_PATHS)
    for i, part in enumerate(path):
        if part == "*":
            if not isinstance(container, list) or not container:
                return None
            part = rng.randrange(len(container))
        elif not isinstance(container, dict) or (part not in container and i < len(path) - 1):
            return None
        if i == len(path) - 1:
            return container, part
        container = container[part]
    return None


def nodes(value: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) of a JSON value."""
    found: list[tuple[Any, Any]] = []
    stack = [value]
    while stack:
        item = stack.pop()
        keys = list(item) if isinstance(item, dict) else range(len(item))
        for key in keys:
            found.append((item, key))
            if isinstance(item[key], dict | list):
                stack.append(item[key])
    return found


def like(rng: random.Random, value: Any) -> Any:
    """Another value of the same kind (often accepted), or an odd one (often not)."""
    if rng.random() < 0.5:
        return rng.choice(ODD_VALUES)
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + rng.randint(-3, 3)
    if isinstance(value, float):
        return value * rng.choice([0.5, 2.0, -1.0])
    if isinstance(value, str):
        return value[::-1] + rng.choice(["", "\u202e", " é", "\x07"])
    return copy.deepcopy(value)


def signed(document: dict[str, Any]) -> bytes:
    """The document with its checksum made to match (when one can be computed)."""
    try:
        document["sha256"] = checksum(document["session"])
    except (ValueError, TypeError):
        pass  # NaN or a lone surrogate: left to the reader to refuse
    return json.dumps(document, ensure_ascii=False).encode("utf-8", "surrogatepass")


def odd(rng: random.Random, value: Any) -> Any:
    """A value of another kind than ``value``."""
    return rng.choice([v for v in ODD_VALUES if type(v) is not type(value)])


def resigned_hot(rng: random.Random, document: dict[str, Any], index: int) -> bytes:
    """One of the :data:`HOT_PATHS` given a value of the wrong kind, signed."""
    path = HOT_PATHS[index % len(HOT_PATHS)]
    container: Any = document["session"]
    for part in path[:-1]:
        container = container[rng.randrange(len(container))] if part == "*" else container[part]
    key = rng.randrange(len(container)) if path[-1] == "*" else path[-1]
    container[key] = odd(rng, container.get(key) if isinstance(container, dict) else None)
    return signed(document)


def resigned_value(rng: random.Random, document: dict[str, Any]) -> bytes:
    for _ in range(rng.randint(1, 2)):
        found = hot_node(rng, document["session"]) if rng.random() < 0.7 else None
        container, key = found or rng.choice(nodes(document["session"]))
        current = container[key] if isinstance(container, list) or key in container else None
        container[key] = like(rng, current)
    return signed(document)


def resigned_structure(rng: random.Random, document: dict[str, Any]) -> bytes:
    session = document["session"]
    action = rng.randrange(4)
    container, key = rng.choice(nodes(session))
    if action == 0 and isinstance(container, dict):
        del container[key]
    elif action == 1 and isinstance(container, dict):
        container[rng.choice(["extra", "\u202e", "seq"])] = rng.choice(ODD_VALUES)
    elif action == 2:
        deep: Any = 0
        for _ in range(rng.choice([10, 40, 900])):
            deep = [deep]
        container[key] = deep
    else:
        records = session[rng.choice(["steps", "samples", "log", "events"])]
        if records:
            record = rng.choice(records)
            if isinstance(record, dict):
                record[rng.choice(list(record) or ["x"])] = rng.choice(
                    [math.nan, 10**400, "7", [], {"x": 1}, -5]
                )
    return signed(document)


def damaged_text(rng: random.Random, document: dict[str, Any]) -> bytes:
    data = bytearray(json.dumps(document, ensure_ascii=False, indent=1).encode("utf-8"))
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(data))
        action = rng.randrange(4)
        if action == 0:
            data[at] = rng.randrange(256)
        elif action == 1:
            del data[at:]
        elif action == 2:
            data[at:at] = rng.choice(
                [b"9" * 5000, b"[" * 100_000, b"NaN", b"\xff\xfe", b'"\\ud800"', b"}", b","]
            )
        else:
            text = data.decode("utf-8", "replace").replace('"t": ', '"t": -', 1)
            data = bytearray(text.encode("utf-8"))
    return bytes(data)


def damaged_gzip(rng: random.Random, document: dict[str, Any]) -> bytes:
    raw = json.dumps(document).encode("utf-8")
    action = rng.randrange(5)
    if action == 0:  # a bomb: a small file that inflates past the limit
        padded = raw[:-1] + b"," + b'"pad":"' + b" " * (LIMIT * 2) + b'"}'
        return gzip.compress(padded, compresslevel=1, mtime=0)
    data = bytearray(gzip.compress(raw, mtime=0))
    if action == 1:
        del data[rng.randrange(10, len(data)) :]
    elif action == 2:
        for _ in range(rng.randint(1, 5)):
            data[rng.randrange(10, len(data))] ^= 1 << rng.randrange(8)
    elif action == 3:
        data += rng.choice([b"garbage", gzip.compress(b"[]", mtime=0), b"\x1f\x8b"])
    else:  # a good one: accepted
        pass
    return bytes(data)


def damaged_header(rng: random.Random, document: dict[str, Any]) -> bytes:
    key = rng.choice(["format", "version", "sha256", "session", "exported_at"])
    document[key] = rng.choice([*ODD_VALUES, 2, "bench-gui-session-file", 1])
    return json.dumps(document).encode("utf-8")


MUTATIONS: list[Callable[[random.Random, dict[str, Any]], bytes]] = [
    resigned_value,
    resigned_value,
    resigned_structure,
    damaged_text,
    damaged_gzip,
    damaged_header,
]


def read_back(store: SessionStore, run_id: int, capsys: pytest.CaptureFixture[str]) -> None:
    """What users do with an imported session; none of it may fail."""
    db = str(store.path)
    assert cli(["--db", db, "sessions", "list", "--all"]) == 0
    assert cli(["--db", db, "sessions", "show", str(run_id)]) == 0
    capsys.readouterr()
    assert cli(["--db", db, "sessions", "show", str(run_id), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["run"]["id"] == run_id
    assert cli(["--db", db, "sessions", "search", "fuzz"]) == 0
    # No SSH target of that name exists here: attach says so (or that the plan is not valid).
    assert cli(["--db", db, "attach", str(run_id)]) in (1, 2)
    run_header(store, run_id)
    run_steps(store, run_id)
    run_samples(store, run_id)
    stored_events(store, run_id)
    find_candidates(store)
    capsys.readouterr()


def test_mutated_session_files_raise_only_session_file_errors(
    store: SessionStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = session_file(store, tmp_path)
    rng = random.Random(SEED)
    failures: list[str] = []
    outcomes = {"accepted": 0, "refused": 0}
    for i in range(CASES):
        # First a wrong kind of value in each field users read, then random mutations.
        if i < len(HOT_PATHS):
            mutation: Callable[..., bytes] = resigned_hot
            data = resigned_hot(rng, copy.deepcopy(base), i)
        else:
            mutation = MUTATIONS[i % len(MUTATIONS)]
            data = mutation(rng, copy.deepcopy(base))
        path = tmp_path / f"case{i}.json"
        path.write_bytes(data)
        before = [(r.id, r.name) for r in store.list_runs(None)]
        try:
            try:
                run_id = import_session(store, path, max_bytes=LIMIT)
            except SessionFileError:
                outcomes["refused"] += 1
                assert [(r.id, r.name) for r in store.list_runs(None)] == before
                continue
            outcomes["accepted"] += 1
            read_back(store, run_id, capsys)
        except Exception:  # noqa: BLE001 - the fuzzer's point: list every unexpected error
            failures.append(f"case {i} ({mutation.__name__}): {traceback.format_exc(limit=-4)}")
    assert not failures, f"{len(failures)} of {CASES}:\n" + "\n".join(failures[:5])
    # The cases reach both sides: what is accepted is read back, what is refused changes nothing.
    assert outcomes["accepted"] >= 5, outcomes
    assert outcomes["refused"] >= 20, outcomes
