"""Fixtures for the report tests: a private data directory, a real store, a Qt application.

Reports draw through Qt's offscreen renderer. The ``qapp`` fixture of pytest-qt makes the one
QApplication of the test session, so a report test never leaves a bare QGuiApplication behind
for the widget tests that follow.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench_gui.store import DATA_DIR_ENV, SessionStore


@pytest.fixture(autouse=True)
def _qt_app(qapp: Any) -> Any:
    return qapp


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SessionStore]:
    folder = tmp_path / "data"
    monkeypatch.setenv(DATA_DIR_ENV, str(folder))
    with SessionStore() as opened:
        yield opened
