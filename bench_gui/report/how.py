"""The "How we tested" part of a report: test sequence, sessions, notes, commands.

The configuration itself (hardware, storage, settings, schema) is in the configuration tables
(:mod:`bench_gui.report.config_table`), printed at the head of this part; what follows here is
the prose a reader checks next: how each step ran, which sessions were compared, the notes the
author recorded with them, and the commands run on the targets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from bench_gui.core.compare import Comparison
from bench_gui.report.config_table import SystemFacts, duration
from bench_gui.report.names import Naming
from bench_gui.report.parts import Table
from bench_gui.store.compare_input import Provenance


@dataclass
class HowSection:
    heading: str
    paragraphs: list[str] = field(default_factory=list)
    rows: list[tuple[str, str]] = field(default_factory=list)
    table: Table | None = None
    code: list[str] = field(default_factory=list)


def _sequence(
    comparison: Comparison,
    provs: Sequence[Provenance],
    facts: Mapping[int, SystemFacts],
    short: Mapping[int, str],
    latency: str,
) -> HowSection:
    how = HowSection("Test sequence")
    imported = [short[p.id] for p in provs if p.id in facts and facts[p.id].imported]
    own = [short[p.id] for p in provs if short[p.id] not in imported]
    text = (
        "The workload is TPROC-C, derived from TPC-C: warehouses, districts, customers, orders"
        " and stock, with the five transaction types (New-Order, Payment, Delivery,"
        " Stock-Level, Order-Status)."
    )
    if own:
        text += (
            (f" For {', '.join(own)}, NOPM" if imported else " NOPM")
            + " is measured as HammerDB measures it, from the database's district counters at"
            " the start and the end of each measured window, and cross-checked against the"
            " driver's own count of committed New-Orders."
        )
    if imported:
        text += (
            f" {', '.join(imported)}: recorded with HammerDB and imported; NOPM and TPM are"
            " HammerDB's own result, not cross-checked (HammerDB keeps no driver count), and"
            " whether the database was reset between its jobs was not recorded."
        )
    how.paragraphs.append(text)
    same: dict[str, list[str]] = {}
    for p in provs:
        wl = facts[p.id].workload if p.id in facts else {}
        parts = []
        if p.rampup_s is not None or p.duration_s is not None:
            parts.append(
                f"a ramp-up of {duration(p.rampup_s) or '?'} followed by a measured window of"
                f" {duration(p.duration_s) or '?'} at each user count"
            )
        measured = sorted({round(w) for _, w in p.measured_windows})
        if measured and p.duration_s is not None and measured != [round(p.duration_s)]:
            parts.append("measured windows of " + ", ".join(f"{m} s" for m in measured))
        if p.id in facts and facts[p.id].imported:
            pass  # HammerDB records no reset: nothing is claimed
        elif wl.get("reset_between_steps"):
            parts.append(
                "the database dropped and re-created from a copy of the built one before every"
                " step (CREATE DATABASE ... TEMPLATE), so each step started from the same data"
            )
        elif "reset_between_steps" in wl:
            parts.append("the steps ran one after the other on the same data, with no reset")
        if parts:
            same.setdefault("; ".join(parts), []).append(short[p.id])
    if len(same) == 1 and len(provs) > 1:
        how.paragraphs.append("For every configuration, each step had " + next(iter(same)) + ".")
    else:
        for text, names in same.items():
            how.paragraphs.append(f"{', '.join(names)}: each step had {text}.")
    for p in provs:
        hosts = facts[p.id].driver_hosts if p.id in facts else []
        if len(hosts) > 1:
            listed = ", ".join(str(h.get("host") or "?") for h in hosts)
            how.paragraphs.append(
                f"{short[p.id]}: the load came from {len(hosts)} driver hosts ({listed}), each"
                " running part of every step's users, started together by a start barrier"
                f" (their clocks compared first); {_start_measured(facts[p.id])}. NOPM and TPM"
                " are the database's counters, read once by the first host; the drivers'"
                " New-Order counts were summed for the cross-check."
            )
    erase = [(short[p.id], p.erase) for p in provs if p.erase]
    if len(erase) == 1 and len(provs) == 1:
        name, method = erase[0]
        how.paragraphs.append(
            f"Before {name} was measured its devices were prepared from scratch: {method}."
        )
    elif erase:
        how.paragraphs.append(
            "Before each configuration was measured its devices were prepared from scratch: "
            + "; ".join(f"{name}: {method}" for name, method in erase)
            + "."
        )
    scope = (
        "of New-Order transactions only"
        if latency == "new_order"
        else "of all transaction types together"
    )
    how.paragraphs.append(f"Response times are {scope}.")
    how.paragraphs.append(
        f"Stop condition for the saturation point: {comparison.conditions.describe()}."
    )
    return how


def how_we_tested(
    comparison: Comparison,
    provs: Sequence[Provenance],
    naming: Naming,
    facts: Mapping[int, SystemFacts],
    latency: str = "all",
    commands: str = "omit",
    session_notes: str = "omit",
) -> list[HowSection]:
    """The "How we tested" part, written from what each session stored. The command log is
    an appendix when ``commands`` is "appendix"; the notes recorded with the plans and
    sessions are printed when ``session_notes`` is "include" (both the author's choice)."""
    short = naming.short
    out = [_sequence(comparison, provs, facts, short, latency)]

    sessions = HowSection("Sessions compared" if len(provs) > 1 else "Session")
    for p in provs:
        role = " (baseline)" if p.id == comparison.baseline.id and len(provs) > 1 else ""
        label = f"#{p.id} {naming.full[p.id]}{role}"
        if naming.abbreviated(p.id):
            label += f" — “{short[p.id]}”"
        fact = facts.get(p.id)
        if fact is not None and fact.imported:
            # Its tool ran it: bench-gui only read HammerDB's job store afterwards.
            tool = f"recorded with HammerDB, imported by bench-gui {p.app_version}"
        else:
            tool = f"bench-gui {p.app_version}" + (
                f", agent {p.agent_version}" if p.agent_version else ""
            )
        sessions.rows.append(
            (
                label,
                f"{p.created_at[:16].replace('T', ' ')} UTC, {p.status}; target {p.target};"
                f" {p.server_version or p.engine}; {tool}",
            )
        )
    out.append(sessions)

    notes = HowSection("Notes recorded with the sessions")
    for p in provs:
        f = facts.get(p.id)
        if f is None:
            continue
        plan_note = str(f.plan.get("notes") or "").strip()
        if plan_note:
            notes.rows.append((f"{short[p.id]}: plan", plan_note))
        if f.note.strip():
            notes.rows.append((f"{short[p.id]}: session", f.note.strip()))
    if notes.rows and session_notes == "include":
        out.append(notes)

    cmds = HowSection("Appendix: commands run on the targets")
    for p in provs:
        if p.commands:
            cmds.code.append(f"# {short[p.id]}")
            cmds.code.extend(p.commands)
    if cmds.code and commands == "appendix":
        out.append(cmds)
    elif cmds.code:
        count = sum(len(p.commands) for p in provs)
        sessions.paragraphs.append(
            f"Every session keeps the commands it ran on its targets ({count} in all); they"
            " are left out of this brief, and available from its author."
        )
    return out


def _start_measured(f: SystemFacts) -> str:
    """What was measured of the hosts' start (not a promise of one instant)."""
    if not f.start_spreads:
        return "how far apart they really began each step was not measured"
    widest_vus, widest = max(f.start_spreads, key=lambda item: item[1])
    text = (
        f"measured, they began each step at most {widest * 1000:,.0f} ms apart (at"
        f" {widest_vus} users; {len(f.start_spreads)} step"
        f"{'' if len(f.start_spreads) == 1 else 's'})"
    )
    if f.start_flags:
        text += "; flagged: " + "; ".join(f.start_flags)
    return text
