"""A session as one file: export, import, and files that must be refused without a change."""

from __future__ import annotations

import gzip
import json
import re
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench_gui.core.economics import ArrayInput
from bench_gui.store import SessionFileError, SessionStore, exchange, export_session, import_session
from bench_gui.store.exchange import FORMAT, checksum, read_document
from tests._fixtures.seed_sessions import build_seed000


def snapshot(store: SessionStore) -> list[tuple[int, str]]:
    return [(r.id, r.name) for r in store.list_runs(None)]


def comparable(data: dict) -> dict:
    """A run's JSON without what an import legitimately changes (id, the import's log line)."""
    run = dict(data["run"])
    run.pop("id")
    return {
        "run": run,
        "steps": data["steps"],
        "samples": data["samples"],
        "events": data["events"],
        "log": [line for line in data["log"] if not line["message"].startswith("imported from")],
    }


@pytest.mark.parametrize("name", ["hdd.bgsession.json", "hdd.bgsession.json.gz"])
def test_round_trip_into_another_store(store: SessionStore, tmp_path: Path, name: str) -> None:
    hdd, _ssd = build_seed000(store)
    store.add_tags(hdd, ["legacy", "raid10"])
    store.set_note(hdd, "16 drives, formatted only")
    path = export_session(store, hdd, tmp_path / name)
    raw = path.read_bytes()
    assert (raw[:2] == b"\x1f\x8b") == name.endswith(".gz")
    with SessionStore(tmp_path / "colleague.sqlite3") as other:
        new_id = import_session(other, path)
        assert comparable(other.run_to_json(new_id)) == comparable(store.run_to_json(hdd))
        assert other.tags(new_id) == ["legacy", "raid10"]
        assert other.note(new_id) == "16 drives, formatted only"
        assert other.run_array(new_id) == ArrayInput(None, None, 3440.0, "USD", "hand", "")
        assert other.histograms(new_id, 0) == store.histograms(hdd, 0)
        assert other.last_seq(new_id) == store.last_seq(hdd)
        assert other.log(new_id)[-1].message.startswith(f"imported from {name}")
        # Importing twice gives two sessions: ids are the store's own.
        assert import_session(other, path) == new_id + 1


def test_the_file_says_what_it_is(store: SessionStore, tmp_path: Path) -> None:
    hdd, _ = build_seed000(store)
    path = export_session(store, hdd, tmp_path / "s.json")
    doc = json.loads(path.read_text())
    assert doc["format"] == FORMAT
    assert doc["version"] == 1
    assert doc["sha256"] == checksum(doc["session"])
    assert read_document(path)["session"]["run"]["name"] == "HDD RAID 10 (16 x 15K SAS)"


def refuse(store: SessionStore, path: Path, match: str) -> None:
    before = snapshot(store)
    with pytest.raises(SessionFileError, match=match) as caught:
        import_session(store, path)
    assert str(path) in str(caught.value)
    assert snapshot(store) == before


def test_damaged_and_foreign_files_change_nothing(store: SessionStore, tmp_path: Path) -> None:
    hdd, _ = build_seed000(store)
    good = export_session(store, hdd, tmp_path / "good.json")
    doc = json.loads(good.read_text())

    edited = tmp_path / "edited.json"
    doc2 = json.loads(good.read_text())
    doc2["session"]["steps"][0]["nopm"] = 99999.0  # a figure changed by hand
    edited.write_text(json.dumps(doc2))
    refuse(store, edited, "damaged or was edited: its checksum does not match")

    truncated = tmp_path / "truncated.json"
    truncated.write_text(good.read_text()[:5000])
    refuse(store, truncated, "not a bench-gui session file, or it is damaged")

    foreign = tmp_path / "foreign.json"
    foreign.write_text(json.dumps({"format": "something-else", "data": []}))
    refuse(store, foreign, "not a bench-gui session file")

    binary = tmp_path / "photo.jpg"
    binary.write_bytes(b"\xff\xd8\xff\xe0" + bytes(range(256)) * 4)
    refuse(store, binary, "not a bench-gui session file")

    bad_gz = tmp_path / "bad.json.gz"
    bad_gz.write_bytes(gzip.compress(good.read_bytes())[:300])
    refuse(store, bad_gz, "compressed file is damaged")

    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({**doc, "version": 7}))
    refuse(store, newer, "newer bench-gui .file format version 7")

    missing = tmp_path / "missing.json"
    refuse(store, missing, "cannot be read")

    # Valid checksum, broken structure: caught before anything is written.
    broken = json.loads(good.read_text())
    del broken["session"]["run"]["engine"]
    broken["sha256"] = checksum(broken["session"])
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(broken))
    refuse(store, path, "run.engine is missing")

    # Valid structure, inconsistent content (one step number twice): the insert fails and
    # rolls back as a whole.
    twice = json.loads(good.read_text())
    twice["session"]["steps"][1]["step"] = twice["session"]["steps"][0]["step"]
    twice["sha256"] = checksum(twice["session"])
    path = tmp_path / "twice.json"
    path.write_text(json.dumps(twice))
    refuse(store, path, "inconsistent")


