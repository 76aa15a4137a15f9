"""A copy of a session (exported, then imported into the store that has it) is the same
measurement: never counted as a repeat, whose noise would read 0.0%."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench_gui.core.compare import CompareError
from bench_gui.report import build_report
from bench_gui.report.options import ReportOptions
from bench_gui.store import SessionStore, export_session, import_session
from tests._fixtures.seed_sessions import build_seed000


def test_a_copy_is_never_a_repeat(store: SessionStore, tmp_path: Path) -> None:
    hdd, ssd = build_seed000(store)
    copy = import_session(store, export_session(store, ssd, tmp_path / "ssd.json"))
    assert store.get_run(copy).origin == store.get_run(ssd).uuid
    r = build_report(store, [hdd, ssd, copy], hdd)
    assert "repeatability" not in r.tables
    assert not any("Repeat noise" in col for col in r.tables["throughput"].columns)
    # Nor when the author says so: the message names the copy and its original.
    with pytest.raises(CompareError, match=f"session {copy} is a copy of session {ssd}"):
        build_report(store, [hdd, ssd, copy], hdd, options=ReportOptions(repeats=((ssd, copy),)))
