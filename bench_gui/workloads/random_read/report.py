"""The content of a random-read report (seed 004), independent of its format.

:func:`build_random_read_report` reads the sessions, compares them
(:mod:`bench_gui.workloads.random_read.compare`), works out the RAM each storage needs
(:mod:`bench_gui.workloads.random_read.economics`) and turns it into the same parts as every report
(sections, numbered tables and figures, fast facts), rendered by the same writers through
templates of its own: none of the transaction workload's words can reach it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from bench_gui.core.economics import DevicePrice
from bench_gui.core.saturation import StopConditions
from bench_gui.report.how import HowSection
from bench_gui.report.names import Naming, check_short_names, naming
from bench_gui.report.options import Cover, ReportOptions
from bench_gui.report.parts import ChartSpec, Fact, Section, Table
from bench_gui.store.sessions import SessionStore
from bench_gui.wire.fio_sizes import format_size
from bench_gui.workloads.random_read.compare import (
    RRComparison,
    RRSession,
    compare_random_read,
    multiple_text,
)
from bench_gui.workloads.random_read.economics import RamEconomics, default_target, ram_economics
from bench_gui.workloads.random_read.report_input import load_random_read
from bench_gui.workloads.random_read.report_sections import RandomReadBuilder

PRINT_COLORS = ("#3b6fb6", "#4c9a2a", "#d9730d", "#7b4fc9", "#c23b6b", "#16878c")
DISCLAIMER = (
    "Random reads measured with fio on the recorded systems: one run per configuration, each"
    " point a measured window after a warm-up, the page cache dropped between points. Results"
    " vary with platform, RAM, file system and device; prices are as recorded in the author's"
    " price list, with their dates and sources, and are not quotes."
)
RATIO_RULE = (
    "Ratios read as multiples from 2X up and as percentages below; multipliers over raw IOPS"
    " carry two decimals. Every printed ratio is truncated, never rounded up, so no"
    " difference is printed larger than it was measured."
)
FOOTER_NOTICE = "Random reads measured with fio; results vary with platform and configuration."


@dataclass
class RandomReadReport:
    """A random-read report: what the writers and the GUI render."""

    title: str
    subtitle: str
    generated_at: str
    comparison: RRComparison
    economics: RamEconomics | None
    names: dict[int, str]
    short: dict[int, str]
    colors: dict[int, str]
    facts: list[Fact]
    summary: list[str]
    sections: list[Section]
    tables: dict[str, Table]
    charts: dict[str, ChartSpec]
    how_we_tested: list[HowSection]
    notes: list[str]  # for the author: what is missing and how to add it
    bottom_line: list[str]
    reader_notes: list[str] = field(default_factory=list)
    options: ReportOptions = field(default_factory=ReportOptions)
    disclaimer: str = DISCLAIMER
    ratio_rule: str = RATIO_RULE
    footer_notice: str = FOOTER_NOTICE
    workload: str = "random_read"
    html_template: str = "random_read.html.j2"
    brief_template: str = "random_read_brief_qt.html.j2"

    def json_data(self) -> dict[str, Any]:
        """What the JSON writer writes (:func:`random_read_json`)."""
        return random_read_json(self)

    @property
    def sessions(self) -> tuple[RRSession, ...]:
        return self.comparison.sessions

    @property
    def baseline_id(self) -> int:
        return self.comparison.baseline_id

    @property
    def naming(self) -> Naming:
        return Naming(self.names, self.short)

    @property
    def cover(self) -> Cover:
        return self.options.cover

    @property
    def author_notes(self) -> list[str]:
        return self.notes

    @property
    def keeps_author_notes(self) -> bool:
        return self.options.author_notes == "appendix" and bool(self.notes)

    @property
    def body_sections(self) -> list[Section]:
        return self.sections

    def section_tables(self, section: Section) -> list[Table]:
        return [self.tables[k] for k in section.tables if k in self.tables]

    def section_charts(self, section: Section) -> list[ChartSpec]:
        return [self.charts[k] for k in section.charts if k in self.charts]


def _names(sessions: Sequence[RRSession]) -> dict[int, str]:
    counts: dict[str, int] = {}
    for s in sessions:
        counts[s.name] = counts.get(s.name, 0) + 1
    return {s.id: (f"{s.name} (#{s.id})" if counts[s.name] > 1 else s.name) for s in sessions}


def _device_text(s: RRSession) -> str:
    """The device as recorded, and as the author describes it (a name alone may be a loop
    device held to a few hundred IOPS: that is not a disk)."""
    device = s.device or "—"
    if s.storage_text:
        return f"{device}; as the author describes it: {s.storage_text}"
    return f"{device} (not described by the author)"


def _in_flight(s: RRSession) -> str:
    """The depth of each measure: the multiplier divides one by the other."""
    sweep = (
        f"at most {s.jobs} (one page fault per fio job, {s.ioengine or 'mmap'})" if s.jobs else "—"
    )
    raw = s.raw_method or "no raw-IOPS pass"
    return (
        f"the sweep: {sweep}; the raw-IOPS pass: {raw}. A device whose IOPS grow with"
        " depth serves fewer at the sweep's depth than its raw IOPS say"
    )


def _how(comparison: RRComparison, short: dict[int, str]) -> list[HowSection]:
    sequence = HowSection("Test sequence")
    sequence.paragraphs.append(
        "Seed 004's benchmark, run by fio: one pre-allocated file, read at random with a"
        " scrambled Zipfian distribution (hot and cold blocks share pages, as in real"
        " databases) by a pool of fio jobs through the page cache (memory-mapped reads of 1 KiB"
        " make 4 KiB page reads). Each dataset size reads a prefix of the file under a fixed"
        " RAM for the study (a memory cgroup limit, or the machine's RAM): the page cache is"
        " dropped, fio warms the cache up, then measures. Before the sweep a short direct-I/O"
        " pass of 4 KiB random reads measured the device's raw IOPS. fio's own memory is"
        " charged to the same memory limit, so where it was measured the RAM for the study is"
        " the page cache the data file really held at a point larger than it (its resident"
        " pages, counted with fincore), not the limit: every multiple of RAM, multiplier and"
        " RAM figure below stands on that."
    )
    out = [sequence]
    for s in comparison.sessions:
        how = HowSection(f"{short[s.id]}: the study as recorded")
        rows = [
            ("Session", f"#{s.id} {s.name}" + (f", {s.created_at[:16]}" if s.created_at else "")),
            ("Data file", s.file or "—"),
            ("Device", _device_text(s)),
            ("RAM for the study", s.memory_label or format_size(s.memory_bytes)),
            ("Read size", format_size(s.block_size) if s.block_size else "—"),
            ("fio jobs", str(s.jobs) if s.jobs else "—"),
            ("I/O engine", s.ioengine or "—"),
            ("Zipf theta", f"{s.zipf_theta:g}" if s.zipf_theta is not None else "—"),
            ("Warm-up / measured (s)", f"{s.warmup_s or 0:g} / {s.measure_s or 0:g}"),
            (
                "Page cache between points",
                {True: "dropped", False: "not dropped", None: "—"}[s.caches_dropped],
            ),
            (
                "Raw device IOPS",
                f"{s.raw_iops:,.0f} ({s.raw_method})" if s.raw_iops else "not measured",
            ),
            ("Reads in flight", _in_flight(s)),
        ]
        if s.fio_command:
            # A row, not a listing: a listing of its own may be left alone on a last page.
            rows.append(("fio, once per dataset size", " ".join(["fio", *s.fio_command])))
        how.rows.extend(rows)
        out.append(how)
    return out


def assemble_random_read(
    comparison: RRComparison,
    econ: RamEconomics | None,
    title: str | None = None,
    options: ReportOptions | None = None,
    generated_at: datetime | None = None,
    messages: Sequence[str] = (),
) -> RandomReadReport:
    """Turn a random-read comparison and its RAM economics into a report (no I/O)."""
    opts = options or ReportOptions()
    names = _names(comparison.sessions)
    chosen = check_short_names(dict(opts.short_names), [s.id for s in comparison.sessions])
    short = dict(naming(names, chosen).short)
    colors = {s.id: PRINT_COLORS[i % len(PRINT_COLORS)] for i, s in enumerate(comparison.sessions)}
    builder = RandomReadBuilder(comparison, econ, short, colors)
    builder.build(opts.order)
    base, others = comparison.baseline, comparison.others
    if title is None:
        if not others:
            title = f"{short[base.id]}: random reads by dataset size"
        elif len(others) == 1:
            title = f"{short[others[0].id]} vs {short[base.id]}: random reads by dataset size"
        else:
            title = f"{len(comparison.sessions)} storage configurations vs {short[base.id]}"
        if econ is not None and econ.price is not None:
            title += " and the RAM they replace"
    sizes = sorted({p.ram_ratio for s in comparison.sessions for p in s.points})
    span = (
        f"{multiple_text(sizes[0]).removesuffix(' RAM')} to {multiple_text(sizes[-1])}"
        if len(sizes) > 1
        else multiple_text(sizes[0])
    )
    if others:
        subtitle = (
            f"Random reads from datasets of {span} on "
            + " and ".join(names[s.id] for s in comparison.sessions)
            + f"; baseline: {short[base.id]}"
        )
    else:
        subtitle = f"Random reads from datasets of {span} on {names[base.id]}"
    notes = list(comparison.notes) + list(messages)
    if econ is not None:
        notes += [m for m in econ.messages if m not in notes]
    readers = [n[:1].upper() + n[1:] for n in comparison.notes if "left out" not in n]
    when = (generated_at or datetime.now(UTC)).astimezone()
    return RandomReadReport(
        title=title,
        subtitle=subtitle,
        generated_at=when.strftime("%Y-%m-%d %H:%M %Z").strip(),
        comparison=comparison,
        economics=econ,
        names=names,
        short=short,
        colors=colors,
        facts=builder.facts,
        summary=builder.summary,
        sections=builder.sections,
        tables=builder.tables,
        charts=builder.charts,
        how_we_tested=_how(comparison, short),
        notes=notes,
        bottom_line=builder.bottom_line,
        reader_notes=readers,
        options=opts,
    )


def build_random_read_report(
    store: SessionStore,
    session_ids: Sequence[int],
    baseline_id: int,
    title: str | None = None,
    options: ReportOptions | None = None,
    target_ops_s: float | None = None,
    dataset_bytes: int | None = None,
    prices: Sequence[DevicePrice] | None = None,
) -> RandomReadReport:
    """Everything a random-read report shows, from the store. ``target_ops_s`` and
    ``dataset_bytes`` set the "SSDs replace RAM" question (default: the best ops/s measured
    at the largest dataset beyond RAM, and that dataset); ``prices`` override the store's."""
    sessions = load_random_read(store, session_ids)
    short = naming(_names(sessions)).short
    comparison = compare_random_read(sessions, baseline_id, short)
    default_ops, default_bytes = default_target(comparison)
    econ = ram_economics(
        comparison,
        default_ops if target_ops_s is None else target_ops_s,
        default_bytes if dataset_bytes is None else dataset_bytes,
        store.device_prices() if prices is None else prices,
    )
    return assemble_random_read(comparison, econ, title, options)


