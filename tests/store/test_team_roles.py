"""The roles a team sets up (``bench-gui store init``): a writer pushes, a reader lists, pulls
and compares and is told that pushing needs the writer role; the store records which role wrote
a session or a note, whatever the row says; notes are decided by the time they were written
and the note history only grows."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from itertools import count
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from bench_gui.cli.main import main
from bench_gui.store import SCHEMA_VERSION, SessionStore, StoreError, sessions, team_edits
from bench_gui.store.recorder import AUTHOR_ENV
from bench_gui.store.team_store import TeamStoreConfig
from bench_gui.store.team_sync import pull, push, sync
from tests._fixtures.seed_sessions import build_seed000


def login(config: TeamStoreConfig, role: str) -> TeamStoreConfig:
    """The same team store, logged in as ``role``."""
    return TeamStoreConfig(config.url.replace("postgresql://postgres@", f"postgresql://{role}@"))


def new_login(config: TeamStoreConfig) -> str:
    name = f"u_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(config.conninfo(), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(name)))
    return name


def test_a_writer_pushes_a_reader_pulls_and_is_told_push_needs_the_writer_role(
    team_config: TeamStoreConfig, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    writer, reader = new_login(team_config), new_login(team_config)
    grace_db, ada_db = tmp_path / "grace.sqlite3", tmp_path / "ada.sqlite3"
    with SessionStore(grace_db) as grace:
        build_seed000(grace, prices=False)
    # Before the roles, a colleague's login is told it lacks a permission, not that the
    # schema does not match.
    with SessionStore(team=team_config):
        pass
    assert (
        main(["--db", str(ada_db), "--store", login(team_config, reader).url, "sessions", "list"])
        == 1
    )
    err = capsys.readouterr().err
    assert "permission denied" in err
    assert "schema does not match" not in err

    args = ["store", "init", team_config.url, "--writer", writer, "--reader", reader]
    assert main(args) == 0
    assert "bench_writer" in capsys.readouterr().out
    assert main([*args, "--print"]) == 0
    assert "CREATE ROLE bench_reader NOLOGIN" in capsys.readouterr().out

    assert (
        main(["--db", str(grace_db), "--store", login(team_config, writer).url, "sessions", "push"])
        == 0
    )
    with psycopg.connect(team_config.conninfo()) as conn:
        assert {r[0] for r in conn.execute("SELECT pushed_by FROM runs")} == {writer}
    capsys.readouterr()

    reading = login(team_config, reader)
    assert main(["--db", str(ada_db), "--store", reading.url, "sessions", "list"]) == 0
    assert main(["--db", str(ada_db), "--store", reading.url, "sessions", "pull"]) == 0
    out = capsys.readouterr().out
    assert "2 sessions pulled" in out
    assert f"(pushed as {writer})" in out
    with SessionStore(ada_db) as ada:
        ids = sorted(r.id for r in ada.list_runs())
        assert {ada.get_run(i).pushed_by for i in ids} == {writer}
        # A local edit of a pulled session waits (the reader cannot send it) ...
        ada.add_tags(ids[0], ["mine"])
    assert main(["--db", str(ada_db), "compare", *map(str, ids)]) == 0
    with SessionStore(team=reading) as team:  # and compared in the team store itself
        there = sorted(r.id for r in team.list_runs())
    assert main(["--db", str(ada_db), "--store", reading.url, "compare", *map(str, there)]) == 0
    # ... and never blocks the next pull, which keeps it.
    assert main(["--db", str(ada_db), "--store", reading.url, "sessions", "pull"]) == 0
    with SessionStore(ada_db) as ada:
        assert "mine" in ada.tags(ids[0])
    capsys.readouterr()
    assert main(["--db", str(ada_db), "--store", reading.url, "sessions", "push"]) == 1
    err = capsys.readouterr().err
    assert "permission denied" in err
    assert "the writer role, bench_writer" in err


def test_the_store_says_who_wrote_a_note_and_keeps_every_version(
    team_config: TeamStoreConfig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(AUTHOR_ENV, "grace")
    # Edits a second apart, whatever the machine's speed: which note is newer is certain.
    ticks = count()
    monkeypatch.setattr(
        team_edits,
        "now",
        lambda: (datetime(2026, 11, 27, tzinfo=UTC) + timedelta(seconds=next(ticks))).isoformat(
            timespec="milliseconds"
        ),
    )
    with SessionStore(tmp_path / "grace.sqlite3") as grace, SessionStore(team=team_config) as team:
        ssd = build_seed000(grace, prices=False)[1]
        grace.set_note(ssd, "first")
        there = push(grace, team).copied[ssd]
        with SessionStore(tmp_path / "alan.sqlite3") as alan:
            mine = pull(team, alan).copied[there]
            # Alan, offline, writes a note; Grace writes one later and pushes first.
            monkeypatch.setenv(AUTHOR_ENV, "alan")
            alan.set_note(mine, "alan's older note")
            monkeypatch.setenv(AUTHOR_ENV, "grace")
            grace.set_note(ssd, "grace's newer note")
            push(grace, team)
            sync(alan, team)  # sends the older note, late
            assert team.note(there) == "grace's newer note"
            assert alan.note(mine) == "grace's newer note"
            for store, run_id in ((team, there), (alan, mine)):
                texts = [v.text for v in store.note_history(run_id)]
                assert "alan's older note" in texts
                assert "first" in texts
            history_here = len(alan.note_history(mine))
            # A crafted change in the team store: its history erased, a note forged under
            # another author's name.
            with psycopg.connect(team_config.conninfo(), autocommit=True) as conn:
                conn.execute("DELETE FROM run_note_history")
                conn.execute(
                    "UPDATE run_notes SET text = 'forged', author = 'grace',"
                    " updated_at = '2999-01-01T00:00:00+00:00', pushed_by = 'grace'"
                )
            pull(team, alan)
            # Nothing of the history here is lost, and the note says which role wrote it.
            assert len(alan.note_history(mine)) >= history_here + 1
            with alan._snapshot() as conn:
                row = conn.execute(
                    "SELECT text, author, pushed_by FROM run_notes WHERE run_id = ?", (mine,)
                ).fetchone()
            assert tuple(row) == ("forged", "grace", "postgres")


def test_an_owner_login_upgrades_the_schema_for_everyone(
    team_config: TeamStoreConfig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first bench-gui's login made the tables; after ``store init`` they are the owner
    role's, so any owner login runs a new bench-gui's migration, and what it adds is readable
    by readers; a writer's login cannot change the schema and is told why."""
    owner, writer, reader = (new_login(team_config) for _ in range(3))
    with SessionStore(team=team_config):
        pass
    args = ["store", "init", team_config.url, "--owner", owner, "--writer", writer]
    assert main([*args, "--reader", reader]) == 0
    extra = ("CREATE TABLE run_extras (run_id INTEGER NOT NULL, note TEXT)",)
    monkeypatch.setattr(sessions, "MIGRATIONS", (*sessions.MIGRATIONS, extra))
    monkeypatch.setattr(sessions, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with pytest.raises(StoreError, match="upgrade it to schema version .*permission denied"):
        SessionStore(team=login(team_config, writer))
    with SessionStore(team=login(team_config, owner)):
        pass
    with psycopg.connect(login(team_config, reader).conninfo()) as conn:
        assert conn.execute("SELECT COUNT(*) FROM run_extras").fetchone() == (0,)
        owners = {
            r[0]
            for r in conn.execute("SELECT tableowner FROM pg_tables WHERE schemaname = 'public'")
        }
    assert owners == {"bench_owner"}
