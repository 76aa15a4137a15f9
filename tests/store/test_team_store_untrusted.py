"""A team store anyone can write to: crafted rows (bad JSON, a 20 MB name, NOPM 1e300, -5
users, NaN, -inf, an extra column) neither stop the listing nor the pull of the rest; each
bad session is refused by name with the field that is wrong, as a file import refuses it."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from bench_gui.cli.main import main
from bench_gui.store import SessionStore
from bench_gui.store.team_store import TeamStoreConfig
from bench_gui.store.team_sync import pull, push
from tests._fixtures.seed_sessions import build_seed000

# (what is done to one session's rows in the team store, what its refusal says)
CRAFTED = [
    ("UPDATE runs SET target = '{\"host\": ' WHERE id = %s", "run.target is not valid JSON"),
    (
        "UPDATE steps SET latency = 'not json' WHERE run_id = %s AND step = 0",
        "steps[0].latency_ms is not valid JSON",
    ),
    (
        "UPDATE events SET data = '[[[[' WHERE run_id = %s AND data IS NOT NULL",
        "events[0].data is not valid JSON",
    ),
    (
        "UPDATE runs SET name = repeat('n', 20000000) WHERE id = %s",
        "run.name is a text of 20,000,000",
    ),
    ("UPDATE steps SET nopm = 1e300 WHERE run_id = %s AND step = 0", "steps[0].nopm is 1e+300"),
    (
        "UPDATE steps SET vus = -5 WHERE run_id = %s AND step = 0",
        "steps[0].vus is not a whole number",
    ),
    ("UPDATE steps SET tpm = 'NaN' WHERE run_id = %s AND step = 0", "steps[0].tpm is not finite"),
    (
        "UPDATE steps SET nopm_driver = '-Infinity' WHERE run_id = %s AND step = 0",
        "steps[0].nopm_driver is not finite",
    ),
    (
        "UPDATE runs SET plan_toml = '[target]' || chr(10)"
        " || 'password_env = ''AWS_SECRET_ACCESS_KEY''' WHERE id = %s",
        "run.plan_toml is not a valid plan (target.password_env",
    ),
    ("UPDATE runs SET status = 'bogus' WHERE id = %s", "run.status 'bogus' is unknown"),
    (
        "INSERT INTO run_notes (run_id, text, updated_at) VALUES"
        " (%s, repeat('x', 20000000), '2026-11-27T00:00:00+00:00')",
        "note is a text of 20,000,000",
    ),
    (
        "INSERT INTO run_log (run_id, t, level, message)"
        " VALUES (%s, 0, 'info', repeat('l', 20000000))",
        "].message is a text of 20,000,000",
    ),
]


def test_crafted_rows_are_refused_by_name_and_the_rest_pulled(
    team_config: TeamStoreConfig, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with SessionStore(tmp_path / "grace.sqlite3") as grace, SessionStore(team=team_config) as team:
        for _ in range((len(CRAFTED) + 2) // 2 + 1):
            build_seed000(grace, prices=False)
        pushed = push(grace, team).copied
    team_ids = sorted(pushed.values())
    crafted = dict(zip(team_ids, CRAFTED, strict=False))
    good = team_ids[len(CRAFTED) :]
    assert good
    with psycopg.connect(team_config.conninfo(), autocommit=True) as conn:
        conn.execute("ALTER TABLE runs DROP CONSTRAINT IF EXISTS runs_status_check")
        for run_id, (statement, _reason) in crafted.items():
            conn.execute(statement, (run_id,))
        # A column this bench-gui does not know (a newer one's, or the team's own).
        conn.execute("ALTER TABLE runs ADD COLUMN reviewed_by TEXT DEFAULT 'carol'")
    # The listing shows every session, damaged or not, and long names cut.
    with SessionStore(team=team_config) as team:
        listed = {r.id: r for r in team.list_runs(None)}
        assert sorted(listed) == team_ids
        assert all(len(r.name) <= 201 for r in listed.values())
    db = tmp_path / "ada.sqlite3"
    assert main(["--db", str(db), "--store", team_config.url, "sessions", "list"]) == 0
    capsys.readouterr()
    with SessionStore(team=team_config) as team, SessionStore(db) as ada:
        result = pull(team, ada)
        assert sorted(result.copied) == good
        expected = {i: reason for i, (_s, reason) in crafted.items()}
        assert sorted(result.refused) == sorted(expected)
        for run_id, reason in expected.items():
            assert reason in result.refused[run_id], (run_id, result.refused[run_id])
        pulled = ada.list_runs(None)
        assert len(pulled) == len(good)
        for info in pulled:  # what came is readable whole
            assert ada.run_to_json(info.id)["steps"]
    # The command says which sessions were refused, and why, and fails.
    other = tmp_path / "alan.sqlite3"
    assert main(["--db", str(other), "--store", team_config.url, "sessions", "pull"]) == 1
    out, err = capsys.readouterr()
    assert f"{len(good)} sessions pulled" in out
    assert f"{len(expected)} refused" in out
    first = min(expected)
    assert f"refused #{first} " in err
    assert expected[first] in err


def test_a_damaged_record_is_named_and_can_be_deleted(
    team_config: TeamStoreConfig, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with SessionStore(tmp_path / "grace.sqlite3") as grace, SessionStore(team=team_config) as team:
        build_seed000(grace, prices=False)
        damaged = min(push(grace, team).copied.values())
    with psycopg.connect(team_config.conninfo(), autocommit=True) as conn:
        conn.execute("UPDATE runs SET plan = '{' WHERE id = %s", (damaged,))
        conn.execute(
            "UPDATE steps SET latency = '[' WHERE run_id = %s AND step = 0", (damaged + 1,)
        )
    store = ["--db", str(tmp_path / "x.sqlite3"), "--store", team_config.url]
    capsys.readouterr()
    assert main([*store, "sessions", "show", str(damaged)]) == 1
    err = capsys.readouterr().err
    assert f"read session {damaged}: its plan is not valid JSON" in err
    assert "Traceback" not in err
    assert main([*store, "sessions", "show", str(damaged + 1)]) == 1
    err = capsys.readouterr().err
    assert f"read session {damaged + 1}: its step 0's latency is not valid JSON" in err
    assert "Traceback" not in err
    assert main([*store, "sessions", "delete", str(damaged), "--yes"]) == 0
    with SessionStore(team=team_config) as team:
        assert damaged not in [r.id for r in team.list_runs(None)]
