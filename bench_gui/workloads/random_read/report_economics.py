"""The "SSDs replace RAM" section of a random-read report (seed 004): the RAM each storage
configuration needs to serve a target rate of random reads from a dataset, read from the
measured curves (:mod:`bench_gui.workloads.random_read.economics`), with its cost from the price
list where the list holds RAM."""

from __future__ import annotations

from typing import Protocol

from bench_gui.report.parts import Cell, Fact, Section, Table
from bench_gui.workloads.random_read.economics import (
    RamEconomics,
    describe_target,
    gib_number,
)


class Builder(Protocol):
    """What the section adds to: the random-read report's builder (report_sections), which
    calls this module; named here so that neither module imports the other's back."""

    e: RamEconomics | None
    short: dict[int, str]
    sections: list[Section]
    facts: list[Fact]
    summary: list[str]
    bottom_line: list[str]

    def add_table(self, section: Section, table: Table) -> Table: ...


def ram_section(builder: Builder) -> None:
    """Add the section, its table and its findings to ``builder`` (numbered in order)."""
    e = builder.e
    assert e is not None
    section = Section("economics", "SSDs replace RAM: the memory each storage needs")
    builder.sections.append(section)
    for text in e.findings:
        section.add("headline", text)
        builder.summary.append(text)
        builder.bottom_line.append(text)
    section.add(
        "text",
        "Read the other way, each curve above says how much of a dataset must sit in RAM"
        " for a storage configuration to serve a given rate of random reads. For"
        f" {describe_target(e)}, the table gives the RAM each configuration needs. A"
        " device with more IOPS needs less RAM to make up for its misses: that RAM, not"
        " the disk, is what an SSD replaces. This reads the measured curves as depending"
        " on the dataset as a multiple of RAM, not on its absolute size.",
    )
    section.add("formula", e.method)
    for message in e.messages:
        section.add("message", message)
    columns = ["Configuration", "RAM needed\n(GiB)", "Share of\nthe dataset", "Bound"]
    columns += ["RAM cost"] if e.price is not None else []
    columns.append("From the measured curve")
    bound_words = {"measured": "interpolated", "at_most": "at most", "more_than": "more than"}
    rows = []
    for n in e.needs:
        tone = "" if n.bound == "measured" else "flag"
        cells = [
            Cell(builder.short[n.session_id], builder.short[n.session_id]),
            Cell(gib_number(n.ram_gib), round(n.ram_gib, 3), tone),
            Cell(f"{n.fraction:.2f}", round(n.fraction, 4), tone),
            Cell(bound_words[n.bound], n.bound, tone),
        ]
        if e.price is not None:
            cells.append(Cell(n.cost_text, None if n.cost is None else round(n.cost, 2), tone))
        cells.append(Cell(n.text, n.text))
        rows.append(cells)
    notes = [f"Target: {describe_target(e)}."]
    if e.price is not None:
        p = e.price.entry
        notes.append(
            f"RAM priced from the price list: {p.device}, {e.price.arithmetic}"
            + (f", {p.date}" if p.date else "")
            + (f" ({p.source})" if p.source else "")
            + "; not a quote."
        )
    notes.append(
        "Highlighted: a bound, not a measured crossing (the target lies outside the"
        " measured points and is not extrapolated)."
    )
    builder.add_table(
        section,
        Table("ram_needed", "RAM needed to reach the target", columns, rows, notes=notes,
              text_columns=(0, 3, len(columns) - 1)),
    )  # fmt: skip
    if e.price is not None and len(e.needs) > 1:
        costs = [n for n in e.needs if n.cost is not None]
        if costs and all(n.bound == "measured" for n in costs):
            cheapest = min(costs, key=lambda n: n.ram_bytes)
            builder.facts.append(
                Fact(
                    cheapest.cost_text,
                    "of RAM to reach the target",
                    builder.short[cheapest.session_id],
                )
            )
