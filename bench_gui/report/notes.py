"""Who a note is for: the reader of the published brief, or the author who makes it.

"Enter its devices and count, or its cost, by hand" speaks to the person running bench-gui;
printed on page 1 of a brief it tells the reader nothing. The author's notes (what is missing
and how to add it) go to the command line before export and to the Compare page
(``Report.author_notes``), and into the document only as an appendix the author chose to keep.
What a reader must know to read the figures right (a cost that disagrees with its own
arithmetic, a configuration that never saturated, a step left out) is written for the reader.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bench_gui.core.compare import Comparison
from bench_gui.core.economics import Economics, format_money
from bench_gui.core.multi_driver import CPU_WARN_PCT
from bench_gui.report import headlines
from bench_gui.report.config_table import SystemFacts


def reader_notes(
    comparison: Comparison,
    econ: Economics,
    short: Mapping[int, str],
    latency_fallback: Sequence[int] = (),
    latency_asked: str = "all",
) -> list[str]:
    """What the reader must know to read the figures right, in the reader's words."""
    notes: list[str] = []
    c = comparison
    for s in c.sessions:
        name = short[s.id]
        if s.status in ("failed", "incomplete"):
            notes.append(
                f"The {name} run ended early ({s.status}): only its complete steps are shown."
            )
        stopped = [p.vus for p in s.steps if not p.complete]
        if stopped:
            users = ", ".join(map(str, stopped))
            notes.append(
                f"{name}: the step at {users} users stopped before its measured window ended"
                " and is left out."
            )
        doubtful = [p.vus for p in s.steps if p.complete and p.nopm_flag]
        if doubtful:
            users = ", ".join(map(str, doubtful))
            notes.append(
                f"⚑ {name} at {users} users: the database counted a different number of new"
                " orders than the driver committed, so another load was probably running; that"
                " NOPM and the ratios made from it are marked doubtful."
            )
    base = c.baseline
    for s in c.others:
        shared = set(c.levels[s.id]) & set(c.levels[base.id])
        if not shared:
            notes.append(
                f"{short[s.id]} and {short[base.id]} were measured at no common user count:"
                " they are compared at saturation only."
            )
    partial = [row.vus for row in c.rows if row.missing_in]
    if partial and c.common_vus and len(c.sessions) > 1:
        notes.append(
            "Some user counts were measured in some configurations only ("
            + ", ".join(map(str, partial))
            + "); a ratio is given where both sides were measured."
        )
    for s in c.sessions:
        sat = c.saturation[s.id]
        kind = headlines.state(sat)
        if kind in ("not_reached", "first_step", "none"):
            notes.append(headlines.sentence(short[s.id], sat))
    for sid, array in econ.arrays.items():
        if array.priced_as is not None or sid not in short:
            continue  # a repeat's array is its first session's, said once
        repeats = [o for o, a in econ.arrays.items() if a.priced_as == sid and o in short]
        if array.storage_flag:
            notes.append(f"⚑ The {array_of(sid, repeats, short)} array: {array.storage_flag}.")
        if array.flag is None:
            continue
        cost = format_money(array.cost, array.currency)
        if array.computed is not None and array.price is not None and array.count:
            unit = format_money(array.price.unit_price, array.price.currency)
            if array.price.currency.upper() != array.currency:
                notes.append(
                    f"The {array_of(sid, repeats, short)} array cost ({cost}) is in"
                    f" {array.currency}, its devices'"
                    f" listed price in {array.price.currency}: the two cannot be checked"
                    " against each other."
                )
            else:
                computed = format_money(array.computed, array.currency)
                notes.append(
                    f"⚑ The {array_of(sid, repeats, short)} array cost used below, {cost}, was"
                    " given by the author"
                    f" and disagrees with its unit price x count ({unit} x {array.count} ="
                    f" {computed}); the economics use {cost}."
                )
    currencies = {a.currency for a in econ.arrays.values()}
    if len(currencies) > 1:
        notes.append(
            "The array costs are in different currencies ("
            + ", ".join(sorted(currencies))
            + "): each is shown, none is compared with another."
        )
    if latency_fallback and latency_asked != "all":
        names = ", ".join(short[sid] for sid in latency_fallback if sid in short)
        notes.append(
            "Response times are of all transaction types: New-Order times were not recorded"
            f" for {names}, so they could not be compared for every configuration."
        )
    return notes


def busy_driver_notes(facts: Sequence[SystemFacts], short: Mapping[int, str]) -> list[str]:
    """Runs on several driver hosts whose drivers were over CPU_WARN_PCT busy in a step: the
    load generators, not the system under test, may have set those figures, and the reader is
    told where."""
    notes = []
    for f in facts:
        if not f.busy_drivers or f.id not in short:
            continue
        where = "; ".join(
            f"at {vus} users " + ", ".join(f"{host!r} {pct:.0f}%" for host, pct in busy)
            for vus, busy in f.busy_drivers
        )
        notes.append(
            f"⚑ {short[f.id]}: driver hosts were over {CPU_WARN_PCT:.0f}% busy ({where}): there"
            " the load generators, not the system under test, may have limited the figures."
        )
    return notes


def author_notes(
    comparison: Comparison,
    econ: Economics,
    full: Mapping[int, str],
    missing_hardware: Sequence[int] = (),
    missing_storage: Sequence[int] = (),
    latency_fallback: Sequence[int] = (),
) -> list[str]:
    """What the author may want to fix before publishing (with the session ids to do it)."""
    notes = list(comparison.notes)
    notes += [m for m in econ.messages if m not in notes]
    for sid in missing_hardware:
        notes.append(
            f"session {sid} ({full[sid]}): no hardware inventory was recorded, so the"
            " configuration table says 'not recorded' for its CPU and memory"
        )
    for sid in missing_storage:
        notes.append(
            f"session {sid} ({full[sid]}): its storage was neither built by bench-gui nor"
            " described: describe it (devices, count, RAID level, filesystem) so the"
            " configuration table can show it"
        )
    for sid in latency_fallback:
        notes.append(
            f"session {sid} ({full[sid]}): no New-Order response times were stored, so the"
            " report shows the response times of all transactions for every session"
        )
    if not econ.arrays and len(comparison.sessions) > 0:
        notes.append(
            "no array could be priced, so the brief has no storage economics: add the devices'"
            " unit prices (bench-gui prices device add ...) or each array's cost (bench-gui"
            " prices array ID --cost ...)"
        )
    return notes


def array_of(sid: int, repeats: list[int], short: Mapping[int, str]) -> str:
    """Whose array: "HDD RAID 10 #1", or with the sessions that measured it again "HDD RAID 10
    #1 (and its repeat HDD RAID 10 #3)", so one array's price is said once."""
    if not repeats:
        return short[sid]
    plural = "s" if len(repeats) > 1 else ""
    return f"{short[sid]} (and its repeat{plural} {' and '.join(short[r] for r in repeats)})"
