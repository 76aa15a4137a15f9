"""The Sessions page's Storage tab (what bench-gui built, what the user says the storage was)
and its HammerDB import, over a real session store: the report fleet's stored sessions
(tests/report/fleet.py) and HammerDB 6.0's own job store from real runs
(tests/_fixtures/hammerdb/hammer.DB)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from bench_gui.gui.pages.sessions.hammerdb_import import BUSY_TEXT, BUTTON_TEXT
from bench_gui.gui.pages.sessions.page import SessionsPage
from bench_gui.gui.pages.sessions.storage_description import (
    BUILT_AND_ENTERED,
    NOT_BUILT,
    NOTHING_ENTERED,
)
from bench_gui.report.model import build_report
from tests._fixtures.hammerdb import HAMMER_DB
from tests.report.fleet import fleet

pytestmark = pytest.mark.gui

UNDESCRIBED = "its storage was neither built by bench-gui nor described"


@pytest.fixture
def page(qtbot: QtBot, store: Any) -> SessionsPage:
    widget = SessionsPage(store)
    qtbot.addWidget(widget)
    widget.resize(1600, 1000)
    return widget


@pytest.fixture
def hammer_db(tmp_path: Path) -> Path:
    """A copy of the real job store (the import only reads it; the fixture stays untouched)."""
    return Path(shutil.copy(HAMMER_DB, tmp_path / "hammer.DB"))


def storage_tab(page: SessionsPage) -> int:
    tabs = [page.tabs.tabText(i) for i in range(page.tabs.count())]
    assert tabs == ["Overview", "Metrics", "Log", "Storage"]
    return tabs.index("Storage")


# ---- the storage description --------------------------------------------------------------------


def test_describe_the_storage_of_a_session_bench_gui_did_not_build(
    page: SessionsPage, store: Any
) -> None:
    ids = fleet(store, 5)
    cloud = ids[4]
    panel = page.storage_panel
    assert not panel.save_button.isEnabled()  # no session open
    page.refresh()
    assert page.open_run(cloud)
    page.tabs.setCurrentIndex(storage_tab(page))
    assert panel.built_label.text() == NOT_BUILT
    assert panel.built_form.rowCount() == 0
    assert panel.entered_label.text() == NOTHING_ENTERED
    assert not panel.clear_button.isEnabled()
    assert UNDESCRIBED in " ".join(build_report(store, [cloud], cloud).author_notes)

    panel.devices_edit.setText("Amazon EBS gp3 volume")
    panel.count_spin.setValue(1)
    panel.raid_combo.setCurrentText("none")
    panel.fs_combo.setCurrentText("xfs")
    panel.note_edit.setPlainText("3000 IOPS, 125 MB/s provisioned")
    changed: list[int] = []
    panel.changed.connect(changed.append)
    assert panel.save_button.isEnabled()
    panel.save_button.click()
    assert changed == [cloud]
    stored = store.storage_description(cloud)
    assert stored["text"] == "1 x Amazon EBS gp3 volume, no RAID, xfs"
    assert stored["note"] == "3000 IOPS, 125 MB/s provisioned"
    assert panel.entered_label.text().startswith("Entered by you (")
    assert panel.entered_label.text().endswith("): 1 x Amazon EBS gp3 volume, no RAID, xfs")
    assert panel.clear_button.isEnabled()
    # The report now shows it, as the author's, and asks the author nothing more about it.
    report = build_report(store, [cloud], cloud)
    assert UNDESCRIBED not in " ".join(report.author_notes)
    cells = [cell.text for row in report.tables["config_platform"].rows for cell in row]
    described = [c for c in cells if c.startswith("described by the author: ")]
    assert described
    assert "1 x Amazon EBS gp3 volume, no RAID, xfs" in described[0]

    # A RAID level nobody knows is refused with the store's reason; nothing changes.
    panel.raid_combo.setCurrentText("RAID 7")
    assert not panel.save()
    assert "Not saved: a RAID level is like 0, 1, 5, 6, 10" in panel.error_label.text()
    assert store.storage_description(cloud)["raid"] == "none"
    panel.raid_combo.setCurrentText("RAID 10")
    panel.count_spin.setValue(4)
    assert panel.save()
    assert not panel.error_label.isVisibleTo(panel)
    assert store.storage_description(cloud)["text"] == "4 x Amazon EBS gp3 volume, RAID 10, xfs"

    # Another session shows its own (nothing), then this one again what was saved.
    assert page.open_run(ids[3])
    assert panel.devices_edit.text() == ""
    assert panel.entered_label.text() == NOTHING_ENTERED
    assert page.open_run(cloud)
    assert panel.devices_edit.text() == "Amazon EBS gp3 volume"
    assert panel.raid_combo.currentText() == "RAID 10"
    assert panel.count_spin.value() == 4

    panel.clear_button.click()
    assert store.storage_description(cloud) is None
    assert panel.devices_edit.text() == ""
    assert panel.entered_label.text() == NOTHING_ENTERED
    assert changed == [cloud, cloud, cloud]
    # An empty form is not a description.
    assert not panel.save()
    assert "describe the storage" in panel.error_label.text()


def test_storage_bench_gui_built_is_shown_as_such(page: SessionsPage, store: Any) -> None:
    nvme = fleet(store, 3)[2]
    page.refresh()
    assert page.open_run(nvme)
    panel = page.storage_panel
    assert panel.built_label.text() == BUILT_AND_ENTERED
    rows = {}
    for i in range(panel.built_form.rowCount()):
        label = panel.built_form.itemAt(i, panel.built_form.ItemRole.LabelRole)
        field = panel.built_form.itemAt(i, panel.built_form.ItemRole.FieldRole)
        if label is not None and field is not None:
            rows[label.widget().text()] = field.widget().text()
    assert rows["Devices"].startswith("4 x Micron 7450 PRO 3.84TB")
    # Stored keys read as words, not as dotted names.
    assert rows["RAID level"] == "10"
    assert not [key for key in rows if "." in key or "_" in key]
    # A description may still be added beside it.
    panel.fs_combo.setCurrentText("xfs")
    panel.note_edit.setPlainText("mdadm, 512 KiB chunk")
    assert panel.save()
    assert store.storage_description(nvme)["filesystem"] == "xfs"


def test_a_deleted_session_leaves_no_form(page: SessionsPage, store: Any) -> None:
    hdd, _ssd = fleet(store, 2)
    page.refresh()
    assert page.open_run(hdd)
    page.confirm = lambda _title, _text: True
    page.select_id(hdd)
    assert page.delete_selected()
    panel = page.storage_panel
    assert panel.run_id is None
    assert not panel.save_button.isEnabled()
    assert not panel.save()


# ---- HammerDB import ----------------------------------------------------------------------------


def test_import_hammerdb_job_store(qtbot: QtBot, page: SessionsPage, hammer_db: Path) -> None:
    page.refresh()
    panel = page.hammerdb
    assert not panel.isVisibleTo(page)
    assert panel.button.text() == BUTTON_TEXT
    with qtbot.waitSignal(panel.imported, timeout=30_000) as done:
        assert panel.start(hammer_db) is not None
        # Busy at once: the button says so and a second import is refused.
        assert panel.button.text() == BUSY_TEXT
        assert not panel.button.isEnabled()
        assert panel.start(hammer_db) is None
    result = done.args[0]
    assert panel.button.isEnabled()
    assert panel.button.text() == BUTTON_TEXT
    assert panel.banner.tone() == "ok"
    assert panel.banner.text() == (
        "hammer.DB: 10 HammerDB jobs imported as 4 result sessions (7 steps), 1 failed run"
        " (no result), 2 schema builds (kept, not listed with the runs)."
    )
    # The sessions made are listed on demand (a 768 px screen has no room to spare).
    assert not panel.table.isVisibleTo(page)
    assert panel.details_button.isVisibleTo(page)
    panel.details_button.click()
    assert panel.table.isVisibleTo(page)
    assert panel.details_button.text() == "Hide sessions"
    rows = panel.rows()
    assert [r[3] for r in rows] == ["–", "–", "–", "4", "4/8", "4/8/16", "4"]
    assert [r[1:3] for r in rows][:3] == [["build", "failed"], ["build", "complete"],
                                          ["run", "failed"]]  # fmt: skip
    assert "every transaction failed (9512 procedure errors)" in rows[2][5]
    assert "time profile on, but its timings were not stored" in rows[6][5]
    sweep = next(s for s in result.sessions if s.vus == (4, 8, 16))
    # The list shows the imported runs (not the builds), the newest selected.
    names = page.visible_names()
    assert sum("HammerDB TPROC-C PostgreSQL" in n for n in names) == 5
    assert page.selected_id() == max(s.run_id for s in result.sessions if s.kind == "run")
    # Double-click the sweep's row: it opens, with its three steps.
    row = [r[0] for r in rows].index(f"#{sweep.run_id}")
    panel.table.cellDoubleClicked.emit(row, 4)
    assert page.current is not None
    assert page.current.id == sweep.run_id
    table = page.step_table
    assert [table.cell_text(r, "Users") for r in range(table.rowCount())] == ["4", "8", "16"]
    # Its storage was not built by bench-gui: the Storage tab asks for it.
    assert page.storage_panel.built_label.text() == NOT_BUILT

    # The same file again: nothing new, and said so.
    with qtbot.waitSignal(panel.imported, timeout=30_000):
        panel.start(hammer_db)
    assert panel.banner.tone() == "stopped"
    assert panel.banner.text().startswith(
        "hammer.DB: 10 HammerDB jobs, nothing new to import. 10 jobs were imported before"
    )
    assert panel.rows() == []
    assert not panel.table.isVisibleTo(page)
    assert not panel.details_button.isVisibleTo(page)
    panel.close_button.click()
    assert not panel.isVisibleTo(page)


def test_a_file_that_is_not_hammerdb_imports_nothing(
    qtbot: QtBot, page: SessionsPage, store: Any, tmp_path: Path, hammer_db: Path
) -> None:
    page.refresh()
    panel = page.hammerdb
    text = tmp_path / "results.txt"
    text.write_text("System achieved 1000 NOPM\n")
    broken = tmp_path / "broken.DB"
    broken.write_bytes(hammer_db.read_bytes()[:4096])
    for bad, reason in (
        (text, "neither a HammerDB job store nor a log"),
        (tmp_path / "gone.DB", "No such file or directory"),
        (broken, "broken.DB: cannot import from HammerDB"),
    ):
        assert panel.start(bad) is not None
        qtbot.waitUntil(lambda: panel.task is None, timeout=30_000)
        assert panel.banner.tone() == "failed", panel.banner.text()
        assert panel.banner.text().startswith(f"Nothing imported from {bad.name}: ")
        assert reason in panel.banner.text()
        assert not panel.table.isVisibleTo(page)
        assert panel.button.isEnabled()
    assert store.list_runs(None) == []


def test_import_options_one_session_per_job_and_the_hosts_zone(
    qtbot: QtBot, page: SessionsPage, store: Any, tmp_path: Path, hammer_db: Path
) -> None:
    """The dialog's two choices reach the import: no sweeps, and times read in the zone given."""
    from datetime import datetime

    from bench_gui.gui.pages.sessions.hammerdb_options import ImportChoices, ImportOptionsDialog
    from bench_gui.store import SessionStore

    dialog = ImportOptionsDialog("hammer.DB")
    qtbot.addWidget(dialog)
    assert dialog.choices() == ImportChoices(each=False, utc_offset_h=None)
    assert not dialog.offset_spin.isEnabled()
    dialog.each_check.setChecked(True)
    dialog.offset_radio.setChecked(True)
    assert dialog.offset_spin.isEnabled()
    dialog.offset_spin.setValue(5.5)
    assert dialog.choices() == ImportChoices(each=True, utc_offset_h=5.5)

    panel = page.hammerdb
    with qtbot.waitSignal(panel.imported, timeout=30_000) as done:
        assert panel.start(hammer_db, ImportChoices(each=True, utc_offset_h=5.5)) is not None
    each = done.args[0]
    runs = [s for s in each.sessions if s.kind == "run" and s.status == "complete"]
    # The default import joins 4/8 and 4/8/16 into sweeps; one per job stores single steps.
    assert len(runs) > 4
    assert all(len(s.vus) == 1 for s in runs)

    # The same file read as UTC into another store: every start is 5.5 h later than at +5.5.
    utc_store = SessionStore(tmp_path / "utc.sqlite3")
    try:
        other = SessionsPage(utc_store)
        qtbot.addWidget(other)
        with qtbot.waitSignal(other.hammerdb.imported, timeout=30_000) as done_utc:
            other.hammerdb.start(hammer_db, ImportChoices(each=True, utc_offset_h=0.0))
        by_job = {s.jobs: s.run_id for s in done_utc.args[0].sessions}
        for session in each.sessions:
            shifted = datetime.fromisoformat(store.get_run(session.run_id).created_at)
            as_utc = datetime.fromisoformat(utc_store.get_run(by_job[session.jobs]).created_at)
            assert (as_utc - shifted).total_seconds() == 5.5 * 3600
    finally:
        utc_store.close()
