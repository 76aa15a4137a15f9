"""Fixtures for the GUI tests: offscreen Qt, a private data directory, a real session store.

Every test also checks that no :class:`~bench_gui.gui.worker.RunWorker` thread is left running
(QThreads do not show up in ``threading.enumerate()``, so the top-level thread check cannot see
them).
"""

from __future__ import annotations

import os

# Before anything imports Qt: no display needed, same rendering everywhere.
os.environ["QT_QPA_PLATFORM"] = "offscreen"

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from bench_gui.gui.compat import BAD_BINDING_HELP, binding_drops_references
from bench_gui.gui.worker import live_workers

# Qt's offscreen platform warns about a window-manager hint it cannot pass on whenever a
# top-level window is shown; it says nothing about our code.
OFFSCREEN_NOISE = ("This plugin does not support propagateSizeHints",)
GUI_DIR = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if GUI_DIR in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.qt_log_ignore(*OFFSCREEN_NOISE))


@pytest.fixture(scope="session", autouse=True)
def _usable_binding() -> None:
    """Refuse to run on a Qt binding that corrupts reference counts (it aborts the process)."""
    if binding_drops_references():
        pytest.fail(BAD_BINDING_HELP, pytrace=False)


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """BENCH_GUI_DATA_DIR points at a fresh folder: no test touches real sessions."""
    folder = tmp_path / "data"
    folder.mkdir()
    monkeypatch.setenv("BENCH_GUI_DATA_DIR", str(folder))
    return folder


@pytest.fixture(autouse=True)
def settings_dir(tmp_path: Path) -> Path:
    """QSettings (the Live page's chart layout...) in a fresh folder: no test reads or writes
    the user's real settings."""
    from PySide6.QtCore import QSettings

    folder = tmp_path / "settings"
    folder.mkdir()
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(folder))
    return folder


@pytest.fixture(autouse=True)
def _no_worker_left() -> Iterator[None]:
    yield
    leftover = live_workers()
    for worker in leftover:
        worker.shutdown(30)
    assert not leftover, f"run workers left running: {leftover}"


@pytest.fixture
def store(data_dir: Path) -> Iterator[Any]:
    from bench_gui.store import SessionStore

    opened = SessionStore(data_dir / "sessions.sqlite3")
    yield opened
    opened.close()


@pytest.fixture
def main_window(qtbot: QtBot, store: Any) -> Iterator[Any]:
    from bench_gui.gui.app import build_main_window

    window = build_main_window(store)
    qtbot.addWidget(window)
    yield window
    assert window.shutdown(30), "the window's task did not end"
