"""A storage layout file for one device, as a study's system names it (``storage.layout``)."""

from __future__ import annotations

from pathlib import Path

import tomli_w


def write_layout(path: Path, device: str, point: Path) -> None:
    """One ext4 filesystem on ``device`` mounted at ``point``; the device is only formatted."""
    path.write_text(
        tomli_w.dumps(
            {
                "name": path.stem,
                "target": "local",
                "devices": [{"path": device, "erase": "format-only"}],
                "filesystem": {"type": "ext4"},
                "mount": {"point": str(point), "options": ["noatime"], "owner": ""},
            }
        )
    )
