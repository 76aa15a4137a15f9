"""Whose transactions a session ran, and what a ratio across profiles or engines compares.

A bench-gui session ran the ``spec`` profile (TPC-C as written) or the ``hammerdb`` one
(HammerDB 6.0's own transactions, faults included: docs/profiles.md); a HammerDB import ran
HammerDB's by definition. Sessions stored before profiles existed ran ours: ``spec``. The
report names each session's profile, and flags any ratio made across profiles or, for TPM,
across engines (each engine's TPM is a different counter).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, Protocol

from bench_gui.engines.registry import target_kind
from bench_gui.store.records import RunDetail


class SystemFacts(Protocol):
    """What the profile words read of a session's facts (report.config_table.SystemFacts,
    whose table calls this module)."""

    @property
    def id(self) -> int: ...
    @property
    def detail(self) -> RunDetail: ...
    @property
    def workload(self) -> dict[str, Any]: ...
    @property
    def imported(self) -> bool: ...


PROFILE_WORDS: Final[dict[str, str]] = {
    "spec": "spec (TPC-C as written)",
    "hammerdb": "hammerdb (HammerDB 6.0's transactions)",
}
# A HammerDB import keeps HammerDB's word for its engine where it differs from the plan's.
_HAMMERDB_WORDS: Final[dict[str, str]] = {"mssqlserver": "mssql"}


def profile_of(f: SystemFacts) -> str:
    """``spec`` or ``hammerdb``: an import is HammerDB's, a session before profiles ours."""
    if f.imported:
        return "hammerdb"
    profile = f.workload.get("profile")
    return profile if isinstance(profile, str) and profile else "spec"


def profile_text(f: SystemFacts) -> str:
    """The configuration table's words for a session's profile."""
    words = PROFILE_WORDS.get(profile_of(f), profile_of(f))
    return f"{words}, recorded by HammerDB" if f.imported else words


def tpm_source(engine: str) -> str:
    """What ``engine``'s TPM counts, as its kit says ('' for an engine no kit serves)."""
    spec = target_kind(engine)
    return spec.tpm_source if spec is not None else ""


def engine_of(f: SystemFacts) -> str:
    engine = (f.detail.engine or "").lower()
    return _HAMMERDB_WORDS.get(engine, engine)


def profile_notes(facts: Sequence[SystemFacts], short: Mapping[int, str]) -> list[str]:
    """The reader's flags: ratios across profiles, TPM ratios across engines (each session's
    profile itself is in the configuration table, "Transaction profile")."""
    shown = [f for f in facts if f.id in short]
    notes = []
    profiles = {profile_of(f) for f in shown}
    if len(profiles) > 1:
        by = "; ".join(
            f"{PROFILE_WORDS.get(p, p)}: "
            + ", ".join(short[f.id] for f in shown if profile_of(f) == p)
            for p in sorted(profiles)
        )
        notes.append(
            f"⚑ These sessions ran different transaction profiles ({by}): every ratio between"
            " them compares the transactions' logic as well as the systems, not the systems"
            " alone."
        )
    engines = {engine_of(f) for f in shown}
    # MariaDB and MySQL read the same counter: only different counters are flagged.
    if len({tpm_source(e) or e for e in engines}) > 1:
        sources = "; ".join(f"{e}: {tpm_source(e) or 'its own counter'}" for e in sorted(engines))
        notes.append(
            f"⚑ TPM is read from a different counter on each engine ({sources}): a TPM ratio"
            " across engines compares different things; NOPM (new orders) is the same on all."
        )
    return notes
