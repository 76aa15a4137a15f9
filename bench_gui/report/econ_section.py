"""The economics section of a report (seed 000's Tables 4 to 6): array cost, cost per new order,
worst and best case, energy.

Only what a reader can use is printed: an array that could not be priced leaves the section
out (the author is told why, :mod:`bench_gui.report.notes`), and a cost that disagrees with
its own arithmetic is flagged in the reader's words. With several compared configurations the
worst and best cases share one table instead of two tables each.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from bench_gui.core.economics import (
    JOULES_PER_KWH,
    ArrayCost,
    CostLevel,
    EconomicCase,
    format_cost_change,
)
from bench_gui.core.economics import format_money as money
from bench_gui.report.builder import ratio_phrase, span
from bench_gui.report.notes import array_of
from bench_gui.report.parts import Cell, Fact, Section, Table, change_tone

if TYPE_CHECKING:
    from bench_gui.report.builder import Builder


def economics_section(b: Builder) -> None:
    """Add the economics section when anything could be priced (arrays or energy)."""
    e = b.e
    has_energy = any(
        lv.joules_per_new_order is not None for by in e.levels.values() for lv in by.values()
    )
    if not e.arrays and not has_energy:
        return
    section = Section("economics", "Economics: array cost per new order")
    b.sections.append(section)
    if e.arrays:
        if b.single:
            hosts = " Only the storage devices' cost is counted; the rest of the host is left out."
        elif b.config.hosts_identical:
            hosts = (
                " The hosts are identical except for storage, so only the storage devices'"
                " cost is counted."
            )
        elif not b.config.missing_hardware and len(b.c.sessions) > 1:
            hosts = (
                " Only the storage devices' cost is counted, although the hosts differ (see"
                " the system under test): the rest of each host is left out."
            )
        else:
            hosts = " Only the storage devices' cost is counted; the rest of each host is left out."
        section.add(
            "text",
            "Since the goal of OLTP is new-order processing, the value of an array can be"
            " judged by the useful work it does for its purchase cost." + hosts,
        )
        section.add("formula", "Array value = new orders per minute / array cost")
        for sid, array in e.arrays.items():
            if array.priced_as is not None:
                continue  # a repeat's array is its first session's: said once, there
            whose = array_of(sid, [o for o, a in e.arrays.items() if a.priced_as == sid], b.names)
            if array.storage_flag:
                section.add(
                    "message",
                    f"The {whose} array: {array.storage_flag}. Its cost below is of the"
                    " array priced.",
                )
            price = array.price
            same_currency = price is not None and price.currency.upper() == array.currency
            if not (array.flag and array.computed is not None and price and same_currency):
                continue
            cost = money(array.cost, array.currency)
            section.add(
                "message",
                f"The {whose} array cost, {cost}, was given by the author and disagrees"
                f" with its unit price x count ({money(price.unit_price, array.currency)} x"
                f" {array.count} = {money(array.computed, array.currency)}); the figures below"
                f" use {cost}.",
            )
        array_economics(b, section)
    if has_energy:
        section.add(
            "text",
            "Power was measured, so each new order also has an energy cost: the energy"
            " it took at the measured average power, priced per kWh.",
        )
        section.add(
            "formula",
            "Energy per new order (J) = 60 x average watts / NOPM;  energy cost = J /"
            f" {JOULES_PER_KWH:,.0f} J per kWh x price per kWh",
        )
        b.add_table(section, energy_table(b))


def array_table(b: Builder) -> Table:
    c, e = b.c, b.e
    rows = []
    sources: list[str] = []
    for s in c.sessions:
        a = e.arrays.get(s.id)
        if a is None:
            rows.append([Cell(b.names[s.id])] + [Cell("not priced", None, "muted")] * 5)
            continue
        if a.price is not None:
            where = ", ".join(x for x in (a.price.date, a.price.source) if x)
            line = f"{a.price.device}: {money(a.price.unit_price, a.price.currency)}"
            line += f" ({where})" if where else ""
            if line not in sources:
                sources.append(line)
        unit = Cell(
            money(a.unit_price, a.currency) if a.unit_price is not None else "—", a.unit_price
        )
        cost_cell = Cell(money(a.cost, a.currency), round(a.cost, 2))
        if a.flag or a.storage_flag:
            cost_cell = Cell(money(a.cost, a.currency) + " ⚑", round(a.cost, 2), "flag")
        rows.append(
            [
                Cell(b.names[s.id]),
                Cell(a.device or "—", a.device),
                unit,
                Cell.num(a.count) if a.count else Cell("—", None, "muted"),
                cost_cell,
                Cell(reader_arithmetic(a, b.names), a.arithmetic),
            ]
        )
    return Table(
        "array_cost",
        "Storage array cost",
        ["Session", "Device", "Unit cost", "Count", "Array cost", "Arithmetic"],
        rows,
        notes=[
            "Array cost = unit price x number of devices (counted from the storage layout, or"
            " given by the author). ⚑ marks a cost given by the author that disagrees with unit"
            " price x count (the author's cost is used), or an array priced that is not the"
            " storage recorded.",
            *(f"Price: {line}." for line in sources),
        ],
        text_columns=(0, 1, 5),
    )


def reader_arithmetic(a: ArrayCost, names: Mapping[int, str]) -> str:
    """How an array's cost was worked out, in the reader's words ("given by the author", not
    the tool user's "entered by hand"); a repeat's array is the one it repeats."""
    if a.priced_as is not None:
        return f"as {names[a.priced_as]}: the same array, measured again"
    if a.hand_cost is None:
        return a.arithmetic
    text = f"{money(a.cost, a.currency)} (given by the author)"
    if a.computed is not None and a.price is not None and a.count:
        text += (
            f"; unit price x count: {money(a.price.unit_price, a.price.currency)} x {a.count} ="
            f" {money(a.computed, a.price.currency)}"
        )
    return text


def array_economics(b: Builder, section: Section) -> None:
    c, e = b.c, b.e
    b.add_table(section, array_table(b))
    section.add(
        "text",
        "With the cost of each array, the cost per new order follows: fixing a one-minute"
        " interval gives the number of new orders completed in one minute, and the array"
        f" cost is divided by it. Table {b.next_table} shows it at every user count"
        + (", with the array value." if not b.wide else f"; Table {b.next_table + 1} the array"
           " value (NOPM per unit of currency).")
    )  # fmt: skip
    section.add("formula", "Array cost per new order = array cost / new orders per minute")
    priced = [s for s in c.sessions if s.id in e.arrays]
    base_priced = b.base.id in e.arrays
    others_priced = [s for s in c.others if s.id in e.arrays and base_priced]
    columns = ["Users"] + [f"{b.names[s.id]}\ncost / new order" for s in priced]
    if not b.wide:
        columns += [f"{b.names[s.id]}\nNOPM per {e.arrays[s.id].currency}" for s in priced]
    columns += [b.vs_label(s, "Cost per new order\nvs baseline") for s in others_priced]
    rows = []
    value_rows = []
    for row in c.rows:
        cells = [Cell(str(row.vus), row.vus)]
        lvls: dict[int, CostLevel | None] = {
            s.id: e.levels.get(s.id, {}).get(row.vus) for s in priced
        }
        if all(lv is None for lv in lvls.values()):
            continue  # a user count only sessions not priced measured: a row of "—"
        for s in priced:
            lv = lvls[s.id]
            cur = e.arrays[s.id].currency
            if lv is None or lv.cost_per_new_order is None:
                cells.append(Cell("—", None, "muted"))
            else:
                cells.append(Cell(money(lv.cost_per_new_order, cur), lv.cost_per_new_order))
        values = [Cell.num(lv.nopm_per_currency if (lv := lvls[s.id]) else None, 2) for s in priced]
        if b.wide:
            value_rows.append([Cell(str(row.vus), row.vus), *values])
        else:
            cells += values
        for s in others_priced:
            base_lv, other_lv = lvls.get(b.base.id), lvls.get(s.id)
            if (
                base_lv
                and other_lv
                and base_lv.cost_per_new_order
                and other_lv.cost_per_new_order
                and e.currency
            ):
                ratio = base_lv.cost_per_new_order / other_lv.cost_per_new_order
                change = format_cost_change(other_lv.cost_per_new_order, base_lv.cost_per_new_order)
                # A repeat of the baseline differs from it by noise: never coloured a finding.
                tone = "" if s.id in b.repeats_of_base else change_tone(ratio - 1, change)
                cells.append(Cell(change, round(ratio, 6), tone))
            else:
                cells.append(Cell("—", None, "muted"))
        rows.append(cells)
    title = (
        "Array cost per new order by user count"
        if b.wide
        else "Array cost per new order and array value by user count"
    )
    b.add_table(
        section,
        Table(
            "cost_per_new_order",
            title,
            columns,
            rows,
            notes=[
                "Cost per new order = array cost / NOPM"
                + (
                    "; vs baseline: the baseline's cost per new order / the compared"
                    " configuration's."
                    if others_priced
                    else "."
                )
            ],
        ),
    )
    if b.wide:
        b.add_table(
            section,
            Table(
                "array_value",
                "Array value by user count",
                ["Users"]
                + [f"{b.names[s.id]}\nNOPM per {e.arrays[s.id].currency}" for s in priced],
                value_rows,
                notes=["Array value = NOPM / array cost."],
            ),
        )
    cases(b, section)


def cases(b: Builder, section: Section) -> None:
    """Worst and best case per compared configuration: seed 000's Tables 5 and 6 for one,
    one shared table for several."""
    e = b.e
    for other in b.c.others:
        if other.id in b.repeats_of_base:
            continue  # a repeat of the baseline: its cost difference is noise
        mine = [x for x in e.cases if x.other_id == other.id]
        worst = next((x for x in mine if x.kind == "worst"), None)
        best = next((x for x in mine if x.kind == "best"), None)
        if worst is None or best is None:
            continue
        oname = b.names[other.id]
        low, high = worst.change.rsplit(" ", 1)[0], best.change.rsplit(" ", 1)[0]
        lower = worst.change.endswith("lower") and best.change.endswith("lower")
        b.facts.append(
            Fact(
                span(low, high),
                "lower array cost per new order" if lower else "array cost per new order",
                f"{oname} vs {b.bname}, worst to best case",
            )
        )
        b.bottom_line.append(
            f"{oname}: array cost per new order at least {worst.change}, and at best"
            f" {best.change} (evaluated and calculated as shown)"
        )
        if b.several:
            section.add(
                "headline",
                f"{oname}: {span(worst.change, best.change)} array cost per new order than"
                f" {b.bname} (worst to best case)",
            )
            continue
        for case in (worst, best):
            label = "Worst-case" if case.kind == "worst" else "Best-case"
            section.add(
                "headline",
                f"{oname}: {case.change} array cost per new order ({label.lower()} economics)",
            )
            section.add("text", case_text(b, case))
            b.add_table(section, case_table(b, case))
    if b.several and e.cases:
        b.add_table(section, cases_table(b))


def case_table(b: Builder, case: EconomicCase) -> Table:
    rows = []
    for sid, lv in ((case.other_id, case.other), (b.base.id, case.baseline)):
        a = b.e.arrays[sid]
        device = f"{a.device} ({a.count})" if a.device and a.count else (a.device or "—")
        assert lv.cost_per_new_order is not None
        rows.append(
            [
                Cell(b.names[sid]),
                Cell(device, a.device),
                Cell(money(a.cost, a.currency), round(a.cost, 2)),
                Cell.num(lv.nopm),
                Cell(money(lv.cost_per_new_order, a.currency), lv.cost_per_new_order),
                Cell(lv.arithmetic, lv.arithmetic),
            ]
        )
    label = "Worst-case" if case.kind == "worst" else "Best-case"
    return Table(
        f"economics_{case.kind}_{case.other_id}",
        f"{label} economics ({case.vus} users)",
        [
            "Configuration",
            "Storage devices",
            "Array cost",
            f"NOPM at\n{case.vus} users",
            "Cost per\nnew order",
            "Arithmetic",
        ],
        rows,
        text_columns=(0, 1, 5),
    )


def cases_table(b: Builder) -> Table:
    rows = []
    for case in b.e.cases:
        assert case.other.cost_per_new_order is not None
        assert case.baseline.cost_per_new_order is not None
        cur_o = b.e.arrays[case.other_id].currency
        cur_b = b.e.arrays[b.base.id].currency
        rows.append(
            [
                Cell(b.names[case.other_id]),
                Cell("worst" if case.kind == "worst" else "best", case.kind),
                Cell(str(case.vus), case.vus),
                Cell(money(case.other.cost_per_new_order, cur_o), case.other.cost_per_new_order),
                Cell(
                    money(case.baseline.cost_per_new_order, cur_b),
                    case.baseline.cost_per_new_order,
                ),
                Cell(case.change, round(case.ratio, 6), change_tone(case.ratio - 1, case.change)),
            ]
        )
    return Table(
        "economics_cases",
        "Worst-case and best-case economics",
        [
            "Configuration",
            "Case",
            "Users",
            "Cost per\nnew order",
            f"{b.bname}\ncost per new order",
            f"vs {b.bname}",
        ],
        rows,
        notes=[
            "Worst case: the user count where the compared configuration's cost per new order"
            f" is least below {b.bname}'s; best case: where it is most below."
        ],
        text_columns=(0, 1),
    )


def case_text(b: Builder, case: EconomicCase) -> str:
    oname = b.names[case.other_id]
    vs = b.at(b.c.session(case.other_id), case.vus)
    where = "lowest" if case.kind == "worst" else "highest"
    perf = ""
    if vs and vs.nopm:
        perf = (
            f" The {case.kind}-case economics are at {case.vus} users, where the performance"
            f" advantage of {oname} is at its {where}"
            f" ({ratio_phrase(vs.nopm, 'NOPM', b.bname)})."
        )
    cur_o = b.e.arrays[case.other_id].currency
    cur_b = b.e.arrays[b.base.id].currency
    assert case.other.cost_per_new_order is not None
    assert case.baseline.cost_per_new_order is not None
    return (
        perf.strip() + f" With {oname} each new order has an array purchase cost of about"
        f" {money(case.other.cost_per_new_order, cur_o)}, with {b.bname} about"
        f" {money(case.baseline.cost_per_new_order, cur_b)}: {case.change} per new order."
    )


def energy_table(b: Builder) -> Table:
    e, c = b.e, b.c
    price = e.power_price
    unit = price.currency if price else ""
    columns = ["Users"]
    for s in c.sessions:
        columns += [f"{b.names[s.id]}\nJ per new order"]
        if price:
            columns += [f"{b.names[s.id]}\n{unit} per million\nnew orders"]
    rows = []
    for row in c.rows:
        cells = [Cell(str(row.vus), row.vus)]
        for s in c.sessions:
            lv = e.levels.get(s.id, {}).get(row.vus)
            if lv is None or lv.joules_per_new_order is None:
                cells.append(Cell("—", None, "muted"))
                if price:
                    cells.append(Cell("—", None, "muted"))
                continue
            cells.append(Cell.num(lv.joules_per_new_order, 3))
            if price:
                energy = lv.energy_cost_per_million
                text = money(energy, unit) if energy is not None else "—"
                cells.append(Cell(text, energy))
        rows.append(cells)
    notes = ["No power price per kWh was given: energy cost is left out."]
    if price:
        where = ", ".join(x for x in (price.date, price.source) if x)
        notes = [
            f"Power price: {money(price.per_kwh, price.currency)} per kWh"
            + (f" ({where})" if where else "")
        ]
    return Table("energy", "Energy per new order by user count", columns, rows, notes=notes)
