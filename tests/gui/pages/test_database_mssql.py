"""The Database page's SQL Server tab: it says it is not verified against a live server, connects
to the plan's server, diffs seed 003's settings, applies the ticked rows, rolls back, and keeps
the history under kind ``mssql``; a plan of another engine is sent to its own tab.

No SQL Server exists here: the tab's connection is the service's own for the plan, its tuner
talking to the scripted server of tests/remote/mssql_scripted.py (the test seam: recorded
statements, each parsed as T-SQL). Screenshots at 1366×768 and 1920×1080 are kept in the test's
folder.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from bench_gui.core.plan import plan_from_dict
from bench_gui.core.plan_model import Plan
from bench_gui.engines.mssql.tuner import MssqlTuner
from bench_gui.engines.mssql.tuning import connect as mssql_connection
from bench_gui.gui.pages.database.page import DatabasePage
from bench_gui.gui.pages.database.settings_diff import COL_CURRENT, COL_EFFECT, COL_PROPOSED
from bench_gui.services.tuning_parts import Connection
from bench_gui.store.tuning_history import TuningHistory
from tests.engines.mssql.scripted import PLAN, ScriptedServer

pytestmark = pytest.mark.gui
WAIT_MS = 60_000


@pytest.fixture
def server() -> ScriptedServer:
    return ScriptedServer(ram_kb=384 * 1024 * 1024)  # seed 003's machine


@pytest.fixture
def page(qtbot: QtBot, store: Any, server: ScriptedServer) -> Iterator[DatabasePage]:
    plan = plan_from_dict(tomllib.loads(PLAN))

    def connection(given: Plan) -> Connection:
        conn = mssql_connection(given.target, max(given.workload.virtual_users))
        conn.tuner = MssqlTuner(conn.target.conninfo, "tpcc", connect=server.connect)
        return conn

    widget = DatabasePage(store, plan_provider=lambda: plan)
    widget.panels["mssql"].connect_factory = connection
    qtbot.addWidget(widget)
    widget.resize(1366, 768)
    widget.show()
    yield widget
    assert widget.shutdown(60)


def row_text(page: DatabasePage, name: str, col: int) -> str:
    panel = page.panels["mssql"]
    index = [r.name for r in panel.diff.rows].index(name)
    item = panel.diff.item(index, col)
    assert item is not None
    return item.text()


def test_connect_diff_apply_and_roll_back(
    qtbot: QtBot, page: DatabasePage, server: ScriptedServer, store: Any, tmp_path: Path
) -> None:
    before = server.state()
    panel = page.panels["mssql"]
    assert page.tabs.currentWidget() is page.scrolls["mssql"]  # the plan is SQL Server's
    assert page.tabs.tabText(page.tabs.currentIndex()) == "SQL Server"
    assert panel.unverified.isVisible()
    assert panel.unverified.tone() == "stopped"
    assert "not been verified against a live server" in panel.unverified.text()
    # Before connecting: the preset's rows, nothing to tick.
    assert [r.name for r in panel.diff.rows] == [
        "max degree of parallelism", "recovery model", "target recovery time", "database maxdop"
    ]  # fmt: skip
    assert "RAM is unknown" in panel.form.proposal_note.text()
    assert not panel.apply_button.isEnabled()

    qtbot.mouseClick(panel.server.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.conn is not None and not panel.busy, timeout=WAIT_MS)
    assert "SQL Server 14.0.3456.2" in panel.server.server_label.text()
    assert "login sa (may change server options" in panel.server.server_label.text()
    assert panel.form.ram_edit.text() == "384GiB"  # read through the server
    assert row_text(page, "max server memory (MB)", COL_PROPOSED) == str(393216 - 39321)
    assert row_text(page, "max degree of parallelism", COL_CURRENT) == "0"
    assert row_text(page, "max degree of parallelism", COL_EFFECT) == "at once"
    assert row_text(page, "recovery model", COL_CURRENT) == "FULL"
    assert "4 to change (4 at once" in panel.summary_label.text()
    page.grab().save(str(tmp_path / "database-mssql-1366.png"))

    panel.diff.set_checked("max server memory (MB)", False)
    assert panel.apply_button.isEnabled()
    qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not panel.busy, timeout=WAIT_MS)
    assert page.banner.tone() == "ok", page.message()
    assert "3 setting(s) applied" in page.message()
    assert "Recovery model SIMPLE breaks the log backup chain" in page.message()
    assert server.options["max degree of parallelism"].in_use == 1
    assert server.options["max server memory (MB)"].in_use == 2_147_483_647  # not ticked
    assert (server.recovery, server.target_s) == ("SIMPLE", 60)
    assert row_text(page, "recovery model", COL_EFFECT) == "unchanged"
    assert panel.history_table.rowCount() == 1
    [entry] = TuningHistory(store).entries()
    assert (entry.kind, entry.profile) == ("mssql", "mssql-seed-003")
    page.grab().save(str(tmp_path / "database-mssql-applied-1366.png"))
    page.resize(1920, 1080)
    QApplication.processEvents()  # the layout settles at the new size before the grab
    page.grab().save(str(tmp_path / "database-mssql-applied-1920.png"))

    assert panel.rollback_button.isEnabled()
    qtbot.mouseClick(panel.rollback_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not panel.busy, timeout=WAIT_MS)
    assert page.banner.tone() == "ok", page.message()
    assert page.message().startswith("Rolled back #")
    assert server.state() == before
    assert panel.history_table.rowCount() == 2
    assert not panel.rollback_button.isEnabled()
    server.check_sent()


def test_a_value_typed_in_the_table_is_diffed(
    qtbot: QtBot, page: DatabasePage, server: ScriptedServer
) -> None:
    panel = page.panels["mssql"]
    panel.connect_target()
    qtbot.waitUntil(lambda: panel.conn is not None and not panel.busy, timeout=WAIT_MS)
    index = [r.name for r in panel.diff.rows].index("max degree of parallelism")
    item = panel.diff.item(index, COL_PROPOSED)
    assert item is not None
    item.setText("99999")
    qtbot.waitUntil(lambda: not panel.busy, timeout=WAIT_MS)
    assert row_text(page, "max degree of parallelism", COL_EFFECT) == "refused"
    item = panel.diff.item(index, COL_PROPOSED)
    assert item is not None
    item.setText("four")
    qtbot.waitUntil(lambda: not panel.busy, timeout=WAIT_MS)
    assert "is not a whole number" in page.message()


def test_a_refused_permission_is_shown_in_the_banner(
    qtbot: QtBot, page: DatabasePage, server: ScriptedServer
) -> None:
    server.login_tokens = [("bench", "SQL LOGIN")]
    server.user_tokens = [("bench", "SQL USER")]
    panel = page.panels["mssql"]
    panel.connect_target()
    qtbot.waitUntil(lambda: panel.conn is not None and not panel.busy, timeout=WAIT_MS)
    assert "no ALTER SETTINGS" in panel.server.server_label.text()
    panel.apply_selected()
    qtbot.waitUntil(lambda: not panel.busy, timeout=WAIT_MS)
    assert page.banner.tone() == "failed"
    assert page.message().startswith("Not applied: login bench lacks the ALTER SETTINGS")
    assert server.changes() == []


def test_another_engine_is_sent_to_its_tab(qtbot: QtBot, store: Any) -> None:
    widget = DatabasePage(store, plan_provider=Plan)
    qtbot.addWidget(widget)
    assert widget.tabs.currentIndex() == 0
    widget.panels["mssql"].connect_target()
    assert "not SQL Server" in widget.message()
    assert widget.panels["mssql"].conn is None
    assert widget.shutdown(60)


def test_a_preset_file_is_diffed(
    qtbot: QtBot, page: DatabasePage, server: ScriptedServer, tmp_path: Path
) -> None:
    panel = page.panels["mssql"]
    panel.connect_target()
    qtbot.waitUntil(lambda: panel.conn is not None and not panel.busy, timeout=WAIT_MS)
    panel.form.profile_combo.setCurrentIndex(panel.form.profile_combo.findData("file"))
    assert panel.form.file_edit.isEnabled()
    assert not panel.form.ram_edit.isEnabled()
    assert panel.diff.rows == []
    path = tmp_path / "lab.toml"
    path.write_text('engine = "mssql"\n[server]\n"lightweight pooling" = 1\n')
    panel.form.file_edit.setText(str(path))
    panel.form.file_edit.editingFinished.emit()
    qtbot.waitUntil(lambda: not panel.busy and bool(panel.diff.rows), timeout=WAIT_MS)
    assert row_text(page, "lightweight pooling", COL_EFFECT) == "restart"
    assert "1 need a restart" in panel.summary_label.text()
    path.write_text('engine = "postgresql"\n')
    panel.form.file_edit.setText(str(path) + " ")
    panel.form.file_edit.editingFinished.emit()
    qtbot.waitUntil(lambda: not panel.busy, timeout=WAIT_MS)
    assert 'it needs engine = "mssql"' in panel.form.inputs_error.text()
    assert panel.diff.rows == []


def test_the_postgresql_tab_leaves_a_sql_server_target_to_its_own_tab(
    qtbot: QtBot, store: Any
) -> None:
    """The PostgreSQL tab took every kind but MariaDB's, so it tried to tune a SQL Server."""
    plan = plan_from_dict(tomllib.loads(PLAN))
    widget = DatabasePage(store, lambda: plan)
    qtbot.addWidget(widget)
    widget.demo_tab.connect_target()
    assert widget.demo_tab.conn is None
    assert not widget.demo_tab.busy
    assert "tab of its engine" in widget.message()
    widget.shutdown(5)
