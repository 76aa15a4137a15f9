"""SQL Server's preset as ``bench-gui tune presets`` lists and shows it (the kit's ``presets``
face): seed 003's settings, max server memory said as the rule it follows (the server's RAM
is not known here)."""

from __future__ import annotations

import json

from bench_gui.engines.mssql.proposal import seed_003_proposal
from bench_gui.engines.mssql.tuner import PROFILE
from bench_gui.engines.preset_book import PresetBook, PresetRow, PresetView


def presets() -> PresetBook:
    """Seed 003's preset, the one SQL Server profile built in."""
    proposal = seed_003_proposal()  # max server memory needs the server's RAM
    row = PresetRow(
        PROFILE, proposal.title, True, "seeds/003", {"name": PROFILE, **proposal.to_dict()}
    )

    def show(name: str, version: str | None) -> PresetView | None:
        if name != PROFILE:
            return None
        lines = [f"# {proposal.title} (SQL Server; bench-gui tune diff PLAN {PROFILE})"]
        lines += [f"{s.name} = {s.value}  # {s.rule}" for s in proposal.settings]
        lines.append("# max server memory (MB): RAM minus max(4 GiB, 10%), when the RAM is known")
        # The RAM is unknown here: the rule above says what the last note would.
        lines += [f"# note: {n}" for n in proposal.notes if "RAM is unknown" not in n]
        return PresetView("\n".join(lines) + "\n", json.dumps(proposal.to_dict()))

    return PresetBook([row], show)
