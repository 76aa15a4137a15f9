"""A session as one file: export, import, and files that must be refused without a change."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from seed_sessions import build_seed000

from bench_gui.core.economics import ArrayInput
from bench_gui.store import SessionFileError, SessionStore, export_session, import_session
from bench_gui.store.exchange import FORMAT, checksum, read_document


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
