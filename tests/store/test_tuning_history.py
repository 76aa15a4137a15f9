"""Tuning history and user presets: in the session store's file and the data directory."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bench_gui.engines.postgresql.pgtune import PgVersion
from bench_gui.engines.postgresql.presets import BUILTIN_PRESETS, Preset
from bench_gui.engines.tuning_terms import PresetError
from bench_gui.store import SCHEMA_VERSION, SessionStore
from bench_gui.store.tuning_history import TuningHistory
from bench_gui.store.user_presets import (
    all_presets,
    delete_preset,
    load_user_presets,
    presets_dir,
    save_preset,
)


def test_history_records_applies_and_the_rollbacks_that_undo_them(store: SessionStore) -> None:
    history = TuningHistory(store)
    assert history.entries() == []
    assert history.last_open_apply("demo") is None
    first = history.record(
        target_key="demo",
        target_label="embedded demo",
        kind="postgresql",
        action="apply",
        profile="pgtune",
        changes={"work_mem": {"from": "4MB", "to": "64MB"}},
        snapshot={"auto_conf": "# empty\n", "values": {}},
        result={"ok": True},
    )
    second = history.record(
        target_key="demo",
        target_label="embedded demo",
        kind="postgresql",
        action="apply",
        profile="micron-15k-hdd",
        snapshot={"auto_conf": "x", "values": {}},
    )
    failed = history.record(
        target_key="demo",
        target_label="embedded demo",
        kind="postgresql",
        action="apply",
        profile="bad",
        result={"ok": False, "error": "rejected"},
    )
    other = history.record(
        target_key="os://this machine", target_label="this machine", kind="os", action="apply",
        snapshot={"entries": []},
    )  # fmt: skip
    # A failed attempt (no snapshot) is history, but nothing to roll back.
    open_apply = history.last_open_apply("demo")
    assert open_apply is not None
    assert open_apply.id == second
    undo = history.record(
        target_key="demo", target_label="embedded demo", kind="postgresql",
        action="rollback", undoes=second,
    )  # fmt: skip
    entry = history.get(second)
    assert entry is not None
    assert entry.undone_by == undo
    assert "rolled back by" in entry.describe()
    again = history.last_open_apply("demo")
    assert again is not None
    assert again.id == first
    assert again.changes == {"work_mem": {"from": "4MB", "to": "64MB"}}
    assert again.snapshot == {"auto_conf": "# empty\n", "values": {}}
    assert [e.id for e in history.entries("demo")] == [undo, failed, second, first]
    assert [e.id for e in history.entries(kind="os")] == [other]
    with pytest.raises(ValueError, match="kind"):
        history.record(target_key="x", target_label="x", kind="disk", action="apply")


def test_history_lives_beside_the_sessions_without_touching_their_schema(
    store: SessionStore,
) -> None:
    TuningHistory(store).record(
        target_key="demo", target_label="demo", kind="postgresql", action="apply"
    )
    path = store.path
    store.close()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert {"runs", "tuning_history"} <= tables
    finally:
        conn.close()
    # A store opened again (a newer app, the same file) still reads it.
    with SessionStore(path) as reopened:
        assert len(TuningHistory(reopened).entries()) == 1


def test_user_presets_are_toml_files_by_name(data_dir: Path) -> None:
    preset = Preset(
        name="lab-ssd",
        title="Lab SSD box",
        settings={"shared_buffers": "8GB", "random_page_cost": "1.1"},
        version=PgVersion(16),
        description="the bench in room 2",
    )
    path = save_preset(preset)
    assert path == presets_dir() / "lab-ssd.toml"
    assert presets_dir().parent == data_dir
    users, problems = load_user_presets()
    assert users == {"lab-ssd": preset}
    assert problems == []
    assert set(all_presets()) == set(BUILTIN_PRESETS) | {"lab-ssd"}
    with pytest.raises(PresetError, match="exists already"):
        save_preset(preset, replace=False)
    # A broken file is reported, not fatal.
    (presets_dir() / "broken.toml").write_text("name = ")
    users, problems = load_user_presets()
    assert list(users) == ["lab-ssd"]
    assert "broken.toml" in problems[0]
    delete_preset("lab-ssd")
    with pytest.raises(PresetError, match="no user preset"):
        delete_preset("lab-ssd")


def test_built_in_presets_cannot_be_overwritten(data_dir: Path) -> None:
    builtin = BUILTIN_PRESETS["micron-15k-hdd"]
    with pytest.raises(PresetError, match="built-in"):
        save_preset(Preset(builtin.name, "mine", {"work_mem": "4MB"}))
    with pytest.raises(PresetError, match="built-in"):
        delete_preset(builtin.name)


def test_os_knobs_sent_with_hello_are_stored_with_the_run(store: SessionStore) -> None:
    """The agent's hello carries ``os_knobs=hostinfo.os_knobs()``; the run keeps them, and
    two runs' configurations can be compared setting by setting."""
    from bench_gui.engines.postgresql.pgtune import settings_differences
    from bench_gui.wire.hostinfo import os_knobs
    from bench_gui.wire.protocol import decode_line, encode_event

    knobs = os_knobs()
    run_id = store.create_run(name="r", plan={}, plan_toml="", target={}, engine="postgresql")
    hello = encode_event(
        "hello", 1, server="PostgreSQL 18", settings={"work_mem": "4MB"}, os_knobs=knobs
    )
    store.add_event(run_id, decode_line(hello))
    run = store.get_run(run_id)
    assert run.agent["os_knobs"] == knobs
    assert run.settings == {"work_mem": "4MB"}
    other = {**knobs, "sysctl": {**knobs["sysctl"], "vm.dirty_ratio": "99"}}  # type: ignore[dict-item]
    diff = settings_differences(
        {"settings": run.settings, "os": run.agent["os_knobs"]},
        {"settings": {"work_mem": "64MB"}, "os": other},
    )
    names = [name for name, _a, _b in diff]
    assert "settings.work_mem" in names
    assert "os.sysctl.vm.dirty_ratio" in names
