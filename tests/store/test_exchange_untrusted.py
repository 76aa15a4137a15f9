"""Session files someone else wrote: what they would make the parser build is bounded before it
runs, a pipe is refused by name, the plan is checked as a plan file is, texts have a length, and
a copy of a session the store has keeps its origin."""

from __future__ import annotations

import gzip
import json
import os
import threading
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from bench_gui.store import SessionFileError, SessionStore, export_session, import_session
from bench_gui.store.exchange import MAX_CONTAINERS, checksum
from tests._fixtures.seed_sessions import build_seed000


def exported(store: SessionStore, tmp_path: Path) -> dict[str, Any]:
    hdd, _ = build_seed000(store)
    return json.loads(export_session(store, hdd, tmp_path / "s.json").read_text())  # type: ignore[no-any-return]


def signed(tmp_path: Path, doc: dict[str, Any], name: str = "edited.json") -> Path:
    doc["sha256"] = checksum(doc["session"])
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def test_a_file_of_tiny_values_is_refused_before_it_is_parsed(
    store: SessionStore, tmp_path: Path
) -> None:
    """A few KiB of gzip inflating to millions of empty tables, well under the byte limit:
    json.loads would build every one of them (hundreds of MiB); it is refused while counted."""
    bomb = tmp_path / "tables.json.gz"
    count = MAX_CONTAINERS + 1_000_000
    with gzip.open(bomb, "wb", compresslevel=9) as out:
        out.write(b'{"format": "bench-gui-session-file", "version": 1, "session": {"x": [')
        block = b"{}," * 100_000
        for _ in range(count // 100_000):
            out.write(block)
        out.write(b"{}]}}")
    assert bomb.stat().st_size < 256 * 1024
    tracemalloc.start()
    try:
        with pytest.raises(SessionFileError, match="more tables, lists or values") as caught:
            import_session(store, bomb)
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert str(bomb) in str(caught.value)
    assert peak < 32 * 1024**2  # chunks counted, nothing parsed
    assert store.list_runs(None) == []


def test_a_named_pipe_is_refused_by_name(store: SessionStore, tmp_path: Path) -> None:
    fifo = tmp_path / "session.json"
    os.mkfifo(fifo)
    outcome: list[BaseException | None] = []

    def attempt() -> None:
        try:
            import_session(store, fifo)
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            outcome.append(exc)
        else:
            outcome.append(None)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(60)
    if worker.is_alive():  # the old code blocks in open(): give it a writer, then fail
        with fifo.open("wb"):
            pass
        worker.join()
        pytest.fail("importing a FIFO blocked")
    assert isinstance(outcome[0], SessionFileError)
    assert "a named pipe (FIFO), not a session file" in str(outcome[0])
    assert str(fifo) in str(outcome[0])


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (
            lambda run: run.__setitem__(
                "plan_toml", run["plan_toml"] + '[target]\npassword_env = "AWS_SECRET_ACCESS_KEY"\n'
            ),
            "run.plan_toml is not a valid plan (target.password_env:",
        ),
        (
            lambda run: run["plan"]["workload"].__setitem__("virtual_users", [10**9]),
            "run.plan is not a valid plan (workload.virtual_users",
        ),
        (
            lambda run: run.__setitem__("plan_toml", "\x00junk = = ["),
            "run.plan_toml is not a valid plan",
        ),
        (
            lambda run: run.__setitem__("plan_toml", "bogus = 1\n"),
            "bogus: unknown section or field",
        ),
        (lambda run: run.__setitem__("name", "n" * 20_000_000), "run.name is a text of 20,000,000"),
        (lambda run: run.__setitem__("message", "m" * 100_000), "run.message is a text of 100,000"),
    ],
)
def test_the_plan_and_texts_are_checked_as_a_plan_file_is(
    store: SessionStore, tmp_path: Path, change: Any, reason: str
) -> None:
    doc = exported(store, tmp_path)
    before = [r.id for r in store.list_runs(None)]
    change(doc["session"]["run"])
    with pytest.raises(SessionFileError) as caught:
        import_session(store, signed(tmp_path, doc))
    assert reason in str(caught.value)
    assert [r.id for r in store.list_runs(None)] == before


def test_figures_out_of_range_are_refused(store: SessionStore, tmp_path: Path) -> None:
    doc = exported(store, tmp_path)
    for field, value, reason in [
        ("nopm", 1e300, "steps[0].nopm is 1e+300, not a rate a run can have"),
        ("nopm", -5.0, "steps[0].nopm is -5.0"),
        ("vus", -5, "steps[0].vus is not a whole number"),
    ]:
        edited = json.loads(json.dumps(doc))
        edited["session"]["steps"][0][field] = value
        with pytest.raises(SessionFileError, match="incomplete or malformed") as caught:
            import_session(store, signed(tmp_path, edited))
        assert reason in str(caught.value)


def test_a_copy_keeps_its_origin(store: SessionStore, tmp_path: Path) -> None:
    """Imported into the store that has it, a session is a copy: a UUID of its own, and the
    original's as its origin (the same measurement); into another store it keeps its UUID."""
    hdd, _ = build_seed000(store)
    original = store.get_run(hdd)
    path = export_session(store, hdd, tmp_path / "hdd.json")
    copy = store.get_run(import_session(store, path))
    assert copy.uuid != original.uuid
    assert (copy.origin, copy.measurement) == (original.uuid, original.uuid)
    assert original.origin == ""
    assert original.measurement == original.uuid
    # A copy of the copy is still the same measurement.
    again = store.get_run(
        import_session(store, export_session(store, copy.id, tmp_path / "c.json"))
    )
    assert again.origin == original.uuid
    with SessionStore(tmp_path / "other.sqlite3") as other:
        there = other.get_run(import_session(other, path))
        assert (there.uuid, there.origin) == (original.uuid, "")
