"""Presets: the seed briefs' tuned values, mapped to the server's version; user presets."""

from __future__ import annotations

import pytest

from bench_gui.core.os_presets import BUILTIN_OS_PRESETS
from bench_gui.engines.postgresql.pgtune import PgVersion, TuneInput, calculate
from bench_gui.engines.postgresql.presets import (
    BUILTIN_PRESETS,
    eic_13,
    exists_in,
    map_settings,
    preset_from_proposal,
    preset_from_toml,
    preset_to_toml,
)
from bench_gui.engines.tuning_terms import PresetError


def test_the_seed_presets_hold_the_briefs_tables() -> None:
    """Seed 000 table 7 (both columns) and seed 001 table 1, in postgresql.conf spelling."""
    ssd = BUILTIN_PRESETS["micron-s650dc-ssd"]
    hdd = BUILTIN_PRESETS["micron-15k-hdd"]
    nvme = BUILTIN_PRESETS["micron-9100max-nvme"]
    assert ssd.version == hdd.version == nvme.version == PgVersion(9, 4)
    common = {
        "default_statistics_target": "100",
        "maintenance_work_mem": "2GB",
        "effective_cache_size": "72GB",
        "work_mem": "768MB",
        "shared_buffers": "30GB",
        "checkpoint_segments": "4096",
        "checkpoint_timeout": "5min",
        "checkpoint_completion_target": "0.8",
        "seq_page_cost": "0.5",
        "bgwriter_delay": "15ms",
        "bgwriter_lru_maxpages": "1000",
    }
    assert ssd.settings == {**common, "random_page_cost": "2.0", "effective_io_concurrency": "1000"}
    assert hdd.settings == {**common, "random_page_cost": "4.0", "effective_io_concurrency": "16"}
    assert nvme.settings == ssd.settings
    assert "Table 7" in ssd.source
    assert "Table 1" in nvme.source


def test_on_its_own_version_a_preset_is_unchanged() -> None:
    proposal = BUILTIN_PRESETS["micron-15k-hdd"].proposal(PgVersion(9, 4))
    assert proposal.values() == BUILTIN_PRESETS["micron-15k-hdd"].settings
    assert proposal.notes == []


def test_a_9_4_preset_on_16_is_mapped_setting_by_setting() -> None:
    """checkpoint_segments -> max_wal_size (9.5 release notes: 3 × segments × 16MB):
    3 × 4096 × 16MB = 196608MB = 192GB. effective_io_concurrency changed meaning in 13
    (13 release notes): round(Σ n=1..16 of 16/n) = round(16 × 3.3807) = round(54.09) = 54;
    for 1000: round(1000 × H(1000)) = round(7485.47) = 7485, above the maximum 1000."""
    hdd = BUILTIN_PRESETS["micron-15k-hdd"].proposal(PgVersion(16)).values()
    assert "checkpoint_segments" not in hdd
    assert hdd["max_wal_size"] == "192GB"
    assert hdd["effective_io_concurrency"] == "54"
    assert hdd["shared_buffers"] == "30GB"
    assert hdd["checkpoint_timeout"] == "5min"
    ssd = BUILTIN_PRESETS["micron-s650dc-ssd"].proposal(PgVersion(16))
    assert ssd.values()["effective_io_concurrency"] == "1000"
    eic = ssd.get("effective_io_concurrency")
    assert eic is not None
    assert "7485, capped at the maximum 1000" in eic.rule
    wal = ssd.get("max_wal_size")
    assert wal is not None
    assert "3 × 4096 × 16MB = 192GB" in wal.rule
    # 9.6 has max_wal_size but not yet the new effective_io_concurrency meaning.
    on_96 = BUILTIN_PRESETS["micron-15k-hdd"].proposal(PgVersion(9, 6)).values()
    assert on_96["max_wal_size"] == "192GB"
    assert on_96["effective_io_concurrency"] == "16"


def test_the_effective_io_concurrency_conversion() -> None:
    assert eic_13(0) == 0
    assert eic_13(1) == 1
    assert eic_13(2) == 3  # 2/1 + 2/2 = 3
    assert eic_13(16) == 54
    assert eic_13(1000) == 7485


