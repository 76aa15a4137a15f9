"""One store, two backends: the same migrations and queries on SQLite and on a private
PostgreSQL; who recorded each session; filters; the team store's login and TLS settings."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import psycopg
import pytest

from bench_gui.core.economics import ArrayInput, DevicePrice
from bench_gui.report import build_report
from bench_gui.report.tabular import render_json
from bench_gui.store import SCHEMA_VERSION, SessionStore, StoreError, sessions
from bench_gui.store.compare_input import session_data
from bench_gui.store.dialect import to_postgres
from bench_gui.store.exchange import export_session, import_session
from bench_gui.store.recorder import AUTHOR_ENV, current_host
from bench_gui.store.team_store import (
    TeamStoreConfig,
    TeamStoreError,
    delete_store_password,
    get_store_password,
    set_store_password,
)
from tests._fixtures.pg_tcp import PgTcp
from tests._fixtures.seed_sessions import (
    SEED003_BASELINE,
    build_seed000,
    build_seed003,
    seed003_points,
    store_session,
    sweep,
)

BACKENDS = ("sqlite", "postgresql")


@pytest.fixture(params=BACKENDS)
def any_store(
    request: pytest.FixtureRequest, data_dir: Path, tmp_path: Path
) -> Iterator[SessionStore]:
    """The store on a SQLite file, then on a team PostgreSQL database of the test's own."""
    if request.param == "sqlite":
        with SessionStore(tmp_path / "local.sqlite3") as opened:
            yield opened
    else:
        config = request.getfixturevalue("team_config")
        with SessionStore(team=config) as opened:
            yield opened


def _pg_tables(config: TeamStoreConfig) -> set[str]:
    with psycopg.connect(config.conninfo()) as conn:
        rows = conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchall()
    return {r[0] for r in rows}


def _portable(document: dict[str, Any]) -> dict[str, Any]:
    """A session's JSON without what each store gives itself (its id, UUID, recording time,
    the database role that wrote it: a team store's own)."""
    run = dict(document["run"])
    for key in ("id", "uuid", "created_at", "finished_at", "pushed_by"):
        run.pop(key)
    # Lines the desktop adds are stamped with the time they were written.
    log = [{**line, "t": None} if line["seq"] is None else line for line in document["log"]]
    return {**document, "run": run, "log": log}


def _no_times(text: str, runs: list[Any]) -> Any:
    """A report's JSON without the recording times of its sessions (each store's own), raw and
    as the report writes them ("2026-11-29 06:19 UTC": the two stores' sessions are recorded
    seconds apart, so a minute may turn between them)."""
    for run in runs:
        text = text.replace(run.created_at, "T").replace(run.finished_at or "T", "T")
    return json.loads(re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "T", text))


# ---- migrations ---------------------------------------------------------------------------------


