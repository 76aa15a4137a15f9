"""Settings in their real units, checked against a real PostgreSQL: the agent's records say
what SHOW says, and the old joined text ("163848kB") gives the same record back."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from bench_gui.engines.postgresql.agent.engine import PgEngine
from bench_gui.wire.setting_units import (
    BLOCK_SETTINGS,
    setting_record,
    show_text,
    upgrade_setting,
    upgrade_settings,
)

# Session-level values with every kind of unit: whole and partial multiples, times that
# print in a larger unit, a real number of milliseconds, and off (-1 / 0).
SESSION_VALUES = {
    "work_mem": "1000kB",
    "maintenance_work_mem": "1GB",
    "temp_buffers": "1000kB",
    "temp_file_limit": "10GB",
    "gin_pending_list_limit": "4097kB",
    "statement_timeout": "90s",
    "lock_timeout": "2h",
    "idle_session_timeout": "1500ms",
    "vacuum_cost_delay": "0.5",
    "log_min_duration_statement": "0",
    "log_temp_files": "-1",
}


@pytest.fixture
def unit_rows(pg_server: Any) -> list[tuple[str, str, str, str, str]]:
    """(name, setting, unit, vartype, current_setting) of every setting that has a unit, on
    a connection where the values above are set."""
    with psycopg.connect(pg_server.uri(), autocommit=True) as conn:
        for name, value in SESSION_VALUES.items():
            conn.execute(f"SET {name} = '{value}'")
        rows = conn.execute(
            "SELECT name, setting, unit, vartype, current_setting(name) FROM pg_settings"
            " WHERE unit IS NOT NULL ORDER BY name"
        ).fetchall()
    return [tuple(row) for row in rows]


def test_the_agent_stores_each_setting_with_its_real_value(pg_server: Any) -> None:
    info = PgEngine(pg_server.uri(), pg_server.uri(), "postgres").server_info()
    shared = info["settings"]["shared_buffers"]
    with psycopg.connect(pg_server.uri()) as conn:
        setting, unit, shown = conn.execute(
            "SELECT setting, unit, current_setting('shared_buffers') FROM pg_settings"
            " WHERE name = 'shared_buffers'"
        ).fetchone()
    assert shared["setting"] == setting
    assert shared["unit"] == unit == "8kB"
    assert shared["value"] == int(setting) * 8192
    assert shared["value_unit"] == "B"
    assert shared["display"] == shown
    assert shared["display"] != f"{setting}8kB"  # the old, wrong text
    assert shared["source"] not in ("default", "override")
    assert shared["vartype"] == "integer"
    assert "boot_val" in shared
    # A setting without a unit keeps its type.
    connections = info["settings"]["max_connections"]
    assert connections["unit"] is None
    assert connections["value"] == int(connections["setting"])


def test_records_print_as_show_prints(unit_rows: list[tuple[str, ...]]) -> None:
    assert len(unit_rows) > 50
    checked = {name for name, *_ in unit_rows}
    assert set(SESSION_VALUES) <= checked
    for name, setting, unit, vartype, shown in unit_rows:
        record = setting_record(setting, unit, vartype=vartype)
        assert record["display"] == shown, name


def test_the_old_joined_text_gives_the_same_record(
    pg_server: Any, unit_rows: list[tuple[str, ...]]
) -> None:
    with psycopg.connect(pg_server.uri()) as conn:
        version = int(conn.execute("SHOW server_version_num").fetchone()[0])
    blocks = 0
    for name, setting, unit, vartype, shown in unit_rows:
        record = setting_record(setting, unit, vartype=vartype)
        old = upgrade_setting(name, f"{setting}{unit}", version)
        assert (old["setting"], old["unit"], old["value"]) == (setting, unit, record["value"]), name
        assert old["display"] == shown, name
        assert old["migrated_from"] == f"{setting}{unit}"
        if unit == "8kB":
            blocks += 1
            assert name in BLOCK_SETTINGS, f"{name} counts in 8kB: add it to BLOCK_SETTINGS"
    assert blocks >= 10


def test_the_issue_figures() -> None:
    """shared_buffers 16384 x 8kB was stored "163848kB"; seed 000's 30GB "39321608kB"."""
    small = upgrade_setting("shared_buffers", "163848kB")
    assert (small["value"], small["display"]) == (128 * 1024**2, "128MB")
    big = upgrade_setting("shared_buffers", "39321608kB")
    assert (big["setting"], big["value"], big["display"]) == ("3932160", 30 * 1024**3, "30GB")
    # A kB setting whose number ends in 8 is not mistaken for 8kB blocks.
    assert upgrade_setting("work_mem", "40968kB")["value"] == 40968 * 1024
    # PostgreSQL 10 counted max_wal_size in 16MB segments, 11 and later in MB.
    assert upgrade_setting("max_wal_size", "6416MB", 100012)["display"] == "1GB"
    assert upgrade_setting("max_wal_size", "6416MB", 150004)["display"] == "6416MB"


def test_texts_without_a_unit_stay_text_and_records_stay_records() -> None:
    record = setting_record("16384", "8kB")
    settings, changed = upgrade_settings(
        {"shared_buffers": record, "DateStyle": "ISO, MDY", "jit": "off"}
    )
    assert changed == 2
    assert settings["shared_buffers"] is record
    assert settings["DateStyle"]["value"] == "ISO, MDY"
    assert settings["jit"] == {
        "setting": "off",
        "unit": None,
        "value": "off",
        "value_unit": None,
        "display": "off",
        "migrated_from": "off",
    }


def test_show_text_edges() -> None:
    assert show_text(0, "B") == "0"
    assert show_text(-1, None) == "-1"
    assert show_text(1536, "B") == "1536B"
    assert show_text(300, "s") == "5min"
    assert show_text(0.5, "ms") == "500us"