def random_read_json(report: RandomReadReport) -> dict[str, Any]:
    """Every table (raw values and texts), the points, the RAM economics and notes as JSON."""
    c, e = report.comparison, report.economics
    return {
        "format": "bench-gui-random-read-comparison",
        "version": 1,
        "workload": "random_read",
        "title": report.title,
        "subtitle": report.subtitle,
        "generated_at": report.generated_at,
        "disclaimer": report.disclaimer,
        "ratio_rule": report.ratio_rule,
        "match_rule": c.match_rule,
        "baseline": c.baseline_id,
        "sessions": [
            {
                "id": s.id,
                "name": report.names[s.id],
                "short_name": report.short[s.id],
                "status": s.status,
                "created_at": s.created_at,
                "memory_bytes": s.memory_bytes,
                "raw_iops": s.raw_iops,
                "raw_method": s.raw_method,
                "points": [
                    {
                        "dataset_bytes": p.dataset_bytes,
                        "ram_multiple": p.ram_ratio,
                        "label": p.label,
                        "ops_s": p.ops_s,
                        "mbs": p.mbs,
                        "latency_ms": {"p50": p.p50_ms, "p99": p.p99_ms, "p999": p.p999_ms},
                        "raw_iops": p.raw_iops,
                        "multiplier": p.multiplier,
                    }
                    for p in s.points
                ],
            }
            for s in c.sessions
        ],
        "rows": [
            {
                "ram_multiple": r.ram_ratio,
                "matched": r.how,
                "ratios": {str(k): (None if x is None else x.value) for k, x in r.ratios.items()},
            }
            for r in c.rows
        ],
        "headlines": [h.text for h in c.headlines],
        "facts": [{"value": f.value, "text": f.text, "detail": f.detail} for f in report.facts],
        "ram_economics": None
        if e is None
        else {
            "target_ops_s": e.target_ops_s,
            "dataset_bytes": e.dataset_bytes,
            "method": e.method,
            "price_per_gib": None if e.price is None else e.price.per_gib,
            "currency": None if e.price is None else e.price.currency,
            "needs": [
                {
                    "session": n.session_id,
                    "bound": n.bound,
                    "ram_fraction": n.fraction,
                    "ram_bytes": n.ram_bytes,
                    "ram_gib": n.ram_gib,
                    "cost": n.cost,
                    "text": n.text,
                }
                for n in e.needs
            ],
            "findings": list(e.findings),
        },
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
        "notes": report.notes,
        "reader_notes": report.reader_notes,
    }


def build(
    store: SessionStore,
    session_ids: Sequence[int],
    baseline_id: int,
    *,
    conditions: StopConditions | None = None,
    title: str | None = None,
    options: ReportOptions | None = None,
    target_ops_s: float | None = None,
    dataset_bytes: int | None = None,
    prices: Sequence[DevicePrice] | None = None,
) -> RandomReadReport:
    """The studies' report as the kit contract calls it (a sweep's stop ``conditions`` are
    not a study's)."""
    return build_random_read_report(
        store, session_ids, baseline_id, title, options, target_ops_s, dataset_bytes, prices
    )
