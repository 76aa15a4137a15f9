"""The team store on the command line, against a real team database on the private PostgreSQL:
``sessions push`` (twice: one copy), ``sessions pull`` with filters, ``--store`` on ``sessions
list`` and ``compare``, ``store password``, and what a bad URL or an unreachable store says."""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from bench_gui.cli.main import main
from bench_gui.store import SessionStore
from bench_gui.store.recorder import AUTHOR_ENV
from bench_gui.store.team_store import TeamStoreConfig
from tests._fixtures.isolation import MemoryKeyring
from tests._fixtures.pg import PgServer
from tests._fixtures.seed_sessions import build_seed000, build_seed003
from tests._fixtures.ssh import free_port

pytestmark = pytest.mark.usefixtures("qapp")  # compare draws its charts through Qt


@pytest.fixture
def team_url(pg_server: PgServer) -> Iterator[str]:
    """The URL of a team store of this test's own (a fresh database on the private server,
    reached on its socket, which it trusts: no password)."""
    database = f"team_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_server.uri(), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
    try:
        yield f"postgresql://postgres@/{database}?host={pg_server.socket_dir}"
    finally:
        pg_server.drop(database)


def team_uuids(url: str) -> list[str]:
    with psycopg.connect(TeamStoreConfig(url).conninfo()) as conn:
        return [r[0] for r in conn.execute("SELECT uuid FROM runs ORDER BY uuid")]


def file_of(
    path: Path, author: str, monkeypatch: pytest.MonkeyPatch, seed: str = "000"
) -> list[int]:
    """A local session file with a seed's sessions, recorded by ``author``."""
    monkeypatch.setenv(AUTHOR_ENV, author)
    with SessionStore(path) as store:
        ids = build_seed000(store) if seed == "000" else build_seed003(store)
    return list(ids)


