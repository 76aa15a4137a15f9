"""What keeps a test away from the developer's own things: an in-memory keyring, and for the
tests that use SSH or saved targets, their own HOME and data directory.

The keyring is replaced for every test by the root ``tests/conftest.py`` (an autouse fixture);
:func:`isolated` adds the HOME and data directory where a folder's conftest asks for it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backend
import keyring.errors
import pytest


class MemoryKeyring(keyring.backend.KeyringBackend):
    """A keyring that lives in this process only: tests never touch the OS keyring."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        try:
            del self.entries[(service, username)]
        except KeyError:
            raise keyring.errors.PasswordDeleteError(username) from None


@contextlib.contextmanager
def use_keyring(ring: MemoryKeyring) -> Iterator[MemoryKeyring]:
    """``ring`` is the process's keyring inside the ``with`` block; the previous one after."""
    previous = keyring.get_keyring()
    keyring.set_keyring(ring)
    try:
        yield ring
    finally:
        keyring.set_keyring(previous)


@pytest.fixture
def isolated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_keyring: MemoryKeyring
) -> MemoryKeyring:
    """Own HOME (an empty ``~/.ssh``) and data directory for the test; returns its keyring."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("BENCH_GUI_DATA_DIR", str(tmp_path / "data"))
    return isolated_keyring
