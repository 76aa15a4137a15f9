"""What counts as the same server when a study resumes (the comparison alone; the study run
tests read a real PostgreSQL)."""

from __future__ import annotations

from bench_gui.services.study_identity import changes

MEASURED = {"engine": "postgresql", "server": "71", "version": "160002", "ram_bytes": 8 << 30}


def test_the_same_server_has_no_changes() -> None:
    assert changes(MEASURED, dict(MEASURED)) == []


def test_each_changed_fact_is_named_with_before_and_after() -> None:
    now = dict(MEASURED, version="170000", ram_bytes=16 << 30)
    assert changes(MEASURED, now) == ["server version 160002 -> 170000", "RAM 8.0 GiB -> 16.0 GiB"]


def test_a_fact_one_side_does_not_know_is_not_compared() -> None:
    assert changes(MEASURED, dict(MEASURED, ram_bytes=None, cpus=4)) == []


def test_a_session_that_recorded_nothing_is_not_vouched_for() -> None:
    assert changes(None, MEASURED) == ["the session does not record which server it measured"]
    assert changes({"cpus": None}, MEASURED) == [
        "nothing the session records about its server can be read now"
    ]
