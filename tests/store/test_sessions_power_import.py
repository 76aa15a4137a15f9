"""A meter's log imported into a real stored session after the run (issue 6).

The session comes from a real short sweep (CLI, agent, embedded PostgreSQL) measured with RAPL
during the run; the CSV logs are made from that session's own window times.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench_gui.core.power import PowerLogError, parse_power_log, read_power_log
from bench_gui.store import SessionNotFound, SessionStore
from tests._fixtures.power_log_session import (
    CPU_WATTS,
    IDLE_W,
    STEP_W,
    PowerSession,
    rapl_session,
    windows,
    write_meter_log,
)

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def session(pg_server: Any, tmp_path_factory: pytest.TempPathFactory) -> PowerSession:
    return rapl_session(pg_server, tmp_path_factory.mktemp("power-store"), "power_import_store")


@pytest.fixture
def store(session: PowerSession, tmp_path: Path) -> Iterator[SessionStore]:
    """A copy of the session's store: each test imports into a session of its own."""
    copy = tmp_path / "sessions.sqlite3"
    shutil.copy(session.db, copy)
    with SessionStore(copy) as opened:
        yield opened


def test_the_run_was_measured_by_its_meter(store: SessionStore, session: PowerSession) -> None:
    for step in store.steps(session.run_id):
        assert step.summary["power_meter"] == "rapl"
        assert step.summary["power_w"] == pytest.approx(CPU_WATTS, rel=0.05)


def test_import_gives_each_step_the_average_over_its_window(
    store: SessionStore, session: PowerSession, tmp_path: Path
) -> None:
    log = tmp_path / "wall-meter.csv"
    write_meter_log(log, store, session.run_id)
    before = {s.step: s.summary for s in store.steps(session.run_id)}

    result = store.import_power_log(session.run_id, read_power_log(log), log.name)

    assert result.changed
    assert result.label == "CSV import: wall-meter.csv"
    assert result.idle_w == pytest.approx(IDLE_W)
    steps = store.steps(session.run_id)
    for step, watts, (t0, t1) in zip(steps, STEP_W, windows(store, session.run_id), strict=True):
        s = step.summary
        assert s["power_w"] == pytest.approx(watts)
        assert s["energy_j"] == pytest.approx(watts * (t1 - t0), abs=0.1)
        assert s["mw_per_nopm"] == pytest.approx(1000 * watts / step.nopm, rel=1e-3)
        assert s["j_per_new_order"] == pytest.approx(60 * watts / step.nopm, rel=1e-3)
        assert s["power_meter"] == "csv"
        assert s["power_scope"] == "wall"
        assert s["power_label"] == "CSV import: wall-meter.csv"
        assert s["idle_power_w"] == pytest.approx(IDLE_W)
        assert s["power_readings"] in (7, 8, 9)  # 4 s at two readings a second
        # What the meter measured during the run is kept, and marked as replaced.
        original = s["power_original"]
        assert original["power_meter"] == "rapl"
        assert original["power_w"] == before[step.step]["power_w"]
        assert original["idle_power_w"] == before[step.step]["idle_power_w"]
        # Everything else about the step is as the agent reported it.
        assert step.nopm == before[step.step]["nopm"]
        assert s["latency_ms"] == before[step.step]["latency_ms"]
    message = store.log(session.run_id)[-1]
    assert message.level == "info"
    assert message.message.startswith("power figures replaced from wall-meter.csv: step 1 (1 VU)")
    assert f"-> {STEP_W[0]:.1f} W" in message.message
    assert "power_original" in message.message


def test_importing_the_same_log_again_changes_nothing(
    store: SessionStore, session: PowerSession, tmp_path: Path
) -> None:
    log = tmp_path / "meter.csv"
    write_meter_log(log, store, session.run_id)
    store.import_power_log(session.run_id, read_power_log(log), log.name)
    stored = [s.summary for s in store.steps(session.run_id)]
    lines = len(store.log(session.run_id))

    again = store.import_power_log(session.run_id, read_power_log(log), log.name)

    assert not again.changed
    assert again.message == ""
    assert [s.summary for s in store.steps(session.run_id)] == stored
    assert len(store.log(session.run_id)) == lines


