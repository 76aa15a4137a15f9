"""Text formatting the pages share for sizes and similar values (no widget here)."""

from __future__ import annotations

from typing import Any


def human_bytes(value: Any) -> str:
    """``274877906944`` -> ``256 GiB`` (binary units, as lsblk and free print them)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return "—"
    size = float(value)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(size) < 1024 or unit == "PiB":
            if unit == "B":
                return f"{int(size)} B"
            text = f"{size:.1f}".rstrip("0").rstrip(".")
            return f"{text} {unit}"
        size /= 1024
    return f"{value} B"  # pragma: no cover - the loop always returns


__all__ = ["human_bytes"]
