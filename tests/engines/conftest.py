"""The engine kits' tests: every test gets its own HOME, data directory and in-memory keyring
(their tuners reach servers over the real SSH test target and read passwords from it)."""

from __future__ import annotations

import pytest

from tests._fixtures.isolation import MemoryKeyring


@pytest.fixture(autouse=True)
def _isolated(isolated: MemoryKeyring) -> MemoryKeyring:
    return isolated
