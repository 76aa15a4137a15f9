"""Response times of all transactions or of New-Order only: the author chooses, the report says
which, and a session that stored no New-Order times makes every session fall back to all."""

from __future__ import annotations

from typing import Any

import pytest

from bench_gui.report import build_report
from bench_gui.report.options import ReportOptions
from bench_gui.store import SessionStore
from bench_gui.store.compare_input import has_latency_of, latency_key
from bench_gui.wire.protocol import Event
from tests._fixtures.seed_sessions import store_session, sweep
from tests.report.fleet import PG16, points

ROWS = [(8, 10_000, 4.0, 40.0), (16, 18_000, 5.0, 50.0), (24, 24_000, 6.0, 60.0)]


def with_new_order(events: list[Event], factor: float | None) -> list[Event]:
    """New-Order times ``factor`` x the all-transactions ones; None: no per-type times."""
    for event in events:
        if event.kind == "step" and event.get("phase") == "end":
            times: dict[str, Any] = event.data["summary"]["latency_ms"]
            if factor is None:
                times.pop("new_order", None)
            else:
                times["new_order"] = {k: v * factor for k, v in times["all"].items()}
    return events


def session(store: SessionStore, name: str, nopm: float, factor: float | None) -> int:
    rows = [(v, n * nopm, a, p) for v, n, a, p in ROWS]
    return store_session(store, name, with_new_order(sweep(PG16, {}, points(rows)), factor))


def test_new_order_only_when_the_author_says_so(store: SessionStore) -> None:
    base = session(store, "Base", 1.0, 2.0)
    other = session(store, "Other", 2.0, 1.0)
    assert has_latency_of(store, base, "new-order")
    default = build_report(store, [base, other], base)
    assert default.latency == "all"
    assert default.tables["latency_avg"].rows[0][1].text == "4.00"
    assert "All transaction types together." in default.tables["latency_avg"].notes[0]
    r = build_report(store, [base, other], base, options=ReportOptions(latency="new-order"))
    assert r.latency == "new_order"
    avg = r.tables["latency_avg"]
    assert avg.title == "Average New-Order response time by user count"
    assert [c.text for c in avg.rows[0][1:3]] == ["8.00", "4.00"]
    assert avg.rows[0][3].text == "50%"
    assert "New-Order transactions only." in avg.notes[0]
    section = next(s for s in r.sections if s.key == "latency_avg")
    assert section.heading == "Responsiveness: average New-Order response time"
    assert any("of New-Order transactions only" in p for p in section.paragraphs)
    how = {h.heading: h for h in r.how_we_tested}
    assert "Response times are of New-Order transactions only." in how["Test sequence"].paragraphs


def test_a_session_without_new_order_times_makes_all_fall_back(store: SessionStore) -> None:
    base = session(store, "Base", 1.0, 2.0)
    older = session(store, "Older", 2.0, None)
    assert not has_latency_of(store, older, "new-order")
    r = build_report(store, [base, older], base, options=ReportOptions(latency="new-order"))
    assert r.latency == "all"
    assert r.tables["latency_avg"].rows[0][1].text == "4.00"
    assert any("New-Order times were not recorded for Older" in n for n in r.reader_notes)
    assert any(f"session {older} (Older): no New-Order response times" in n for n in r.notes)


def test_bad_scopes_are_refused() -> None:
    assert latency_key("new-order") == "new_order"
    with pytest.raises(ValueError, match="'all' transactions or of 'new-order' only, got 'p99'"):
        latency_key("p99")
    with pytest.raises(ValueError, match="got 'neworder'"):
        ReportOptions(latency="neworder")