def test_a_second_log_replaces_the_first_but_keeps_the_meters_figures(
    store: SessionStore, session: PowerSession, tmp_path: Path
) -> None:
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    write_meter_log(first, store, session.run_id)
    write_meter_log(second, store, session.run_id, step_watts=(300.0, 400.0))
    store.import_power_log(session.run_id, read_power_log(first), first.name)
    result = store.import_power_log(session.run_id, read_power_log(second), second.name)
    assert result.previous_w == {0: pytest.approx(STEP_W[0]), 1: pytest.approx(STEP_W[1])}
    for step, watts in zip(store.steps(session.run_id), (300.0, 400.0), strict=True):
        assert step.summary["power_w"] == pytest.approx(watts)
        assert step.summary["power_label"] == "CSV import: b.csv"
        assert step.summary["power_original"]["power_meter"] == "rapl"
    assert "150.0 W -> 300.0 W" in store.log(session.run_id)[-1].message


def test_a_log_that_misses_a_window_names_the_step_and_changes_nothing(
    store: SessionStore, session: PowerSession, tmp_path: Path
) -> None:
    t0, t1 = windows(store, session.run_id)[1]
    log = tmp_path / "holey.csv"
    # The meter logs every 0.5 s: skipping from 1 s into the window keeps at least one
    # reading inside it, so the log ends after the window opens, whatever the run's timing.
    write_meter_log(log, store, session.run_id, skip=(t0 + 1.0, t1 + 0.5), after_s=0.0)
    before = [s.summary for s in store.steps(session.run_id)]
    lines = len(store.log(session.run_id))

    with pytest.raises(PowerLogError) as caught:
        store.import_power_log(session.run_id, read_power_log(log), log.name)

    text = str(caught.value)
    assert "step 2 (2 VU)" in text
    assert "step 1 (1 VU)" not in text
    assert "the log ends at" in text
    assert "before the window closes" in text
    assert [s.summary for s in store.steps(session.run_id)] == before
    assert len(store.log(session.run_id)) == lines


def test_a_hole_inside_a_window_is_a_gap(
    store: SessionStore, session: PowerSession, tmp_path: Path
) -> None:
    t0, t1 = windows(store, session.run_id)[0]
    log = tmp_path / "hole.csv"
    # A meter logging every 0.5 s that went quiet for most of the window.
    write_meter_log(log, store, session.run_id, skip=(t0 + 0.2, t1 - 0.2))
    with pytest.raises(PowerLogError, match=r"step 1 \(1 VU\).*no reading for"):
        store.import_power_log(session.run_id, read_power_log(log), log.name)


def test_a_log_of_another_day_says_where_it_is(
    store: SessionStore, session: PowerSession, tmp_path: Path
) -> None:
    readings = parse_power_log("epoch,watts\n1000,100\n1001,100\n1002,100\n", "old.csv")
    with pytest.raises(PowerLogError) as caught:
        store.import_power_log(session.run_id, readings, "old.csv")
    text = str(caught.value)
    assert "step 1 (1 VU)" in text
    assert "step 2 (2 VU)" in text
    assert "before the window opens" in text
    assert "the log covers 1970-01-01" in text


def test_malformed_logs_are_refused_with_the_reason(tmp_path: Path) -> None:
    no_columns = tmp_path / "volts.csv"
    no_columns.write_text("time,volts\n1,230\n2,231\n")
    with pytest.raises(PowerLogError, match=r"volts.csv: the power log has no watts column"):
        read_power_log(no_columns)
    garbage = tmp_path / "garbage.csv"
    garbage.write_text("timestamp,watts\nyesterday,lots\n\x00\x01,2\n")
    with pytest.raises(PowerLogError, match=r"garbage.csv: 0 of 2 rows .* at least two"):
        read_power_log(garbage)
    with pytest.raises(PowerLogError, match="cannot read the power log"):
        read_power_log(tmp_path / "missing.csv")
    named = tmp_path / "pdu.csv"
    named.write_text("when;outlet_w\n2024-05-01T10:00:00Z;100\n2024-05-01T10:00:01Z;110\n")
    assert [r.watts for r in read_power_log(named, "outlet_w", "when")] == [100.0, 110.0]


def test_an_unknown_session_is_refused(store: SessionStore, tmp_path: Path) -> None:
    readings = parse_power_log("t,w\n1,1\n2,2\n", "x.csv")
    with pytest.raises(SessionNotFound):
        store.import_power_log(9999, readings, "x.csv")
