"""The command-line tests: every test gets its own HOME, data directory and in-memory keyring
(commands save targets, accept host keys and record storage layouts there)."""

from __future__ import annotations

from typing import Any

import pytest

from tests._fixtures.isolation import MemoryKeyring


@pytest.fixture(autouse=True)
def _isolated(isolated: MemoryKeyring) -> MemoryKeyring:
    return isolated


@pytest.fixture(autouse=True)
def _qt_app(qapp: Any) -> Any:
    """The CLI draws report charts and PDFs in-process through Qt: let pytest-qt make the one
    QApplication of the test session first, so no bare QGuiApplication is left behind for the
    widget tests that follow."""
    return qapp
