"""The spine from the GUI: build the schema, run a three-step sweep against a real PostgreSQL,
watch it live, find it stored on the Sessions page. Real agent, real server, real store."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from bench_gui.gui.main_window import MainWindow

pytestmark = [pytest.mark.gui, pytest.mark.integration]

RUN_MS = 240_000


def _target(window: MainWindow, pg_server: Any) -> None:
    page = window.workload_page
    page.pg_radio.setChecked(True)
    page.host_edit.setText(pg_server.socket_dir)
    page.user_edit.setText("postgres")
    page.database_edit.setText("gui_e2e")
    page.warehouses_spin.setValue(1)
    page.vus_edit.setText("1,2,3")
    page.rampup_spin.setValue(1)
    page.duration_spin.setValue(4)


def test_build_then_sweep_then_sessions(
    qtbot: QtBot, main_window: MainWindow, pg_server: Any
) -> None:
    main_window.show()
    _target(main_window, pg_server)
    page = main_window.workload_page

    # Build the schema with a progress bar fed by the agent's progress events.
    qtbot.mouseClick(page.build_button, Qt.MouseButton.LeftButton)
    assert main_window.run_control.busy
    qtbot.waitUntil(lambda: main_window.run_control.worker is None, timeout=RUN_MS)
    assert page.progress.value() == page.progress.maximum()
    assert "failed" not in page.task_status.text().lower(), page.task_status.text()

    # Sweep: the Live page fills as the run streams, and the GUI stays responsive meanwhile.
    qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
    assert main_window.current_page_name() == "Live"
    live = main_window.live_page
    qtbot.waitUntil(lambda: live.model.phase == "measure", timeout=RUN_MS)
    qtbot.waitUntil(lambda: len(live.model.points) >= 1, timeout=RUN_MS)
    assert main_window.run_control.busy  # events arrive while the event loop keeps turning
    qtbot.waitUntil(lambda: main_window.run_control.worker is None, timeout=RUN_MS)

    assert live.banner.property("tone") == "ok", live.banner_label.text()
    assert live.banner_label.text().startswith("Run complete: 3 steps measured")
    points = live.model.points
    assert [p.vus for p in points] == [1, 2, 3]
    assert all(p.complete and p.nopm and p.nopm > 0 for p in points)
    for p in points:
        assert p.nopm_driver == pytest.approx(p.nopm, rel=0.02)
    tiles = live.model.tiles()
    assert tiles is not None

    # Stored: every second and every step, shown on the Sessions page.
    session_id = main_window.run_control.last_session_id
    assert session_id is not None
    samples = main_window.store.samples(session_id)
    assert len(samples) >= 3 * 5  # a sample a second, 1 s ramp-up + 4 s measured
    assert len(main_window.store.steps(session_id)) == 3
    main_window.show_page("Sessions")
    sessions = main_window.sessions_page
    rows = sessions.row_texts()
    assert any("complete" in " ".join(r) for r in rows), rows
    assert sessions.open_run(session_id)
    assert sessions.step_table.rowCount() == 3
