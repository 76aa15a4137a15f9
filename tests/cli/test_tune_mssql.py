"""``bench-gui tune`` on a SQL Server plan: diff, apply, history and rollback with profile
``mssql-seed-003``.

No SQL Server exists here. The first test runs the real path and checks its one-line error
(this machine has no SQL Server ODBC driver); the others replace only how the tuner connects
(:meth:`MssqlTuningTarget.tuner`, the test seam) with the scripted server of
tests/remote/mssql_scripted.py, so the command line, the service and the history are the
real ones and every statement sent is parsed as T-SQL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench_gui.cli.main import main
from bench_gui.engines.mssql.tuner import MssqlTuner, MssqlTuningTarget
from tests.engines.mssql.scripted import PLAN, ScriptedServer


@pytest.fixture
def plan(tmp_path: Path) -> Path:
    path = tmp_path / "plan.toml"
    path.write_text(PLAN)
    return path


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> ScriptedServer:
    scripted = ScriptedServer()

    def tuner(self: MssqlTuningTarget) -> MssqlTuner:
        return MssqlTuner(self.conninfo, self.database, connect=scripted.connect)

    monkeypatch.setattr(MssqlTuningTarget, "tuner", tuner)
    return scripted


def test_without_a_driver_the_command_says_so(
    plan: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tune", "diff", str(plan), "mssql-seed-003"]) == 1
    err = capsys.readouterr().err
    assert "no SQL Server ODBC driver is installed" in err
    assert main(["tune", "diff", str(plan), "mssql-seed-003", "--ssh", "box"]) == 1
    assert "--ssh: not for a SQL Server target" in capsys.readouterr().err


def test_tune_round_trip(
    plan: Path, server: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    before = server.state()
    assert main(["tune", "diff", str(plan), "mssql-seed-003", "--ram", "64GiB"]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first.startswith("# sa@sqlbox:1433/tpcc: seed 003")
    assert "(SQL Server 14.0.3456.2)" in first
    rows = {line.split("  ")[0].strip(): line for line in out.splitlines()[2:] if "  " in line}
    assert rows["max degree of parallelism"].split()[4:7] == ["0", "1", "at"]
    assert "seed 003: Maximum Degree of Parallelism 1" in rows["max degree of parallelism"]
    assert "58983" in rows["max server memory (MB)"]  # 65536 - 6553 (10%)
    assert "FULL" in rows["recovery model"]
    assert "SIMPLE" in rows["recovery model"]
    assert "not been verified against a live server" in out
    assert server.changes() == []

    assert main(["tune", "diff", str(plan), "innodb"]) == 2
    assert "use mssql-seed-003" in capsys.readouterr().err

    argv = ["tune", "apply", str(plan), "mssql-seed-003", "--only",
            "max degree of parallelism,recovery model", "--json"]  # fmt: skip
    assert main(argv) == 0
    applied = json.loads(capsys.readouterr().out)
    assert applied["ok"]
    assert applied["history_id"]
    assert applied["changed"] == ["max degree of parallelism", "recovery model"]
    assert server.options["max degree of parallelism"].in_use == 1
    assert (server.recovery, server.target_s) == ("SIMPLE", 0)

    assert main(["tune", "history", str(plan), "--json"]) == 0
    history = json.loads(capsys.readouterr().out)
    assert [(e["kind"], e["action"]) for e in history] == [("mssql", "apply")]
    assert history[0]["target_key"] == "mssql://sa@sqlbox:1433/tpcc"
    assert history[0]["changes"]["recovery model"]["to"] == "SIMPLE"
    assert main(["tune", "history"]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert line.split()[2] == "mssql"
    assert "Applied mssql-seed-003" in line

    assert main(["tune", "rollback", str(plan)]) == 0
    out = capsys.readouterr().out
    assert f"rolled back #{applied['history_id']}" in out
    assert server.state() == before
    assert main(["tune", "rollback", str(plan)]) == 1
    assert "nothing to roll back" in capsys.readouterr().err
    server.check_sent()


def test_a_missing_permission_fails_with_its_name(
    plan: Path, server: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.login_tokens = [("bench", "SQL LOGIN")]
    server.user_tokens = [("bench", "SQL USER")]
    assert main(["tune", "apply", str(plan), "mssql-seed-003"]) == 1
    err = capsys.readouterr().err
    assert "login bench lacks the ALTER SETTINGS server permission" in err
    assert "ALTER permission on database tpcc" in err
    assert server.changes() == []
    assert main(["tune", "history", "--json"]) == 0
    [entry] = json.loads(capsys.readouterr().out)
    assert (entry["kind"], entry["result"]["ok"]) == ("mssql", False)


def test_the_preset_is_listed_and_shown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tune", "presets"]) == 0
    listed = [line for line in capsys.readouterr().out.splitlines() if "mssql" in line]
    assert listed == [
        "mssql-seed-003           built-in seed 003 (SQL Server 2017 on Linux, Micron 9300)"
        " (SQL Server)"
    ]
    assert main(["tune", "presets", "mssql-seed-003"]) == 0
    out = capsys.readouterr().out
    assert "max degree of parallelism = 1  # seed 003" in out
    assert "recovery model = SIMPLE" in out
    assert "target recovery time = 60" in out
    assert "# note: Cost threshold for parallelism: left as it is" in out
    assert "# note: Trace flags: none" in out
    assert main(["tune", "presets", "--json"]) == 0
    [preset] = json.loads(capsys.readouterr().out)["mssql"]
    assert preset["name"] == "mssql-seed-003"
    assert {s["name"]: s["value"] for s in preset["settings"]} == {
        "max degree of parallelism": "1",
        "recovery model": "SIMPLE",
        "target recovery time": "60",
        "database maxdop": "0",  # the database follows the server's MAXDOP (issue 26)
    }
