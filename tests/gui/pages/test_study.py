"""The Study page: a seed's template written and opened, a bad study's problems by path, and
a real two-system study against the private PostgreSQL run to its brief with its progress."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytestqt.qtbot import QtBot

from bench_gui.gui.pages.study.page import StudyPage
from bench_gui.services.study_templates import SEEDS
from tests.services.test_study_run import PRESET, study_text


def cells(page: StudyPage, column: int) -> list[str]:
    return [page.table.item(r, column).text() for r in range(page.table.rowCount())]


def opened_study(
    qtbot: QtBot,
    store: Any,
    pg_server: Any,
    tmp_path: Path,
    preset: str = PRESET,
    duration: float = 3,
) -> StudyPage:
    """The page with the two-system study of the services' tests open (fresh databases)."""
    pg_server.clone_tpcc("study_disk", warehouses=1)
    pg_server.clone_tpcc("study_ssd", warehouses=1)
    (tmp_path / "ssd-preset.toml").write_text(preset)
    path = tmp_path / "study.toml"
    path.write_text(study_text(pg_server, duration=duration))
    page = StudyPage(store)
    qtbot.addWidget(page)
    assert page.open(path)
    return page


def test_a_template_opens_with_its_systems_to_measure(
    qtbot: QtBot, store: Any, tmp_path: Path
) -> None:
    page = StudyPage(store)
    qtbot.addWidget(page)
    assert not page.run_button.isEnabled()
    assert not page.check_button.isEnabled()
    # The margins every page has (it sat 20 px further left and higher than the others).
    margins = page.layout().contentsMargins()
    assert (margins.left(), margins.top()) == (20, 16)
    # The gallery: each seed's study by its name, with the brief it reproduces.
    combo = page.template_combo
    assert [combo.itemData(i) for i in range(combo.count())] == list(SEEDS)
    assert combo.itemText(3) == "seed-003: Two against four 9300 NVMe SSDs on SQL Server"
    combo.setCurrentIndex(4)
    assert page.template_about.text().startswith('"Cost accounting for SSDs')
    combo.setCurrentIndex(3)
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
    page = opened_study(qtbot, store, pg_server, tmp_path)
    seen: list[str] = []
    rows: list[list[str]] = []
    bar: list[int] = []
    page.runner.progress.connect(lambda _w, _f, text: seen.append(text))
    page.runner.partial.connect(lambda _w, _p: rows.append(cells(page, 4)))
    page.runner.progress.connect(lambda _w, _f, _t: bar.append(page.progress_bar.value()))
    assert page.start()
    assert page.stop_button.isEnabled()
    assert page.progress_bar.isVisible() or not page.isVisible()
    qtbot.waitUntil(lambda: page.runner.busy is None, timeout=180_000)
    assert page.banner.tone() == "ok", page.banner.text()
    assert "brief.html" in page.banner.text()
    assert any(t.startswith("[1/2 disk] DISK server: step 1/1") for t in seen)
    assert any(t.startswith("[2/2 ssd]") for t in seen)
    assert all(c.startswith("#") for c in cells(page, 4))
    assert (tmp_path / "brief.html").is_file()
    # Each system's row said what the study was doing to it while it did it.
    assert ["measuring: step 1/1", "to measure"] in rows
    assert any(r[1] == "applying its tuning" for r in rows)
    assert any(r[0].startswith("#") and r[1] == "measuring: step 1/1" for r in rows)
    assert bar == sorted(bar)  # the bar only goes forward
    assert bar[-1] >= 500
    assert page.progress_bar.value() == 1000
    assert not page.brief_button.isHidden()


def test_check_reaches_the_server_and_names_a_preset_too_large_for_it(
    qtbot: QtBot, store: Any, pg_server: Any, tmp_path: Path
) -> None:
    big = PRESET.replace('random_page_cost = "1.1"', 'shared_buffers = "4TB"')
    page = opened_study(qtbot, store, pg_server, tmp_path, preset=big)
    assert page.check_button.isEnabled()
    assert page.check()
    assert not page.run_button.isEnabled()  # one task at a time
    assert not page.stop_button.isEnabled()  # a check is not a run to stop
    qtbot.waitUntil(lambda: page.runner.busy is None, timeout=60_000)
    text = page.errors.text()
    assert text.startswith("Not ready: 1 problem would stop the run:")
    assert "systems.ssd.tuning.profile: ssd-preset.toml: shared_buffers 4TB is more" in text
    assert page.run_button.isEnabled()
    # Run study checks first: nothing is measured (the disk system would have been, before).
    runs = len(store.list_runs())
    assert page.start()
    qtbot.waitUntil(lambda: page.runner.busy is None, timeout=60_000)
    assert page.banner.tone() == "failed"
    assert page.banner.text().startswith("Not started: the check found what would stop the run")
    assert "shared_buffers 4TB" in page.banner.text()
    assert len(store.list_runs()) == runs


def test_stop_from_the_page_is_the_user_s_not_a_failure(
    qtbot: QtBot, store: Any, pg_server: Any, tmp_path: Path
) -> None:
    page = opened_study(qtbot, store, pg_server, tmp_path, duration=60)
    assert page.start()
    qtbot.waitUntil(lambda: cells(page, 4)[0] == "measuring: step 1/1", timeout=60_000)
    page.stop()
    qtbot.waitUntil(lambda: page.runner.busy is None, timeout=60_000)
    # Stopped (amber), not failed (red); the stopped session is measured again next time.
    assert page.banner.tone() == "stopped", page.banner.text()
    assert "Run study goes on from there" in page.banner.text()
    assert cells(page, 4) == ["to measure", "to measure"]
    assert page.progress_line.text() == ""  # not the last progress, "about 60 s left"
    assert page.run_button.isEnabled()