def test_mapping_backwards_and_settings_a_release_lacks() -> None:
    newer = {
        "max_wal_size": "4GB",
        "min_wal_size": "1GB",
        "max_parallel_workers": "8",
        "jit": "off",
        "wal_compression": "lz4",
        "wal_keep_size": "1GB",
        "effective_io_concurrency": "54",
        "work_mem": "64MB",
    }
    mapped, notes = map_settings(newer, PgVersion(16), PgVersion(9, 4))
    values = {s.name: s.value for s in mapped}
    # max_wal_size 4096MB / (3 × 16MB) = 85.3 -> 86 segments.
    assert values["checkpoint_segments"] == "86"
    # wal_keep_size 1024MB / 16MB = 64 segments.
    assert values["wal_keep_segments"] == "64"
    # The smallest old value whose 13 meaning reaches 54 is 16.
    assert values["effective_io_concurrency"] == "16"
    assert values["work_mem"] == "64MB"
    assert set(values) == {
        "checkpoint_segments",
        "wal_keep_segments",
        "effective_io_concurrency",
        "work_mem",
    }
    assert "min_wal_size: not in PostgreSQL 9.4 (since 9.5)" in notes
    assert "max_parallel_workers: not in PostgreSQL 9.4 (since 10)" in notes
    assert "jit: not in PostgreSQL 9.4 (since 11)" in notes
    assert "wal_compression: not in PostgreSQL 9.4 (since 9.5)" in notes
    # lz4 before 15 is just "on".
    on_14 = {s.name: s.value for s in map_settings(newer, PgVersion(16), PgVersion(14))[0]}
    assert on_14["wal_compression"] == "on"
    assert on_14["wal_keep_size"] == "1GB"
    # A setting removed later is left out going forward.
    _, later = map_settings({"stats_temp_directory": "/tmp"}, PgVersion(14), PgVersion(16))
    assert later == ["stats_temp_directory: removed in PostgreSQL 15; left out"]
    assert exists_in("max_wal_size", PgVersion(9, 5))
    assert not exists_in("io_method", PgVersion(17))


def test_the_seed_003_os_preset() -> None:
    preset = BUILTIN_OS_PRESETS["micron-9300-linux"]
    assert preset.knobs == {
        "kernel.numa_balancing": "0",
        "vm.max_map_count": "262144",
        "kernel.sched_min_granularity_ns": "10000000",
        "kernel.sched_wakeup_granularity_ns": "15000000",
        "vm.dirty_ratio": "40",
        "vm.dirty_background_ratio": "10",
        "read_ahead_kb": "2048",
    }


def test_user_presets_round_trip_through_toml() -> None:
    proposal = calculate(TuneInput(ram_bytes=8 * 1024**3, cpus=4, db_type="oltp"))
    preset = preset_from_proposal("my-oltp.8g", proposal, description="lab box")
    text = preset_to_toml(preset)
    assert 'version = "18"' in text
    assert 'shared_buffers = "2GB"' in text
    again = preset_from_toml(text)
    assert again == preset
    assert again.proposal(PgVersion(18)).values() == proposal.values()


def test_bad_presets_are_named() -> None:
    with pytest.raises(PresetError, match="preset name"):
        preset_from_toml('name = "Bad Name"\n[settings]\nwork_mem = "4MB"\n')
    with pytest.raises(PresetError, match="settings: must be a table"):
        preset_from_toml('name = "x"\n')
    with pytest.raises(PresetError, match="settings.work_mem"):
        preset_from_toml('name = "x"\n[settings]\nwork_mem = ""\n')
    with pytest.raises(PresetError, match="version"):
        preset_from_toml('name = "x"\nversion = "new"\n[settings]\nwork_mem = "4MB"\n')
    with pytest.raises(PresetError, match="owner: not a preset field"):
        preset_from_toml('name = "x"\nowner = "me"\n[settings]\nwork_mem = "4MB"\n')
    with pytest.raises(PresetError, match="not valid TOML"):
        preset_from_toml("name = ")
    # Numbers and booleans are accepted and written the way postgresql.conf takes them.
    preset = preset_from_toml('name = "x"\n[settings]\nrandom_page_cost = 1.1\njit = false\n')
    assert preset.settings == {"random_page_cost": "1.1", "jit": "off"}
