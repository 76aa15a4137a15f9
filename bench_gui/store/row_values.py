"""Values between the store's rows and its records: times as ISO text, JSON columns, numbers.

Pure functions with no connection: the agent's events are loose JSON (a field may be missing,
a bool where a number belongs), so every part of the store reads and writes them the same way.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).isoformat(timespec="milliseconds")


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), default=str)


def _loads(text: str | None, default: Any) -> Any:
    return default if text is None else json.loads(text)


def _loads_or(text: str | None, default: Any) -> Any:
    """A JSON column for a listing: ``default`` when the text is not JSON (a damaged row of
    a team store anyone can write to must not hide every other session)."""
    try:
        return _loads(text, default)
    except (ValueError, RecursionError):
        return default


# The longest name a listing shows whole (a longer one is a damaged or forged row).
MAX_LISTED_NAME = 200


def _listed(name: Any) -> str:
    text = str(name)
    return text if len(text) <= MAX_LISTED_NAME else text[:MAX_LISTED_NAME] + "…"


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _int(value: Any, default: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    return int(value)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _column(row: Any, name: str) -> Any:
    """A column that only newer schemas have (None in a store still being migrated)."""
    names: list[str] = row.keys()  # a Row's own ``in`` looks at its values
    return row[name] if name in names else None
