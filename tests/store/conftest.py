"""Fixtures for the session store tests: every test gets its own data directory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench_gui.store import DATA_DIR_ENV, SessionStore


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point BENCH_GUI_DATA_DIR at a fresh folder so no test touches the user's sessions."""
    folder = tmp_path / "data"
    monkeypatch.setenv(DATA_DIR_ENV, str(folder))
    return folder


@pytest.fixture
def store(data_dir: Path) -> Iterator[SessionStore]:
    with SessionStore() as opened:
        yield opened
