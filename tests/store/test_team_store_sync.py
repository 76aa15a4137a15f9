"""Sessions between local files and a team store on a private PostgreSQL: push (twice, offline
first, from two desktops at once), pull with filters, and two processes editing at once."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import psycopg
import pytest

from bench_gui.store import SessionStore
from bench_gui.store.exchange import export_session, import_session
from bench_gui.store.recorder import AUTHOR_ENV
from bench_gui.store.team_store import TeamStoreConfig
from bench_gui.store.team_sync import pull, push, push_when_reachable, unpushed
from tests._fixtures.seed_sessions import build_seed000, build_seed003
from tests._fixtures.ssh import free_port
from tests.store.at_once import at_once

REPO = Path(__file__).resolve().parents[2]


def team_uuids(config: TeamStoreConfig) -> list[str]:
    """Every session UUID in the team store, straight from PostgreSQL (duplicates kept)."""
    with psycopg.connect(config.conninfo()) as conn:
        return [r[0] for r in conn.execute("SELECT uuid FROM runs ORDER BY uuid")]


def team_counts(config: TeamStoreConfig) -> dict[str, int]:
    with psycopg.connect(config.conninfo()) as conn:
        return {
            table: conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]  # type: ignore[index]
            for table in ("runs", "steps", "events", "run_log", "run_tags", "samples")
        }


def local_uuids(store: SessionStore) -> list[str]:
    return sorted(r.uuid for r in store.list_runs(None))


def test_push_twice_gives_one_copy(team_config: TeamStoreConfig, tmp_path: Path) -> None:
    with SessionStore(tmp_path / "a.sqlite3") as local, SessionStore(team=team_config) as team:
        hdd, ssd = build_seed000(local)
        base, _scaled = build_seed003(local)
        local.add_tags(ssd, ["ssd", "seed 000"])
        local.set_note(ssd, "pushed with its note")
        first = push(local, team)
        assert sorted(first.copied) == sorted(r.id for r in local.list_runs())
        counts = team_counts(team_config)
        second = push(local, team)
        assert (second.copied, second.already) == ({}, [])  # all marked pushed: none sent
        assert team_counts(team_config) == counts
        assert team_uuids(team_config) == local_uuids(local)
        # What arrived is the session: figures, tags, note, who recorded it.
        there = first.copied[ssd]
        assert team.steps(there) == local.steps(ssd)
        assert team.samples(first.copied[base]) == local.samples(base)
        assert team.tags(there) == ["seed 000", "ssd"]
        assert team.note(there) == "pushed with its note"
        assert team.get_run(there).author == local.get_run(ssd).author != ""
        assert unpushed(local, team_config.key) == []
        # Even without the marks (a restored file), a second push duplicates nothing.
        with local.transaction() as conn:
            conn.execute("DELETE FROM run_pushes")
        again = push(local, team)
        assert again.copied == {}
        assert sorted(again.already) == sorted(first.copied)
        assert team_counts(team_config) == counts
        assert hdd in first.copied


def test_offline_then_push(team_config: TeamStoreConfig, tmp_path: Path) -> None:
    offline = TeamStoreConfig(f"postgresql://postgres@127.0.0.1:{free_port()}/team")
    with SessionStore(tmp_path / "laptop.sqlite3") as local:
        hdd, ssd = build_seed000(local)
        result = push_when_reachable(local, offline)
        assert not result.reached
        assert "cannot be reached" in result.unreachable
        assert unpushed(local, offline.key) == [hdd, ssd]
        # A run still going on waits for its end.
        running = local.create_run("still running", {}, "", {}, "postgresql")
    with SessionStore(tmp_path / "laptop.sqlite3") as local:
        result = push_when_reachable(local, team_config)
        assert result.reached
        assert sorted(result.copied) == [hdd, ssd]
        assert unpushed(local, team_config.key) == []
        local.finish_run(running, "complete")
        assert unpushed(local, team_config.key) == [running]
        assert sorted(push_when_reachable(local, team_config).copied) == [running]
        assert team_uuids(team_config) == local_uuids(local)


def test_pull_with_filters_for_offline_comparison(
    team_config: TeamStoreConfig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(AUTHOR_ENV, "grace")
    with SessionStore(tmp_path / "grace.sqlite3") as grace, SessionStore(team=team_config) as team:
        ssd = build_seed000(grace)[1]
        grace.add_tags(ssd, ["flash"])
        push(grace, team)
    monkeypatch.setenv(AUTHOR_ENV, "alan")
    with SessionStore(tmp_path / "alan.sqlite3") as alan, SessionStore(team=team_config) as team:
        scaled = build_seed003(alan)[1]
        alan.add_tags(scaled, ["Flash"])
        push(alan, team)
        with SessionStore(tmp_path / "ada.sqlite3") as ada:
            flash = pull(team, ada, tag="FLASH")
            assert len(flash.copied) == 2
            assert {r.author for r in ada.list_runs()} == {"grace", "alan"}
            graces = pull(team, ada, author="grace")
            assert len(graces.copied) == 1
            assert len(graces.already) == 1  # ssd came with "flash"
            assert pull(team, ada, author="grace").copied == {}  # pulling again: nothing new
            assert {r.name for r in ada.filter_runs(author="grace")} == {
                "HDD RAID 10 (16 x 15K SAS)",
                "S650DC RAID 10 (4 x 800GB SAS SSD)",
            }
            assert pull(team, ada, system="nowhere").copied == {}
            # Pulled sessions are complete enough to compare offline, and never pushed back.
            pulled_ssd = next(r.id for r in ada.filter_runs(author="grace", tag="flash"))
            assert ada.steps(pulled_ssd) == grace_steps(tmp_path, ssd)
            assert unpushed(ada, team_config.key) == []
        assert len(team_uuids(team_config)) == 4


def grace_steps(tmp_path: Path, run_id: int) -> object:
    with SessionStore(tmp_path / "grace.sqlite3") as grace:
        return grace.steps(run_id)


def test_two_desktops_push_the_same_sessions_at_once(
    team_config: TeamStoreConfig, tmp_path: Path
) -> None:
    """Desktop B has a copy of A's file (the same sessions, the same UUIDs) plus its own, and
    a session imported from A's export; both push at the same moment: one copy of each."""
    with SessionStore(tmp_path / "a.sqlite3") as a:
        build_seed000(a)
        build_seed003(a)
        exported = export_session(a, a.list_runs()[0].id, tmp_path / "one.bgsession.json")
    shutil.copy(tmp_path / "a.sqlite3", tmp_path / "b.sqlite3")
    with SessionStore(tmp_path / "b.sqlite3") as b:
        build_seed003(b)  # B's own two sessions
    with SessionStore(tmp_path / "c.sqlite3") as c:
        import_session(c, exported)  # the same session as A's, from a file
    stores = [SessionStore(tmp_path / f"{n}.sqlite3") for n in "abc"]
    team = SessionStore(team=team_config)
    results, failures = at_once(lambda local: push(local, team), stores)
    try:
        assert failures == []
        everyone = set()
        for store in stores:
            everyone |= set(local_uuids(store))
            assert unpushed(store, team_config.key) == []
        assert len(everyone) == 6  # A's four, B's own two; C's import is one of A's
        assert team_uuids(team_config) == sorted(everyone)  # each once
        copied = sum(len(r.copied) for r in results)
        already = sum(len(r.already) for r in results)
        assert (copied, already) == (6, 4 + 6 + 1 - 6)  # 11 sessions on the desktops
    finally:
        team.close()
        for store in stores:
            store.close()


WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from bench_gui.store import SessionStore
    from bench_gui.store.team_store import TeamStoreConfig
    from bench_gui.store.team_sync import push

    url, who, local_path, go, rounds = sys.argv[1:6]
    while not Path(go).exists():
        time.sleep(0.005)
    with SessionStore(Path(local_path)) as local, SessionStore(team=TeamStoreConfig(url)) as team:
        pushed = push(local, team)
        shared = team.filter_runs(tag="shared")
        for i in range(int(rounds)):
            for run in shared:
                team.add_tags(run.id, [f"{who}-{i}", "both"])
                if i % 3 == 2:
                    team.remove_tags(run.id, [f"{who}-{i - 1}"])
                team.set_note(run.id, f"{who} {i}")
                # A read-modify-write of one record: lost updates would show here.
                team.update_inventory(run.id, {f"{who}-{i}": i})
        print(len(pushed.copied), len(pushed.already))
    """
)


def test_two_processes_push_and_edit_tags_and_notes_at_once(
    team_config: TeamStoreConfig, tmp_path: Path, data_dir: Path
) -> None:
    """Two desktops (two processes) push overlapping sessions and then edit the tags and notes
    of the same team sessions as fast as they can: every tag either added ends up there once
    (those removed are gone), the note is one writer's last and every other text either wrote
    is in its history, no update of the inventory (read, changed, written back) is lost,
    nothing is duplicated."""
    with SessionStore(tmp_path / "a.sqlite3") as a, SessionStore(team=team_config) as team:
        ssd = build_seed000(a)[1]
        a.add_tags(ssd, ["shared"])
        ssd_uuid = a.get_run(ssd).uuid
        push(a, team)
    shutil.copy(tmp_path / "a.sqlite3", tmp_path / "b.sqlite3")
    for name in ("a", "b"):
        with SessionStore(tmp_path / f"{name}.sqlite3") as local:
            build_seed003(local)  # each desktop's own sessions, pushed in the race
    go = tmp_path / "go"
    rounds = 12
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                WRITER,
                team_config.url,
                who,
                str(tmp_path / f"{who}.sqlite3"),
                str(go),
                str(rounds),
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for who in ("a", "b")
    ]
    go.touch()
    outputs = [p.communicate(timeout=300) for p in procs]
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
        assert out.split() == ["2", "0"]  # each pushed its own two; A's first two were there
    with SessionStore(team=team_config) as team:
        runs = team.list_runs()
        assert len(runs) == 6
        assert len({r.uuid for r in runs}) == 6
        shared = team.filter_runs(tag="shared")
        assert len(shared) == 1
        tags = team.tags(shared[0].id)
        removed = {f"{who}-{i - 1}" for who in "ab" for i in range(rounds) if i % 3 == 2}
        added = {f"{who}-{i}" for who in "ab" for i in range(rounds)}
        assert sorted(tags, key=str.lower) == sorted(
            (added - removed) | {"both", "shared"}, key=str.lower
        )
        note = team.note(shared[0].id)
        assert note in (f"a {rounds - 1}", f"b {rounds - 1}")
        # Every note either wrote is the note or in its history, once: none lost.
        history = [v.text for v in team.note_history(shared[0].id)]
        written = {f"{who} {i}" for who in "ab" for i in range(rounds)}
        assert sorted([*history, note]) == sorted(written)
        inventory = team.get_run(shared[0].id).inventory or {}
        assert added <= set(inventory)  # no writer's update lost
        assert shared[0].uuid == ssd_uuid
