"""The content of a comparison report, independent of its format.

:func:`build_report` reads the sessions, compares them, works out the economics and turns all
of it into numbered tables, chart descriptions, fast facts and the prose of a technical brief
(the seeds are the model: a finding as a heading, a figure, a sentence that reads the figure,
a table with every user count). The HTML, PDF, CSV and JSON writers and the GUI all render
this one model, so they can never disagree on a figure.

This module does not import Qt; the charts are described here (:class:`ChartSpec`) and drawn
by :mod:`bench_gui.report.charts`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from bench_gui.core.compare import (
    Advantage,
    Comparison,
    Level,
    Ratio,
    SessionData,
    Stats,
    Versus,
    compare,
)
from bench_gui.core.economics import (
    JOULES_PER_KWH,
    ArrayInput,
    CostLevel,
    DevicePrice,
    EconomicCase,
    Economics,
    PowerPrice,
    economics,
    format_cost_change,
    format_money,
)
from bench_gui.core.saturation import StopConditions
from bench_gui.store.compare_input import Provenance, array_input, provenance, session_data
from bench_gui.store.sessions import SessionStore

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


# ---- the model ----------------------------------------------------------------------------------


@dataclass
class Cell:
    """One table cell: the text shown and the raw value CSV/JSON carry."""

    text: str
    value: float | int | str | None = None
    tone: str = ""  # "good", "bad", "muted", "flag", "head"

    @staticmethod
    def num(value: float | None, digits: int = 0, suffix: str = "") -> Cell:
        if value is None or not math.isfinite(value):
            return Cell("—", None, "muted")
        return Cell(f"{value:,.{digits}f}{suffix}", value)


@dataclass
class Table:
    key: str
    title: str
    columns: list[str]
    rows: list[list[Cell]]
    notes: list[str] = field(default_factory=list)
    number: int = 0
    # Columns holding text (left-aligned); the others are numbers.
    text_columns: tuple[int, ...] = (0,)

    @property
    def label(self) -> str:
        return f"Table {self.number}: {self.title}" if self.number else self.title


@dataclass
class SeriesSpec:
    label: str
    color: str
    values: list[float | None]  # one per category
    saturation: int | None = None  # the category (user count) of its saturation point
    baseline: bool = False


@dataclass
class ChartSpec:
    key: str
    title: str
    y_label: str
    categories: list[int]  # user counts
    series: list[SeriesSpec]
    kind: str = "lines"  # "bars" or "lines"
    unit: str = ""  # "", "ms", "mW"
    better: str = "higher"  # "higher" or "lower" is better
    number: int = 0
    x_label: str = "Virtual users"

    @property
    def label(self) -> str:
        return f"Figure {self.number}: {self.title}" if self.number else self.title

    @property
    def caption(self) -> str:
        return f"{self.label} ({'taller' if self.kind == 'bars' else self.better} is better)"


@dataclass
class Fact:
    value: str  # "22X to 29X"
    text: str  # "more new orders per minute"
    detail: str = ""  # "8 to 64 users"


@dataclass
class Block:
    """One element of a section, in reading order."""

    kind: str  # "headline", "text", "chart", "table", "formula", "message"
    content: str  # the text, or the key of a chart or table


@dataclass
class Section:
    key: str
    heading: str
    blocks: list[Block] = field(default_factory=list)

    def add(self, kind: str, content: str) -> None:
        self.blocks.append(Block(kind, content))

    def of(self, kind: str) -> list[str]:
        return [b.content for b in self.blocks if b.kind == kind]

    @property
    def tables(self) -> list[str]:
        return self.of("table")

    @property
    def charts(self) -> list[str]:
        return self.of("chart")

    @property
    def headlines(self) -> list[str]:
        return self.of("headline")

    @property
    def paragraphs(self) -> list[str]:
        return self.of("text")

    @property
    def messages(self) -> list[str]:
        return self.of("message")


@dataclass
class HowSection:
    heading: str
    paragraphs: list[str] = field(default_factory=list)
    rows: list[tuple[str, str]] = field(default_factory=list)
    table: Table | None = None
    code: list[str] = field(default_factory=list)


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
    notes: list[str]
    bottom_line: list[str]
    short: dict[int, str] = field(default_factory=dict)
    disclaimer: str = DISCLAIMER
    ratio_rule: str = RATIO_RULE

    def table(self, key: str) -> Table:
        return self.tables[key]

    def section_tables(self, section: Section) -> list[Table]:
        return [self.tables[k] for k in section.tables if k in self.tables]

    def section_charts(self, section: Section) -> list[ChartSpec]:
        return [self.charts[k] for k in section.charts if k in self.charts]


# ---- formatting helpers -------------------------------------------------------------------------


def fmt_ms(value: float | None) -> str:
    if value is None:
        return "—"
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:,.1f}"
    return f"{value:,.2f}"


def _ms(value: float | None) -> Cell:
    return Cell(fmt_ms(value), value, "muted" if value is None else "")


def _ratio(item: Ratio | None) -> Cell:
    if item is None:
        return Cell("—", None, "muted")
    return Cell(item.text, round(item.value, 6), "good" if item.value > 1 else "bad")


def _adv(item: Advantage | None) -> Cell:
    if item is None:
        return Cell("—", None, "muted")
    return Cell(item.text, round(item.pct, 4), "good" if item.pct > 0 else "bad")


DOUBT_MARK = "⚑"
DOUBT_NOTE = (
    f"{DOUBT_MARK} NOPM doubtful: the database counted more (or fewer) New-Orders than the"
    " driver committed in the same window (by more than 2%), so another load was probably"
    " running on the server; the figure, and every ratio made from it, is not this run's alone."
)


def _doubt(cell: Cell, doubtful: bool) -> Cell:
    """A cell whose figure rests on a doubtful NOPM (core.crosscheck): marked, flag tone."""
    if not doubtful or cell.value is None:
        return cell
    return Cell(f"{cell.text} {DOUBT_MARK}", cell.value, "flag")


def _cv(stats: Stats | None) -> str:
    if stats is None or stats.cv_pct is None:
        return ""
    return f"{stats.cv_pct:.1f}%"


def _noise(vs: Versus | None) -> Cell:
    if vs is None or vs.noise_pct is None:
        return Cell("—", None, "muted")
    text = f"±{vs.noise_pct:.1f}%"
    if vs.within_noise:
        return Cell(text + " (within noise)", round(vs.noise_pct, 3), "flag")
    return Cell(text, round(vs.noise_pct, 3))


def adv_phrase(item: Advantage) -> str:
    """``95% lower`` or ``12% higher``."""
    if item.pct >= 0:
        return f"{item.text} lower"
    return f"{item.text.lstrip('-')} higher"


def ratio_phrase(item: Ratio, what: str, baseline: str) -> str:
    """``22X the NOPM of HDD`` or ``69% more NOPM than HDD``."""
    if item.text.endswith("X"):
        return f"{item.text} the {what} of {baseline}"
    if item.value >= 1:
        return f"{item.text.lstrip('+')} more {what} than {baseline}"
    return f"{item.text.lstrip('-')} less {what} than {baseline}"


def _span(low: str, high: str) -> str:
    return low if low == high else f"{low} to {high}"


def _users(values: Sequence[int]) -> str:
    if not values:
        return "no user count"
    if len(values) == 1:
        return f"{values[0]} users"
    return f"{min(values)} to {max(values)} users"


# ---- building ---------------------------------------------------------------------------------


def load_inputs(
    store: SessionStore,
    session_ids: Sequence[int],
    baseline_id: int,
    conditions: StopConditions | None = None,
) -> tuple[list[SessionData], Comparison]:
    """Read and compare; raises CompareError / SessionNotFound with a clear message."""
    sessions = [session_data(store, sid) for sid in session_ids]
    return sessions, compare(sessions, baseline_id, conditions)


def build_report(
    store: SessionStore,
    session_ids: Sequence[int],
    baseline_id: int,
    conditions: StopConditions | None = None,
    title: str | None = None,
    arrays: Mapping[int, ArrayInput] | None = None,
    prices: Sequence[DevicePrice] | None = None,
    power_price: PowerPrice | None = None,
) -> Report:
    """Everything a report shows, from the store. ``arrays``, ``prices`` and ``power_price``
    override what the store holds (the GUI's unsaved edits)."""
    _sessions, comparison = load_inputs(store, session_ids, baseline_id, conditions)
    details = {s.id: store.get_run(s.id) for s in comparison.sessions}
    array_specs = {sid: array_input(store, detail) for sid, detail in details.items()}
    array_specs.update(arrays or {})
    econ = economics(
        comparison,
        array_specs,
        store.device_prices() if prices is None else prices,
        store.power_price() if power_price is None else power_price,
    )
    provs = [provenance(store, s.id) for s in comparison.sessions]
    return assemble(comparison, econ, provs, title=title)


def _names(comparison: Comparison) -> dict[int, str]:
    """Session names as stored; a name used twice gets its id."""
    names = {s.id: s.name for s in comparison.sessions}
    counts: dict[str, int] = {}
    for name in names.values():
        counts[name] = counts.get(name, 0) + 1
    return {sid: (f"{n} (#{sid})" if counts[n] > 1 else n) for sid, n in names.items()}


def short_names(names: Mapping[int, str]) -> dict[int, str]:
    """Names without a trailing parenthesis ("S650DC RAID 10 (4 x 800GB)" -> "S650DC RAID 10")
    for headings and table columns, unless that makes two sessions look alike."""
    short = {}
    for sid, name in names.items():
        text = name
        if name.endswith(")") and " (" in name:
            text = name[: name.rindex(" (")].strip()
        short[sid] = text or name
    if len(set(short.values())) < len(short):
        return dict(names)
    return short


def assemble(
    comparison: Comparison,
    econ: Economics,
    provs: Sequence[Provenance],
    title: str | None = None,
    generated_at: datetime | None = None,
) -> Report:
    """Turn a comparison and its economics into a report (no I/O)."""
    names = _names(comparison)
    short = short_names(names)
    colors = {s.id: PRINT_COLORS[i % len(PRINT_COLORS)] for i, s in enumerate(comparison.sessions)}
    base = comparison.baseline
    others = comparison.others
    when = (generated_at or datetime.now(UTC)).astimezone()
    if title is None:
        title = f"{short[others[0].id]} vs {short[base.id]}: OLTP performance"
        if econ.arrays:
            title += " and economics"
        if len(others) > 1:
            title = (
                f"{len(comparison.sessions)} configurations vs {short[base.id]}: OLTP performance"
            )
    builder = _Builder(comparison, econ, short, colors)
    builder.build()
    all_vus = sorted({v for lv in comparison.levels.values() for v in lv})
    subtitle = (
        f"TPROC-C sweeps from {_users(all_vus)} on "
        + " and ".join(names[s.id] for s in comparison.sessions)
        + f"; baseline: {short[base.id]}"
    )
    notes = list(comparison.notes) + [m for m in econ.messages if m not in comparison.notes]
    return Report(
        title=title,
        subtitle=subtitle,
        generated_at=when.strftime("%Y-%m-%d %H:%M %Z").strip(),
        comparison=comparison,
        economics=econ,
        provenance=list(provs),
        colors=colors,
        names=names,
        facts=builder.facts,
        summary=builder.summary,
        sections=builder.sections,
        tables=builder.tables,
        charts=builder.charts,
        how_we_tested=how_we_tested(comparison, provs, short),
        notes=notes,
        bottom_line=builder.bottom_line,
        short=short,
    )


class _Builder:
    """Builds the sections in brief order, numbering tables and figures as they appear."""

    def __init__(
        self,
        comparison: Comparison,
        econ: Economics,
        names: dict[int, str],
        colors: dict[int, str],
    ) -> None:
        self.c = comparison
        self.e = econ
        self.names = names  # short names
        self.colors = colors
        self.tables: dict[str, Table] = {}
        self.charts: dict[str, ChartSpec] = {}
        self.sections: list[Section] = []
        self.facts: list[Fact] = []
        self.summary: list[str] = []
        self.bottom_line: list[str] = []
        self.base = comparison.baseline
        self.bname = names[comparison.baseline.id]
        self.several = len(comparison.others) > 1

    # -- numbering

    def add_table(self, section: Section, table: Table) -> Table:
        table.number = len([t for t in self.tables.values() if t.number]) + 1
        self.tables[table.key] = table
        section.add("table", table.key)
        return table

    def add_chart(self, section: Section, chart: ChartSpec) -> ChartSpec:
        self.charts[chart.key] = chart
        section.add("chart", chart.key)
        return chart

    @property
    def next_table(self) -> int:
        return len([t for t in self.tables.values() if t.number]) + 1

    def value_chart(
        self, key: str, title: str, y_label: str, metric: str, kind: str, unit: str, better: str
    ) -> ChartSpec:
        cats = [row.vus for row in self.c.rows]
        series = []
        for s in self.c.sessions:
            values: list[float | None] = []
            for row in self.c.rows:
                level = row.levels.get(s.id)
                values.append(level.value(metric) if level is not None else None)
            series.append(
                SeriesSpec(
                    self.names[s.id],
                    self.colors[s.id],
                    values,
                    self.c.saturation[s.id].vus,
                    s.id == self.base.id,
                )
            )
        chart = ChartSpec(key, title, y_label, cats, series, kind, unit, better)
        chart.number = len(self.charts) + 1  # known before the text that cites it
        return chart

    def _vs_label(self, other: SessionData, text: str) -> str:
        return f"{self.names[other.id]}\n{text}" if self.several else text

    # -- sections

    def build(self) -> None:
        self.throughput()
        self.latency("avg_ms", "Average response time", "average", "avg")
        self.latency("p999_ms", "99.9th percentile response time", "99.9th percentile", "p999")
        if self.c.has_power():
            self.power()
        self.saturation()
        self.economics()
        self.repeatability()
        self.configuration()

    def _extremes(
        self, other: SessionData, metric: str
    ) -> tuple[tuple[int, float], tuple[int, float]] | None:
        try:
            return self.c.extremes(other.id, metric)
        except KeyError:
            return None

    def _at(self, other: SessionData, vus: int) -> Versus | None:
        for row in self.c.rows:
            if row.vus == vus:
                return row.versus.get(other.id)
        return None

    def throughput(self) -> None:
        c = self.c
        section = Section("throughput", "Throughput: new orders per minute")
        self.sections.append(section)
        chart = self.value_chart(
            "nopm", "New orders per minute by user count", "NOPM", "nopm", "bars", "", "higher"
        )
        for other in c.others:
            ext = self._extremes(other, "nopm")
            if ext is None:
                continue
            oname = self.names[other.id]
            (lo_vus, _), (hi_vus, _) = ext
            common = c.common_vus or (lo_vus, hi_vus)
            first, last = common[0], common[-1]
            lo, hi = self._at(other, lo_vus), self._at(other, hi_vus)
            v_first, v_last = self._at(other, first), self._at(other, last)
            assert lo is not None
            assert hi is not None
            assert lo.nopm is not None
            assert hi.nopm is not None
            if lo.nopm.text == hi.nopm.text:
                heading = f"{oname}: {hi.nopm.text} the new orders per minute of {self.bname}"
            elif hi.nopm.text.endswith("X") and lo.nopm.text.endswith("X"):
                heading = (
                    f"{oname}: from {lo.nopm.text} (with {lo_vus} users) to {hi.nopm.text}"
                    f" (with {hi_vus} users) the new orders per minute of {self.bname}"
                )
            else:
                heading = (
                    f"{oname}: {lo.nopm.text} (with {lo_vus} users) to {hi.nopm.text} (with"
                    f" {hi_vus} users) new orders per minute compared with {self.bname}"
                )
            section.add("headline", heading)
            text = (
                f"New orders per minute (NOPM) measure business throughput. Figure"
                f" {chart.number} shows the NOPM of each configuration at every user count"
                " measured (taller is better). "
            )
            if v_first and v_first.nopm and v_last and v_last.nopm:
                text += (
                    f"When the system is lightly loaded ({first} users) {oname} delivers"
                    f" {ratio_phrase(v_first.nopm, 'NOPM', self.bname)}; when it is heavily"
                    f" loaded ({last} users), {ratio_phrase(v_last.nopm, 'NOPM', self.bname)}"
                )
                if hi_vus not in (first, last):
                    text += f", with the peak difference ({hi.nopm.text}) at {hi_vus} users"
                text += ". "
            text += (
                f"Table {self.next_table} lists every user count, with TPM (database"
                " transactions per minute, commits and rollbacks)."
            )
            section.add("text", text)
            self.facts.append(
                Fact(
                    _span(lo.nopm.text, hi.nopm.text),
                    "more new orders per minute" if lo.nopm.value >= 1 else "new orders per minute",
                    f"{oname} vs {self.bname}, {_users(list(c.common_vus))}",
                )
            )
            self.summary.append(heading)
            self.bottom_line.append(
                f"{oname}: {ratio_phrase(hi.nopm, 'NOPM', self.bname)} with {hi_vus} users"
            )
        self.add_chart(section, chart)
        columns = ["Users"]
        columns += [f"NOPM\n{self.names[s.id]}" for s in c.sessions]
        columns += [f"TPM\n{self.names[s.id]}" for s in c.sessions]
        for s in c.others:
            columns += [
                self._vs_label(s, "NOPM ratio"),
                self._vs_label(s, "TPM ratio"),
                self._vs_label(s, "Repeat noise"),
            ]
        rows = []
        doubtful = []
        for row in c.rows:
            cells = [Cell(str(row.vus), row.vus)]
            for sid, lv in row.levels.items():
                cells.append(
                    _doubt(Cell.num(lv.value("nopm") if lv else None), bool(lv and lv.doubtful))
                )
                if lv is not None and lv.doubtful:
                    doubtful.append(f"{self.names[sid]} at {row.vus} users")
            cells += [Cell.num(lv.value("tpm") if lv else None) for lv in row.levels.values()]
            for s in c.others:
                vs = row.versus.get(s.id)
                shaky = vs is not None and vs.doubtful
                cells += [_doubt(_ratio(vs.nopm if vs else None), shaky)]
                cells += [_ratio(vs.tpm if vs else None), _noise(vs)]
            rows.append(cells)
        if doubtful:
            section.add(
                "message",
                f"{DOUBT_MARK} The NOPM of {', '.join(doubtful)} is doubtful: the database"
                " counted New-Orders the driver did not commit (another load on the server?).",
            )
        self.add_table(
            section,
            Table(
                "throughput",
                "Relative performance: NOPM and TPM by user count",
                columns,
                rows,
                notes=[
                    f"Ratio = NOPM (or TPM) of the compared configuration / that of"
                    f" {self.bname} at the same user count. Repeat noise: combined coefficient"
                    " of variation of repeated measurements (— when a step ran once).",
                    *([DOUBT_NOTE] if doubtful else []),
                ],
            ),
        )

    def latency(self, metric: str, title: str, phrase: str, key: str) -> None:
        c = self.c
        heading = (
            "Consistency: 99.9th percentile response time"
            if key == "p999"
            else "Responsiveness: average response time"
        )
        section = Section(f"latency_{key}", heading)
        self.sections.append(section)
        chart = self.value_chart(
            f"latency_{key}", f"{title} by user count", "Milliseconds", metric, "lines", "ms",
            "lower",
        )  # fmt: skip
        for other in c.others:
            ext = self._extremes(other, metric)
            if ext is None:
                continue
            oname = self.names[other.id]
            (lo_vus, _), (hi_vus, _) = ext
            lo, hi = self._at(other, lo_vus), self._at(other, hi_vus)
            lo_a = getattr(lo, metric) if lo else None
            hi_a = getattr(hi, metric) if hi else None
            assert lo_a is not None
            assert hi_a is not None
            what = "average response time" if key == "avg" else "99.9th percentile response time"
            if lo_a.text == hi_a.text:
                headline = f"{oname}: {adv_phrase(hi_a)} {what} than {self.bname}"
            elif lo_a.pct >= 0:
                headline = (
                    f"{oname}: from {lo_a.text} (with {lo_vus} users) to {hi_a.text} (with"
                    f" {hi_vus} users) lower {what} than {self.bname}"
                )
            else:
                headline = (
                    f"{oname}: from {adv_phrase(lo_a)} (with {lo_vus} users) to"
                    f" {adv_phrase(hi_a)} (with {hi_vus} users) {what} than {self.bname}"
                )
            section.add("headline", headline)
            if key == "avg":
                intro = (
                    "While NOPM expresses throughput, the average response time shows how"
                    " quickly users and applications get their answers. "
                )
            else:
                intro = (
                    "Smooth application performance relies on consistent response times: the"
                    " 99.9th percentile is the time one transaction in a thousand exceeded. "
                )
            section.add(
                "text",
                intro + f"Figure {chart.number} shows the {phrase} response time of each"
                " configuration by user count (lower is better); Table"
                f" {self.next_table} gives the figures and the advantage of {oname} at every"
                " user count.",
            )
            if lo_a.pct >= 0:
                self.facts.append(
                    Fact(
                        _span(lo_a.text, hi_a.text),
                        f"lower {what}",
                        f"{oname} vs {self.bname}",
                    )
                )
            self.summary.append(headline)
            if key == "avg":
                self.bottom_line.append(
                    f"{oname}: {adv_phrase(hi_a)} average response time with {hi_vus} users"
                )
        self.add_chart(section, chart)
        columns = ["Users"] + [f"{self.names[s.id]}\n(ms)" for s in c.sessions]
        columns += [self._vs_label(s, "Advantage") for s in c.others]
        rows = []
        for row in c.rows:
            cells = [Cell(str(row.vus), row.vus)]
            cells += [_ms(lv.value(metric) if lv else None) for lv in row.levels.values()]
            for s in c.others:
                vs = row.versus.get(s.id)
                cells.append(_adv(getattr(vs, metric) if vs else None))
            rows.append(cells)
        self.add_table(
            section,
            Table(
                f"latency_{key}",
                f"{title} by user count",
                columns,
                rows,
                notes=[
                    f"Advantage = 1 - ({phrase} response time of the compared configuration /"
                    f" that of {self.bname}); positive means lower (better). All transaction"
                    " types together."
                ],
            ),
        )

    def power(self) -> None:
        c = self.c
        section = Section("power", "Power efficiency: milliwatts per NOPM")
        self.sections.append(section)
        chart = self.value_chart(
            "power", "Power per NOPM by user count", "mW per NOPM", "mw_per_nopm", "lines",
            "mW", "lower",
        )  # fmt: skip
        section.add(
            "text",
            "Power consumed per unit of work shows whether power efficiency scales like"
            f" throughput. Figure {chart.number} divides the average system power over each"
            " measured window, in milliwatts, by NOPM (lower is better).",
        )
        self.add_chart(section, chart)
        columns = ["Users"]
        for s in c.sessions:
            columns += [f"{self.names[s.id]}\nwatts", f"{self.names[s.id]}\nmW per NOPM"]
        columns += [self._vs_label(s, "Advantage") for s in c.others]
        rows = []
        for row in c.rows:
            cells = [Cell(str(row.vus), row.vus)]
            for lv in row.levels.values():
                cells.append(Cell.num(lv.value("power_w") if lv else None, 0))
                cells.append(Cell.num(lv.value("mw_per_nopm") if lv else None, 3))
            for s in c.others:
                vs = row.versus.get(s.id)
                cells.append(_adv(vs.mw_per_nopm if vs else None))
            rows.append(cells)
        self.add_table(
            section,
            Table(
                "power",
                "Power per NOPM by user count",
                columns,
                rows,
                notes=[
                    "Average power over exactly each step's measured window (integrated, not a"
                    " last reading); mW per NOPM = 1000 x watts / NOPM. A meter that reads CPU"
                    " power only (RAPL) gives CPU power, not wall power."
                ],
            ),
        )

    def saturation(self) -> None:
        c = self.c
        section = Section("saturation", "At saturation: the most load each configuration supports")
        self.sections.append(section)
        section.add(
            "text",
            "Rather than comparing at an arbitrary load, each configuration is also compared at"
            " the highest load it could reasonably support. The load was raised step by step"
            f" until a stop condition was met: {c.conditions.describe()}. The saturation point"
            " is the last step before the stop condition; every chart marks it.",
        )
        base_row = c.at_saturation[0]
        for srow in c.at_saturation[1:]:
            vs = srow.versus
            if vs is None or vs.nopm is None:
                continue
            oname = self.names[srow.session_id]
            headline = (
                f"{oname}: {ratio_phrase(vs.nopm, 'NOPM', self.bname)} at saturation"
                f" ({srow.saturation.vus} against {base_row.saturation.vus} users)"
            )
            section.add("headline", headline)
            if vs.mw_per_nopm is not None:
                power_text = (
                    adv_phrase(vs.mw_per_nopm)
                    .replace(" lower", " less")
                    .replace(" higher", " more")
                )
                section.add(
                    "text",
                    f"At its saturation point {oname} also used {power_text} power per NOPM"
                    f" than {self.bname} at its own.",
                )
            self.facts.append(
                Fact(
                    vs.nopm.text if vs.nopm.text.endswith("X") else vs.nopm.text + " NOPM",
                    "at saturation" if not vs.nopm.text.endswith("X") else "NOPM at saturation",
                    f"{oname}: {srow.saturation.vus} users; {self.bname}:"
                    f" {base_row.saturation.vus} users",
                )
            )
            if vs.mw_per_nopm is not None:
                self.facts.append(
                    Fact(
                        adv_phrase(vs.mw_per_nopm).replace(" lower", " less"),
                        "power per NOPM at saturation",
                        f"{oname} vs {self.bname}",
                    )
                )
                self.bottom_line.append(
                    f"{oname}: {adv_phrase(vs.mw_per_nopm).replace(' lower', ' less')} power"
                    " per NOPM at saturation"
                )
        has_power = c.has_power()
        columns = ["Session", "Users at\nsaturation", "Stop condition", "NOPM", "TPM"]
        columns += ["Avg ms", "p99.9 ms"] + (["mW per\nNOPM"] if has_power else [])
        columns += ["NOPM vs\nbaseline", "Avg\nadvantage", "p99.9\nadvantage"]
        columns += ["Power\nadvantage"] if has_power else []
        rows = []
        reasons = []
        for srow in c.at_saturation:
            sat, lv, vs = srow.saturation, srow.level, srow.versus
            label = self.names[srow.session_id]
            reasons.append(f"{label}: {sat.reason}.")
            if srow.session_id == self.base.id:
                label += " (baseline)"
            users = "—" if sat.vus is None else str(sat.vus)
            cells = [
                Cell(label, label),
                Cell(users, sat.vus, "" if sat.reached else "flag"),
                Cell(sat.short or sat.reason, sat.reason, "" if sat.reached else "flag"),
                Cell.num(lv.value("nopm") if lv else None),
                Cell.num(lv.value("tpm") if lv else None),
                _ms(lv.value("avg_ms") if lv else None),
                _ms(lv.value("p999_ms") if lv else None),
            ]
            if has_power:
                cells.append(Cell.num(lv.value("mw_per_nopm") if lv else None, 3))
            if srow.session_id == self.base.id:
                cells += [Cell("baseline", None, "muted")] * (4 if has_power else 3)
            else:
                cells += [
                    _ratio(vs.nopm if vs else None),
                    _adv(vs.avg_ms if vs else None),
                    _adv(vs.p999_ms if vs else None),
                ]
                if has_power:
                    cells.append(_adv(vs.mw_per_nopm if vs else None))
            rows.append(cells)
        self.add_table(
            section,
            Table(
                "saturation",
                "Each configuration at its saturation point",
                columns,
                rows,
                notes=[f"Stop condition: {c.conditions.describe()}.", *reasons],
                text_columns=(0, 2),
            ),
        )

    def economics(self) -> None:
        e = self.e
        section = Section("economics", "Economics: array cost per new order")
        self.sections.append(section)
        section.add(
            "text",
            "Since the goal of OLTP is new-order processing, the value of an array can be"
            " judged by the useful work it does for its purchase cost. The hosts are identical"
            " except for storage, so only the storage devices' cost is counted.",
        )
        section.add("formula", "Array value = new orders per minute / array cost")
        for message in e.messages:
            section.add("message", message)
        if e.arrays:
            self.array_economics(section)
        else:
            section.add(
                "text",
                "No array could be priced: add the devices' unit prices to the price list"
                " (bench-gui prices device ...) or enter each array's cost by hand.",
            )
        if any(
            lv.joules_per_new_order is not None
            for lv_map in e.levels.values()
            for lv in lv_map.values()
        ):
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
            self.add_table(section, self.energy_table())

    def array_economics(self, section: Section) -> None:
        c, e = self.c, self.e
        rows = []
        sources: list[str] = []
        for s in c.sessions:
            a = e.arrays.get(s.id)
            if a is None:
                rows.append([Cell(self.names[s.id])] + [Cell("no price", None, "flag")] * 5)
                continue
            if a.price is not None:
                where = ", ".join(x for x in (a.price.date, a.price.source) if x)
                line = f"{a.price.device}: {format_money(a.price.unit_price, a.price.currency)}"
                line += f" ({where})" if where else ""
                if line not in sources:
                    sources.append(line)
            unit = Cell(
                format_money(a.unit_price, a.currency) if a.unit_price is not None else "—",
                a.unit_price,
            )
            cost_cell = Cell(format_money(a.cost, a.currency), round(a.cost, 2))
            if a.flag:
                cost_cell = Cell(format_money(a.cost, a.currency) + " ⚑", round(a.cost, 2), "flag")
            rows.append(
                [
                    Cell(self.names[s.id]),
                    Cell(a.device or "—", a.device),
                    unit,
                    Cell.num(a.count) if a.count else Cell("—", None, "muted"),
                    cost_cell,
                    Cell(a.arithmetic, a.arithmetic),
                ]
            )
        self.add_table(
            section,
            Table(
                "array_cost",
                "Storage array cost",
                ["Session", "Device", "Unit cost", "Count", "Array cost", "Arithmetic"],
                rows,
                notes=[
                    "Array cost = unit price x number of devices (counted from the stored"
                    " storage layout, or entered by hand). ⚑ marks a cost entered by hand that"
                    " disagrees with unit price x count; the hand-entered cost is used.",
                    *(f"Price: {line}." for line in sources),
                ],
                text_columns=(0, 1, 5),
            ),
        )
        section.add(
            "text",
            "With the cost of each array, the cost per new order follows: fixing a one-minute"
            " interval gives the number of new orders completed in one minute, and the array"
            " cost is divided by it. Table"
            f" {self.next_table} shows it at every user count, with the array value.",
        )
        section.add("formula", "Array cost per new order = array cost / new orders per minute")
        priced = [s for s in c.sessions if s.id in e.arrays]
        base_priced = self.base.id in e.arrays
        others_priced = [s for s in c.others if s.id in e.arrays and base_priced]
        columns = ["Users"] + [f"{self.names[s.id]}\ncost / new order" for s in priced]
        columns += [f"{self.names[s.id]}\nNOPM per {e.arrays[s.id].currency}" for s in priced]
        columns += [self._vs_label(s, "Cost per new order\nvs baseline") for s in others_priced]
        rows = []
        for row in c.rows:
            cells = [Cell(str(row.vus), row.vus)]
            lvls: dict[int, CostLevel | None] = {
                s.id: e.levels.get(s.id, {}).get(row.vus) for s in priced
            }
            for s in priced:
                lv = lvls[s.id]
                cur = e.arrays[s.id].currency
                if lv is None or lv.cost_per_new_order is None:
                    cells.append(Cell("—", None, "muted"))
                else:
                    cells.append(
                        Cell(format_money(lv.cost_per_new_order, cur), lv.cost_per_new_order)
                    )
            for s in priced:
                lv = lvls[s.id]
                cells.append(Cell.num(lv.nopm_per_currency if lv else None, 2))
            for s in others_priced:
                b, o = lvls.get(self.base.id), lvls.get(s.id)
                if b and o and b.cost_per_new_order and o.cost_per_new_order and e.currency:
                    ratio = b.cost_per_new_order / o.cost_per_new_order
                    cells.append(
                        Cell(
                            format_cost_change(o.cost_per_new_order, b.cost_per_new_order),
                            round(ratio, 6),
                            "good" if ratio > 1 else "bad",
                        )
                    )
                else:
                    cells.append(Cell("—", None, "muted"))
            rows.append(cells)
        self.add_table(
            section,
            Table(
                "cost_per_new_order",
                "Array cost per new order and array value by user count",
                columns,
                rows,
                notes=[
                    "Cost per new order = array cost / NOPM; vs baseline: the baseline's cost"
                    " per new order / the compared configuration's."
                ],
            ),
        )
        for case in e.cases:
            oname = self.names[case.other_id]
            label = "Worst-case" if case.kind == "worst" else "Best-case"
            section.add(
                "headline", f"{oname}: {case.change} array cost per new order ({label.lower()}"
                " economics)",
            )  # fmt: skip
            section.add("text", self.case_text(case))
            self.add_table(section, self.case_table(case))
            if case.kind == "worst":
                best = next(
                    (x for x in e.cases if x.kind == "best" and x.other_id == case.other_id), None
                )
                if best is not None:
                    low = case.change.rsplit(" ", 1)[0]
                    high = best.change.rsplit(" ", 1)[0]
                    lower = case.change.endswith("lower") and best.change.endswith("lower")
                    self.facts.append(
                        Fact(
                            _span(low, high),
                            "lower array cost per new order"
                            if lower
                            else "array cost per new order",
                            f"{oname} vs {self.bname}, worst to best case",
                        )
                    )
                    self.bottom_line.append(
                        f"{oname}: array cost per new order at least {case.change}, and at best"
                        f" {best.change} (evaluated and calculated as shown)"
                    )

    def case_table(self, case: EconomicCase) -> Table:
        rows = []
        for sid, lv in ((case.other_id, case.other), (self.base.id, case.baseline)):
            a = self.e.arrays[sid]
            device = f"{a.device} ({a.count})" if a.device and a.count else (a.device or "—")
            assert lv.cost_per_new_order is not None
            rows.append(
                [
                    Cell(self.names[sid]),
                    Cell(device, a.device),
                    Cell(format_money(a.cost, a.currency), round(a.cost, 2)),
                    Cell.num(lv.nopm),
                    Cell(format_money(lv.cost_per_new_order, a.currency), lv.cost_per_new_order),
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

    def case_text(self, case: EconomicCase) -> str:
        oname = self.names[case.other_id]
        vs = self._at(self.c.session(case.other_id), case.vus)
        where = "lowest" if case.kind == "worst" else "highest"
        perf = ""
        if vs and vs.nopm:
            perf = (
                f" The {case.kind}-case economics are at {case.vus} users, where the performance"
                f" advantage of {oname} is at its {where}"
                f" ({ratio_phrase(vs.nopm, 'NOPM', self.bname)})."
            )
        cur_o = self.e.arrays[case.other_id].currency
        cur_b = self.e.arrays[self.base.id].currency
        assert case.other.cost_per_new_order is not None
        assert case.baseline.cost_per_new_order is not None
        return (
            perf.strip() + f" With {oname} each new order has an array purchase cost of about"
            f" {format_money(case.other.cost_per_new_order, cur_o)}, with {self.bname} about"
            f" {format_money(case.baseline.cost_per_new_order, cur_b)}: {case.change} per new"
            " order."
        )

    def energy_table(self) -> Table:
        e, c = self.e, self.c
        price = e.power_price
        unit = price.currency if price else ""
        columns = ["Users"]
        for s in c.sessions:
            columns += [f"{self.names[s.id]}\nJ per new order"]
            if price:
                columns += [f"{self.names[s.id]}\n{unit} per million\nnew orders"]
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
                    text = format_money(energy, unit) if energy is not None else "—"
                    cells.append(Cell(text, energy))
            rows.append(cells)
        notes = ["No power price per kWh is set: energy cost is left out."]
        if price:
            where = ", ".join(x for x in (price.date, price.source) if x)
            notes = [
                f"Power price: {format_money(price.per_kwh, price.currency)} per kWh"
                + (f" ({where})" if where else "")
            ]
        return Table("energy", "Energy per new order by user count", columns, rows, notes=notes)

    def repeatability(self) -> None:
        c = self.c
        section = Section("repeatability", "Repeatability")
        self.sections.append(section)
        if not c.repeatability:
            section.add(
                "text",
                "No step was repeated (the same plan and configuration at the same user count,"
                " in one session or in several), so the run-to-run variation of these figures"
                " is not known from this data. Repeat a sweep to learn what a difference is"
                " worth.",
            )
            return
        section.add(
            "text",
            "Repeated measurements of one plan and configuration at one user count, summarised"
            " as mean, sample standard deviation and coefficient of variation (CV = standard"
            " deviation / mean). A ratio whose difference from 1 is smaller than twice the"
            ' combined CV of its two sides is marked "within noise" in the tables above.',
        )
        rows = []
        for r in c.repeatability:
            rows.append(
                [
                    Cell(r.label),
                    Cell(str(r.vus), r.vus),
                    Cell(str(r.nopm.n), r.nopm.n),
                    Cell.num(r.nopm.mean),
                    Cell.num(r.nopm.std),
                    Cell(_cv(r.nopm), r.nopm.cv_pct),
                    _ms(r.avg_ms.mean if r.avg_ms else None),
                    Cell(_cv(r.avg_ms), r.avg_ms.cv_pct if r.avg_ms else None),
                    _ms(r.p999_ms.mean if r.p999_ms else None),
                    Cell(_cv(r.p999_ms), r.p999_ms.cv_pct if r.p999_ms else None),
                ]
            )
        self.add_table(
            section,
            Table(
                "repeatability",
                "Repeated steps: mean, standard deviation and coefficient of variation",
                [
                    "Sessions",
                    "Users",
                    "Runs",
                    "Mean NOPM",
                    "Std dev",
                    "CV",
                    "Mean\navg ms",
                    "CV\navg",
                    "Mean\np99.9 ms",
                    "CV\np99.9",
                ],
                rows,
            ),  # fmt: skip
        )

    def configuration(self) -> None:
        c = self.c
        section = Section("configuration", "Configuration differences")
        self.sections.append(section)
        rows = []
        for r in c.config:
            if r.differs:
                rows.append(
                    [Cell(r.section), Cell(r.key)]
                    + [Cell(r.values.get(s.id) or "—", r.values.get(s.id)) for s in c.sessions]
                )
        if rows:
            section.add(
                "text",
                "What differed between the configurations, as each session recorded it (what"
                " was the same in all is listed under How we tested).",
            )
            self.add_table(
                section,
                Table(
                    "config_diff",
                    "Configuration differences",
                    ["Section", "Item"] + [self.names[s.id] for s in c.sessions],
                    rows,
                    text_columns=tuple(range(2 + len(c.sessions))),
                ),
            )
        else:
            section.add(
                "text",
                "The sessions recorded no configuration difference (a session records what was"
                " known when it ran: storage layout, settings and inventory where captured).",
            )
        # Every item, for CSV/JSON and the GUI (not numbered: the brief shows the differences).
        self.tables["config_all"] = Table(
            "config_all",
            "Configuration, side by side",
            ["Section", "Item", "Differs"] + [self.names[s.id] for s in c.sessions],
            [
                [Cell(r.section), Cell(r.key), Cell("yes" if r.differs else "", r.differs)]
                + [Cell(r.values.get(s.id) or "—", r.values.get(s.id)) for s in c.sessions]
                for r in c.config
            ],
            text_columns=tuple(range(3 + len(c.sessions))),
        )


# ---- how we tested ------------------------------------------------------------------------------


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    if seconds >= 60 and seconds % 60 == 0:
        minutes = int(seconds // 60)
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    return f"{seconds:g} s"


def how_we_tested(
    comparison: Comparison, provs: Sequence[Provenance], names: Mapping[int, str]
) -> list[HowSection]:
    """The "How we tested" part, written from what each session stored."""
    out: list[HowSection] = []
    sessions = HowSection("Sessions compared")
    for p in provs:
        role = " (baseline)" if p.id == comparison.baseline.id else ""
        sessions.rows.append(
            (
                f"#{p.id} {p.name}{role}",
                f"{p.created_at[:16].replace('T', ' ')} UTC, {p.status}; target {p.target};"
                f" {p.server_version or p.engine}; bench-gui {p.app_version}"
                + (f", agent {p.agent_version}" if p.agent_version else ""),
            )
        )
    out.append(sessions)

    def common_and_diff(section: str) -> tuple[list[tuple[str, str]], Table | None]:
        keys: list[str] = []
        for p in provs:
            for key in p.config.get(section, {}):
                if key not in keys:
                    keys.append(key)
        common: list[tuple[str, str]] = []
        diff_rows: list[list[Cell]] = []
        for key in keys:
            values = [p.config.get(section, {}).get(key) for p in provs]
            if len(set(values)) == 1 and values[0] is not None:
                common.append((key, values[0]))
            else:
                diff_rows.append([Cell(key)] + [Cell(v or "—", v) for v in values])
        table = None
        if diff_rows:
            table = Table(
                f"how_{section}",
                f"{section}: per session",
                ["Item"] + [names[p.id] for p in provs],
                diff_rows,
                text_columns=tuple(range(1 + len(provs))),
            )
        return common, table

    for section, heading, empty in (
        ("Hardware", "Platform", "No hardware inventory was stored with these sessions."),
        ("Operating system", "Operating system", ""),
        ("Storage layout", "Storage", "No storage layout was stored with these sessions."),
        ("OS knobs", "OS settings", ""),
        ("Database", "Database", ""),
        ("Database settings", "Database settings", ""),
    ):
        common, table = common_and_diff(section)
        if not common and table is None:
            if empty:
                out.append(HowSection(heading, [empty]))
            continue
        how = HowSection(heading, rows=common, table=table)
        if section == "Database settings":
            how.paragraphs.append(
                "Non-default server settings as the database reported them when each run"
                " started" + (" (the same in every session):" if table is None else ":")
            )
        if section == "Storage layout":
            erase = {p.erase for p in provs if p.erase}
            if erase:
                how.paragraphs.append(
                    "Before each configuration was measured the devices were prepared from"
                    " scratch; erase method: "
                    + "; ".join(f"{names[p.id]}: {p.erase}" for p in provs if p.erase)
                    + "."
                )
        out.append(how)

    wl = HowSection("Workload")
    wl.paragraphs.append(
        "TPROC-C, derived from TPC-C: warehouses, districts, customers, orders and stock, with"
        " the five transaction types (New-Order, Payment, Delivery, Stock-Level, Order-Status)."
        " NOPM is measured as HammerDB measures it, from the database's district counters at"
        " the start and the end of each measured window, and cross-checked against the"
        " driver's own count of committed New-Orders."
    )
    common, table = common_and_diff("Workload")
    wl.rows = common
    wl.table = table
    windows = []
    for p in provs:
        if p.rampup_s is not None or p.duration_s is not None:
            measured = sorted({round(w) for _, w in p.measured_windows})
            real = ""
            if measured:
                real = " (measured windows " + ", ".join(f"{m} s" for m in measured) + ")"
            windows.append(
                f"{names[p.id]}: ramp-up of {_duration(p.rampup_s)} followed by a measured"
                f" window of {_duration(p.duration_s)} at each user count{real}"
            )
    if windows:
        wl.paragraphs.append("For each step: " + "; ".join(windows) + ".")
    wl.paragraphs.append(
        f"Stop condition for the saturation point: {comparison.conditions.describe()}."
    )
    out.append(wl)

    cmds = HowSection("Commands run on the targets")
    for p in provs:
        if p.commands:
            cmds.code.append(f"# {names[p.id]}")
            cmds.code.extend(p.commands)
    if not cmds.code:
        cmds.paragraphs.append("No commands on the targets were recorded with these sessions.")
    out.append(cmds)
    return out


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
                }
                for sid, a in report.economics.arrays.items()
            },
            "messages": list(report.economics.messages),
        },
        "notes": report.notes,
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
