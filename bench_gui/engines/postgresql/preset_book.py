"""PostgreSQL's presets as ``bench-gui tune presets`` lists and shows them (the kit's
``presets`` face): the seed briefs' built-in ones and the user's files, each shown mapped to
a release (``--version``; default: the one it was written for, else the latest)."""

from __future__ import annotations

from bench_gui.engines.postgresql.pgtune import LATEST_VERSION, PgVersion
from bench_gui.engines.postgresql.presets import BUILTIN_PRESETS, Preset
from bench_gui.engines.preset_book import PresetBook, PresetRow, PresetView
from bench_gui.store.user_presets import load_user_presets


def _row(preset: Preset) -> PresetRow:
    data = {
        "name": preset.name,
        "title": preset.title,
        "builtin": preset.builtin,
        "version": str(preset.version) if preset.version else None,
        "settings": preset.settings,
        "source": preset.source,
    }
    return PresetRow(preset.name, preset.title, preset.builtin, preset.source, data)


def presets() -> PresetBook:
    """The built-in presets, then the user's (a bad file is a problem line, not a preset)."""
    users, problems = load_user_presets()
    found = {**BUILTIN_PRESETS, **users}

    def show(name: str, version: str | None) -> PresetView | None:
        preset = found.get(name)
        if preset is None:
            return None
        release = PgVersion.parse(version) if version else (preset.version or LATEST_VERSION)
        proposal = preset.proposal(release)
        text = f"# {preset.title}\n# source: {preset.source or 'user preset'}\n"
        return PresetView(text + proposal.to_conf(), proposal.to_json())

    return PresetBook([_row(p) for p in found.values()], show, problems)