def test_push_twice_gives_one_copy_and_says_what_it_did(
    team_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    db = tmp_path / "laptop.sqlite3"
    hdd, ssd = file_of(db, "grace", monkeypatch)
    with SessionStore(db) as local:
        running = local.create_run("still going", {}, "", {}, "postgresql")
    assert main(["--db", str(db), "sessions", "push", "--store", team_url]) == 0
    out = capsys.readouterr().out
    assert f"pushed #{hdd} HDD RAID 10 (16 x 15K SAS)" in out
    assert f"pushed #{ssd} S650DC RAID 10" in out
    assert f"skipped #{running} still going: still running" in out
    assert "2 sessions pushed to postgresql://postgres@" in out
    first = team_uuids(team_url)
    assert len(first) == 2
    # Again, the store given globally this time: nothing is sent twice.
    assert main(["--db", str(db), "--store", team_url, "sessions", "push"]) == 0
    out = capsys.readouterr().out
    assert "pushed #" not in out
    assert "0 sessions pushed" in out
    assert team_uuids(team_url) == first
    # The local file kept everything.
    with SessionStore(db) as local:
        assert {r.id for r in local.list_runs(None)} == {hdd, ssd, running}


def test_pull_by_author_tag_and_system(
    team_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    grace, alan, ada = (tmp_path / f"{n}.sqlite3" for n in ("grace", "alan", "ada"))
    _hdd, ssd = file_of(grace, "grace", monkeypatch)
    with SessionStore(grace) as store:
        store.add_tags(ssd, ["flash"])
    file_of(alan, "alan", monkeypatch, seed="003")
    for db in (grace, alan):
        assert main(["--db", str(db), "--store", team_url, "sessions", "push"]) == 0
    capsys.readouterr()
    monkeypatch.setenv(AUTHOR_ENV, "ada")
    pull = ["--db", str(ada), "--store", team_url, "sessions", "pull"]
    assert main([*pull, "--author", "grace", "--tag", "FLASH"]) == 0
    out = capsys.readouterr().out
    assert "pulled #" in out
    assert "S650DC RAID 10" in out
    assert "by grace" in out
    assert "1 session pulled" in out
    with SessionStore(ada) as store:
        assert [(r.author, r.name) for r in store.list_runs()] == [
            ("grace", "S650DC RAID 10 (4 x 800GB SAS SSD)")
        ]
    assert main([*pull, "--author", "grace"]) == 0
    out = capsys.readouterr().out
    assert "1 session pulled" in out
    assert "1 already there" in out
    assert "this file has it already" in out
    assert main([*pull, "--system", "nowhere"]) == 0
    assert "0 sessions pulled" in capsys.readouterr().out
    assert main([*pull, "--author", "alan"]) == 0
    assert "2 sessions pulled" in capsys.readouterr().out
    with SessionStore(ada) as store:
        assert sorted(r.author for r in store.list_runs()) == ["alan", "alan", "grace", "grace"]
    # What was pulled is never pushed back: the team store still has each session once.
    assert main(["--db", str(ada), "--store", team_url, "sessions", "push"]) == 0
    assert "0 sessions pushed" in capsys.readouterr().out
    assert len(team_uuids(team_url)) == 4


def test_list_and_compare_work_on_the_team_store(
    team_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    file_of(tmp_path / "grace.sqlite3", "grace", monkeypatch)
    file_of(tmp_path / "alan.sqlite3", "alan", monkeypatch, seed="003")
    for name in ("grace", "alan"):
        db = tmp_path / f"{name}.sqlite3"
        assert main(["--db", str(db), "--store", team_url, "sessions", "push"]) == 0
    capsys.readouterr()
    team = ["--store", team_url]
    assert main([*team, "sessions", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert sorted(r["author"] for r in listed) == ["alan", "alan", "grace", "grace"]
    assert main([*team, "sessions", "list", "--author", "GRACE"]) == 0
    captured = capsys.readouterr()
    assert "sessions of postgresql://postgres@" in captured.err
    lines = captured.out.splitlines()
    assert "author" in lines[0]
    assert len(lines) == 3
    assert all(" grace " in line for line in lines[1:])
    hostname = listed[0]["host"]
    assert main([*team, "sessions", "list", "--host", hostname, "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 4
    assert main([*team, "sessions", "list", "--host", "elsewhere", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    # A comparison of a colleague's sessions, read from the team store.
    ids = [str(r["id"]) for r in listed if r["author"] == "grace"]
    assert main([*team, "compare", *ids, "--json"]) == 0
    compared = json.loads(capsys.readouterr().out)
    assert json.dumps(compared).count("S650DC RAID 10") >= 1
    # The local default file was never written: --store is where the command worked.
    assert not any(Path(str(tmp_path / "data")).glob("*.sqlite3"))


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--store", "mysql://bench@db1/team"], "a team store is a PostgreSQL URL"),
        (["--store", "postgresql://bench:s3cret@db1/team"], "holds a password"),
        (["--store", "postgresql://bench@db1/team", "--store-sslmode", "sure"], "sslmode must be"),
        (["--store-sslmode", "require"], "need --store URL"),
        (
            ["--store", "postgresql://bench@db1/team", "--store-sslrootcert", "/nonexistent.crt"],
            "no such file: /nonexistent.crt",
        ),
    ],
)
def test_a_bad_store_setting_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    db = tmp_path / "local.sqlite3"
    assert main(["--db", str(db), *args, "sessions", "list"]) == 2
    err = capsys.readouterr().err
    assert said in err
    assert err.count("\n") == 1
    assert err.startswith("bench-gui: ")
    assert "s3cret" not in err


def test_an_unreachable_store_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "laptop.sqlite3"
    ids = file_of(db, "grace", monkeypatch)
    offline = f"postgresql://postgres@127.0.0.1:{free_port()}/team"
    for command in (["sessions", "push"], ["sessions", "list"], ["sessions", "pull"]):
        assert main(["--db", str(db), "--store", offline, *command]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err
        assert err.startswith("bench-gui: session store postgresql://postgres@127.0.0.1:")
        assert "cannot open it" in err
    with SessionStore(db) as local:
        assert sorted(r.id for r in local.list_runs()) == sorted(ids)
    assert main(["--db", str(db), "sessions", "push"]) == 2  # no store named at all
    assert "which team store?" in capsys.readouterr().err


def test_the_store_password_goes_to_the_keyring(
    team_url: str,
    isolated: MemoryKeyring,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = TeamStoreConfig(team_url)
    entry = ("bench-gui", f"store:{config.key}")
    # No terminal and no --stdin: refused, nothing read or stored.
    monkeypatch.setattr("sys.stdin", io.StringIO("typed\n"))
    assert main(["store", "password", team_url]) == 2
    assert "no terminal" in capsys.readouterr().err
    assert entry not in isolated.entries
    assert main(["store", "password", team_url, "--stdin"]) == 0
    out = capsys.readouterr().out
    assert "saved in the OS keyring" in out
    assert "typed" not in out
    assert isolated.entries[entry] == "typed"
    # The commands log in with it.
    with SessionStore(team=TeamStoreConfig(team_url)) as team:
        assert team._conn().raw.info.password == "typed"  # type: ignore[attr-defined]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n"))
    assert main(["store", "password", team_url, "--stdin"]) == 1
    assert "empty password" in capsys.readouterr().err
    assert main(["store", "password", team_url, "--forget"]) == 0
    assert "forgotten" in capsys.readouterr().out
    assert entry not in isolated.entries
    assert main(["store", "password", "postgresql://u:pw@h/db", "--stdin"]) == 2
    assert "holds a password" in capsys.readouterr().err


def test_a_check_records_its_session_in_the_team_store(
    team_url: str,
    pg_server: PgServer,
    tpcc_db: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--store`` on a command that runs the agent: the session is written to the team
    store as it goes, with its author; the local file is not touched."""
    plan = tmp_path / "plan.toml"
    plan.write_text(pg_server.plan_text(tpcc_db("team_check")))
    monkeypatch.setenv(AUTHOR_ENV, "grace")
    db = tmp_path / "laptop.sqlite3"
    assert main(["--db", str(db), "--store", team_url, "check", str(plan), "--json"]) == 0
    session = json.loads(capsys.readouterr().out.splitlines()[-1])["session"]
    with SessionStore(team=TeamStoreConfig(team_url)) as team:
        run = team.get_run(session)
        assert (run.kind, run.status, run.author) == ("check", "complete", "grace")
    assert not db.exists()


def test_tag_and_note_of_a_pushed_session_reach_the_team_store(
    team_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``sessions tag``/``note`` on the local file queue the edit of a pushed session (and say
    so); the next push sends it; a colleague's edit comes back with a pull."""
    db = tmp_path / "laptop.sqlite3"
    _hdd, ssd = file_of(db, "grace", monkeypatch)
    assert main(["--db", str(db), "sessions", "tag", str(ssd), "before"]) == 0
    assert "waits" not in capsys.readouterr().out  # not pushed yet: nothing to wait for
    assert main(["--db", str(db), "sessions", "push", "--store", team_url]) == 0
    capsys.readouterr()
    assert main(["--db", str(db), "sessions", "tag", str(ssd), "after"]) == 0
    out = capsys.readouterr().out
    assert "the edit waits for the team store postgresql://postgres@" in out
    assert main(["--db", str(db), "sessions", "note", str(ssd), "written", "offline"]) == 0
    assert main(["--db", str(db), "sessions", "push", "--store", team_url]) == 0
    assert "2 edits of sessions already there sent" in capsys.readouterr().out
    with SessionStore(team=TeamStoreConfig(team_url)) as team:
        there = next(r.id for r in team.list_runs() if r.name.startswith("S650DC"))
        assert team.tags(there) == ["after", "before"]
        assert team.note(there) == "written offline"
    # A colleague edits it in the team store; the pull brings it here.
    monkeypatch.setenv(AUTHOR_ENV, "alan")
    assert main(["--store", team_url, "sessions", "tag", str(there), "--remove", "before"]) == 0
    assert main(["--store", team_url, "sessions", "note", str(there), "alan's words"]) == 0
    assert "waits" not in capsys.readouterr().out  # made in the team store itself
    assert main(["--db", str(db), "sessions", "pull", "--store", team_url]) == 0
    assert f"1 session here updated with their edits: #{ssd}" in capsys.readouterr().out
    with SessionStore(db) as local:
        assert local.tags(ssd) == ["after"]
        assert local.note(ssd) == "alan's words"
        assert [(v.text, v.replaced_by) for v in local.note_history(ssd)] == [
            ("written offline", "alan")
        ]
