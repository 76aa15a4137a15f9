"""What each tool recorded: sessions recorded by HammerDB and imported say so, for each one.

A HammerDB job records its NOPM and TPM (its TEST RESULT line) and, with its time profile on,
the time of each stored procedure; it records no driver-side New-Order count to cross-check,
no reset between jobs, no row counts. A brief that mixes or holds such sessions tells the
reader, per session, what HammerDB recorded, what went wrong in a job after its result (a
failed gather of timings), and what is therefore unknown - never an empty series of "—" left
to speak for itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bench_gui.report.config_table import SystemFacts


def _hammerdb(f: SystemFacts) -> dict[str, Any]:
    found = f.agent.get("hammerdb")
    return found if isinstance(found, dict) else {}


def recorded_timings(f: SystemFacts) -> bool:
    """Whether an imported session's tool stored any response times."""
    return bool(_hammerdb(f).get("timings"))


def _listed(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def imported_notes(
    facts: Sequence[SystemFacts], short: Mapping[int, str], problems: Mapping[int, list[str]]
) -> list[str]:
    """Reader notes on the imported sessions: what HammerDB recorded and what is unknown.
    ``problems``: per session, what went wrong in its jobs after their results."""
    imported = [f for f in facts if f.imported and f.id in short]
    if not imported:
        return []
    names = [short[f.id] for f in imported]
    notes = [
        f"{_listed(names)} {'was' if len(names) == 1 else 'were'} recorded with HammerDB and"
        " imported: NOPM and TPM are HammerDB's own result, with no driver count of New-Orders"
        " to cross-check them; whether the database was reset between jobs and how many rows"
        " its tables held were not recorded."
    ]
    silent = [short[f.id] for f in imported if not recorded_timings(f)]
    if silent:
        notes.append(
            f"HammerDB recorded no response times for {_listed(silent)} (its time profile was"
            " off, or its timings were not stored): their average and 99.9th percentile"
            " response times are unknown, shown as —."
        )
    for f in imported:
        notes.extend(f"{short[f.id]}: HammerDB job {p}." for p in problems.get(f.id, []))
    return notes
