"""The Sessions page's detail tabs over a real stored session: its log, its host metrics, and a
power log imported after the run.

The session comes from a real short sweep (CLI, agent, embedded PostgreSQL, RAPL on a moving
powercap tree; see tests/_fixtures/power_log_session.py); the command and link lines are added
the way the runner adds them (``store.add_log``).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from bench_gui.gui.pages.sessions.detail import TAB_LOG, TAB_METRICS
from bench_gui.gui.pages.sessions.page import SessionsPage
from bench_gui.gui.widgets.session_metrics import NO_HOST, NO_POWER
from bench_gui.remote.connection import CommandLogEntry
from bench_gui.store import SessionStore
from tests._fixtures.power_log_session import (
    CPU_WATTS,
    STEP_W,
    PowerSession,
    rapl_session,
    windows,
    write_meter_log,
)
from tests._fixtures.scripted import sweep_events
from tests.gui.pages.test_sessions import store_run

pytestmark = [pytest.mark.gui, pytest.mark.integration]

COMMANDS = [
    CommandLogEntry("db1", "lsblk -J -b -o NAME,SIZE,TYPE,MOUNTPOINT", 0, 0.12, 0.0),
    CommandLogEntry("db1", "sudo -n mkfs.xfs -f /dev/md0", 0, 3.5, 0.0),
    CommandLogEntry("db1", "psql -c 'ALTER SYSTEM SET shared_buffers = ***'", 1, 0.08, 0.0),
]


@pytest.fixture(scope="module")
def session(pg_server: Any, tmp_path_factory: pytest.TempPathFactory) -> PowerSession:
    return rapl_session(pg_server, tmp_path_factory.mktemp("power-gui"), "power_import_gui")


@pytest.fixture
def real_store(session: PowerSession, tmp_path: Path) -> Iterator[SessionStore]:
    copy = tmp_path / "real.sqlite3"
    shutil.copy(session.db, copy)
    with SessionStore(copy) as store:
        store.add_log(session.run_id, "link", "connected: bench@db1:22")
        for entry in COMMANDS:
            store.add_log(session.run_id, "command", entry.format())
        store.add_log(session.run_id, "link", "lost: connection reset by peer")
        store.add_log(session.run_id, "warning", "no inventory: dmidecode not found")
        yield store


@pytest.fixture
def page(qtbot: QtBot, real_store: SessionStore, session: PowerSession) -> SessionsPage:
    widget = SessionsPage(real_store)
    qtbot.addWidget(widget)
    widget.resize(1600, 1100)
    widget.show()
    assert widget.open_run(session.run_id)
    return widget


def test_the_log_tab_shows_filters_and_searches_the_log(
    page: SessionsPage, real_store: SessionStore, session: PowerSession
) -> None:
    view = page.log_view
    page.tabs.setCurrentIndex(TAB_LOG)
    stored = real_store.log(session.run_id)
    assert view.model.rowCount() == len(stored)
    assert [r.message for r in view.shown_rows()] == [line.message for line in stored]
    assert any(r.message.startswith("idle power") for r in view.shown_rows())  # the agent's

    view.set_filter("Commands")
    # The run's own commands (the inventory it collected on this machine), then the test's.
    commands = [line.message for line in stored if line.level == "command"]
    assert commands[-3:] == [e.format() for e in COMMANDS]
    assert [r.message for r in view.shown_rows()] == commands
    assert view.count_label.text() == f"{len(commands)} of {len(stored)} lines"
    mono = view.proxy.index(0, 2).data(Qt.ItemDataRole.FontRole)
    assert mono.fixedPitch() or "mono" in mono.family().lower()
    assert view.proxy.index(0, 0).data(Qt.ItemDataRole.FontRole) is None

    view.set_filter("Commands", "MKFS")
    assert [r.message for r in view.shown_rows()] == [COMMANDS[1].format()]
    view.set_filter("Link")
    assert [r.message for r in view.shown_rows()] == [
        "connected: bench@db1:22",
        "lost: connection reset by peer",
    ]
    view.set_filter("Warnings and errors")
    assert [r.level for r in view.shown_rows()] == ["warning"]
    view.set_filter("All", "no such text")
    assert view.shown_rows() == []
    assert view.empty_label.text() == "No line matches the filter."
    assert not view.save_button.isEnabled()


def test_log_lines_are_copied_and_saved(
    qtbot: QtBot, page: SessionsPage, session: PowerSession, tmp_path: Path
) -> None:
    view = page.log_view
    page.tabs.setCurrentIndex(TAB_LOG)
    view.set_filter("Commands", "[db1]")  # the test's commands, not the run's inventory
    view.table.selectRow(0)
    view.table.selectionModel().select(
        view.proxy.index(2, 0),
        view.table.selectionModel().SelectionFlag.Select
        | view.table.selectionModel().SelectionFlag.Rows,
    )
    view.table.setFocus()
    QGuiApplication.clipboard().clear()
    qtbot.keyClick(view.table, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    copied = QGuiApplication.clipboard().text().splitlines()
    assert len(copied) == 2
    assert copied[0].endswith(f"command  {COMMANDS[0].format()}")
    assert copied[1].endswith(f"command  {COMMANDS[2].format()}")

    target = tmp_path / "log.txt"
    view.set_filter("All")
    assert view.save(target) == view.model.rowCount()
    text = target.read_text().splitlines()
    assert text[0] == f"# bench-gui session log: #{session.run_id} {page.current.name}"  # type: ignore[union-attr]
    assert len(text) == view.model.rowCount() + 1
    assert text[-1].endswith("warning  no inventory: dmidecode not found")


def test_a_long_log_stays_one_model(
    page: SessionsPage, real_store: SessionStore, session: PowerSession
) -> None:
    with real_store.transaction():
        for i in range(4000):
            real_store.add_log(session.run_id, "command", f"[db1] $ true {i}  -> exit 0 in 0.01 s")
    assert page.open_run(session.run_id)
    view = page.log_view
    assert view.model.rowCount() >= 4000
    view.set_filter("Commands", "true 3999 ")
    assert len(view.shown_rows()) == 1


def test_the_metrics_tab_charts_the_stored_host_metrics_and_power(
    page: SessionsPage, real_store: SessionStore, session: PowerSession
) -> None:
    metrics = page.metrics_view
    page.tabs.setCurrentIndex(TAB_METRICS)  # loaded when first shown
    samples = real_store.samples(session.run_id)
    x, y = metrics.charts["throughput"].curves["nopm"].getData()
    assert len(x) == len(samples)
    assert metrics.charts["throughput"].marker_count == 2
    assert y[-1] == pytest.approx(samples[-1].nopm_db)
    _x, user = metrics.charts["cpu"].curves["cpu_user"].getData()
    assert np.nanmax(user) > 0
    assert not metrics.charts["cpu"].empty
    devices = metrics.model.device_order
    assert devices
    assert metrics.device_box.itemText(1) == devices[0]
    iops = metrics.charts["disk_iops"]
    assert f"{devices[0]}:w_iops" in iops.curves
    assert f"{devices[0]}:w_await" in metrics.charts["disk_latency"].curves
    _x, watts = metrics.charts["power"].curves["power_w"].getData()
    assert np.nanmean(watts) == pytest.approx(CPU_WATTS, rel=0.1)
    assert "host metrics: CPU, memory" in metrics.summary_label.text()

    metrics.device_box.setCurrentText(devices[0])
    assert metrics.shown_devices() == [devices[0]]
    assert list(metrics.charts["disk_iops"].curves) == [
        f"{devices[0]}:r_iops",
        f"{devices[0]}:w_iops",
    ]


def test_a_session_without_host_metrics_says_so(qtbot: QtBot, store: Any) -> None:
    run_id = store_run(store, "scripted", sweep_events([4, 8], 2, 3), [4, 8])
    widget = SessionsPage(store)
    qtbot.addWidget(widget)
    widget.show()
    assert widget.open_run(run_id)
    widget.tabs.setCurrentIndex(TAB_METRICS)
    metrics = widget.metrics_view
    assert not metrics.charts["throughput"].empty
    for key in ("cpu", "memory"):
        assert metrics.charts[key].empty
        assert metrics.charts[key]._placeholder.toPlainText() == NO_HOST
    assert metrics.charts["power"]._placeholder.toPlainText() == NO_POWER
    assert "no host metrics" in metrics.summary_label.text()


def test_importing_a_power_log_fills_the_steps_table(
    qtbot: QtBot,
    page: SessionsPage,
    real_store: SessionStore,
    session: PowerSession,
    tmp_path: Path,
) -> None:
    log = tmp_path / "wall.csv"
    write_meter_log(log, real_store, session.run_id)
    assert page.power_button.isEnabled()
    table = page.step_table
    # Before the import: what the meter (RAPL) measured during the run.
    assert float(table.cell_text(0, "Power\n(W)")) == pytest.approx(CPU_WATTS, rel=0.05)

    task = page.import_power_log(log)
    assert task is not None
    qtbot.waitUntil(lambda: page.power_task is None, timeout=30_000)

    assert page.error_label.isHidden()
    assert page.last_power_import is not None
    assert page.last_power_import.changed
    assert [table.cell_text(r, "Power\n(W)") for r in range(2)] == [f"{w:.1f}" for w in STEP_W]
    assert not table.isColumnHidden(table.columnCount() - 1)
    nopm = [s.nopm for s in real_store.steps(session.run_id)]
    # Shown to 3 decimals: compare the figure, not its last printed digit.
    shown = float(table.cell_text(1, "mW /\nNOPM").replace(",", ""))
    assert shown == pytest.approx(1000 * STEP_W[1] / nopm[1], abs=0.0011)
    assert "CSV import: wall.csv" in table.item(0, table.columnCount() - 3).toolTip()
    assert page.log_view.model.rows[-1].message.startswith("power figures replaced from wall.csv")
    assert "wall.csv" in page.subtitle.text()

    page.tabs.setCurrentIndex(TAB_METRICS)
    chart = page.metrics_view.charts["power"]
    _x, step_w = chart.curves["step_power_w"].getData()
    assert sorted({round(v, 1) for v in step_w if np.isfinite(v)}) == list(STEP_W)
    # The run's meter drew the per-second line; the import gave the step averages.
    legend = [label for label, _color, _kind in chart.legend_override or []]
    assert legend == ["RAPL (CPU package + DRAM), per second", "CSV import: wall.csv, step average"]


def test_a_log_that_misses_a_window_is_shown_and_changes_nothing(
    qtbot: QtBot,
    page: SessionsPage,
    real_store: SessionStore,
    session: PowerSession,
    tmp_path: Path,
) -> None:
    t0, t1 = windows(real_store, session.run_id)[0]
    log = tmp_path / "short.csv"
    write_meter_log(log, real_store, session.run_id, skip=(t0 - 0.2, t1 + 100))
    before = [s.summary for s in real_store.steps(session.run_id)]
    page.import_power_log(log)
    qtbot.waitUntil(lambda: page.power_task is None, timeout=30_000)
    text = page.error_label.text()
    assert page.error_label.isVisibleTo(page)
    assert text.startswith(f"Power log not imported into session {session.run_id}:")
    assert "step 1 (1 VU)" in text
    assert "step 2 (2 VU)" in text
    assert [s.summary for s in real_store.steps(session.run_id)] == before
    assert page.power_button.isEnabled()


def test_a_log_with_unknown_column_names_is_imported_after_choosing_them(
    qtbot: QtBot,
    page: SessionsPage,
    real_store: SessionStore,
    session: PowerSession,
    tmp_path: Path,
) -> None:
    """A logger that writes "Zeit;P [W];V" (semicolons, names no rule knows): nothing is
    preselected, Import waits for a valid choice, a column of text is refused, and the chosen
    columns are imported."""
    plain = tmp_path / "plain.csv"
    write_meter_log(plain, real_store, session.run_id)
    lines = plain.read_text().splitlines()
    odd = tmp_path / "logger.csv"
    odd.write_text(
        "\n".join(["Zeit;P [W];Note"] + [f"{line.replace(',', ';')};ok" for line in lines[1:]])
        + "\n"
    )
    dialog = page.ask_power_columns(odd)
    assert dialog is not None
    qtbot.waitExposed(dialog)
    assert dialog.preview.header == ["Zeit", "P [W]", "Note"]
    assert (dialog.time_column, dialog.watts_column) == ("", "")
    ok = dialog.buttons.buttons()[0]
    assert not ok.isEnabled()
    assert "time of each reading" in dialog.problem.text()

    dialog.time_combo.setCurrentIndex(dialog.time_combo.findData("Zeit"))
    dialog.watts_combo.setCurrentIndex(dialog.watts_combo.findData("Note"))
    assert not ok.isEnabled()
    assert "does not read as watts" in dialog.problem.text()
    dialog.watts_combo.setCurrentIndex(dialog.watts_combo.findData("P [W]"))
    assert ok.isEnabled()

    dialog.accept()
    qtbot.waitUntil(lambda: page.power_task is None and page.last_power_import is not None)
    assert page.error_label.isHidden(), page.error_label.text()
    stored = [round(s.summary["power_w"], 1) for s in real_store.steps(session.run_id)]
    assert stored == list(STEP_W)
    assert "logger.csv" in str(real_store.steps(session.run_id)[0].summary.get("power_label"))


def test_an_empty_power_log_is_refused_with_its_name(page: SessionsPage, tmp_path: Path) -> None:
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    assert page.ask_power_columns(empty) is None
    assert "empty.csv is empty" in page.error_label.text()
