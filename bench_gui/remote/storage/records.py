"""Describing and recording built layouts.

:func:`describe_layout` is the record of a built layout that is stored with every session
measured on it.

A built layout is recorded in ``state_dir`` (a JSON file a target, by mount point) until it
is torn down: the teardown's guard asks for the record, and :func:`session_layout` finds the
layout a session measures from it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import time
from pathlib import Path
from typing import Any, Final

from bench_gui.core.storage import ERASE_METHODS, Layout
from bench_gui.core.storage_plan import mkfs_argv
from bench_gui.remote.local_shell import LOCAL_TARGET
from bench_gui.remote.storage.devices import Discovery
from bench_gui.remote.storage.parsers import Mount

PLACEMENT_FILE: Final = ".bench-gui-placement.json"


def utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def describe_layout(
    layout: Layout, disc: Discovery, resync: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The layout as built: what a session measured on it records (and comparisons show).

    Devices with model, serial, firmware, size, transport, erase method, the scheduler and
    read-ahead in force; the array (level, chunk, backend); the filesystem with its mkfs
    command and stripe geometry; the mount point and the options the kernel reports.
    """
    devices = []
    for spec in layout.devices:
        found = disc.find(spec.path)
        method = ERASE_METHODS.get(spec.erase)
        devices.append(
            {
                "path": spec.path,
                "model": found.model if found else None,
                "serial": found.serial if found else None,
                "firmware": found.firmware if found else None,
                "size_bytes": found.size_bytes if found else None,
                "rotational": found.rotational if found else None,
                "transport": found.transport if found else None,
                "erase": spec.erase,
                "erase_label": method.label if method else spec.erase,
                "scheduler": (found.scheduler or None) if found else None,
                "read_ahead_kib": found.read_ahead_kib if found else None,
            }
        )
    array: dict[str, Any] = {"level": layout.array.level}
    if layout.array.level != "single":
        array.update(backend=layout.array.backend, devices=len(layout.devices))
        if layout.array.backend == "mdadm":
            md = disc.find(layout.array.device)
            array.update(
                device=layout.array.device,
                read_ahead_kib=md.read_ahead_kib if md else None,
            )
            if layout.array.level != "1":
                array["chunk_kib"] = layout.array.chunk_kib
        if resync:
            array["resync"] = resync.get("text", "")
    mount = disc.mount_at(layout.mount.point)
    fs: dict[str, Any] = {
        "type": layout.filesystem.type,
        "mkfs": shlex.join(mkfs_argv(layout)),
    }
    if layout.filesystem.label:
        fs["label"] = layout.filesystem.label
    if layout.filesystem.stripe_align and layout.uses_md and layout.filesystem.type != "btrfs":
        fs["stripe"] = f"{layout.array.chunk_kib} KiB x {layout.data_devices()}"
    methods = sorted({spec.erase for spec in layout.devices})
    return {
        "name": layout.name,
        "target": layout.target,
        "host": disc.host,
        "volume": layout.volume,
        "devices": devices,
        "erase": ", ".join(methods),
        "array": array,
        "filesystem": fs,
        "mount": {
            "point": layout.mount.point,
            "options": _mount_options(mount) if mount else ",".join(layout.mount.options),
            "owner": layout.mount.owner,
        },
        "applied_at": utc_now(),
    }


def _mount_options(mount: Mount) -> str:
    """The per-mount and the filesystem's options, each once, as the kernel reports them."""
    items = [*mount.options.split(","), *mount.super_options.split(",")]
    return ",".join(dict.fromkeys(i for i in items if i))


def describe_line(description: dict[str, Any]) -> str:
    """One line: "4 x /dev/sdb… RAID 10 (512 KiB) xfs on /mnt/bench (noatime)"."""
    devices = description.get("devices") or []
    array = description.get("array") or {}
    level = array.get("level", "single")
    what = (
        f"{len(devices)} devices in RAID {level}"
        + (" (btrfs)" if array.get("backend") == "btrfs" else "")
        if level != "single"
        else (devices[0].get("path") if devices else "?")
    )
    if array.get("chunk_kib"):
        what += f", {array['chunk_kib']} KiB chunk"
    fs = (description.get("filesystem") or {}).get("type", "?")
    mount = description.get("mount") or {}
    return f"{what}, {fs} on {mount.get('point', '?')}"


def _records_path(state_dir: Path, target: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", target) or "local"
    return state_dir / f"{safe}.json"


def _load_records(state_dir: Path, target: str) -> dict[str, Any]:
    path = _records_path(state_dir, target)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"layouts": {}}
    if not isinstance(data, dict) or not isinstance(data.get("layouts"), dict):
        return {"layouts": {}}
    return data


def _save_records(state_dir: Path, target: str, data: dict[str, Any]) -> None:
    state_dir.mkdir(parents=True, exist_ok=True)
    path = _records_path(state_dir, target)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, default=str), encoding="utf-8")
    os.replace(tmp, path)


def record_layout(state_dir: Path, description: dict[str, Any]) -> None:
    """Remember a built layout (by target and mount point) until it is torn down."""
    target = str(description.get("target") or LOCAL_TARGET)
    data = _load_records(state_dir, target)
    point = str((description.get("mount") or {}).get("point") or description.get("volume"))
    data["layouts"][point] = description
    _save_records(state_dir, target, data)


def update_recorded_database(
    state_dir: Path, target: str, point: str, database: dict[str, Any] | None
) -> None:
    """Set (or clear, with None) where the database lives on a recorded layout."""
    data = _load_records(state_dir, target)
    layout = data["layouts"].get(point)
    if layout is None:
        return
    if database:
        layout["database"] = database
    else:
        layout.pop("database", None)
    _save_records(state_dir, target, data)


def forget_layout(state_dir: Path, target: str, point: str) -> None:
    data = _load_records(state_dir, target)
    if data["layouts"].pop(point, None) is not None:
        _save_records(state_dir, target, data)


def recorded_layouts(state_dir: Path, target: str) -> list[dict[str, Any]]:
    return list(_load_records(state_dir, target)["layouts"].values())


def session_layout(state_dir: Path, target: str) -> dict[str, Any] | None:
    """The layout a session on ``target`` measures: the one holding the database (with the
    WAL's layout under ``wal`` when WAL has its own device), else the only one recorded."""
    layouts = recorded_layouts(state_dir, target)
    holding = [item for item in layouts if item.get("database")]
    chosen = holding[0] if holding else (layouts[0] if len(layouts) == 1 else None)
    if chosen is None:
        return None
    chosen = dict(chosen)
    wal_dir = str((chosen.get("database") or {}).get("wal_directory") or "")
    if wal_dir:
        for item in layouts:
            point = str((item.get("mount") or {}).get("point") or "")
            if point and (wal_dir == point or wal_dir.startswith(point + "/")):
                chosen["wal"] = {k: v for k, v in item.items() if k != "database"}
    return chosen
