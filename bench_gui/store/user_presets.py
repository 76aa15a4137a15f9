"""User tuning presets: one TOML file per preset in the data directory's ``tuning-presets``.

The format is :func:`bench_gui.engines.postgresql.presets.preset_to_toml`'s; a file can be
copied to another machine (or edited by hand) and is validated when read. Built-in presets (the
seed briefs') are not files: they come from
:data:`~bench_gui.engines.postgresql.presets.BUILTIN_PRESETS`, and a user preset may not take
one of their names.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Final

from bench_gui.engines.postgresql.presets import (
    BUILTIN_PRESETS,
    Preset,
    check_preset_name,
    preset_from_toml,
    preset_to_toml,
)
from bench_gui.engines.tuning_terms import PresetError
from bench_gui.store.paths import data_dir

PRESETS_DIR: Final = "tuning-presets"


def presets_dir() -> Path:
    return data_dir() / PRESETS_DIR


def _path(name: str, folder: Path | None) -> Path:
    return (folder or presets_dir()) / f"{check_preset_name(name)}.toml"


def save_preset(preset: Preset, folder: Path | None = None, replace: bool = True) -> Path:
    """Write a user preset (atomically); a built-in name is refused."""
    if preset.name in BUILTIN_PRESETS:
        raise PresetError(f"{preset.name!r} is a built-in preset: choose another name")
    path = _path(preset.name, folder)
    if path.exists() and not replace:
        raise PresetError(f"a preset named {preset.name!r} exists already")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".preset-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(preset_to_toml(preset))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


def load_preset_file(path: Path) -> Preset:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PresetError(f"{path}: cannot be read: {exc.strerror or exc}") from exc
    try:
        return preset_from_toml(text, path.stem)
    except PresetError as exc:
        raise PresetError(f"{path}: {exc}") from exc


def load_user_presets(folder: Path | None = None) -> tuple[dict[str, Preset], list[str]]:
    """Every user preset by name, and a problem line for each file that could not be used."""
    folder = folder or presets_dir()
    presets: dict[str, Preset] = {}
    problems: list[str] = []
    if not folder.is_dir():
        return presets, problems
    for path in sorted(folder.glob("*.toml")):
        try:
            preset = load_preset_file(path)
        except PresetError as exc:
            problems.append(str(exc))
            continue
        if preset.name in BUILTIN_PRESETS:
            problems.append(f"{path}: {preset.name!r} is a built-in preset's name; ignored")
            continue
        presets[preset.name] = preset
    return presets, problems


def all_presets(folder: Path | None = None) -> dict[str, Preset]:
    """Built-in presets, then the user's."""
    users, _problems = load_user_presets(folder)
    return {**BUILTIN_PRESETS, **users}


def delete_preset(name: str, folder: Path | None = None) -> None:
    if name in BUILTIN_PRESETS:
        raise PresetError(f"{name!r} is a built-in preset and cannot be deleted")
    path = _path(name, folder)
    try:
        path.unlink()
    except FileNotFoundError:
        raise PresetError(f"no user preset named {name!r}") from None
