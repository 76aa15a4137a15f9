"""The SQL Server tuner, on recorded statements (no server exists here: see
tests/remote/mssql_scripted.py, the test seam): seed 003's diff, apply and an exact rollback,
'show advanced options' put back, static options left pending a restart, missing permissions
refused with their names, a server's refusal undone; every statement the tuner can send is
parsed by sqlglot's T-SQL dialect."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench_gui.engines.mssql import tuner as mssql_tuner
from bench_gui.engines.mssql.option_names import DATABASE_MAXDOP, RECOVERY_MODEL, TARGET_RECOVERY
from bench_gui.engines.mssql.proposal import load_mssql_preset, seed_003_proposal
from bench_gui.engines.mssql.shared import settings
from bench_gui.engines.mssql.tuner import MssqlSnapshot, MssqlTuner, rights_of
from bench_gui.engines.tuning_terms import PresetError, TunedSetting
from bench_gui.remote.db_tuner import NotEnoughPrivileges, RejectedSettings, TuningError
from tests.engines.mssql.agent.tsql_check import TsqlError, check_statement
from tests.engines.mssql.scripted import ScriptedServer, odbc_error

RAM_MB = 64 * 1024


@pytest.fixture
def server() -> ScriptedServer:
    return ScriptedServer()


def test_diff_of_seed_003_recorded_statements(server: ScriptedServer) -> None:
    proposal = seed_003_proposal(RAM_MB, "14.0")
    rows = {r.name: r for r in server.tuner().diff(proposal)}
    assert list(rows) == [
        "max degree of parallelism",
        "max server memory (MB)",
        RECOVERY_MODEL,
        TARGET_RECOVERY,
        DATABASE_MAXDOP,
    ]
    # The database's own MAXDOP is 0 already: it follows the server's (issue 26).
    scoped = rows.pop(DATABASE_MAXDOP)
    assert (scoped.current, scoped.proposed, scoped.action) == ("0", "0", "same")
    maxdop = rows["max degree of parallelism"]
    assert (maxdop.current, maxdop.proposed, maxdop.action) == ("0", "1", "reload")
    assert "seed 003" in maxdop.rule
    memory = rows["max server memory (MB)"]
    assert memory.proposed == str(RAM_MB - 6553)  # RAM minus 10% (more than 4 GiB)
    assert "derived, not in seed 003" in memory.rule
    assert (rows[RECOVERY_MODEL].current, rows[RECOVERY_MODEL].proposed) == ("FULL", "SIMPLE")
    assert (rows[TARGET_RECOVERY].current, rows[TARGET_RECOVERY].proposed) == ("0", "60")
    assert all(r.action == "reload" for r in rows.values())
    # Nothing but reads was sent, and every read parses as T-SQL.
    assert server.changes() == []
    assert server.check_sent() >= 3
    # Without the RAM the seed's max server memory is left alone, and the notes say why.
    without = seed_003_proposal()
    assert "max server memory (MB)" not in without.values()
    assert any("RAM is unknown" in note for note in without.notes)


def test_apply_then_rollback_restores_exactly(server: ScriptedServer) -> None:
    before = server.state()
    tuner = server.tuner()
    result = tuner.apply(seed_003_proposal(RAM_MB))
    assert result.ok, result.summary()
    assert result.changed == [
        "max degree of parallelism",
        "max server memory (MB)",
        RECOVERY_MODEL,
        TARGET_RECOVERY,
    ]
    assert result.pending_restart == []
    assert result.verified["max degree of parallelism"] == "1"
    assert server.options["max degree of parallelism"].in_use == 1
    assert server.options["max server memory (MB)"].in_use == RAM_MB - 6553
    assert (server.recovery, server.target_s) == ("SIMPLE", 60)
    # 'show advanced options' was turned on for the advanced options and put back after.
    assert server.options["show advanced options"].value == 0
    assert server.changes() == [
        "ALTER DATABASE [tpcc] SET RECOVERY SIMPLE",
        "ALTER DATABASE [tpcc] SET TARGET_RECOVERY_TIME = 60 SECONDS",
        "EXEC sp_configure N'show advanced options', 1",
        "RECONFIGURE",
        "EXEC sp_configure N'max degree of parallelism', 1",
        f"EXEC sp_configure N'max server memory (MB)', {RAM_MB - 6553}",
        "RECONFIGURE",
        "EXEC sp_configure N'show advanced options', 0",
        "RECONFIGURE",
    ]
    assert any("log backup chain" in m for m in result.messages)

    assert result.snapshot is not None
    stored = result.snapshot.to_dict()  # what the history keeps, as JSON
    assert stored["engine"] == "mssql"
    snapshot = MssqlSnapshot.from_dict(stored)
    assert snapshot.options["max degree of parallelism"] == {"value": 0, "value_in_use": 0}
    undone = tuner.rollback(snapshot)
    assert undone.ok, undone.summary()
    assert server.state() == before
    assert sorted(undone.changed) == sorted(result.changed)
    assert any("full backup" in m for m in undone.messages)
    assert server.check_sent() > 10
    # Applying again after the rollback changes the same four.
    assert len(tuner.apply(seed_003_proposal(RAM_MB)).changed) == 4


def test_advanced_options_already_shown_stay_shown(server: ScriptedServer) -> None:
    server.options["show advanced options"].value = 1
    server.options["show advanced options"].in_use = 1
    tuner = server.tuner()
    result = tuner.apply(seed_003_proposal(), only={"max degree of parallelism"})
    assert result.changed == ["max degree of parallelism"]
    assert server.changes() == [
        "EXEC sp_configure N'max degree of parallelism', 1",
        "RECONFIGURE",
    ]
    assert result.snapshot is not None
    tuner.rollback(MssqlSnapshot.from_dict(result.snapshot.to_dict()))
    assert server.options["show advanced options"].value == 1
    assert server.options["max degree of parallelism"].in_use == 0
    assert (server.recovery, server.target_s) == ("FULL", 0)  # never touched


def test_a_static_option_waits_for_a_restart(server: ScriptedServer, tmp_path: Path) -> None:
    path = tmp_path / "lab.toml"
    path.write_text(
        'engine = "mssql"\ntitle = "Lab"\n[server]\n"lightweight pooling" = 1\n'
        '"max degree of parallelism" = 2\n[reasons]\n"lightweight pooling" = "test"\n'
    )
    proposal = load_mssql_preset(path)
    tuner = server.tuner()
    rows = {r.name: r for r in tuner.diff(proposal)}
    assert rows["lightweight pooling"].action == "restart"
    assert rows["lightweight pooling"].rule == "test"
    assert rows["max degree of parallelism"].action == "reload"
    result = tuner.apply(proposal, restart=True)
    assert result.ok, result.summary()
    assert result.pending_restart == ["lightweight pooling"]
    assert "restart needed for lightweight pooling" in result.summary()
    assert any("does not restart it" in m for m in result.messages)
    assert server.options["lightweight pooling"].value == 1
    assert server.options["lightweight pooling"].in_use == 0
    diff = {r.name: r for r in tuner.diff(proposal)}
    assert diff["lightweight pooling"].pending_restart  # configured, not running yet
    server.restart()
    assert result.snapshot is not None
    undone = tuner.rollback(MssqlSnapshot.from_dict(result.snapshot.to_dict()))
    assert undone.ok
    assert server.options["lightweight pooling"].value == 0
    assert undone.pending_restart == ["lightweight pooling"]  # runs 1 until the next restart
    server.restart()
    assert server.options["lightweight pooling"].in_use == 0


def test_a_missing_permission_is_named_and_nothing_changes(server: ScriptedServer) -> None:
    server.login_tokens = [("bench", "SQL LOGIN"), ("public", "SERVER ROLE")]
    server.user_tokens = [("bench", "SQL USER"), ("public", "ROLE")]
    before = server.state()
    tuner = server.tuner()
    facts = tuner.facts()
    assert (facts["alter_settings"], facts["alter_database"]) == (False, False)
    with pytest.raises(NotEnoughPrivileges) as caught:
        tuner.apply(seed_003_proposal())
    text = str(caught.value)
    assert "login bench lacks the ALTER SETTINGS server permission" in text
    assert "the ALTER permission on database tpcc" in text
    assert "nothing was changed" in text
    assert server.changes() == []
    # With ALTER SETTINGS only, the database options are still refused up front.
    server.server_permissions = [("ALTER SETTINGS", "G")]
    with pytest.raises(NotEnoughPrivileges, match="ALTER permission on database tpcc"):
        tuner.apply(seed_003_proposal())
    assert server.changes() == []
    # ... and the server options alone go through.
    result = tuner.apply(seed_003_proposal(), only={"max degree of parallelism"})
    assert result.changed == ["max degree of parallelism"]
    assert server.state() != before


def test_a_refusal_the_catalog_did_not_predict_is_undone(server: ScriptedServer) -> None:
    before = server.state()
    server.refuse["EXEC sp_configure N'max degree"] = odbc_error(
        15247, "User does not have permission to perform this action."
    )
    tuner = server.tuner()
    with pytest.raises(NotEnoughPrivileges) as caught:
        tuner.apply(seed_003_proposal(RAM_MB))
    text = str(caught.value)
    assert "ALTER SETTINGS" in text
    assert "User does not have permission" in text
    assert "what was done is undone" in text
    assert server.state() == before  # the database options and 'show advanced' put back
    # Another error is a TuningError with the server's words.
    server.refuse = {"ALTER DATABASE": odbc_error(5069, "ALTER DATABASE statement failed.")}
    with pytest.raises(TuningError, match="ALTER DATABASE statement failed"):
        tuner.apply(seed_003_proposal())
    assert server.state() == before
    server.check_sent()


def test_bad_values_are_refused_by_name(server: ScriptedServer) -> None:
    tuner = server.tuner()
    items = [
        TunedSetting("max degree of parallelism", "40000", "x"),
        TunedSetting("max degree of paralelism", "1", "x"),
        TunedSetting(RECOVERY_MODEL, "TURBO", "x"),
        TunedSetting(TARGET_RECOVERY, "sixty", "x"),
        TunedSetting("cost threshold for parallelism", "50", "x"),
    ]
    rows = {r.name: r for r in tuner.diff(items)}
    assert rows["max degree of parallelism"].action == "invalid"
    assert "between 0 and 32767" in rows["max degree of parallelism"].problem
    assert rows["max degree of paralelism"].action == "unknown"
    assert rows[RECOVERY_MODEL].action == "invalid"
    assert rows[TARGET_RECOVERY].action == "invalid"
    with pytest.raises(RejectedSettings, match="max degree of paralelism"):
        tuner.apply(items)
    assert server.changes() == []
    result = tuner.apply(items, skip_invalid=True)
    assert result.changed == ["cost threshold for parallelism"]
    assert set(result.skipped) == {
        "max degree of parallelism", "max degree of paralelism", RECOVERY_MODEL, TARGET_RECOVERY
    }  # fmt: skip


def test_rollback_refuses_another_server(server: ScriptedServer) -> None:
    tuner = server.tuner()
    result = tuner.apply(seed_003_proposal())
    assert result.snapshot is not None
    snapshot = MssqlSnapshot.from_dict(result.snapshot.to_dict())
    server.machine = "otherbox"
    sent = len(server.changes())
    with pytest.raises(TuningError, match="not the server the snapshot was taken on"):
        tuner.rollback(snapshot)
    assert len(server.changes()) == sent
    with pytest.raises(TuningError, match="not a SQL Server one"):
        MssqlSnapshot.from_dict({"engine": "mariadb"})


def test_rights_follow_the_permission_hierarchy() -> None:
    login = [("bench", "SQL LOGIN"), ("public", "SERVER ROLE")]
    user = [("bench", "SQL USER"), ("public", "ROLE")]
    assert rights_of(login, user, [], []).alter_settings is False
    assert rights_of([*login, ("serveradmin", "SERVER ROLE")], user, [], []).alter_settings
    assert rights_of(login, user, [("CONTROL SERVER", "G")], []).alter_database
    denied = rights_of(login, user, [("CONTROL SERVER", "G"), ("ALTER SETTINGS", "D")], [])
    assert not denied.alter_settings
    assert rights_of(login, [*user, ("db_owner", "ROLE")], [], []).alter_database
    assert rights_of(login, user, [], [("ALTER", "W")]).alter_database
    assert not rights_of(
        login, user, [("ALTER ANY DATABASE", "G")], [("ALTER", "D")]
    ).alter_database
    admin = rights_of([("sa", "SQL LOGIN"), ("sysadmin", "SERVER ROLE")], [], [], [])
    assert (admin.login, admin.alter_settings, admin.alter_database) == ("sa", True, True)


def test_every_statement_the_tuner_can_send_parses_as_tsql() -> None:
    """The reads, and the changes for every option of a fresh server in every form (shown or
    not, each recovery model, a database name that needs quoting)."""
    statements = list(mssql_tuner.READ_STATEMENTS)
    configs = {
        name: settings.ConfigValue(o.value, o.in_use, o.minimum, o.maximum, o.dynamic, o.advanced)
        for name, o in ScriptedServer().options.items()
    }
    for shown in (0, 1):
        configs["show advanced options"] = settings.ConfigValue(shown, shown, 0, 1, True, False)
        values = {name: c.maximum for name, c in configs.items()}
        statements += [s for s, _ in mssql_tuner.server_statements(values, configs)]
    for database in ("tpcc", "a]b c", "Ünïcode"):
        for model in settings.RECOVERY_MODELS:
            statements += [s for s, _ in mssql_tuner.database_statements(database, model, 86_400)]
    for statement in dict.fromkeys(statements):
        check_statement(statement)
    with pytest.raises(TsqlError):  # the check can fail
        check_statement("EXEC sp_configure N'max degree of parallelism' 1")


def test_preset_files_are_checked_field_by_field(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    cases = {
        '[server]\n"max degree of parallelism" = 1\n': 'engine = "mssql"',
        'engine = "mssql"\n[server]\n"max degree of parallelism" = "one"\n': "whole number",
        'engine = "mssql"\n[database]\nrecovery_model = "TURBO"\n': "recovery_model 'TURBO'",
        'engine = "mssql"\n[database]\ntarget_recovery_time = 100000\n': "0..86400",
        'engine = "mssql"\n[database]\nfiles = 8\n': r"unknown key\(s\) files",
        'engine = "mssql"\nmaxdop = 1\n': r"unknown key\(s\) maxdop",
        'engine = "mssql"\n': "sets nothing",
        "engine = \n": "not valid TOML",
    }
    for text, message in cases.items():
        path.write_text(text)
        with pytest.raises(PresetError, match=message):
            load_mssql_preset(path)
    with pytest.raises(PresetError, match="cannot be read"):
        load_mssql_preset(tmp_path / "missing.toml")
    path.write_text(
        'engine = "mssql"\ntitle = "Mine"\n[database]\nrecovery_model = "bulk_logged"\n'
    )
    proposal = load_mssql_preset(path)
    assert proposal.title == "Mine"
    assert proposal.values() == {RECOVERY_MODEL: "BULK_LOGGED"}


def test_without_a_sql_server_driver_the_error_says_so() -> None:
    """This machine has no SQL Server ODBC driver (only MariaDB's): the real connect path
    says so in one line instead of failing somewhere inside pyodbc."""
    tuner = MssqlTuner("SERVER=db;PORT=1433;UID=sa", "tpcc")
    with pytest.raises(TuningError, match="no SQL Server ODBC driver is installed"):
        tuner.facts()
    with pytest.raises(TuningError, match="database"):
        MssqlTuner("SERVER=db", "bad\x00name")


def test_the_database_scoped_maxdop_is_diffed_applied_and_rolled_back(
    server: ScriptedServer,
) -> None:
    """Issue 26: a database-scoped MAXDOP overrides the server's for the benchmark database;
    it is read, set to 0 (follow the server) with the server's MAXDOP, and put back."""
    server.db_maxdop = 8
    before = server.state()
    tuner = server.tuner()
    rows = {r.name: r for r in tuner.diff(seed_003_proposal(RAM_MB))}
    scoped = rows[DATABASE_MAXDOP]
    assert (scoped.current, scoped.proposed, scoped.action) == ("8", "0", "reload")
    assert "follows the server's max degree of parallelism" in scoped.rule
    result = tuner.apply(seed_003_proposal(RAM_MB))
    assert result.ok, result.mismatches
    assert DATABASE_MAXDOP in result.changed
    assert server.db_maxdop == 0
    assert "ALTER DATABASE SCOPED CONFIGURATION SET MAXDOP = 0" in server.changes()
    assert result.snapshot is not None
    snapshot = MssqlSnapshot.from_dict(result.snapshot.to_dict())  # as the history keeps it
    assert snapshot.database_maxdop == 8
    back = tuner.rollback(snapshot)
    assert back.ok, back.mismatches
    assert server.state() == before
    assert server.check_sent() > 0


def test_a_server_without_database_scoped_configuration_is_left_alone(
    server: ScriptedServer,
) -> None:
    server.db_maxdop = None  # SQL Server 2014: no sys.database_scoped_configurations
    rows = {r.name: r for r in server.tuner().diff(seed_003_proposal(RAM_MB))}
    assert rows[DATABASE_MAXDOP].action == "same"
    assert "no database-scoped configuration" in rows[DATABASE_MAXDOP].rule
    result = server.tuner().apply(seed_003_proposal(RAM_MB))
    assert result.ok, result.mismatches
    assert not any("SCOPED" in c for c in server.changes())


def test_recovery_simple_in_an_availability_group_is_refused_by_name(
    server: ScriptedServer,
) -> None:
    """Issue 26: an Availability Group needs FULL; SET RECOVERY SIMPLE is refused, naming it."""
    server.availability_group = "ag_orders"
    before = server.state()
    rows = {r.name: r for r in server.tuner().diff(seed_003_proposal(RAM_MB))}
    recovery = rows[RECOVERY_MODEL]
    assert recovery.action == "invalid"
    assert "Availability Group 'ag_orders'" in recovery.problem
    with pytest.raises(RejectedSettings, match="Availability Group 'ag_orders'"):
        server.tuner().apply(seed_003_proposal(RAM_MB))
    assert server.state() == before
    assert server.changes() == []
    result = server.tuner().apply(seed_003_proposal(RAM_MB), skip_invalid=True)
    assert RECOVERY_MODEL in result.skipped
    assert server.recovery == "FULL"
    assert not any("SET RECOVERY" in c for c in server.changes())


def test_a_preset_file_sets_the_database_maxdop(tmp_path: Path) -> None:
    path = tmp_path / "lab.toml"
    path.write_text('engine = "mssql"\n[database]\nmaxdop = 2\n')
    proposal = load_mssql_preset(path)
    assert proposal.values() == {DATABASE_MAXDOP: "2"}
    path.write_text('engine = "mssql"\n[database]\nmaxdop = -1\n')
    with pytest.raises(PresetError, match="database.maxdop -1: expected 0..32767"):
        load_mssql_preset(path)
