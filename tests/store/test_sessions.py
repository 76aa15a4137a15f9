"""The session store against real SQLite files: schema, events, idempotency, errors, threads."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench_gui import __version__
from bench_gui.core.plan_model import Plan
from bench_gui.store import (
    SCHEMA_VERSION,
    SessionNotFound,
    SessionStore,
    StoreError,
    sessions,
)
from bench_gui.wire.protocol import Event, decode_line, encode_event

T0 = 1_700_000_000.0


def ev(kind: str, seq: int, t: float | None = None, **data: Any) -> Event:
    """An event as the runner gets it: encoded by the agent, decoded from the stream."""
    return decode_line(encode_event(kind, seq, T0 + seq if t is None else t, **data))


def new_run(store: SessionStore, name: str = "RAID 10 sweep", kind: str = "run") -> int:
    plan = Plan(name=name)
    return store.create_run(
        name, plan.to_dict(), plan.to_toml(), plan.to_dict()["target"], "postgresql", kind=kind
    )


def hello(seq: int = 1) -> Event:
    return ev(
        "hello",
        seq,
        agent_version="0.1.0",
        engine="postgresql",
        server="PostgreSQL 16.3",
        settings={"shared_buffers": "4GB", "max_connections": 200},
        config={"warehouses": 4},
        pid=4242,
    )


def sample(seq: int, step: int = 0, vus: int = 8, nopm: float = 6000.0) -> Event:
    return ev(
        "sample",
        seq,
        step=step,
        vus=vus,
        phase="measure",
        elapsed=float(seq),
        remaining=10.0,
        counts={"new_order": 100, "payment": 98},
        rollbacks=1,
        errors={},
        latency_ms={"new_order": {"avg": 2.5, "p50": 2.0, "p95": 5.0, "p99": 9.0}},
        nopm_driver=nopm,
        tpm_driver=nopm * 2.3,
        nopm_db=nopm + 10,
        tpm_db=nopm * 2.3 + 10,
        host={"cpu": 42.0},
    )


def step_end(seq: int, step: int, vus: int, nopm: float, complete: bool = True) -> Event:
    summary = {
        "step": step,
        "vus": vus,
        "nopm": nopm,
        "tpm": nopm * 2.3,
        "nopm_driver": nopm - 5,
        "window_s": 20.0,
        "rampup_s": 10.0,
        "counts": {"new_order": 2000},
        "rollbacks": 20,
        "errors": {"deadlock": 1},
        "latency_ms": {"all": {"avg": 3.0}, "new_order": {"avg": 2.5}},
        "histograms": {"new_order": "SElTVFIBAAA=", "payment": "SElTVFICAAA="},
        "complete": complete,
    }
    return ev("step", seq, phase="end", step=step, vus=vus, summary=summary)


def feed(store: SessionStore, run_id: int, events: list[Event]) -> list[bool]:
    return [store.add_event(run_id, e) for e in events]


def full_run_events() -> list[Event]:
    return [
        hello(1),
        ev("progress", 2, task="build", done=4, total=4, unit="warehouses", rate=1.0, message=""),
        ev("step", 3, phase="start", step=0, vus=8),
        sample(4),
        sample(5),
        step_end(6, 0, 8, 6100.0),
        ev("step", 7, phase="start", step=1, vus=16),
        sample(8, step=1, vus=16, nopm=9000.0),
        step_end(9, 1, 16, 9100.0),
        ev("log", 10, level="warning", message="checkpoint during the window"),
        ev("error", 11, message="connection reset", fatal=False, code="E42"),
        ev("summary", 12, steps=[], status="ok"),
        ev("done", 13, status="ok", message="2 steps"),
    ]


# -- files, paths, migrations -------------------------------------------------------------------


def test_default_path_follows_env_var(data_dir: Path) -> None:
    with SessionStore() as store:
        assert store.path == data_dir / "sessions.sqlite3"
        assert store.path.is_file()


def test_migrates_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite3"
    path.touch()
    with SessionStore(path) as store:
        assert new_run(store) == 1
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        conn.close()
    assert {"runs", "events", "samples", "steps", "histograms", "run_log"} <= tables


def test_reopening_keeps_data(store: SessionStore) -> None:
    run_id = new_run(store)
    feed(store, run_id, [hello(1), sample(2)])
    store.close()
    with SessionStore(store.path) as again:
        assert [r.id for r in again.list_runs()] == [run_id]
        assert len(again.samples(run_id)) == 1
        assert again.last_seq(run_id) == 2


def test_later_migrations_run_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.sqlite3"
    with SessionStore(path) as store:
        run_id = new_run(store)
    extra = ("ALTER TABLE runs ADD COLUMN notes TEXT NOT NULL DEFAULT ''",)
    monkeypatch.setattr(sessions, "MIGRATIONS", (*sessions.MIGRATIONS, extra))
    monkeypatch.setattr(sessions, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with SessionStore(path) as store:
        assert store.get_run(run_id).name == "RAID 10 sweep"
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
        assert conn.execute("SELECT notes FROM runs").fetchone()[0] == ""
    finally:
        conn.close()


def test_a_failing_migration_leaves_the_previous_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.sqlite3"
    SessionStore(path).close()
    broken = ("CREATE TABLE good (x INTEGER)", "THIS IS NOT SQL")
    monkeypatch.setattr(sessions, "MIGRATIONS", (*sessions.MIGRATIONS, broken))
    monkeypatch.setattr(sessions, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with pytest.raises(StoreError, match=f"upgrade it to schema version {SCHEMA_VERSION + 1}"):
        SessionStore(path)
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    finally:
        conn.close()
    assert "good" not in names


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    SessionStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(StoreError, match="newer bench-gui"):
        SessionStore(path)


def test_not_a_database_gives_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.sqlite3"
    path.write_text("these are my notes, not a database\n" * 100)
    with pytest.raises(StoreError) as caught:
        SessionStore(path)
    message = str(caught.value)
    assert str(path) in message
    assert "not a SQLite database" in message
    assert caught.value.path == path
    assert path.read_text().startswith("these are my notes")  # untouched


def test_closed_store_says_so(store: SessionStore) -> None:
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.list_runs()


# -- events -------------------------------------------------------------------------------------


def test_full_run_round_trip(store: SessionStore) -> None:
    run_id = new_run(store)
    assert all(feed(store, run_id, full_run_events()))

    detail = store.get_run(run_id)
    assert detail.status == "complete"
    assert detail.message == "2 steps"
    assert detail.finished_at is not None
    assert detail.finished_at.startswith("2023-11-14T")
    assert detail.created_at.endswith("+00:00")
    assert detail.server_version == "PostgreSQL 16.3"
    assert detail.settings == {"shared_buffers": "4GB", "max_connections": "200"}
    assert detail.agent == {
        "agent_version": "0.1.0",
        "engine": "postgresql",
        "config": {"warehouses": 4},
        "pid": 4242,
    }
    assert detail.app_version == __version__
    assert detail.plan["workload"]["warehouses"] == 4
    assert "[workload]" in detail.plan_toml
    assert detail.target["kind"] == "demo"
    assert detail.target_summary == "embedded demo"
    assert detail.steps == 2
    assert detail.best_nopm == 9100.0
    assert detail.vus == [8, 16]

    samples = store.samples(run_id)
    assert [s.seq for s in samples] == [4, 5, 8]
    first = samples[0]
    assert (first.step, first.vus, first.phase, first.elapsed) == (0, 8, "measure", 4.0)
    assert first.t == T0 + 4
    assert first.nopm_driver == 6000.0
    assert first.nopm_db == 6010.0
    assert first.counts == {"new_order": 100, "payment": 98}
    assert first.latency_ms["new_order"]["p95"] == 5.0
    assert first.extra == {"remaining": 10.0, "rollbacks": 1, "host": {"cpu": 42.0}}
    assert [s.seq for s in store.samples(run_id, since_seq=5)] == [8]

    steps = store.steps(run_id)
    assert [(s.step, s.vus, s.nopm, s.complete) for s in steps] == [
        (0, 8, 6100.0, True),
        (1, 16, 9100.0, True),
    ]
    assert steps[0].nopm_driver == 6095.0
    assert steps[0].window_s == 20.0
    assert steps[0].errors == {"deadlock": 1}
    assert steps[0].latency_ms["all"]["avg"] == 3.0
    assert "histograms" not in steps[0].summary
    assert steps[0].summary["rampup_s"] == 10.0
    assert store.histograms(run_id, 0) == {
        "new_order": "SElTVFIBAAA=",
        "payment": "SElTVFICAAA=",
    }
    assert store.histograms(run_id, 7) == {}

    log = store.log(run_id)
    assert [(line.seq, line.level, line.message) for line in log] == [
        (10, "warning", "checkpoint during the window"),
        (11, "error", "E42: connection reset"),
    ]
    assert store.last_seq(run_id) == 13


def test_duplicate_seq_is_ignored(store: SessionStore) -> None:
    run_id = new_run(store)
    events = full_run_events()
    feed(store, run_id, events[:6])
    # A reconnect replays from an older offset: everything already stored is skipped.
    assert feed(store, run_id, events[2:]) == [False] * 4 + [True] * (len(events) - 6)
    assert feed(store, run_id, events) == [False] * len(events)
    assert [s.seq for s in store.samples(run_id)] == [4, 5, 8]
    assert len(store.steps(run_id)) == 2
    assert len(store.log(run_id)) == 2
    # Same seq, different content: still the first one wins.
    assert store.add_event(run_id, sample(4, nopm=1.0)) is False
    assert store.samples(run_id)[0].nopm_driver == 6000.0


def test_seq_is_per_run(store: SessionStore) -> None:
    a, b = new_run(store, "a"), new_run(store, "b")
    assert store.add_event(a, sample(1))
    assert store.add_event(b, sample(1))
    assert store.last_seq(a) == store.last_seq(b) == 1
    assert store.last_seq(new_run(store, "c")) == 0


def test_incomplete_run_keeps_its_samples(store: SessionStore) -> None:
    run_id = new_run(store)
    feed(store, run_id, [hello(1), sample(2), sample(3), step_end(4, 0, 8, 5000.0, False)])
    store.finish_run(run_id, "incomplete", "stopped by the user")
    detail = store.get_run(run_id)
    assert detail.status == "incomplete"
    assert detail.message == "stopped by the user"
    assert detail.finished_at is not None
    assert len(store.samples(run_id)) == 2
    assert store.steps(run_id)[0].complete is False
    assert detail.best_nopm == 5000.0  # no complete step: the incomplete one still counts


def test_best_nopm_prefers_complete_steps(store: SessionStore) -> None:
    run_id = new_run(store)
    feed(store, run_id, [step_end(1, 0, 8, 5000.0), step_end(2, 1, 16, 9000.0, False)])
    assert store.list_runs()[0].best_nopm == 5000.0


def test_done_statuses(store: SessionStore) -> None:
    expected = {"ok": "complete", "stopped": "incomplete", "failed": "failed", "odd": "incomplete"}
    for agent_status, status in expected.items():
        run_id = new_run(store, agent_status)
        store.add_event(run_id, ev("done", 1, status=agent_status, message="bye"))
        assert store.get_run(run_id).status == status


def test_finish_run_keeps_the_agent_message_unless_given(store: SessionStore) -> None:
    run_id = new_run(store)
    store.add_event(run_id, ev("done", 1, status="failed", message="out of memory"))
    store.finish_run(run_id, "failed")
    assert store.get_run(run_id).message == "out of memory"
    with pytest.raises(ValueError, match="status must be one of"):
        store.finish_run(run_id, "done")


def test_server_info_and_inventory(store: SessionStore) -> None:
    run_id = new_run(store)
    store.set_server_info(run_id, "16.3", {"work_mem": "64MB"}, {"disks": ["sda", "sdb"]})
    store.set_server_info(run_id, "16.4", {"work_mem": "128MB"})
    detail = store.get_run(run_id)
    assert (detail.server_version, detail.settings) == ("16.4", {"work_mem": "128MB"})
    assert detail.inventory == {"disks": ["sda", "sdb"]}


def test_add_log_from_the_desktop(store: SessionStore) -> None:
    run_id = new_run(store)
    store.add_event(run_id, ev("log", 1, level="info", message="agent started"))
    store.add_log(run_id, "command", "mkfs.xfs /dev/md0", t=T0)
    assert [(line.seq, line.level) for line in store.log(run_id)] == [
        (1, "info"),
        (None, "command"),
    ]


# -- listing, renaming, deleting ----------------------------------------------------------------


def test_list_runs_newest_first_and_by_kind(store: SessionStore) -> None:
    first = new_run(store, "first")
    second = new_run(store, "second")
    probe = new_run(store, "disk probe", kind="randread")
    target = {"kind": "postgresql", "host": "db1", "port": 5432, "user": "bench", "database": "t"}
    remote = store.create_run("remote", {}, "", target, "postgresql")
    assert [r.id for r in store.list_runs()] == [remote, second, first]
    assert [r.id for r in store.list_runs("randread")] == [probe]
    assert [r.id for r in store.list_runs(None)] == [remote, probe, second, first]
    info = store.list_runs()[0]
    assert info.target_summary == "bench@db1:5432/t"
    assert (info.status, info.steps, info.best_nopm, info.vus) == ("running", 0, None, [])


def test_rename_and_delete(store: SessionStore) -> None:
    keep, gone = new_run(store, "keep"), new_run(store, "gone")
    feed(store, gone, full_run_events())
    feed(store, keep, [sample(1)])
    store.rename_run(keep, "  RAID 10, 8-64 users ")
    assert store.get_run(keep).name == "RAID 10, 8-64 users"
    with pytest.raises(ValueError, match="empty"):
        store.rename_run(keep, "   ")
    store.delete_run(gone)
    assert [r.id for r in store.list_runs()] == [keep]
    conn = sqlite3.connect(store.path)
    try:
        for table in ("events", "samples", "steps", "histograms", "run_log"):
            count = conn.execute(f"SELECT COUNT(*) FROM {table} WHERE run_id = ?", (gone,))
            assert count.fetchone()[0] == 0, table
    finally:
        conn.close()
    assert len(store.samples(keep)) == 1
    # Ids are never reused: a new run does not inherit the deleted one's id.
    assert new_run(store) > gone


def test_unknown_session(store: SessionStore) -> None:
    calls: list[Callable[[], object]] = [
        lambda: store.get_run(99),
        lambda: store.samples(99),
        lambda: store.steps(99),
        lambda: store.histograms(99, 0),
        lambda: store.log(99),
        lambda: store.last_seq(99),
        lambda: store.add_event(99, sample(1)),
        lambda: store.add_log(99, "info", "x"),
        lambda: store.set_server_info(99, "16", {}),
        lambda: store.finish_run(99, "complete"),
        lambda: store.rename_run(99, "x"),
        lambda: store.delete_run(99),
        lambda: store.run_to_json(99),
    ]
    for call in calls:
        with pytest.raises(SessionNotFound) as caught:
            call()
        assert str(caught.value) == "no session with id 99"
        assert caught.value.run_id == 99
        assert isinstance(caught.value, KeyError | LookupError)


def test_mark_stale_running(store: SessionStore) -> None:
    crashed = new_run(store, "crashed")
    reattach = new_run(store, "re-attach")
    done = new_run(store, "done")
    never_started = new_run(store, "never started")
    feed(store, crashed, [hello(1), sample(2)])
    store.finish_run(done, "complete")
    # A run this store (this process) writes is alive: the app that wrote these is gone.
    assert store.mark_stale_running() == []
    store.claims.release_all()
    assert store.mark_stale_running(keep={reattach}) == [crashed, never_started]
    statuses = {r.id: r.status for r in store.list_runs()}
    assert statuses == {
        crashed: "incomplete",
        reattach: "running",
        done: "complete",
        never_started: "incomplete",
    }
    detail = store.get_run(crashed)
    assert detail.finished_at == sessions._iso(T0 + 2)  # when the last event arrived
    assert "stopped" in detail.message
    assert len(store.samples(crashed)) == 1
    assert store.mark_stale_running(status="failed") == [reattach]
    assert store.get_run(reattach).status == "failed"
    assert store.mark_stale_running() == []


def test_run_to_json(store: SessionStore) -> None:
    run_id = new_run(store)
    feed(store, run_id, full_run_events())
    data = json.loads(json.dumps(store.run_to_json(run_id)))
    assert data["format"] == "bench-gui-session"
    assert data["run"]["id"] == run_id
    assert data["run"]["server_version"] == "PostgreSQL 16.3"
    assert [s["seq"] for s in data["samples"]] == [4, 5, 8]
    assert data["steps"][1]["histograms"]["payment"] == "SElTVFICAAA="
    assert len(data["log"]) == 2
    assert [e["kind"] for e in data["events"]] == [
        "hello",
        "progress",
        "step",
        "step",
        "summary",
        "done",
    ]


# -- failures and threads -----------------------------------------------------------------------


def test_full_disk_surfaces_and_loses_nothing(store: SessionStore) -> None:
    run_id = new_run(store)
    feed(store, run_id, [hello(1), sample(2)])
    conn = store._conn()
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")  # the "disk" is now full
    big = "x" * 100_000

    def fill_up() -> None:
        for seq in range(3, 50):
            store.add_event(run_id, ev("log", seq, level="info", message=big))

    with pytest.raises(StoreError) as caught:
        fill_up()
    message = str(caught.value)
    assert str(store.path) in message
    assert "disk is full" in message
    last = store.last_seq(run_id)
    store.close()
    with SessionStore(store.path) as again:
        assert [s.seq for s in again.samples(run_id)] == [2]
        assert again.get_run(run_id).server_version == "PostgreSQL 16.3"
        assert again.last_seq(run_id) == last
        # After the failure the store still works once there is room again.
        assert again.add_event(run_id, sample(last + 1))


def test_read_only_database_surfaces(store: SessionStore) -> None:
    run_id = new_run(store)
    store.add_event(run_id, sample(1))
    store._conn().execute("PRAGMA query_only = ON")  # as a read-only file would behave
    with pytest.raises(StoreError, match="read-only") as caught:
        store.add_event(run_id, sample(2))
    assert str(store.path) in str(caught.value)
    assert [s.seq for s in store.samples(run_id)] == [1]


def test_every_event_is_committed_at_once(store: SessionStore) -> None:
    run_id = new_run(store)
    store.add_event(run_id, sample(1))
    with SessionStore(store.path) as other:  # another connection, as after a crash
        assert [s.seq for s in other.samples(run_id)] == [1]


def test_transaction_groups_changes(store: SessionStore) -> None:
    run_id = new_run(store)

    def change_then_fail() -> None:
        with store.transaction():
            store.add_event(run_id, sample(1))
            store.rename_run(run_id, "renamed")
            raise RuntimeError("abort")

    with pytest.raises(RuntimeError):
        change_then_fail()
    assert store.samples(run_id) == []
    assert store.get_run(run_id).name == "RAID 10 sweep"
    with store.transaction():
        store.add_event(run_id, sample(1))
        store.add_event(run_id, sample(2))
    assert len(store.samples(run_id)) == 2


def test_worker_thread_writes_while_main_thread_reads(store: SessionStore) -> None:
    run_id = new_run(store)
    total = 150
    failures: list[BaseException] = []

    def worker() -> None:
        try:
            store.add_event(run_id, hello(1))
            for seq in range(2, total + 2):
                store.add_event(run_id, sample(seq))
            store.add_event(run_id, ev("done", total + 2, status="ok", message=""))
        except BaseException as exc:  # noqa: BLE001 - reported to the main thread
            failures.append(exc)

    thread = threading.Thread(target=worker)
    thread.start()
    seen = 0
    reads = 0
    while thread.is_alive() or reads == 0:
        samples = store.samples(run_id)
        seqs = [s.seq for s in samples]
        assert seqs == sorted(seqs)
        assert len(seqs) >= seen  # never goes backwards, never a torn read
        seen = len(seqs)
        store.list_runs()
        reads += 1
    thread.join()
    assert failures == []
    assert len(store.samples(run_id)) == total
    assert store.get_run(run_id).status == "complete"
    assert reads > 1


def test_connections_of_ended_threads_are_closed(store: SessionStore) -> None:
    run_id = new_run(store)
    for seq in range(1, 6):
        thread = threading.Thread(target=store.add_event, args=(run_id, sample(seq)))
        thread.start()
        thread.join()
    store.list_runs()
    new_thread = threading.Thread(target=store.list_runs)
    new_thread.start()
    new_thread.join()
    assert len(store._conns) <= 3  # main + at most the last two workers
    assert len(store.samples(run_id)) == 5
