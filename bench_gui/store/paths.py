"""Where the store keeps its files.

One function decides the data directory so the session database, prices and inventories all
land in the same place, and so tests and CI can redirect everything with one variable.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "bench-gui"
DATA_DIR_ENV = "BENCH_GUI_DATA_DIR"
SESSIONS_FILE = "sessions.sqlite3"


def data_dir() -> Path:
    """The user's data directory, or ``$BENCH_GUI_DATA_DIR`` when set (tests, CI, portable use)."""
    override = os.environ.get(DATA_DIR_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    # appauthor=False: no "bench-gui\\bench-gui" nesting on Windows.
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def default_sessions_path() -> Path:
    """The default session database file inside :func:`data_dir`."""
    return data_dir() / SESSIONS_FILE
