"""Who records a session and on which machine: each stored session says so (schema 4).

The author is ``$BENCH_GUI_AUTHOR`` when set (a name the team knows, on a shared lab
account), else the OS user; the host is this machine's name. Both are what the session list of
a team store filters on.
"""

from __future__ import annotations

import getpass
import os
import socket
from typing import Final

AUTHOR_ENV: Final = "BENCH_GUI_AUTHOR"


def current_author() -> str:
    """The name sessions recorded here carry as their author."""
    named = " ".join(os.environ.get(AUTHOR_ENV, "").split())
    if named:
        return named[:100]
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry and no LOGNAME/USER: a bare container
        return ""


def current_host() -> str:
    """This machine's name, as sessions recorded here carry it."""
    return socket.gethostname()
