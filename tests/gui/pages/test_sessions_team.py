"""The Sessions page with a team store on the private PostgreSQL: the setting saved and loaded,
the dialog's Test and password, the push from the page (once, however often), the switch to
the team's sessions with their authors and the author filter, and an unreachable store."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql
from pytestqt.qtbot import QtBot

from bench_gui.gui.app import close_team_store, start_team_push
from bench_gui.gui.pages.sessions.page import SessionsPage
from bench_gui.gui.pages.sessions.run_table import RUN_COLUMNS
from bench_gui.gui.pages.sessions.team_dialog import TeamStoreDialog
from bench_gui.gui.pages.sessions.team_settings import (
    TeamSetting,
    load_team_setting,
    save_team_setting,
)
from bench_gui.gui.pages.sessions.team_store import EVERYONE, TeamBar
from bench_gui.store import SessionStore
from bench_gui.store.recorder import AUTHOR_ENV
from bench_gui.store.team_store import get_store_password
from bench_gui.store.team_sync import push
from tests._fixtures.pg import PgServer
from tests._fixtures.seed_sessions import build_seed000, build_seed003
from tests._fixtures.ssh import free_port

pytestmark = pytest.mark.gui
WAIT_MS = 60_000  # a generous bound for a push on a loaded machine; never a measured time
AUTHOR = RUN_COLUMNS.index("Author")


@pytest.fixture
def team(pg_server: PgServer) -> Iterator[TeamSetting]:
    """A team store of this test's own: a fresh database on the private PostgreSQL, on its
    socket (trusted: no password)."""
    database = f"team_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_server.uri(), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
    try:
        yield TeamSetting(f"postgresql://postgres@/{database}?host={pg_server.socket_dir}")
    finally:
        pg_server.drop(database)


def team_names(setting: TeamSetting) -> list[str]:
    """Every session name in the team store, straight from PostgreSQL (duplicates kept)."""
    with psycopg.connect(setting.config().conninfo()) as conn:
        return sorted(r[0] for r in conn.execute("SELECT name FROM runs"))


@pytest.fixture
def page(qtbot: QtBot, store: Any) -> Iterator[SessionsPage]:
    widget = SessionsPage(store)
    qtbot.addWidget(widget)
    widget.resize(1600, 1000)
    yield widget
    assert widget.team_bar.runner.shutdown(60)
    widget.team_bar.close_store()


def finished(qtbot: QtBot, bar: TeamBar) -> None:
    qtbot.waitUntil(lambda: bar.task is None, timeout=WAIT_MS)


def test_the_setting_is_saved_and_loaded(settings_dir: Path) -> None:
    assert load_team_setting() is None
    setting = TeamSetting("postgresql://bench@db1:5433/results", "verify-full", "/etc/ca.crt")
    save_team_setting(setting)
    assert load_team_setting() == setting
    ini = next(settings_dir.rglob("*.ini")).read_text()
    assert "postgresql://bench@db1:5433/results" in ini
    assert "password" not in ini
    save_team_setting(None)
    assert load_team_setting() is None


def test_the_dialog_tests_saves_the_password_and_refuses_bad_urls(
    qtbot: QtBot, team: TeamSetting, isolated_keyring: Any
) -> None:
    dialog = TeamStoreDialog(None)
    qtbot.addWidget(dialog)
    dialog.url_edit.setText("postgresql://bench:s3cret@db1/results")
    dialog.accept()
    assert dialog.result() != TeamStoreDialog.DialogCode.Accepted
    assert "holds a password" in dialog.banner.text()
    assert dialog.test_connection() is None  # nothing started for a bad URL
    dialog.url_edit.setText(team.url)
    dialog.tls_combo.setCurrentIndex(dialog.tls_combo.findData("disable"))
    dialog.password_edit.setText("team pass")
    assert dialog.save_password()
    assert dialog.password_edit.text() == ""
    assert get_store_password(team.config()) == "team pass"
    assert dialog.test_connection() is not None
    qtbot.waitUntil(lambda: dialog.runner.task is None, timeout=WAIT_MS)
    assert dialog.banner.tone() == "ok"
    assert "Connected to postgresql://postgres@" in dialog.banner.text()
    assert "0 sessions stored there" in dialog.banner.text()
    dialog.accept()
    assert dialog.setting() == TeamSetting(team.url, "disable", "")
    # An unreachable server: the test says why, the window never waited for it.
    dialog.url_edit.setText(f"postgresql://postgres@127.0.0.1:{free_port()}/team")
    dialog.test_connection()
    qtbot.waitUntil(lambda: dialog.runner.task is None, timeout=WAIT_MS)
    assert dialog.banner.tone() == "failed"
    assert "Test failed" in dialog.banner.text()
    assert "cannot open it" in dialog.banner.text()


def test_push_from_the_page_then_show_the_team_store(
    qtbot: QtBot, page: SessionsPage, store: Any, team: TeamSetting
) -> None:
    hdd, ssd = build_seed000(store)
    page.show()
    bar = page.team_bar
    assert not bar.view_combo.isEnabled()
    assert not bar.push_button.isEnabled()
    assert "this computer:" in bar.where_label.text()
    bar.edit_setting = lambda current: (True, team)
    assert bar.open_settings()  # saved, and pushed at once
    assert load_team_setting() == team
    finished(qtbot, bar)
    assert bar.banner.tone() == "ok"
    assert bar.banner.text() == "2 sessions recorded here pushed to the team store."
    assert team_names(team) == sorted(store.get_run(i).name for i in (hdd, ssd))
    # Push again (the button): nothing twice.
    bar.push_button.click()
    finished(qtbot, bar)
    assert bar.last_result is not None
    assert bar.last_result.copied == {}
    assert len(team_names(team)) == 2
    # The team's sessions, with who recorded them.
    bar.show_team(True)
    assert page.store is bar.team
    assert bar.showing_team
    assert bar.where_label.text().startswith("team store postgresql://postgres@")
    rows = page.row_texts()
    assert sorted(r[0] for r in rows) == team_names(team)
    assert {r[AUTHOR] for r in rows} == {store.get_run(hdd).author}
    # Other pages open sessions by their local id: leaving the page shows the file again.
    page.hide()
    assert page.store is store
    assert not bar.showing_team


def test_the_author_filter(
    qtbot: QtBot,
    page: SessionsPage,
    store: Any,
    team: TeamSetting,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for author, build in (("grace", build_seed000), ("alan", build_seed003)):
        monkeypatch.setenv(AUTHOR_ENV, author)
        with SessionStore(tmp_path / f"{author}.sqlite3") as local:
            build(local)
            with SessionStore(team=team.config()) as shared:
                push(local, shared)
    save_team_setting(team)
    page.team_bar.setting = load_team_setting()
    page.show()  # pushes this computer's (none) and opens the team store
    finished(qtbot, page.team_bar)
    page.team_bar.show_team(True)
    assert len(page.row_texts()) == 4
    combo = page.team_bar.author_combo
    assert [combo.itemText(i) for i in range(combo.count())] == [EVERYONE, "alan", "grace"]
    assert page.team_bar.choose_author("grace")
    assert sorted(page.visible_names()) == [
        "HDD RAID 10 (16 x 15K SAS)",
        "S650DC RAID 10 (4 x 800GB SAS SSD)",
    ]
    page.search_edit.setText("S650")  # the search narrows within the author's sessions
    assert page.visible_names() == ["S650DC RAID 10 (4 x 800GB SAS SSD)"]
    page.search_edit.setText("")
    assert page.team_bar.choose_author("alan")
    assert len(page.visible_names()) == 2
    page.refresh()  # the choice is kept over a reload
    assert page.team_bar.author() == "alan"
    assert len(page.visible_names()) == 2
    assert not page.team_bar.choose_author("nobody")
    assert page.team_bar.choose_author(None)
    assert len(page.visible_names()) == 4


def test_an_unreachable_team_store_leaves_the_file_working(
    qtbot: QtBot, page: SessionsPage, store: Any
) -> None:
    build_seed000(store)
    offline = TeamSetting(f"postgresql://postgres@127.0.0.1:{free_port()}/team")
    save_team_setting(offline)
    page.team_bar.setting = load_team_setting()
    page.show()
    bar = page.team_bar
    finished(qtbot, bar)
    assert bar.banner.tone() == "failed"
    text = bar.banner.text()
    assert text.startswith("Team store postgresql://postgres@127.0.0.1:")
    assert "the team store cannot be reached" in text
    assert "will be pushed later" in text
    assert bar.team is None
    assert bar.last_result is not None
    assert not bar.last_result.reached
    # Asking for the team's sessions tries again, then stays on this computer's.
    bar.show_team(True)
    finished(qtbot, bar)
    assert page.store is store
    assert not bar.showing_team
    assert len(page.row_texts()) == 2
    assert page.error_label.isHidden()


def test_the_app_pushes_at_its_start(
    qtbot: QtBot, main_window: Any, store: Any, team: TeamSetting
) -> None:
    assert not start_team_push(main_window)  # no team store set: nothing built
    assert main_window.built("Sessions") is None
    build_seed000(store)
    save_team_setting(team)
    assert start_team_push(main_window)
    bar = main_window.sessions_page.team_bar
    finished(qtbot, bar)
    assert len(team_names(team)) == 2
    assert "2 sessions pushed to the team store" in main_window.face.status_label.text()
    close_team_store(main_window)
    assert bar.team is None


def test_an_edit_of_a_pushed_session_reaches_the_team_store(
    qtbot: QtBot, page: SessionsPage, store: Any, team: TeamSetting
) -> None:
    """Tags and note saved on this computer's copy of a pushed session go to the team store
    (the page pushes right after the save); a tag a colleague added meanwhile stays, and
    their note is kept in the note's history, the page saying so."""
    _hdd, ssd = build_seed000(store)
    store.add_tags(ssd, ["ssd"])
    store.set_note(ssd, "first words")
    page.show()
    bar = page.team_bar
    bar.edit_setting = lambda current: (True, team)
    assert bar.open_settings()
    finished(qtbot, bar)
    assert page.open_run(ssd)
    with SessionStore(team=team.config()) as colleague:  # meanwhile, in the team store
        there = next(r.id for r in colleague.list_runs() if r.uuid == store.get_run(ssd).uuid)
        colleague.add_tags(there, ["colleague"])
        colleague.set_note(there, "the colleague's words")
    finished(qtbot, bar)
    page.tags_edit.setText("ssd, mine")
    page.note_edit.setPlainText("my words")
    assert page.save_annotations()
    finished(qtbot, bar)  # the push the save started
    assert bar.last_result is not None
    assert bar.last_result.edits_sent == 2
    with SessionStore(team=team.config()) as check:
        assert check.tags(there) == ["colleague", "mine", "ssd"]
        assert check.note(there) == "my words"
        history = [(v.text, v.unseen) for v in check.note_history(there)]
        assert history == [("first words", False), ("the colleague's words", True)]
    # The push brought the team's state back to this computer's list.
    assert store.tags(ssd) == ["colleague", "mine", "ssd"]
    row = next(r for r in page.row_texts() if r[0].startswith("S650DC"))
    assert row[RUN_COLUMNS.index("Tags")] == "colleague, mine, ssd"
    # Saved on the team store's own list: written there at once, a conflict said on the page.
    bar.show_team(True)
    assert page.store is bar.team
    assert page.open_run(there)
    with SessionStore(team=team.config()) as colleague:
        colleague.set_note(there, "their second words")
    page.note_edit.setPlainText("my second words")
    assert page.save_annotations()
    assert "had been changed meanwhile by" in page.error_label.text()
    assert "kept in the note's history" in page.error_label.text()
