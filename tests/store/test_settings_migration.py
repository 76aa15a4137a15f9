"""Schema migration 3: sessions stored with settings as joined text ("163848kB") get records in
real units, once, keeping everything else; session files of the old format import the same."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from bench_gui.store import SCHEMA_VERSION, SessionStore, exchange, import_session, sessions

OLD_SETTINGS = {
    "shared_buffers": "163848kB",  # 16384 x 8kB: 128MB
    "effective_cache_size": "39321608kB",  # 3932160 x 8kB: 30GB
    "work_mem": "40968kB",  # 40968 x kB
    "checkpoint_timeout": "300s",
    "max_wal_size": "6416MB",  # PostgreSQL 10: 64 x 16MB
    "max_connections": "200",
    "DateStyle": "ISO, MDY",
}


def version_2_file(path: Path, settings: dict[str, str], version_num: int) -> None:
    """A session store as bench-gui wrote it before migration 3, with one finished run."""
    conn = sqlite3.connect(path)
    for migration in sessions.MIGRATIONS[:2]:
        for statement in migration:
            assert isinstance(statement, str)
            conn.execute(statement)
    conn.execute(
        "INSERT INTO runs (name, status, created_at, engine, app_version, plan, plan_toml,"
        " target, server_version, settings, agent) VALUES ('HDD RAID 10', 'complete',"
        " '2025-01-01T00:00:00+00:00', 'postgresql', '0.9', '{}', '', '{}', 'PostgreSQL 10.23',"
        " ?, ?)",
        (json.dumps(settings), json.dumps({"server_version_num": version_num})),
    )
    conn.execute("INSERT INTO run_notes (run_id, text, updated_at) VALUES (1, 'kept', 'x')")
    conn.execute("PRAGMA user_version = 2")
    conn.commit()
    conn.close()


def test_old_settings_are_rewritten_in_real_units(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    version_2_file(path, OLD_SETTINGS, 100023)
    with SessionStore(path) as store:
        run = store.get_run(1)
        settings = run.settings
        assert store.note(1) == "kept"
    shared = settings["shared_buffers"]
    assert (shared["setting"], shared["unit"], shared["value"]) == ("16384", "8kB", 128 * 1024**2)
    assert (shared["display"], shared["migrated_from"]) == ("128MB", "163848kB")
    assert settings["effective_cache_size"]["display"] == "30GB"
    assert settings["work_mem"]["value"] == 40968 * 1024
    assert settings["checkpoint_timeout"]["display"] == "5min"
    assert settings["max_wal_size"]["display"] == "1GB"
    assert settings["max_connections"]["display"] == "200"
    assert settings["DateStyle"]["value"] == "ISO, MDY"
    assert set(settings) == set(OLD_SETTINGS)
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 3
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    finally:
        conn.close()
    assert "run_storage" in tables


def test_the_migration_runs_once(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    version_2_file(path, OLD_SETTINGS, 150004)
    with SessionStore(path) as store:
        first = store.get_run(1).settings
        assert first["max_wal_size"]["display"] == "6416MB"  # PostgreSQL 15: MB
    with SessionStore(path) as store:
        assert store.get_run(1).settings == first


def test_a_session_file_of_the_old_format_imports_in_real_units(
    store: SessionStore, tmp_path: Path
) -> None:
    run_id = store.create_run("r", {}, "", {}, "postgresql")
    store.finish_run(run_id, "complete")
    document = exchange.export_document(store, run_id)
    session = document["session"]
    session["schema_version"] = 2
    session["run"]["settings"] = {"shared_buffers": "163848kB", "jit": "off"}
    document["sha256"] = exchange.checksum(session)
    path = tmp_path / "old.bgsession.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    imported = store.get_run(import_session(store, path)).settings
    assert imported["shared_buffers"]["display"] == "128MB"
    assert imported["jit"]["setting"] == "off"
    # A file of the current format keeps its settings exactly (records or not).
    store.set_server_info(run_id, "PostgreSQL 18", {"jit": "off"})
    again = exchange.export_document(store, run_id)
    path.write_text(json.dumps(again), encoding="utf-8")
    assert store.get_run(import_session(store, path)).settings == {"jit": "off"}
