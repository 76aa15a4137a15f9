"""A real run on the Present view: the Live page's worker and controller against a real
PostgreSQL, in the GUI and through ``bench-gui present``. Esc stops a run and keeps what was
measured; a run that cannot start says why on the screen."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from bench_gui.core.plan import load_plan
from bench_gui.core.plan_model import Plan
from bench_gui.gui.present.run import PresentRun
from bench_gui.gui.present.window import PresentWindow
from tests._fixtures import cli

pytestmark = [pytest.mark.gui, pytest.mark.integration]

RUN_MS = 240_000


@pytest.fixture
def window(qtbot: QtBot) -> Iterator[PresentWindow]:
    shown = PresentWindow()
    qtbot.addWidget(shown)
    shown.present(windowed=True)
    qtbot.waitExposed(shown)
    yield shown
    shown.may_close = True


def _plan(tmp_path: Path, text: str) -> Plan:
    path = tmp_path / "plan.toml"
    path.write_text(text)
    return load_plan(path)


def test_a_real_run_streams_onto_the_view_and_is_stored(
    qtbot: QtBot, window: PresentWindow, store: Any, pg_server: Any, tpcc_db: Any, tmp_path: Path
) -> None:
    database = tpcc_db("present_run")
    plan = _plan(tmp_path, pg_server.plan_text(database, vus="1,2", warehouses=1, duration=3))
    view = window.view
    run = PresentRun(view, plan, store)
    run.start()
    try:
        qtbot.waitUntil(lambda: view.model.phase == "measure", timeout=RUN_MS)
        view.refresh()
        assert view.phase.chip.text() == "Measuring"
        assert view.phase.text.text().startswith("Step 1 of 2  ·  1 user  ·  ")
        with qtbot.waitSignal(run.ended, timeout=RUN_MS) as ended:
            pass
    finally:
        assert run.shutdown(60)
    assert ended.args == ["ok"]
    assert view.phase.chip.text() == "Finished"
    best = view.model.best_point()
    assert best is not None
    assert best.nopm is not None
    assert best.nopm > 0
    assert view.tiles.nopm.value_text == f"{best.nopm:,.0f}"
    assert view.tiles.nopm.state == "result"
    assert len(view.chart.windows) == 2
    stored = store.list_runs()
    assert [r.id for r in stored] == [run.session_id]
    assert stored[0].status == "complete"


def test_esc_stops_the_run_and_keeps_what_was_measured(
    qtbot: QtBot, window: PresentWindow, store: Any, pg_server: Any, tpcc_db: Any, tmp_path: Path
) -> None:
    database = tpcc_db("present_stop")
    text = pg_server.plan_text(database, vus="1,2", warehouses=1, rampup=1, duration=30)
    run = PresentRun(window.view, _plan(tmp_path, text), store)
    window.leave_requested.connect(run.stop)
    run.start()
    try:
        qtbot.waitUntil(lambda: window.view.model.phase == "measure", timeout=RUN_MS)
        qtbot.waitUntil(lambda: len(window.view.model.windows) == 1, timeout=RUN_MS)
        with qtbot.waitSignal(run.ended, timeout=RUN_MS) as ended:
            qtbot.keyClick(window.view, Qt.Key.Key_Escape)
    finally:
        assert run.shutdown(60)
    assert ended.args == ["stopped"]
    assert window.view.phase.chip.text() == "Stopped"
    stored = store.list_runs()
    assert len(stored) == 1
    assert stored[0].status == "incomplete"


def test_a_run_that_cannot_start_says_why(
    qtbot: QtBot, window: PresentWindow, store: Any, tmp_path: Path
) -> None:
    text = "\n".join(
        [
            'name = "nowhere"',
            "[target]",
            'kind = "postgresql"',
            f'host = "{tmp_path / "no-such-socket-dir"}"',
            'database = "tpcc"',
            "[workload]",
            "warehouses = 1",
            'virtual_users = "1"',
            "rampup_s = 1",
            "duration_s = 2",
        ]
    )
    run = PresentRun(window.view, _plan(tmp_path, text), store)
    with qtbot.waitSignal(run.ended, timeout=RUN_MS) as ended:
        run.start()
    assert run.shutdown(60)
    assert ended.args == ["failed"]
    assert run.message
    assert window.view.phase.chip.text() == "Failed"
    assert window.view.phase.text.text() == run.message


# ---- the command ------------------------------------------------------------------------------


def bench(*args: str, db: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return cli.bench(*args, db=db, timeout=timeout, env={"QT_QPA_PLATFORM": "offscreen"})


def test_the_present_command_runs_the_plan_and_stores_it(
    pg_server: Any, tpcc_db: Any, tmp_path: Path
) -> None:
    database = tpcc_db("present_cli")
    plan = tmp_path / "plan.toml"
    plan.write_text(pg_server.plan_text(database, vus="1", warehouses=1, rampup=1, duration=3))
    db = tmp_path / "sessions.sqlite3"
    proc = bench(
        "present",
        str(plan),
        "--windowed",
        "--screen-size",
        "1280x720",
        "--close-when-done",
        db=db,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    listed = bench("sessions", "list", "--json", db=db)
    assert listed.returncode == 0, listed.stderr
    runs = json.loads(listed.stdout.strip().splitlines()[-1])
    assert len(runs) == 1
    assert runs[0]["status"] == "complete"
    assert runs[0]["name"] == "integration sweep"


def test_the_present_command_refuses_a_bad_screen_size(tmp_path: Path) -> None:
    proc = bench("present", "--windowed", "--screen-size", "big", db=tmp_path / "s.sqlite3")
    assert proc.returncode == 2
    assert "--screen-size takes WIDTHxHEIGHT (1920x1080), got 'big'" in proc.stderr


def test_the_present_command_names_what_is_wrong_in_the_plan(tmp_path: Path) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_text('name = "x"\n[workload]\nwarehouses = 0\n')
    proc = bench("present", str(plan), "--windowed", db=tmp_path / "s.sqlite3")
    assert proc.returncode == 2
    assert "the plan is not valid" in proc.stderr
    assert "warehouses" in proc.stderr
