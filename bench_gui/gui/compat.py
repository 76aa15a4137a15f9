"""Checks of the Qt binding the GUI runs on.

PySide6 / shiboken6 6.12.0 on CPython 3.11 drops one reference to ``None`` on every call of a
C++ method returning ``void`` (and to ``True``/``False`` on some others): CPython 3.12+ makes
those objects immortal so nothing shows, but on 3.11 their count reaches zero after a few
thousand calls and the interpreter aborts ("Fatal Python error: none_dealloc"). A live chart
makes thousands of such calls a second. 6.11.x does not have the bug.
"""

from __future__ import annotations

import sys

BAD_BINDING_HELP = (
    "This PySide6 build loses references to None on every Qt call (seen with PySide6 6.12.0 "
    "on Python 3.11) and would crash the app within minutes. Install PySide6-Essentials 6.11 "
    "(pip install 'PySide6-Essentials>=6.6,<6.12') or run on Python 3.12 or newer."
)


def binding_drops_references(calls: int = 64) -> bool:
    """True when calling a void Qt method loses a reference to ``None`` each time."""
    from PySide6.QtCore import QPointF

    point = QPointF()
    before = sys.getrefcount(None)
    for _ in range(calls):
        point.setX(1.0)
    lost = before - sys.getrefcount(None)
    return lost >= calls // 2
