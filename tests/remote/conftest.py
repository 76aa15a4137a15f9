"""The SSH tests: every test gets its own HOME, data directory and in-memory keyring."""

from __future__ import annotations

import pytest
from ssh_fixtures import MemoryKeyring, Sshd, free_port


@pytest.fixture(autouse=True)
def _isolated(isolated: MemoryKeyring) -> MemoryKeyring:
    return isolated


__all__ = ["MemoryKeyring", "Sshd", "free_port"]
