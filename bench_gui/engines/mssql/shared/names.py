"""SQL Server names as T-SQL quotes them: the agent's schema and settings and the desktop's
tuner all quote with it."""

from __future__ import annotations


def quote_name(name: str) -> str:
    """[name] with ] doubled, as QUOTENAME does; refuses names SQL Server cannot hold."""
    if not name or len(name) > 128 or "\x00" in name:
        raise ValueError(f"not a valid SQL Server name: {name!r} (1 to 128 characters)")
    return "[" + name.replace("]", "]]") + "]"