def test_a_running_session_is_imported_as_incomplete(store: SessionStore, tmp_path: Path) -> None:
    hdd, _ = build_seed000(store)
    doc = json.loads(export_session(store, hdd, tmp_path / "s.json").read_text())
    doc["session"]["run"]["status"] = "running"
    doc["sha256"] = checksum(doc["session"])
    path = tmp_path / "running.json"
    path.write_text(json.dumps(doc))
    new_id = import_session(store, path)
    detail = store.get_run(new_id)
    assert detail.status == "incomplete"
    assert detail.message == "exported while the run was still going on"


def test_a_gzip_bomb_is_refused_while_it_inflates(store: SessionStore, tmp_path: Path) -> None:
    """200 MiB of JSON in a file of a few hundred KiB: refused once the limit is passed, and
    nothing of it kept in memory on the way (it is inflated in chunks and counted)."""
    bomb = tmp_path / "bomb.json.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as out:
        out.write(b'{"format": "bench-gui-session-file", "pad": "')
        block = b" " * 1024**2
        for _ in range(200):
            out.write(block)
        out.write(b'"}')
    assert bomb.stat().st_size < 1024**2
    limit = 32 * 1024**2
    tracemalloc.start()
    try:
        with pytest.raises(SessionFileError, match="larger than 32 MiB of JSON") as caught:
            import_session(store, bomb, max_bytes=limit)
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert str(bomb) in str(caught.value)
    assert peak < limit / 4  # a few chunks at a time: not the limit, never the 200 MiB
    assert snapshot(store) == []
    # An uncompressed file past the limit is refused the same way.
    plain = tmp_path / "big.json"
    plain.write_bytes(b" " * (limit + 1))
    with pytest.raises(SessionFileError, match="larger than 32 MiB"):
        import_session(store, plain, max_bytes=limit)
    assert exchange.MAX_JSON_BYTES == 256 * 1024**2  # the default for sessions import


def signed_file(tmp_path: Path, doc: dict[str, Any], name: str = "edited.json") -> Path:
    doc["sha256"] = checksum(doc["session"])
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A change to the session at a dotted path ("steps.0.latency_ms.all")."""

    def change(session: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = session
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        node[int(last) if isinstance(node, list) else last] = value

    return change


@pytest.mark.parametrize(
    ("path", "value", "reason"),
    [
        # Each of these was stored before, then crashed `sessions show`, the Sessions page,
        # a re-attach's replay or the import itself.
        ("steps.0.latency_ms.all", "x", "steps.0.latency_ms.all is missing or not a table"),
        ("steps.0.latency_ms.all.avg", "x", "steps.0.latency_ms.all.avg is not a number"),
        ("steps.0.counts.new_order", "12", "steps.0.counts.new_order is not a number"),
        ("events.0.data", [1], "events.0.data is not a table"),
        ("events.0.data.server", 5, "events[0]: server: 5 is not text"),
        ("events.0.kind", "bogus", "'bogus' is not an event kind"),
        ("samples.0.seq", 2**70, "samples[0].seq is a whole number too large to store"),
        ("samples.0.t", 10**30, "samples[0].t is a whole number too large to store"),
        ("samples.0.vus", "8", "samples[0].vus"),
        ("tags", ["a,b"], "a tag cannot contain a comma"),
        ("array", {"count": 0}, "array.count"),
        ("run.created_at", "yesterday", "run.created_at is not a date and time"),
        ("run.plan.driver", "lab-1", "run.plan.driver is not a table"),
        ("run.settings", {"work_mem": 4}, "run.settings.work_mem is not text"),
    ],
)
def test_fields_of_the_wrong_type_are_refused(
    store: SessionStore, tmp_path: Path, path: str, value: Any, reason: str
) -> None:
    hdd, _ = build_seed000(store)
    doc = json.loads(export_session(store, hdd, tmp_path / "s.json").read_text())
    if path.startswith("samples"):
        doc["session"]["samples"] = [{"seq": 900, "t": 1.0e9, "step": 0, "vus": 8}]
    _set(path, value)(doc["session"])
    refuse(store, signed_file(tmp_path, doc), re.escape(reason.replace(".0.", "[0].")))


def test_deep_nesting_huge_numbers_and_nan_are_refused(store: SessionStore, tmp_path: Path) -> None:
    hdd, _ = build_seed000(store)
    good = export_session(store, hdd, tmp_path / "s.json").read_text()
    deep = tmp_path / "deep.json"
    deep.write_text(good.replace('"note":', '"x": ' + "[" * 100_000 + "]" * 100_000 + ', "note":'))
    refuse(store, deep, "nested too deeply")
    digits = tmp_path / "digits.json"
    digits.write_text(good.replace('"note":', '"x": ' + "9" * 5000 + ', "note":'))
    refuse(store, digits, "the file is damaged: a number has thousands of digits")
    nan = tmp_path / "nan.json"
    nan.write_text(good.replace('"note":', '"x": NaN, "note":'))
    refuse(store, nan, "NaN is not a number JSON allows")
    doc = json.loads(good)
    nested: Any = 1
    for _ in range(40):
        nested = [nested]
    doc["session"]["run"]["inventory"] = {"x": nested}
    refuse(store, signed_file(tmp_path, doc), "nested deeper than 32")
