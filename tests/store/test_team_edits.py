"""Edits of sessions both the local file and the team store have: queued here, sent by the next
push, brought back by a pull; two people editing one session at once both keep what they did;
prices travel; every per-session table of the schema is either copied or known to stay."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg
import pytest

from bench_gui.core.economics import ArrayInput, DevicePrice, PowerPrice
from bench_gui.store import SessionStore
from bench_gui.store.recorder import AUTHOR_ENV
from bench_gui.store.team_store import TeamStoreConfig
from bench_gui.store.team_sync import (
    LOCAL_TABLES,
    SESSION_TABLES,
    pull,
    push,
    push_when_reachable,
    sync,
)
from tests._fixtures.seed_sessions import build_seed000
from tests._fixtures.ssh import free_port
from tests.store.at_once import at_once


def queued(store: SessionStore) -> list[tuple[str, str]]:
    with store._snapshot() as conn:
        return [(r[0], r[1]) for r in conn.execute("SELECT kind, data FROM run_edits ORDER BY id")]


def team_id(team: SessionStore, local: SessionStore, run_id: int) -> int:
    wanted = local.get_run(run_id).uuid
    return next(r.id for r in team.list_runs(None) if r.uuid == wanted)


def test_every_table_of_a_session_is_copied_or_stays_local(tmp_path: Path) -> None:
    """Read from the schema itself: a new table with a run_id must be listed in SESSION_TABLES
    (it travels with the session) or LOCAL_TABLES (it stays in its own store)."""
    with SessionStore(tmp_path / "schema.sqlite3") as store, store._snapshot() as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        per_session = {
            t for t in tables if "run_id" in {c[1] for c in conn.execute(f"PRAGMA table_info({t})")}
        }
    assert per_session, "no table with a run_id found: the schema reading is broken"
    unlisted = per_session - set(SESSION_TABLES) - set(LOCAL_TABLES)
    assert not unlisted, f"per-session tables neither copied nor local: {sorted(unlisted)}"
    assert not set(SESSION_TABLES) & set(LOCAL_TABLES)
    assert set(SESSION_TABLES) | set(LOCAL_TABLES) <= per_session  # no stale names


def test_edits_of_a_pushed_session_reach_the_team_store(
    team_config: TeamStoreConfig, tmp_path: Path
) -> None:
    with SessionStore(tmp_path / "laptop.sqlite3") as local:
        hdd, ssd = build_seed000(local)
        local.add_tags(ssd, ["ssd"])
        local.set_note(ssd, "first words")
        assert queued(local) == []  # not pushed yet: the push sends the session as it is
        with SessionStore(team=team_config) as team:
            push(local, team)
        # Offline: the edits wait in the file.
        offline = TeamStoreConfig(f"postgresql://postgres@127.0.0.1:{free_port()}/team")
        local.set_tags(ssd, ["ssd", "raid10"], seen=["ssd"])
        local.remove_tags(ssd, ["ssd"])
        local.set_note(ssd, "second words")
        local.set_run_array(ssd, ArrayInput(device="S650DC 800GB", count=4, note="by hand"))
        local.set_storage_description(ssd, devices="S650DC 800GB", count=4, raid="RAID 10")
        assert [k for k, _d in queued(local)] == [
            "tag_add", "tag_remove", "note", "array", "storage",
        ]  # fmt: skip
        assert not push_when_reachable(local, offline).reached
        assert len(queued(local)) == 5  # nothing lost
        result = push_when_reachable(local, team_config)
        assert result.edits_sent == 5
        assert queued(local) == []
        with SessionStore(team=team_config) as team:
            there = team_id(team, local, ssd)
            assert team.tags(there) == ["raid10"]
            assert team.note(there) == "second words"
            assert team.run_array(there) == local.run_array(ssd)
            found = team.storage_description(there)
            assert found is not None
            assert found["text"] == "4 x S650DC 800GB, RAID 10"
            history = team.note_history(there)
            assert [(v.text, v.unseen) for v in history] == [("first words", False)]
            assert push(local, team).edits_sent == 0  # sent once


def test_a_pull_brings_a_colleagues_edits_and_prices(
    team_config: TeamStoreConfig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(AUTHOR_ENV, "grace")
    with SessionStore(tmp_path / "grace.sqlite3") as grace, SessionStore(team=team_config) as team:
        hdd, ssd = build_seed000(grace)
        grace.set_note(ssd, "grace's note")
        first = push(grace, team)
        assert first.prices == len(grace.device_prices())  # the seed's price list went along
        monkeypatch.setenv(AUTHOR_ENV, "alan")
        with SessionStore(tmp_path / "alan.sqlite3") as alan:
            pulled = pull(team, alan)
            assert len(pulled.copied) == 2
            assert alan.device_prices() == grace.device_prices()
            alan_ssd = pulled.copied[first.copied[ssd]]
            # Alan, working on his copy: an edit sent at his next push, never copied twice.
            alan.add_tags(alan_ssd, ["alan was here"])
            alan.set_note(alan_ssd, "alan's note", seen="grace's note")
            alan.add_power_price(PowerPrice(0.31, "EUR", "2026-02-01", "utility bill"))
            assert push(alan, team).edits_sent == 2
        monkeypatch.setenv(AUTHOR_ENV, "grace")
        result = pull(team, grace)
        assert result.copied == {}
        assert result.refreshed == [ssd]  # her pushed session, as Alan left it
        assert grace.tags(ssd) == ["alan was here"]
        assert grace.note(ssd) == "alan's note"
        assert [(v.text, v.author, v.replaced_by) for v in grace.note_history(ssd)] == [
            ("grace's note", "grace", "alan")
        ]
        assert grace.power_price() == PowerPrice(0.31, "EUR", "2026-02-01", "utility bill")
        again = pull(team, grace)
        assert (again.refreshed, again.prices) == ([], 0)  # up to date: nothing rewritten
        assert len(grace.device_prices()) == len(team.device_prices())  # no doubles
        assert hdd in first.copied


def test_the_team_store_keeps_its_own_edits_unqueued(
    team_config: TeamStoreConfig, tmp_path: Path
) -> None:
    """Edits made in the team store itself are written there at once: nothing to queue."""
    with SessionStore(tmp_path / "a.sqlite3") as local, SessionStore(team=team_config) as team:
        ssd = build_seed000(local, prices=False)[1]
        there = push(local, team).copied[ssd]
        team.add_tags(there, ["direct"])
        team.set_note(there, "written in the team store")
        with psycopg.connect(team_config.conninfo()) as conn:
            assert conn.execute("SELECT COUNT(*) FROM run_edits").fetchone() == (0,)
        assert sync(local, team).refreshed == [ssd]
        assert local.tags(ssd) == ["direct"]
        assert local.note(ssd) == "written in the team store"


def test_two_people_edit_one_session_at_once(
    team_config: TeamStoreConfig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Grace and Alan both have the session (one pushed it, one pulled it) and both start
    from its tags and note. Offline, each adds a different tag, removes one and rewrites the
    note; then both push at the same moment (two threads, two connections to the team
    store). Both added tags are there, both removals done; the note is one writer's, and the
    other's text is in the note history, marked as replaced unseen: nothing is lost."""
    with SessionStore(tmp_path / "grace.sqlite3") as grace, SessionStore(team=team_config) as team:
        ssd = build_seed000(grace, prices=False)[1]
        grace.set_tags(ssd, ["ssd", "old-a", "old-b", "keep"])
        grace.set_note(ssd, "the first note")
        there = push(grace, team).copied[ssd]
        with SessionStore(tmp_path / "alan.sqlite3") as alan:
            alan_ssd = pull(team, alan).copied[there]
    edits = {
        "grace": (tmp_path / "grace.sqlite3", ssd, ["ssd", "keep", "old-b", "grace-tag"]),
        "alan": (tmp_path / "alan.sqlite3", alan_ssd, ["ssd", "keep", "old-a", "alan-tag"]),
    }
    seen_tags = ["ssd", "old-a", "old-b", "keep"]
    for who, (path, run_id, tags) in edits.items():
        monkeypatch.setenv(AUTHOR_ENV, who)
        with SessionStore(path) as local:
            local.set_tags(run_id, tags, seen=seen_tags)
            local.set_note(run_id, f"{who}'s rewrite", seen="the first note")
    stores = {who: SessionStore(path) for who, (path, _r, _t) in edits.items()}
    teams = {who: SessionStore(team=team_config) for who in edits}
    _results, failures = at_once(lambda who: push(stores[who], teams[who]), list(edits))
    try:
        assert failures == []
        team = teams["grace"]
        assert team.tags(there) == ["alan-tag", "grace-tag", "keep", "ssd"]
        note = team.note(there)
        assert note in ("grace's rewrite", "alan's rewrite")
        other = "alan's rewrite" if note == "grace's rewrite" else "grace's rewrite"
        history = [(v.text, v.unseen) for v in team.note_history(there)]
        assert history == [("the first note", False), (other, True)]
        # Both desktops, synced, show the same.
        for who, (_path, run_id, _tags) in edits.items():
            sync(stores[who], teams[who])
            assert stores[who].tags(run_id) == team.tags(there)
            assert stores[who].note(run_id) == note
            assert [(v.text, v.unseen) for v in stores[who].note_history(run_id)] == history
    finally:
        for store in (*stores.values(), *teams.values()):
            store.close()


