"""The application services (a run, a tuning change) against real components: every test gets
its own HOME, data directory and in-memory keyring (runs through an SSH driver host accept its
host key and read saved targets there)."""

from __future__ import annotations

import pytest

from tests._fixtures.isolation import MemoryKeyring


@pytest.fixture(autouse=True)
def _isolated(isolated: MemoryKeyring) -> MemoryKeyring:
    return isolated
