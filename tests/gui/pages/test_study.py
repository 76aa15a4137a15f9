"""The Study page: a seed's template written and opened, a bad study's problems by path, and
a real two-system study against the private PostgreSQL run to its brief with its progress."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytestqt.qtbot import QtBot

from bench_gui.gui.pages.study import StudyPage
from tests.services.test_study_run import PRESET, study_text


def cells(page: StudyPage, column: int) -> list[str]:
    return [page.table.item(r, column).text() for r in range(page.table.rowCount())]


def test_a_template_opens_with_its_systems_to_measure(
    qtbot: QtBot, store: Any, tmp_path: Path
) -> None:
    page = StudyPage(store)
    qtbot.addWidget(page)
    assert not page.run_button.isEnabled()
    assert page.new_from_template("seed-003", tmp_path / "s.toml")
    assert cells(page, 0) == ["two", "four"]
    assert cells(page, 2) == ["baseline", ""]
    assert cells(page, 4) == ["to measure", "to measure"]
    assert page.run_button.isEnabled()

    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[workload]\nwarehouses = 0\n[systems.a.target]\nport = 0\n')
    assert not page.open(bad)
    text = page.errors.text()
    assert "workload.warehouses" in text
    assert "systems.a.target.port" in text
    assert not page.run_button.isEnabled()


def test_a_study_runs_to_its_brief_from_the_page(
    qtbot: QtBot, store: Any, pg_server: Any, tmp_path: Path
) -> None:
    pg_server.clone_tpcc("study_disk", warehouses=1)
    pg_server.clone_tpcc("study_ssd", warehouses=1)
    (tmp_path / "ssd-preset.toml").write_text(PRESET)
    path = tmp_path / "study.toml"
    path.write_text(study_text(pg_server))
    page = StudyPage(store)
    qtbot.addWidget(page)
    assert page.open(path)
    seen: list[str] = []
    page.runner.progress.connect(lambda _w, _f, text: seen.append(text))
    assert page.start()
    assert page.stop_button.isEnabled()
    qtbot.waitUntil(lambda: page.runner.busy is None, timeout=180_000)
    assert page.banner.tone() == "ok", page.banner.text()
    assert "brief.html" in page.banner.text()
    assert any(t.startswith("[1/2 disk] DISK server: step 1/1") for t in seen)
    assert any(t.startswith("[2/2 ssd]") for t in seen)
    assert all(c.startswith("#") for c in cells(page, 4))
    assert (tmp_path / "brief.html").is_file()
