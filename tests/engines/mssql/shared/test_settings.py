"""Seed 003's SQL Server settings as a preset, applied and undone (statements only)."""

from __future__ import annotations

import pytest

from bench_gui.engines.mssql.shared import settings


def _snapshot(maxdop: int = 0, show: int = 0, recovery: str = "FULL") -> settings.SettingsSnapshot:
    def adv(value: int, maximum: int) -> settings.ConfigValue:
        return settings.ConfigValue(value, value, 0, maximum, True, True)

    return settings.SettingsSnapshot(
        configurations={
            "show advanced options": settings.ConfigValue(show, show, 0, 1, True, False),
            "max degree of parallelism": adv(maxdop, 32767),
            "max server memory (MB)": adv(2_147_483_647, 2_147_483_647),
            "cost threshold for parallelism": adv(5, 32767),
        },
        recovery_model=recovery,
        target_recovery_time_s=0,
    )


def test_seed_003_values() -> None:
    preset = settings.seed_003_preset()
    assert preset.server == {"max degree of parallelism": 1}
    assert (preset.recovery_model, preset.target_recovery_time_s) == ("SIMPLE", 60)
    assert "cost threshold for parallelism" not in preset.server
    assert any("Lock Pages in Memory" in note for note in preset.notes)
    with_ram = settings.seed_003_preset(ram_mb=384 * 1024)
    assert with_ram.server["max server memory (MB)"] == 393_216 - 39_321
    assert "derived, not in seed 003" in with_ram.reasons["max server memory (MB)"]


def test_apply_then_rollback_restores_previous_values() -> None:
    preset = settings.seed_003_preset(ram_mb=393_216)
    snap = _snapshot(maxdop=8)
    apply = settings.apply_statements(preset, snap, "tpcc")
    assert apply == [
        "EXEC sp_configure N'show advanced options', 1",
        "RECONFIGURE",
        "EXEC sp_configure N'max degree of parallelism', 1",
        "EXEC sp_configure N'max server memory (MB)', 353895",
        "RECONFIGURE",
        "ALTER DATABASE [tpcc] SET RECOVERY SIMPLE",
        "ALTER DATABASE [tpcc] SET TARGET_RECOVERY_TIME = 60 SECONDS",
    ]
    undo = settings.rollback_statements(preset, snap, "tpcc")
    assert undo == [
        "EXEC sp_configure N'max degree of parallelism', 8",
        "EXEC sp_configure N'max server memory (MB)', 2147483647",
        "RECONFIGURE",
        "EXEC sp_configure N'show advanced options', 0",
        "RECONFIGURE",
        "ALTER DATABASE [tpcc] SET RECOVERY FULL",
        "ALTER DATABASE [tpcc] SET TARGET_RECOVERY_TIME = 0 SECONDS",
    ]


def test_advanced_options_already_shown_are_left_shown() -> None:
    preset = settings.seed_003_preset()
    snap = _snapshot(show=1, recovery="SIMPLE")
    assert settings.apply_statements(preset, snap, "tpcc")[0].startswith(
        "EXEC sp_configure N'max degree"
    )
    undo = settings.rollback_statements(preset, snap, "tpcc")
    assert not any("show advanced" in s for s in undo)
    assert "ALTER DATABASE [tpcc] SET RECOVERY SIMPLE" in undo


def test_bad_values_are_refused_with_the_name() -> None:
    snap = _snapshot()
    over = settings.Preset("x", {"max degree of parallelism": 40_000})
    with pytest.raises(settings.SettingsError, match="'max degree of parallelism' = 40000"):
        settings.apply_statements(over, snap, "tpcc")
    unknown = settings.Preset("x", {"max degree of paralelism": 1})
    with pytest.raises(settings.SettingsError, match="not an option of this server"):
        settings.apply_statements(unknown, snap, "tpcc")
    bad_model = settings.Preset("x", {}, recovery_model="TURBO")
    with pytest.raises(settings.SettingsError, match="recovery model 'TURBO'"):
        settings.apply_statements(bad_model, snap, "tpcc")
    with pytest.raises(settings.SettingsError, match="at least 8192"):
        settings.seed_003_preset(ram_mb=1024)


def test_database_name_is_quoted() -> None:
    preset = settings.Preset("x", {}, recovery_model="SIMPLE")
    assert settings.apply_statements(preset, _snapshot(), "a]b") == [
        "ALTER DATABASE [a]]b] SET RECOVERY SIMPLE"
    ]