def test_a_fresh_store_has_every_migration_on_both_backends(team_config: TeamStoreConfig) -> None:
    with SessionStore(team=team_config) as store:
        assert store.dialect.name == "postgresql"
        assert store.where == team_config.display
    with psycopg.connect(team_config.conninfo()) as conn:
        versions = [r[0] for r in conn.execute("SELECT version FROM schema_version ORDER BY 1")]
        columns = {
            r[0]
            for r in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = 'runs'"
            )
        }
        real = conn.execute(
            "SELECT data_type FROM information_schema.columns"
            " WHERE table_name = 'samples' AND column_name = 't'"
        ).fetchone()
    assert versions == list(range(1, SCHEMA_VERSION + 1))
    assert {"uuid", "author", "host"} <= columns
    assert real == ("double precision",)  # not PostgreSQL's 4-byte REAL: times keep their ms
    tables = _pg_tables(team_config)
    assert {"runs", "events", "samples", "steps", "run_tags", "run_storage", "run_pushes"} <= tables
    # Opening again migrates nothing and keeps one row per migration.
    SessionStore(team=team_config).close()
    with psycopg.connect(team_config.conninfo()) as conn:
        assert conn.execute("SELECT COUNT(*) FROM schema_version").fetchone() == (SCHEMA_VERSION,)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_older_store_is_upgraded_with_its_sessions(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store at schema 3 (before the team store) with sessions in it: opened by this
    version, every session gets a UUID, an unknown author and host, and nothing else moves."""

    def opener() -> SessionStore:
        if backend == "sqlite":
            return SessionStore(tmp_path / "old.sqlite3")
        return SessionStore(team=request.getfixturevalue("team_config"))

    with monkeypatch.context() as patch:
        patch.setattr(sessions, "MIGRATIONS", sessions.MIGRATIONS[:3])
        patch.setattr(sessions, "SCHEMA_VERSION", 3)
        # create_run of this version writes the new columns: record as version 3 did.
        with opener() as old:
            with old.transaction() as conn:
                for name in ("first", "second"):
                    conn.execute(
                        "INSERT INTO runs (name, status, created_at, engine, app_version, plan,"
                        " plan_toml, target) VALUES (?, 'complete', '2026-01-01T00:00:00',"
                        " 'postgresql', '0.0.9', '{}', '', '{}')",
                        (name,),
                    )
            first = old.list_runs()[-1].id
            with old.transaction() as conn:  # as version 3 wrote them
                conn.executemany(
                    "INSERT INTO run_tags (run_id, tag) VALUES (?, ?)",
                    [(first, "legacy"), (first, "RAID 10")],
                )
                conn.execute(
                    "INSERT INTO run_notes (run_id, text, updated_at) VALUES (?, ?, ?)",
                    (first, "from before", "2026-01-01T00:00:00"),
                )
    with opener() as store:
        runs = store.list_runs()
        assert [r.name for r in runs] == ["second", "first"]
        assert all(len(r.uuid) == 36 for r in runs)
        assert len({r.uuid for r in runs}) == 2
        assert [(r.author, r.host) for r in runs] == [("", ""), ("", "")]
        assert store.tags(first) == ["legacy", "RAID 10"]
        assert store.note(first) == "from before"
        run_id = store.create_run("new", {}, "", {}, "postgresql")
        assert store.get_run(run_id).host == current_host()
    if backend == "sqlite":
        conn = sqlite3.connect(tmp_path / "old.sqlite3")
        try:
            assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        finally:
            conn.close()


def test_translation_of_the_store_sql() -> None:
    assert to_postgres("SELECT a FROM t WHERE b = ? AND c LIKE '50%?'") == (
        "SELECT a FROM t WHERE b = %s AND c LIKE '50%%?'"
    )
    assert to_postgres("INSERT OR IGNORE INTO run_tags (run_id, tag) VALUES (?, ?)") == (
        "INSERT INTO run_tags (run_id, tag) VALUES (%s, %s) ON CONFLICT DO NOTHING"
    )
    assert to_postgres("INSERT INTO runs (name) VALUES (?)").endswith("RETURNING id")
    assert "RETURNING" not in to_postgres("INSERT INTO runs (name) VALUES (?)", False)
    ddl = to_postgres(
        "CREATE TABLE x (id INTEGER PRIMARY KEY AUTOINCREMENT, t REAL NOT NULL,"
        " tag TEXT NOT NULL COLLATE NOCASE) WITHOUT ROWID"
    )
    assert ddl == (
        "CREATE TABLE x (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
        " t DOUBLE PRECISION NOT NULL, tag CITEXT NOT NULL)"
    )
    assert to_postgres("SELECT * FROM p ORDER BY device COLLATE NOCASE, id") == (
        "SELECT * FROM p ORDER BY lower(device), id"
    )


# ---- the whole store on both backends ----------------------------------------------------------


def test_seed_sessions_read_back_the_same_from_both_backends(
    team_config: TeamStoreConfig, tmp_path: Path
) -> None:
    """The seed briefs' sessions, recorded as the runner records them, tagged, priced: every
    figure, tag and price reads back the same from SQLite and from PostgreSQL."""
    views: list[dict[str, Any]] = []
    for store in (SessionStore(tmp_path / "a.sqlite3"), SessionStore(team=team_config)):
        with store:
            hdd, ssd = build_seed000(store)
            base, scaled = build_seed003(store)
            store.add_tags(hdd, ["HDD", "raid 10", "seed 000"])
            store.add_tags(ssd, ["SSD", "RAID 10", "Seed 000", "ssd"])  # "ssd" is there: once
            store.set_note(ssd, "4 x S650DC, 100% writes at 50% fill")
            store.set_storage_description(base, devices="Micron 9300", count=2, raid="1")
            store.set_run_array(scaled, ArrayInput(device="Micron 9300", count=4))
            store.add_device_price(DevicePrice("micron 9300", 900.0, "USD", "2019-09-01", ""))
            detail = store.get_run(ssd)
            views.append(
                {
                    "list": [(r.name, r.steps, r.best_nopm, r.vus) for r in store.list_runs()],
                    "sessions": [_portable(store.run_to_json(i)) for i in (hdd, ssd, base, scaled)],
                    "tags": [store.tags(i) for i in (hdd, ssd)],
                    "all_tags": store.all_tags(),
                    "note": store.note(ssd),
                    "storage": {k: v for k, v in (store.storage_description(base) or {}).items()}
                    | {"updated_at": None},
                    "array": store.run_array(scaled),
                    "prices": [e.price for e in store.device_price_entries()],
                    "settings": detail.settings,
                    "found": [r.name for r in store.find_runs("100%")],
                    # What a comparison reads, and the report made of it.
                    "compare": [
                        replace(session_data(store, i), created_at="", measurement="")
                        for i in (hdd, ssd, base, scaled)
                    ],
                    "report": _no_times(
                        render_json(build_report(store, [hdd, ssd], hdd)), store.list_runs()
                    ),
                }
            )
    sqlite_view, pg_view = views
    assert pg_view == sqlite_view
    assert sqlite_view["tags"][1] == ["RAID 10", "Seed 000", "SSD"]
    assert sqlite_view["all_tags"] == [("HDD", 1), ("raid 10", 2), ("seed 000", 2), ("SSD", 1)]
    # Times keep their milliseconds on PostgreSQL (DOUBLE PRECISION, not REAL).
    assert pg_view["sessions"][0]["steps"][0]["t"] == sqlite_view["sessions"][0]["steps"][0]["t"]


def test_sessions_say_who_recorded_them_and_where(
    any_store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(AUTHOR_ENV, "  Ada   Lovelace ")
    run_id = any_store.create_run("mine", {}, "", {}, "postgresql")
    detail = any_store.get_run(run_id)
    assert (detail.author, detail.host) == ("Ada Lovelace", current_host())
    monkeypatch.delenv(AUTHOR_ENV)
    other = any_store.create_run("os user", {}, "", {}, "postgresql")
    assert any_store.get_run(other).author not in ("", "Ada Lovelace")
    assert any_store.get_run(other).uuid != detail.uuid


def test_import_keeps_who_recorded_a_session(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(AUTHOR_ENV, "grace")
    with SessionStore(tmp_path / "grace.sqlite3") as theirs:
        run_id = build_seed000(theirs, prices=False)[0]
        uuid = theirs.get_run(run_id).uuid
        path = export_session(theirs, run_id, tmp_path / "s.bgsession.json")
    monkeypatch.setenv(AUTHOR_ENV, "alan")
    with SessionStore(tmp_path / "alan.sqlite3") as mine:
        first = mine.get_run(import_session(mine, path))
        second = mine.get_run(import_session(mine, path))
    assert (first.author, first.uuid) == ("grace", uuid)
    # Importing twice still gives two sessions (ids are the store's own): the copy gets a UUID
    # of its own so the two never collide in a team store.
    assert second.author == "grace"
    assert second.uuid not in ("", uuid)


def test_filters_by_author_tag_and_system(
    any_store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(AUTHOR_ENV, "grace")
    hdd, ssd = build_seed000(any_store, prices=False)
    monkeypatch.setenv(AUTHOR_ENV, "alan")
    base, scaled = build_seed003(any_store)
    any_store.add_tags(ssd, ["Flash"])
    any_store.add_tags(scaled, ["flash", "nvme"])

    def names(**filters: Any) -> set[int]:
        return {r.id for r in any_store.filter_runs(**filters)}

    assert names(author="GRACE") == {hdd, ssd}
    assert names(author="alan") == {base, scaled}
    assert names(tag="FLASH") == {ssd, scaled}
    assert names(author="grace", tag="flash") == {ssd}
    lab = store_session(
        any_store,
        "lab 7",
        sweep("PostgreSQL 17.2", {}, seed003_points(SEED003_BASELINE)),
        plan_extra={"target": {"kind": "postgresql", "host": "db-lab-7", "database": "tpcc"}},
        inventory={"hostname": "Lab7-Node"},
    )
    assert names(system="LAB-7") == {lab}  # in the target's label, any case
    assert names(system="lab7-node") == {lab}  # the inventory's host name
    assert names(system="r730xd") == {hdd, ssd, base, scaled}
    assert names(host=current_host()) == {hdd, ssd, base, scaled, lab}
    assert names(author="nobody") == set()
    assert names(tag="nvme", system="lab-7") == set()
    assert names(author="alan", system="lab-7", kind=None) == {lab}


# ---- the team store's login ---------------------------------------------------------------------


def test_the_password_comes_from_the_keyring(team_config: TeamStoreConfig) -> None:
    assert get_store_password(team_config) is None
    set_store_password(team_config, "s3cret pass")
    assert "password='s3cret pass'" in team_config.conninfo()
    with SessionStore(team=team_config) as store:
        conn = store._conn()
        assert conn.raw.info.password == "s3cret pass"  # type: ignore[attr-defined]
        assert "s3cret" not in repr(store)
        assert "s3cret" not in store.where
    assert delete_store_password(team_config)
    assert not delete_store_password(team_config)
    assert "password" not in team_config.conninfo()


def test_bad_team_store_settings_are_named() -> None:
    with pytest.raises(TeamStoreError, match="holds a password"):
        TeamStoreConfig("postgresql://alice:hunter2@db.lab/bench")
    with pytest.raises(TeamStoreError, match="PostgreSQL URL"):
        TeamStoreConfig("mysql://alice@db.lab/bench")
    with pytest.raises(TeamStoreError, match="sslmode must be one of"):
        TeamStoreConfig("postgresql://alice@db.lab/bench", sslmode="verify_full")
    config = TeamStoreConfig(
        "postgresql://alice@db.lab:6543/bench", sslmode="verify-full", sslrootcert="/etc/lab.crt"
    )
    assert config.key == "alice@db.lab:6543/bench"
    assert config.params["sslmode"] == "verify-full"
    assert "sslrootcert=/etc/lab.crt" in config.conninfo()


def test_verified_tls_is_required_when_asked(pg_tcp: PgTcp, data_dir: Path) -> None:
    """The private server speaks no TLS: with sslmode=verify-full the login is refused (never
    sent in clear), and the message says so; without it, the same URL works."""
    url = f"postgresql://postgres@127.0.0.1:{pg_tcp.port}/postgres"
    with pytest.raises(StoreError) as caught:
        SessionStore(team=TeamStoreConfig(url, sslmode="verify-full"))
    assert "does not offer TLS" in caught.value.reason
    assert "SSL" in caught.value.reason  # libpq's own words follow
    assert "127.0.0.1" in str(caught.value)


def test_an_unreachable_team_store_is_named(data_dir: Path) -> None:
    from tests._fixtures.ssh import free_port

    url = f"postgresql://bench@127.0.0.1:{free_port()}/team"
    with pytest.raises(StoreError, match=r"cannot open it: the team store cannot be reached"):
        SessionStore(team=TeamStoreConfig(url, sslmode="disable"))


# ---- the rest of the store on both backends -----------------------------------------------------


def test_tuning_history_and_hammerdb_imports_on_both_backends(any_store: SessionStore) -> None:
    from bench_gui.store.hammerdb import import_hammerdb
    from bench_gui.store.tuning_history import TuningHistory
    from tests.store.test_hammerdb_import import FIXTURE, RESULTS

    history = TuningHistory(any_store)
    applied = history.record(
        target_key="pg:db1",
        target_label="db1",
        kind="postgresql",
        action="apply",
        profile="OLTP",
        changes={"shared_buffers": {"from": "128MB", "to": "4GB"}},
        snapshot={"shared_buffers": "128MB"},
    )
    assert history.last_open_apply("pg:db1") == history.get(applied)
    undo = history.record(
        target_key="pg:db1",
        target_label="db1",
        kind="postgresql",
        action="rollback",
        undoes=applied,
    )
    assert history.last_open_apply("pg:db1") is None
    assert [e.id for e in history.entries("pg:db1")] == [undo, applied]

    first = import_hammerdb(any_store, FIXTURE, utc_offset_h=0)
    again = import_hammerdb(any_store, FIXTURE, utc_offset_h=0)
    assert len(first.sessions) > 0
    assert again.sessions == ()  # the jobs imported before are found on both backends
    measured = [s.nopm or 0.0 for imp in first.sessions for s in any_store.steps(imp.run_id)]
    assert sorted(measured) == sorted(float(r[1]) for r in RESULTS.values())
    assert all(r.uuid for r in any_store.list_runs(None))


def test_a_team_store_closes_only_this_machines_stale_runs(
    team_config: TeamStoreConfig, data_dir: Path
) -> None:
    """A desktop starting on a team store closes the runs it left running when it crashed,
    never a colleague's run that is going on at this moment on another machine."""
    with SessionStore(team=team_config) as store:
        mine = store.create_run("crashed here", {}, "", {}, "postgresql")
        theirs = store.create_run("running elsewhere", {}, "", {}, "postgresql")
        with store.transaction() as conn:
            conn.execute("UPDATE runs SET host = 'lab-desktop-2' WHERE id = ?", (theirs,))
    with SessionStore(team=team_config) as later:  # a new process: no claim held
        assert later.mark_stale_running() == [mine]
        assert later.get_run(theirs).status == "running"
        assert later.get_run(mine).status == "incomplete"


def test_a_dropped_connection_is_opened_again(
    team_config: TeamStoreConfig, pg_server: Any, data_dir: Path
) -> None:
    """The team server ends this desktop's session (a restart, an admin): the call that meets
    the dead connection fails with the store's error, the next one works on a new one."""
    with SessionStore(team=team_config) as store:
        run_id = store.create_run("before", {}, "", {}, "postgresql")
        pid = store._conn().raw.info.backend_pid  # type: ignore[attr-defined]
        with psycopg.connect(pg_server.uri(), autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        with pytest.raises(StoreError, match="cannot read it"):
            store.get_run(run_id)
        assert store.get_run(run_id).name == "before"
        store.set_note(run_id, "after the cut")
        assert store.note(run_id) == "after the cut"
        assert store._conn().raw.info.backend_pid != pid  # type: ignore[attr-defined]


def test_the_event_stream_is_stored_alike_on_both_backends(any_store: SessionStore) -> None:
    """Replays after a reconnect, a step reported twice, a power log imported afterwards
    (over the run's own idle measurement): the same on SQLite and PostgreSQL."""
    from bench_gui.core.power import PowerReading
    from tests.store.test_sessions import ev, feed, full_run_events, new_run, step_end

    run_id = new_run(any_store)
    events = full_run_events()
    feed(any_store, run_id, events[:6])
    assert feed(any_store, run_id, events[2:]) == [False] * 4 + [True] * (len(events) - 6)
    assert feed(any_store, run_id, events) == [False] * len(events)
    assert any_store.last_seq(run_id) == 13
    # The agent restarted step 1 and reported it again: the later report wins, whole.
    assert any_store.add_event(run_id, step_end(14, 1, 16, 9900.0))
    steps = any_store.steps(run_id)
    assert [(s.step, s.nopm, s.seq) for s in steps] == [(0, 6100.0, 6), (1, 9900.0, 14)]
    assert any_store.histograms(run_id, 1) == {
        "new_order": "SElTVFIBAAA=",
        "payment": "SElTVFICAAA=",
    }
    assert any_store.get_run(run_id).status == "complete"
    # A power log: the idle measurement (progress events) and each step's window.
    other = new_run(any_store, "power")
    t0 = 1_700_000_000.0
    summary = {"window_t0": t0 + 100, "window_t1": t0 + 160, "vus": 8, "nopm": 6000.0}
    feed(
        any_store,
        other,
        [
            ev("progress", 1, t=t0 + 10, task="idle", done=0.0, total=20.0),
            ev("progress", 2, t=t0 + 30, task="idle", done=20.0, total=20.0),
            ev("step", 3, t=t0 + 160, phase="end", step=0, vus=8, summary=summary),
        ],
    )
    readings = [PowerReading(t0 + s, 150.0 if s < 50 else 400.0) for s in range(0, 200, 2)]
    result = any_store.import_power_log(other, readings, "wall.csv")
    assert result.idle_w == pytest.approx(150.0)
    assert result.idle_window == (t0 + 10, t0 + 30)
    assert any_store.steps(other)[0].summary["power_w"] == pytest.approx(400.0)
