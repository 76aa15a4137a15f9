"""The content of a comparison report, independent of its format.

:func:`build_report` reads the sessions, compares them, works out the economics and turns all
of it into numbered tables, chart descriptions, fast facts and the prose of a technical brief
(the seeds are the model: a finding as a heading, a figure, a sentence that reads the figure,
a table with every user count; at the end how it was tested, with the system under test side
by side). The HTML, PDF, CSV and JSON writers and the GUI all render this one model, so they
can never disagree on a figure.

What the reader is told and what the author is told are kept apart
(:mod:`bench_gui.report.notes`); saturation is worded as it was measured
(:mod:`bench_gui.report.headlines`); a long session name is given once and abbreviated after
(:mod:`bench_gui.report.names`). One session alone makes a report too: its own figures.

This module does not import Qt; the charts are described here (:class:`ChartSpec`) and drawn
by :mod:`bench_gui.report.charts`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from bench_gui.core.compare import (
    CompareError,
    Comparison,
    Level,
    SessionData,
    compare,
)
from bench_gui.core.economics import (
    ArrayInput,
    DevicePrice,
    Economics,
    PowerPrice,
    economics,
)
from bench_gui.core.saturation import StopConditions
from bench_gui.report.alike import merge_facts, merge_lines, merge_section
from bench_gui.report.bottom_line import by_configuration
from bench_gui.report.builder import (
    DOUBT_MARK,
    DOUBT_NOTE,
    Builder,
    adv_phrase,
    fmt_ms,
    ratio_phrase,
    users_text,
)
from bench_gui.report.config_table import SystemFacts, config_tables, gather
from bench_gui.report.econ_section import economics_section
from bench_gui.report.how import HowSection, how_we_tested
from bench_gui.report.imported import imported_notes
from bench_gui.report.names import Naming, check_short_names, naming
from bench_gui.report.notes import author_notes, busy_driver_notes, reader_notes
from bench_gui.report.options import Cover, ReportOptions
from bench_gui.report.parts import Block, Cell, ChartSpec, Fact, Section, SeriesSpec, Table
from bench_gui.report.profiles import profile_notes
from bench_gui.store.compare_input import (
    Provenance,
    array_input,
    has_latency_of,
    provenance,
    recorded_storage,
    session_data,
)
from bench_gui.store.sessions import SessionStore
from bench_gui.workloads.base import DEFAULT_WORKLOAD, kit_for
from bench_gui.workloads.mix import workload_of

# Re-exported: the GUI, the writers and the tests import them from here.
__all__ = [
    "DOUBT_MARK", "DOUBT_NOTE", "Block", "Cell", "ChartSpec", "Fact", "HowSection", "Report",
    "Section", "SeriesSpec", "Table", "adv_phrase", "as_json", "assemble", "build_report",
    "fmt_ms", "level_of", "ratio_phrase", "short_names",
]  # fmt: skip

# Print palette: the baseline blue, the first compared session green (as in seed 000).
PRINT_COLORS = ("#3b6fb6", "#4c9a2a", "#d9730d", "#7b4fc9", "#c23b6b", "#16878c")

DISCLAIMER = (
    "The workload is TPROC-C, a transaction-processing workload derived from the TPC-C"
    " specification. These results are not TPC-C results: they were not audited, do not follow"
    " every TPC-C rule, and must not be compared with published TPC-C results. NOPM (new orders"
    " per minute) and TPM (database transactions per minute) are this tool's own measures and"
    " are not TPC-C throughput metrics."
)
RATIO_RULE = (
    "Ratios read as multiples from 2X up and as percentages below; every printed ratio and"
    " advantage is truncated, never rounded up, so no difference is printed larger than it was"
    " measured. An advantage is how much lower the compared figure is than the baseline's."
)
FOOTER_NOTICE = "TPROC-C workload derived from TPC-C; these are not TPC-C results."


# ---- the model ----------------------------------------------------------------------------------


@dataclass
class Report:
    title: str
    subtitle: str
    generated_at: str
    comparison: Comparison
    economics: Economics
    provenance: list[Provenance]
    colors: dict[int, str]
    names: dict[int, str]
    facts: list[Fact]
    summary: list[str]
    sections: list[Section]
    tables: dict[str, Table]
    charts: dict[str, ChartSpec]
    how_we_tested: list[HowSection]
    # The author's notes: what is missing and how to add it (the CLI prints them before
    # export, the Compare page shows them; in the document only as a kept appendix).
    notes: list[str]
    bottom_line: list[str]
    short: dict[int, str] = field(default_factory=dict)
    disclaimer: str = DISCLAIMER
    ratio_rule: str = RATIO_RULE
    # What the reader must know to read the figures right, worded for the reader (page 1).
    reader_notes: list[str] = field(default_factory=list)
    options: ReportOptions = field(default_factory=ReportOptions)
    latency: str = "all"  # the response times shown: "all" or "new_order"
    # Which tool recorded the sessions: "recorded with bench-gui", "recorded with HammerDB
    # and imported into bench-gui", or both.
    recorded_with: str = "recorded with bench-gui"
    # What the writers ask of it (bench_gui.report.written.WrittenReport).
    footer_notice: str = FOOTER_NOTICE
    html_template: str = "report.html.j2"
    brief_template: str = "brief_qt.html.j2"

    def json_data(self) -> dict[str, Any]:
        """What the JSON writer writes (:func:`as_json`)."""
        return as_json(self)

    @property
    def author_notes(self) -> list[str]:
        return self.notes

    @property
    def naming(self) -> Naming:
        return Naming(self.names, self.short or self.names)

    @property
    def cover(self) -> Cover:
        return self.options.cover

    @property
    def keeps_author_notes(self) -> bool:
        return self.options.author_notes == "appendix" and bool(self.notes)

    @property
    def body_sections(self) -> list[Section]:
        """The findings, in reading order (the configuration is printed with How we tested)."""
        return [s for s in self.sections if s.key != "configuration"]

    @property
    def configuration(self) -> Section | None:
        return next((s for s in self.sections if s.key == "configuration"), None)

    def table(self, key: str) -> Table:
        return self.tables[key]

    def section_tables(self, section: Section) -> list[Table]:
        return [self.tables[k] for k in section.tables if k in self.tables]

    def section_charts(self, section: Section) -> list[ChartSpec]:
        return [self.charts[k] for k in section.charts if k in self.charts]


# ---- building ---------------------------------------------------------------------------------


def load_inputs(
    store: SessionStore,
    session_ids: Sequence[int],
    baseline_id: int,
    conditions: StopConditions | None = None,
    latency: str = "all",
    repeats: Sequence[Sequence[int]] = (),
) -> tuple[list[SessionData], Comparison]:
    """Read and compare; raises CompareError / SessionNotFound with a clear message."""
    sessions = [session_data(store, sid, latency) for sid in session_ids]
    return sessions, compare(sessions, baseline_id, conditions, repeats)


def build_report(
    store: SessionStore,
    session_ids: Sequence[int],
    baseline_id: int,
    conditions: StopConditions | None = None,
    title: str | None = None,
    arrays: Mapping[int, ArrayInput] | None = None,
    prices: Sequence[DevicePrice] | None = None,
    power_price: PowerPrice | None = None,
    options: ReportOptions | None = None,
) -> Report:
    """Everything a report shows, from the store. ``arrays``, ``prices`` and ``power_price``
    override what the store holds (the GUI's unsaved edits); ``options`` are the author's."""
    workload = kit_for(workload_of(store, session_ids))
    if workload.name != DEFAULT_WORKLOAD:  # this is the TPROC-C sweep's report
        raise CompareError(
            f"sessions {', '.join(map(str, session_ids))} are {workload.sessions}: their"
            " report is built by bench_gui.report.workloads.build_any_report"
        )
    opts = options or ReportOptions()
    latency = "new_order" if opts.latency == "new-order" else "all"
    fallback: list[int] = []
    if latency == "new_order":
        fallback = [sid for sid in session_ids if not has_latency_of(store, sid, "new_order")]
        if fallback:
            latency = "all"  # one scope for every session, or the ratios compare unlike things
    _sessions, comparison = load_inputs(
        store, session_ids, baseline_id, conditions, latency, opts.repeats
    )
    details = {s.id: store.get_run(s.id) for s in comparison.sessions}
    array_specs = {sid: array_input(store, detail) for sid, detail in details.items()}
    array_specs.update(arrays or {})
    econ = economics(
        comparison,
        array_specs,
        store.device_prices() if prices is None else prices,
        store.power_price() if power_price is None else power_price,
        {
            sid: found
            for sid, detail in details.items()
            if (found := recorded_storage(store, detail)) is not None
        },
    )
    provs = [provenance(store, s.id) for s in comparison.sessions]
    facts = [gather(store, s.id) for s in comparison.sessions]
    problems = {
        s.id: [
            f"{step.summary.get('hammerdb_job') or step.vus}: {step.summary['hammerdb_problem']}"
            for step in store.steps(s.id)
            if step.summary.get("hammerdb_problem")
        ]
        for s in comparison.sessions
    }
    return assemble(
        comparison,
        econ,
        provs,
        title=title,
        facts=facts,
        options=opts,
        latency=latency,
        latency_fallback=fallback,
        problems=problems,
    )


def _names(comparison: Comparison) -> dict[int, str]:
    """Session names as stored; a name used twice gets its id."""
    names = {s.id: s.name for s in comparison.sessions}
    counts: dict[str, int] = {}
    for name in names.values():
        counts[name] = counts.get(name, 0) + 1
    return {sid: (f"{n} (#{sid})" if counts[n] > 1 else n) for sid, n in names.items()}


def short_names(names: Mapping[int, str]) -> dict[int, str]:
    """Short names for headings and table columns (see :mod:`bench_gui.report.names`)."""
    return naming(names).short  # type: ignore[return-value]


def assemble(
    comparison: Comparison,
    econ: Economics,
    provs: Sequence[Provenance],
    title: str | None = None,
    generated_at: datetime | None = None,
    facts: Sequence[SystemFacts] = (),
    options: ReportOptions | None = None,
    latency: str = "all",
    latency_fallback: Sequence[int] = (),
    problems: Mapping[int, list[str]] | None = None,
) -> Report:
    """Turn a comparison and its economics into a report (no I/O). ``problems``: what went
    wrong in an imported session's jobs after their results."""
    opts = options or ReportOptions()
    names = _names(comparison)
    nm = naming(
        names,
        check_short_names(dict(opts.short_names), [s.id for s in comparison.sessions]),
    )
    short = dict(nm.short)
    colors = {s.id: PRINT_COLORS[i % len(PRINT_COLORS)] for i, s in enumerate(comparison.sessions)}
    base = comparison.baseline
    others = comparison.others
    when = (generated_at or datetime.now(UTC)).astimezone()
    if title is None:
        # A repeat of the baseline is the baseline's configuration again, not one compared.
        compared = [s for s in others if s.id not in comparison.baseline_repeats]
        again = len(others) - len(compared)
        if not compared:
            title = f"{short[base.id]}: OLTP performance"
            if again:
                title = (
                    f"{short[base.id]} and its repeat{'s' if again > 1 else ''}: OLTP performance"
                )
        elif len(compared) == 1:
            title = f"{short[compared[0].id]} vs {short[base.id]}: OLTP performance"
        else:
            title = f"{len(compared)} configurations vs {short[base.id]}: OLTP performance"
        if econ.arrays and len(compared) <= 1:
            title += " and economics"
    by_id = {f.id: f for f in facts}
    config = config_tables([by_id[s.id] for s in comparison.sessions if s.id in by_id], short)
    builder = Builder(comparison, econ, short, colors, config, latency)
    builder.build(economics_section, opts.order)
    compared_names = [short[s.id] for s in others]
    for table in builder.tables.values():
        table.notes = merge_lines(table.notes, compared_names)
    all_vus = sorted({v for lv in comparison.levels.values() for v in lv})
    if others:
        subtitle = (
            f"TPROC-C sweeps from {users_text(all_vus)} on "
            + " and ".join(names[s.id] for s in comparison.sessions)
            + f"; baseline: {short[base.id]}"
        )
    else:
        subtitle = f"A TPROC-C sweep from {users_text(all_vus)} on {names[base.id]}"
    authors = author_notes(
        comparison,
        econ,
        names,
        missing_hardware=config.missing_hardware,
        missing_storage=config.missing_storage,
        latency_fallback=latency_fallback,
    )
    readers = reader_notes(comparison, econ, short, latency_fallback, opts.latency)
    listed = [by_id[s.id] for s in comparison.sessions if s.id in by_id]
    readers += busy_driver_notes(listed, short)
    readers += profile_notes(listed, short)
    readers += imported_notes(listed, short, problems or {})
    readers = merge_lines(readers, compared_names)
    return Report(
        title=title,
        subtitle=subtitle,
        generated_at=when.strftime("%Y-%m-%d %H:%M %Z").strip(),
        comparison=comparison,
        economics=econ,
        provenance=list(provs),
        colors=colors,
        names=names,
        facts=merge_facts(builder.facts, compared_names),
        summary=merge_lines(builder.summary, compared_names),
        sections=[merge_section(section, compared_names) for section in builder.sections],
        tables=builder.tables,
        charts=builder.charts,
        how_we_tested=how_we_tested(
            comparison, provs, nm, by_id, latency, opts.commands, opts.session_notes
        ),
        notes=authors,
        bottom_line=merge_lines(
            by_configuration(builder.bottom_line, short.values()), compared_names
        ),
        short=short,
        reader_notes=readers,
        options=opts,
        latency=latency,
        recorded_with=recorded_with([by_id[s.id] for s in comparison.sessions if s.id in by_id]),
    )


def recorded_with(facts: Sequence[SystemFacts]) -> str:
    """Which tool recorded the sessions, as the brief's opening says it."""
    imported = sum(1 for f in facts if f.imported)
    if not imported:
        return "recorded with bench-gui"
    if imported == len(facts):
        return "recorded with HammerDB and imported into bench-gui"
    return f"recorded with bench-gui ({imported} recorded with HammerDB and imported)"


def as_json(report: Report) -> dict[str, Any]:
    """Every table (raw values and texts), the facts, notes and provenance as JSON data."""
    c = report.comparison
    return {
        "format": "bench-gui-comparison",
        "version": 1,
        "title": report.title,
        "subtitle": report.subtitle,
        "generated_at": report.generated_at,
        "disclaimer": report.disclaimer,
        "ratio_rule": report.ratio_rule,
        "baseline": c.baseline.id,
        "sessions": [
            {"id": s.id, "name": report.names[s.id], "status": s.status, "created_at": s.created_at}
            for s in c.sessions
        ],
        "stop_condition": {
            "min_gain_pct": c.conditions.min_gain_pct,
            "max_avg_ms": c.conditions.max_avg_ms,
            "max_p999_ms": c.conditions.max_p999_ms,
            "text": c.conditions.describe(),
        },
        "saturation": {
            str(sid): {
                "users": sat.vus,
                "reached": sat.reached,
                "reason": sat.reason,
                "trigger_users": sat.trigger_vus,
                "peak_users": sat.peak_vus,
            }
            for sid, sat in c.saturation.items()
        },
        "facts": [{"value": f.value, "text": f.text, "detail": f.detail} for f in report.facts],
        "tables": {
            key: {
                "number": t.number,
                "title": t.title,
                "columns": [col.replace("\n", " ") for col in t.columns],
                "rows": [[cell.value for cell in row] for row in t.rows],
                "text": [[cell.text for cell in row] for row in t.rows],
                "notes": t.notes,
            }
            for key, t in report.tables.items()
        },
        "economics": {
            "currency": report.economics.currency,
            "power_price": None
            if report.economics.power_price is None
            else {
                "per_kwh": report.economics.power_price.per_kwh,
                "currency": report.economics.power_price.currency,
                "date": report.economics.power_price.date,
                "source": report.economics.power_price.source,
            },
            "arrays": {
                str(sid): {
                    "device": a.device,
                    "count": a.count,
                    "unit_price": a.unit_price,
                    "computed": a.computed,
                    "hand_cost": a.hand_cost,
                    "cost": a.cost,
                    "currency": a.currency,
                    "arithmetic": a.arithmetic,
                    "flag": a.flag,
                    "storage_flag": a.storage_flag,
                    "priced_as": a.priced_as,
                }
                for sid, a in report.economics.arrays.items()
            },
            "messages": list(report.economics.messages),
        },
        "notes": report.notes,
        "reader_notes": report.reader_notes,
        "latency": report.latency,
        "short_names": {str(sid): name for sid, name in report.short.items()},
        "how_we_tested": [
            {
                "heading": h.heading,
                "paragraphs": h.paragraphs,
                "items": [{"item": k, "value": v} for k, v in h.rows],
                "table": None
                if h.table is None
                else {
                    "columns": h.table.columns,
                    "rows": [[cell.text for cell in row] for row in h.table.rows],
                },
                "commands": h.code,
            }
            for h in report.how_we_tested
        ],
    }


def level_of(report: Report, session_id: int, vus: int) -> Level | None:
    return report.comparison.levels.get(session_id, {}).get(vus)
