"""Schema migration 5: the tuning history takes a kind per engine, on both backends.

A store written before it (the table created on first use, kinds 'postgresql' and 'os' only,
MariaDB applies recorded as 'postgresql') is upgraded with every entry, id and link kept, the
MariaDB/MySQL entries relabelled, and the next id after the highest one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench_gui.store import SessionStore, StoreError, sessions
from bench_gui.store.tuning_history import KINDS, TuningHistory
from bench_gui.store.tuning_migration import LEGACY_TABLE

BACKENDS = ("sqlite", "postgresql")


def _opener(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> SessionStore:
    if backend == "sqlite":
        return SessionStore(tmp_path / "old.sqlite3")
    return SessionStore(team=request.getfixturevalue("team_config"))


def _legacy_entry(conn: object, key: str, kind: str, action: str, undoes: int | None) -> None:
    conn.execute(  # type: ignore[attr-defined]
        "INSERT INTO tuning_history (target_key, target_label, kind, action, created_at,"
        " profile, changes, snapshot, result, undoes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (key, key, kind, action, "2026-01-01T00:00:00", "p", "{}",
         json.dumps({"values": {"x": "1"}}) if action == "apply" else None, "{}", undoes),
    )  # fmt: skip


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_older_history_is_upgraded_with_its_entries(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patch:
        patch.setattr(sessions, "MIGRATIONS", sessions.MIGRATIONS[:4])
        patch.setattr(sessions, "SCHEMA_VERSION", 4)
        with _opener(backend, request, tmp_path) as old:
            with old.transaction() as conn:
                conn.execute(LEGACY_TABLE, ())
                _legacy_entry(conn, "postgresql://pg@db:5432/tpcc", "postgresql", "apply", None)
                _legacy_entry(conn, "mariadb://bench@db:3306", "postgresql", "apply", None)
                _legacy_entry(conn, "mariadb://bench@db:3306", "postgresql", "rollback", 2)
                conn.execute("UPDATE tuning_history SET undone_by = 3 WHERE id = 2", ())
                _legacy_entry(conn, "mysql://root@db:3306", "postgresql", "apply", None)
                _legacy_entry(conn, "os://db", "os", "apply", None)
            # The old check refuses the new kinds: what the migration is for.
            with pytest.raises(StoreError), old.transaction() as conn:
                _legacy_entry(conn, "mssql://sa@db:1433/tpcc", "mssql", "apply", None)
    with _opener(backend, request, tmp_path) as store:
        history = TuningHistory(store)
        entries = {e.id: e for e in history.entries()}
        assert {i: e.kind for i, e in entries.items()} == {
            1: "postgresql", 2: "mariadb", 3: "mariadb", 4: "mysql", 5: "os",
        }  # fmt: skip
        assert entries[2].undone_by == 3
        assert entries[3].undoes == 2
        assert entries[1].snapshot == {"values": {"x": "1"}}
        # An older MariaDB apply is found under its real kind, so it can still be rolled back.
        found = history.last_open_apply("mysql://root@db:3306", kind="mysql")
        assert found is not None
        assert found.id == 4
        assert history.last_open_apply("mysql://root@db:3306") is None
        new = history.record(
            target_key="mssql://sa@db:1433/tpcc", target_label="sa@db:1433/tpcc", kind="mssql",
            action="apply", snapshot={"values": {}},
        )  # fmt: skip
        assert new > max(entries)  # after the highest id kept (PostgreSQL may skip one)
        rollback = history.record(
            target_key="mssql://sa@db:1433/tpcc", target_label="sa@db:1433/tpcc", kind="mssql",
            action="rollback", undoes=new,
        )  # fmt: skip
        got = history.get(new)
        assert got is not None
        assert got.undone_by == rollback
        # The database itself still checks the kind.
        with pytest.raises(StoreError), store.transaction() as conn:
            _legacy_entry(conn, "x", "oracle", "apply", None)
        with pytest.raises(ValueError, match="kind must be one of"):
            history.record(target_key="x", target_label="x", kind="oracle", action="apply")
        with store.transaction() as conn:
            if backend == "sqlite":  # the copy's links point at the renamed table
                ddl = conn.execute(
                    "SELECT sql FROM sqlite_master WHERE name = 'tuning_history'"
                ).fetchone()[0]
                assert "tuning_history_v5" not in ddl
                assert ddl.count('REFERENCES "tuning_history" (id)') == 2
                assert "CONSTRAINT tuning_history_kind" in ddl
            else:  # the check replaced by its named successor, the one check on kind
                names = conn.execute(
                    "SELECT conname FROM pg_constraint"
                    " WHERE conrelid = 'tuning_history'::regclass AND contype = 'c'",
                    (),
                ).fetchall()
                assert "tuning_history_kind" in [r[0] for r in names]
                assert len(names) == 2  # kind's and action's


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_new_store_takes_every_engine_kind(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    with _opener(backend, request, tmp_path) as store:
        history = TuningHistory(store)
        ids = [
            history.record(target_key=f"{kind}://t", target_label="t", kind=kind, action="apply")
            for kind in KINDS
        ]
        assert [e.kind for e in history.entries()] == list(reversed(KINDS))
        assert ids == sorted(ids)
        assert [e.id for e in history.entries(kind="mssql")] == [ids[KINDS.index("mssql")]]