def test_a_local_session_never_pushed_queues_nothing(tmp_path: Path) -> None:
    with SessionStore(tmp_path / "a.sqlite3") as local:
        ssd = build_seed000(local, prices=False)[1]
        local.add_tags(ssd, ["x"])
        local.set_note(ssd, "y")
        local.add_device_price(DevicePrice("disk", 10.0, "USD"))
        assert queued(local) == []
    conn = sqlite3.connect(tmp_path / "a.sqlite3")
    try:
        assert conn.execute("SELECT COUNT(*) FROM run_note_history").fetchone() == (0,)
    finally:
        conn.close()


def test_a_deleted_price_is_deleted_everywhere_and_never_comes_back(
    team_config: TeamStoreConfig, tmp_path: Path
) -> None:
    wrong = DevicePrice("S650DC 800GB", 9999.0, "USD", "2026-01-01", "typo")
    with (
        SessionStore(tmp_path / "grace.sqlite3") as grace,
        SessionStore(tmp_path / "alan.sqlite3") as alan,
        SessionStore(team=team_config) as team,
    ):
        build_seed000(grace)
        grace.add_device_price(wrong)
        push(grace, team)
        pull(team, alan)
        assert wrong in alan.device_prices()
        # Grace deletes it; Alan, not pulled since, still has it and pushes.
        entry = next(e for e in grace.device_price_entries() if e.price == wrong)
        grace.delete_device_price(entry.id)
        push(grace, team)
        assert wrong not in team.device_prices()
        assert push(alan, team).prices == 0  # not brought back by Alan's copy
        assert wrong not in team.device_prices()
        pull(team, alan)
        assert wrong not in alan.device_prices()
        assert alan.device_prices() == grace.device_prices() == team.device_prices()
        # Entered again later, on purpose: a new entry, and it travels.
        alan.add_device_price(wrong)
        assert push(alan, team).prices == 1
        assert pull(team, grace).prices == 1
        assert wrong in grace.device_prices()
