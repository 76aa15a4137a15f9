"""Fixtures for the workload kits' conformance suite: a real store in a private data
directory, and the one QApplication (the views are real widgets, the reports draw with Qt)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench_gui.store import DATA_DIR_ENV, SessionStore

# Qt's offscreen platform warns about a window-manager hint it cannot pass on whenever a
# top-level window is shown (as tests/gui/conftest.py says); it says nothing about our code.
OFFSCREEN_NOISE = ("This plugin does not support propagateSizeHints",)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.qt_log_ignore(*OFFSCREEN_NOISE))


@pytest.fixture(autouse=True)
def settings_dir(tmp_path: Path) -> Path:
    """QSettings in a fresh folder: no test reads or writes the user's real settings."""
    from PySide6.QtCore import QSettings

    folder = tmp_path / "settings"
    folder.mkdir()
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(folder))
    return folder


@pytest.fixture(autouse=True)
def _qt_app(qapp: Any) -> Any:
    return qapp


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SessionStore]:
    folder = tmp_path / "data"
    monkeypatch.setenv(DATA_DIR_ENV, str(folder))
    with SessionStore() as opened:
        yield opened
