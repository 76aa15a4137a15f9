"""A MariaDB sweep from the GUI: a plan file loaded on the Workload page, Start, the Live page
filling from the real agent (pyodbc) on the tests' private MariaDB, the session stored with its
engine, and shown on the Sessions page. Real agent, real server, real store."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from bench_gui.gui.main_window import MainWindow
from tests._fixtures.mariadb import PASSWORD, PASSWORD_ENV, MariaDbServer

pytestmark = [pytest.mark.gui, pytest.mark.integration]

RUN_MS = 240_000


def test_a_mariadb_sweep_runs_live_and_is_stored(
    qtbot: QtBot,
    main_window: MainWindow,
    mariadb_server: MariaDbServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The plan names the variable that holds the password; the agent reads it from there.
    monkeypatch.setenv(PASSWORD_ENV, PASSWORD)
    database = mariadb_server.tpcc(1)
    plan_file = tmp_path / "mariadb.toml"
    plan_file.write_text(mariadb_server.plan_text(database, vus="1,2", rampup=1, duration=5))
    main_window.show()
    page = main_window.workload_page
    assert page.load_plan_file(plan_file)
    plan = page.current_plan()
    assert plan is not None
    assert plan.target.kind == "mariadb"

    qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
    assert main_window.current_page_name() == "Live"
    live = main_window.live_page
    qtbot.waitUntil(lambda: live.model.phase == "measure", timeout=RUN_MS)
    qtbot.waitUntil(lambda: main_window.run_control.worker is None, timeout=RUN_MS)

    assert live.banner.property("tone") == "ok", live.banner_label.text()
    points = live.model.points
    assert [p.vus for p in points] == [1, 2]
    for p in points:
        # NOPM from the district table, beside the driver's own New-Order count.
        assert p.complete
        assert p.nopm
        assert p.nopm > 0
        assert p.nopm_driver == pytest.approx(p.nopm, rel=0.02)
    assert live.model.tiles() is not None

    session_id = main_window.run_control.last_session_id
    assert session_id is not None
    info = main_window.store.get_run(session_id)
    assert info.engine.lower().startswith("mariadb"), info.engine
    assert len(main_window.store.steps(session_id)) == 2
    assert len(main_window.store.samples(session_id)) >= 2 * 5
    main_window.show_page("Sessions")
    sessions = main_window.sessions_page
    assert sessions.open_run(session_id)
    assert sessions.step_table.rowCount() == 2
