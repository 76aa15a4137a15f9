"""The kernel knob the run tests change for real: one this container can write without harm
(``vm.dirty_expire_centisecs``: no other test touches it). The fixture that puts it back is
``expire`` in this folder's ``conftest.py``."""

from __future__ import annotations

from pathlib import Path

EXPIRE = "/proc/sys/vm/dirty_expire_centisecs"


def read_knob(path: str) -> str:
    """A /proc or /sys value, as text."""
    return Path(path).read_text().strip()
