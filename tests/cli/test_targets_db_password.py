"""``bench-gui target db-password``: a database user's password goes to the OS keyring, under
the server a plan names, and nowhere else."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bench_gui.cli.main import main
from bench_gui.core.plan import load_plan
from bench_gui.remote.secrets import database_password
from tests._fixtures.isolation import MemoryKeyring

PLAN = '[target]\nkind = "postgresql"\nhost = "db1"\nport = 5433\nuser = "bench"\n'


def typed(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))


def test_a_plans_database_password_is_kept_in_the_keyring(
    isolated: MemoryKeyring,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    typed(monkeypatch, "s3cret\n")
    assert main(["target", "db-password", str(plan), "--secrets-stdin"]) == 0
    out = capsys.readouterr().out
    assert "database password of postgresql:bench@db1:5433 saved in the OS keyring" in out
    assert "s3cret" not in out
    assert isolated.entries == {("bench-gui", "postgresql:bench@db1:5433"): "s3cret"}
    # What a run of the plan sends, and says.
    found = database_password(load_plan(plan).target, environ={})
    assert (found.value, found.source) == ("s3cret", "the OS keyring (postgresql:bench@db1:5433)")
    # The same server written out; then forgotten.
    typed(monkeypatch, "n3w\n")
    assert main(["target", "db-password", "bench@db1:5433", "--secrets-stdin"]) == 0
    assert isolated.entries == {("bench-gui", "postgresql:bench@db1:5433"): "n3w"}
    assert main(["target", "db-password", "bench@db1:5433", "--forget"]) == 0
    assert "forgotten" in capsys.readouterr().out
    assert isolated.entries == {}


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        ("db1", "is neither a plan file nor USER@HOST[:PORT]"),
        ("bench@db1:port", "is neither a plan file nor USER@HOST[:PORT]"),
        ("bench@db1:70000", "is neither a plan file nor USER@HOST[:PORT]"),
        ("demo.toml", "uses the embedded demo, which needs no password"),
    ],
)
def test_what_is_not_a_server_is_refused(
    isolated: MemoryKeyring,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    spec: str,
    reason: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("demo.toml").write_text('[target]\nkind = "demo"\n')
    typed(monkeypatch, "x\n")
    assert main(["target", "db-password", spec, "--secrets-stdin"]) == 2
    assert reason in capsys.readouterr().err
    assert isolated.entries == {}


def test_a_plan_naming_another_variable_is_refused_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN + 'password_env = "AWS_SECRET_ACCESS_KEY"\n')
    assert main(["run", str(plan)]) == 2
    err = capsys.readouterr().err
    assert "target.password_env: 'AWS_SECRET_ACCESS_KEY' is not allowed" in err
    assert err.count("\n") == 2  # the heading and one line for the field
