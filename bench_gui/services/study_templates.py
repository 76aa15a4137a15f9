"""The seeds' studies as templates: ``bench-gui study new --from seed-000`` writes one.

Each template is a TOML resource shipped in the package (``services/study_seeds``): the seed's
sweep, windows, presets, stop condition and prices as editable examples, with comments that
say which table of the brief each part reproduces.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

SEEDS = ("seed-000", "seed-001", "seed-002", "seed-003", "seed-004")


class TemplateError(ValueError):
    """A template that does not exist, or a file that would be overwritten."""


def template_text(seed: str) -> str:
    """A seed's study file as text."""
    if seed not in SEEDS:
        raise TemplateError(f"no study template {seed!r}: use one of {', '.join(SEEDS)}")
    folder = resources.files("bench_gui.services").joinpath("study_seeds")
    return folder.joinpath(f"{seed}.toml").read_text(encoding="utf-8")


def write_template(seed: str, path: Path, overwrite: bool = False) -> Path:
    """Write a seed's study file to ``path``; an existing file is kept unless ``overwrite``."""
    text = template_text(seed)
    if path.exists() and not overwrite:
        raise TemplateError(f"{path} exists: give another file name (or --force to replace it)")
    path.write_text(text, encoding="utf-8")
    return path


def template_summary(seed: str) -> tuple[str, str]:
    """A template's study name and what it reproduces (its opening comment, the brief's title
    and set-up), for the app's gallery of templates."""
    import tomllib

    text = template_text(seed)
    lines: list[str] = []
    for line in text.splitlines():
        if not line.startswith("#") or line.strip() == "#":
            break
        lines.append(line.lstrip("#").strip())
    about = " ".join(lines)
    prefix = f"A study made from {seed.replace('-', ' ')}"
    if about.startswith(prefix):
        about = about[len(prefix) :].lstrip(" :")
    return str(tomllib.loads(text).get("name", seed)), about
