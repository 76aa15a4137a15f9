"""The Sessions page's housekeeping: search, tags and notes, rename, delete, export/import."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from bench_gui.gui.pages.sessions.detail import run_facts
from bench_gui.gui.pages.sessions.page import SessionsPage
from bench_gui.gui.pages.sessions.run_table import RUN_COLUMNS
from bench_gui.services.session_view import RunHeader
from tests._fixtures.seed_sessions import build_seed000

pytestmark = pytest.mark.gui


@pytest.fixture
def filled(store: Any) -> tuple[Any, int, int]:
    hdd, ssd = build_seed000(store)
    return store, hdd, ssd


@pytest.fixture
def page(qtbot: QtBot, filled: tuple[Any, int, int]) -> SessionsPage:
    widget = SessionsPage(filled[0])
    qtbot.addWidget(widget)
    widget.resize(1600, 1000)
    widget.refresh()
    return widget


HDD_NAME = "HDD RAID 10 (16 x 15K SAS)"
SSD_NAME = "S650DC RAID 10 (4 x 800GB SAS SSD)"


def test_tags_and_note_are_saved_and_searchable(
    page: SessionsPage, filled: tuple[Any, int, int]
) -> None:
    store, hdd, ssd = filled
    assert page.open_run(hdd)
    assert page.tags_edit.isEnabled()
    page.tags_edit.setText("legacy, raid10, legacy")
    page.note_edit.setPlainText("Sixteen drives, formatted only.")
    assert page.save_annotations()
    assert store.tags(hdd) == ["legacy", "raid10"]
    assert store.note(hdd) == "Sixteen drives, formatted only."
    tags_column = RUN_COLUMNS.index("Tags")
    row = next(r for r in page.row_texts() if r[0] == HDD_NAME)
    assert row[tags_column] == "legacy, raid10"
    page.search_edit.setText("LEGACY")
    assert page.visible_names() == [HDD_NAME]
    assert page.apply_search("formatted") == 1
    page.search_edit.setText(f"#{ssd}")
    assert page.visible_names() == [SSD_NAME]
    page.search_edit.setText("")
    assert len(page.visible_names()) == 2
    page.search_edit.setText("legacy")
    page.refresh()  # a refresh keeps the search
    assert page.visible_names() == [HDD_NAME]


def test_rename(page: SessionsPage, filled: tuple[Any, int, int]) -> None:
    store, hdd, _ssd = filled
    page.select_id(hdd)
    page.ask_text = lambda title, label, value: "Legacy HDD array" if value == HDD_NAME else None
    assert page.rename_selected()
    assert store.get_run(hdd).name == "Legacy HDD array"
    assert "Legacy HDD array" in [r[0] for r in page.row_texts()]
    assert not page.rename_run(hdd, "   ")
    assert "name cannot be empty" in page.error_label.text()


def test_delete_asks_first(page: SessionsPage, filled: tuple[Any, int, int]) -> None:
    store, hdd, ssd = filled
    asked: list[str] = []

    def refuse(title: str, text: str) -> bool:
        asked.append(text)
        return False

    assert page.open_run(hdd)
    page.select_id(hdd)
    page.confirm = refuse
    assert not page.delete_selected()
    assert "cannot be undone" in asked[0]
    assert "8 measured steps" in asked[0]
    assert {r.id for r in store.list_runs()} == {hdd, ssd}
    page.confirm = lambda title, text: True
    assert page.delete_selected()
    assert [r.id for r in store.list_runs()] == [ssd]
    assert [r[0] for r in page.row_texts()] == [SSD_NAME]
    assert page.current is None
    assert not page.tags_edit.isEnabled()


def test_export_and_import(
    page: SessionsPage, filled: tuple[Any, int, int], tmp_path: Path
) -> None:
    store, hdd, _ssd = filled
    store.add_tags(hdd, ["legacy"])
    path = tmp_path / "hdd.bgsession.json"
    assert page.export_run(hdd, path)
    new_id = page.import_file(path)
    assert new_id is not None
    assert page.selected_id() == new_id
    assert store.tags(new_id) == ["legacy"]
    assert len(page.row_texts()) == 3

    doc = json.loads(path.read_text())
    doc["session"]["steps"][0]["nopm"] = 1.0
    damaged = tmp_path / "damaged.json"
    damaged.write_text(json.dumps(doc))
    assert page.import_file(damaged) is None
    assert "checksum does not match" in page.error_label.text()
    assert len(page.row_texts()) == 3

    foreign = tmp_path / "notes.json"
    foreign.write_text('{"hello": "world"}')
    assert page.import_file(foreign) is None
    assert "not a bench-gui session file" in page.error_label.text()
    assert len(store.list_runs()) == 3


def test_buttons_follow_the_selection(page: SessionsPage, filled: tuple[Any, int, int]) -> None:
    _store, hdd, _ssd = filled
    assert not page.delete_button.isEnabled()
    assert not page.export_button.isEnabled()
    page.select_id(hdd)
    assert page.delete_button.isEnabled()
    assert page.export_button.isEnabled()
    assert page.rename_button.isEnabled()


def test_search_finds_a_system(page: SessionsPage, filled: tuple[Any, int, int]) -> None:
    """The tested system (the target's label) is searched too, as ``--system`` on the
    command line: a colleague's sessions of one server are found by its name."""
    store, hdd, ssd = filled
    systems = {info.id: info.target_summary for info in store.list_runs()}
    assert systems[hdd]
    page.search_edit.setText(systems[hdd].upper())
    shown = page.visible_names()
    assert HDD_NAME in shown
    assert all(systems[info.id] == systems[hdd] for info in store.list_runs() if info.name in shown)


def test_a_run_on_several_driver_hosts_names_them() -> None:
    plan = {"workload": {"warehouses": 4}, "driver": {"targets": ["alpha", "beta"]}}
    header = RunHeader(1, "two", "2026-11-26 21:00", "", "complete", "postgresql", "", plan=plan)
    assert run_facts(header).endswith("4 warehouses  ·  2 driver hosts: alpha, beta")
    one = RunHeader(2, "one", "2026-11-26 21:00", "", "complete", "postgresql", "", plan={})
    assert "driver hosts" not in run_facts(one)
