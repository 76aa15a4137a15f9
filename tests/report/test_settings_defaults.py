"""'Database settings not at their defaults' (issues 26 and 28): MariaDB's variables say where
their values came from (read from the session's private MariaDB through the agent's engine),
a migrated PostgreSQL session's initdb values are defaults, and a brief whose settings are
all at their defaults says so in a sentence, apart from settings that were not recorded."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from bench_gui.report import build_report, write_report
from bench_gui.report.model import Report
from bench_gui.store import SessionStore
from bench_gui.store.compare_input import settings_say_defaults, settings_text
from bench_gui.wire.setting_units import upgrade_settings
from tests._fixtures.mariadb import MariaDbServer
from tests._fixtures.seed_sessions import INVENTORY, store_session, sweep
from tests.report.fleet import NEVER_SATURATES, PG16, points


def test_mariadb_settings_say_which_are_defaults(mariadb_server: MariaDbServer) -> None:
    settings = mariadb_server.engine("mysql").server_info()["settings"]
    pool = settings["innodb_buffer_pool_size"]
    # The fixture starts mariadbd with --innodb-buffer-pool-size=256M, --max-connections=300
    # (a tuner test of the session may have set it back with SET GLOBAL since).
    assert pool["source"] in ("command line", "SET GLOBAL")
    assert pool["boot_val"] == str(128 * 1024**2)
    assert settings["innodb_flush_method"]["source"] == "default"
    assert settings_say_defaults(settings)
    listed = settings_text(settings, "mariadb")
    assert listed["innodb_buffer_pool_size"] == "256MB"
    assert "max_connections" in listed
    assert "innodb_log_file_size" in listed
    for name in ("innodb_flush_method", "performance_schema", "innodb_doublewrite"):
        assert name not in listed, (name, settings.get(name))
    assert len(listed) <= 6, listed  # was every variable: all marked source="server"


def test_a_migrated_postgresql_session_keeps_initdb_values_as_defaults() -> None:
    # Text settings as sessions stored them before migration 3 (the unit appended).
    old = {"shared_buffers": "163848kB", "max_connections": "100", "work_mem": "524288kB"}
    upgraded, count = upgrade_settings(old, 150004)
    assert count == 3
    assert upgraded["shared_buffers"]["display"] == "128MB"
    listed = settings_text(upgraded, "postgresql")
    assert "shared_buffers" not in listed
    assert "max_connections" not in listed
    assert listed == {"work_mem": "512MB"}
    tuned = upgrade_settings({"shared_buffers": "5242888kB"}, 150004)[0]
    assert settings_text(tuned, "postgresql") == {"shared_buffers": "4GB"}


def _session(store: SessionStore, name: str, settings: dict[str, Any] | None) -> int:
    run = store_session(
        store, name, sweep(PG16, {}, points(NEVER_SATURATES), 300, 600), inventory=INVENTORY
    )
    if settings is not None:
        detail = store.get_run(run)
        store.set_server_info(run, detail.server_version or PG16, settings, None)
    return run


AT_DEFAULTS = {
    "shared_buffers": {"setting": "16384", "unit": "8kB", "source": "configuration file",
                       "boot_val": "16384"},
    "DateStyle": {"setting": "ISO, MDY", "unit": "", "source": "configuration file"},
}  # fmt: skip


def _paragraphs(report: Report) -> list[str]:
    section = next(s for s in report.sections if s.key == "configuration")
    return section.paragraphs


def test_a_brief_says_when_every_setting_is_at_its_default(
    store: SessionStore, tmp_path: Path
) -> None:
    a = _session(store, "PostgreSQL 16, defaults A", AT_DEFAULTS)
    b = _session(store, "PostgreSQL 16, defaults B", AT_DEFAULTS)
    report = build_report(store, [a, b], a)
    assert "config_settings" not in report.tables
    said = [p for p in _paragraphs(report) if p.startswith("Database settings:")]
    assert said == [
        "Database settings: every configuration ran with every recorded setting at the"
        " engine's default (locale, logging and file locations aside)."
    ]
    pdf = write_report(report, tmp_path / "brief.pdf", page_size="a4")
    text = subprocess.run(
        ["pdftotext", str(pdf), "-"], check=True, capture_output=True, text=True
    ).stdout
    assert "every recorded setting at the" in " ".join(text.split())


def test_defaults_and_not_recorded_are_told_apart(store: SessionStore) -> None:
    a = _session(store, "PostgreSQL 16, defaults", AT_DEFAULTS)
    b = _session(store, "PostgreSQL 16, nothing recorded", None)
    report = build_report(store, [a, b], a)
    assert "config_settings" not in report.tables
    said = next(p for p in _paragraphs(report) if p.startswith("Database settings:"))
    assert "at the engine's default; not recorded for " in said
    only_missing = build_report(store, [b], b)
    assert "Database settings: not recorded with these sessions." in _paragraphs(only_missing)


def test_old_mariadb_sessions_say_their_defaults_are_unknown(store: SessionStore) -> None:
    old = {
        "innodb_flush_method": {"setting": "O_DIRECT", "value": "O_DIRECT", "source": "server"},
        "innodb_buffer_pool_size": {"setting": "134217728", "unit": "B", "source": "server"},
    }
    assert not settings_say_defaults(old)
    a = _session(store, "MariaDB, recorded before defaults were", old)
    report = build_report(store, [a], a)
    table = report.tables["config_settings"]
    assert any("did not say which settings are at their defaults" in n for n in table.notes)
