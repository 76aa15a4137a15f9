"""Text from users and files, made safe to print in a terminal.

A session name, a tag or a target's host comes from whoever wrote the plan or the exported
file. Control characters in it could move the cursor or recolour the terminal, a right-to-left
override (U+202E) shows ``exe.txt`` for ``txt.exe``, and a lone surrogate cannot be encoded at
all. :func:`safe` shows every such character as its escape (``\\u202e``), and every CLI print of
a user-provided name goes through it.
"""

from __future__ import annotations

import unicodedata
from typing import Any, Final

# Control (Cc), format (Cf: bidirectional overrides and isolates, zero-width characters),
# surrogate (Cs), private use (Co) and line/paragraph separators (Zl, Zp).
_ESCAPED: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def safe(value: object) -> str:
    """``value`` as text with control and bidirectional characters shown as escapes."""
    text = value if isinstance(value, str) else str(value)
    if text.isprintable():  # the common case: nothing to escape (fast)
        return text
    return "".join(
        _escape(char) if char != " " and unicodedata.category(char) in _ESCAPED else char
        for char in text
    )


# What a figure the database and the driver disagree on carries in a table or a line.
DOUBT_MARK = "(!)"


def number(value: Any, digits: int = 0) -> str:
    """A number for a table or a progress line; "-" for anything that is not one."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return "-"
    return f"{value:,.{digits}f}"
