"""The sections of a report, in brief order: a finding as a heading, a figure, a sentence that
reads it, a table with every user count.

Tables keep to the page: with more than two sessions TPM (and, for power, watts) get tables of
their own rather than doubling the columns of the main one, and a column appears only when it
has something to say (repeat noise where a step was repeated). The economics are built in
:mod:`bench_gui.report.econ_section`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bench_gui.core.compare import Advantage, Comparison, Ratio, SessionData, Stats, Versus
from bench_gui.core.economics import Economics
from bench_gui.core.saturation import Saturation
from bench_gui.report import headlines
from bench_gui.report.config_table import ConfigTables
from bench_gui.report.options import in_order
from bench_gui.report.parts import (
    Cell,
    ChartSpec,
    Fact,
    Section,
    SeriesSpec,
    Table,
    change_tone,
)

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


def _ratio(item: Ratio | None, noise: bool = False) -> Cell:
    """A ratio to the baseline, coloured better or worse; ``noise``: a repeat of the baseline,
    whose difference from it is run-to-run noise, is never coloured as a finding."""
    if item is None:
        return Cell("—", None, "muted")
    tone = "" if noise else change_tone(item.value - 1, item.text)
    return Cell(item.text, round(item.value, 6), tone)


def _adv(item: Advantage | None, noise: bool = False) -> Cell:
    """An advantage over the baseline; ``noise`` as for :func:`_ratio`."""
    if item is None:
        return Cell("—", None, "muted")
    return Cell(item.text, round(item.pct, 4), "" if noise else change_tone(item.pct, item.text))


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


def _range(stats: Stats) -> Cell:
    if stats.low is None or stats.high is None or stats.n < 2:
        return Cell("—", None, "muted")
    return Cell(f"{stats.low:,.0f}–{stats.high:,.0f}", round(stats.high - stats.low, 3))


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


def span(low: str, high: str) -> str:
    return low if low == high else f"{low} to {high}"


def users_text(values: Sequence[int]) -> str:
    if not values:
        return "no user count"
    if len(values) == 1:
        return f"{values[0]} users"
    return f"{min(values)} to {max(values)} users"


# ---- the builder --------------------------------------------------------------------------------


class Builder:
    """Builds the sections in brief order, numbering tables and figures as they appear."""

    def __init__(
        self,
        comparison: Comparison,
        econ: Economics,
        names: dict[int, str],
        colors: dict[int, str],
        config: ConfigTables,
        latency: str = "all",
    ) -> None:
        self.c = comparison
        self.e = econ
        self.names = names  # short names
        self.colors = colors
        self.config = config
        self.latency = latency  # "all" or "new_order"
        self.tables: dict[str, Table] = {}
        self.charts: dict[str, ChartSpec] = {}
        self.sections: list[Section] = []
        self.facts: list[Fact] = []
        self.summary: list[str] = []
        self.bottom_line: list[str] = []
        self.base = comparison.baseline
        self.bname = names[comparison.baseline.id]
        # Compared sessions that repeat the baseline: noise, never a headline.
        self.repeats_of_base = set(comparison.baseline_repeats)
        self.several = len(comparison.others) > 1
        self.single = not comparison.others
        self.wide = len(comparison.sessions) > 2  # more columns than a page holds side by side

    # -- numbering

    def add_table(self, section: Section, table: Table) -> Table:
        table.number = self.next_table
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
            sat = self.c.saturation[s.id]
            kind_of = headlines.state(sat)
            series.append(
                SeriesSpec(
                    self.names[s.id],
                    self.colors[s.id],
                    values,
                    sat.vus if kind_of in ("reached", "first_step") else None,
                    s.id == self.base.id and not self.single,  # a baseline of something
                    sat.vus if kind_of == "not_reached" else None,
                )
            )
        chart = ChartSpec(key, title, y_label, cats, series, kind, unit, better)
        chart.number = len(self.charts) + 1  # known before the text that cites it
        return chart

    def vs_label(self, other: SessionData, text: str) -> str:
        return f"{self.names[other.id]}\n{text}" if self.several else text

    def build(self, economics: Callable[[Builder], None], order: Sequence[str] = ()) -> None:
        """The sections in the report's order, or with those ``order`` names first (a seed's
        order); the configuration always last, with How we tested. ``economics`` writes the
        economics section (its own module, which reads this builder's phrases)."""
        steps: dict[str, Callable[[], None]] = {
            "throughput": self.throughput,
            "latency_avg": lambda: self.latency_section("avg_ms", "avg"),
            "latency_p999": lambda: self.latency_section("p999_ms", "p999"),
        }
        if self.c.has_power():
            steps["power"] = self.power
        steps["saturation"] = self.saturation
        steps["economics"] = lambda: economics(self)
        steps["repeatability"] = self.repeatability
        for key in in_order(list(steps), order):
            steps[key]()
        self.configuration()

    def extremes(
        self, other: SessionData, metric: str
    ) -> tuple[tuple[int, float], tuple[int, float]] | None:
        try:
            return self.c.extremes(other.id, metric)
        except KeyError:
            return None

    def at(self, other: SessionData, vus: int) -> Versus | None:
        for row in self.c.rows:
            if row.vus == vus:
                return row.versus.get(other.id)
        return None

    # -- throughput

    def throughput(self) -> None:
        c = self.c
        section = Section("throughput", "Throughput: new orders per minute")
        self.sections.append(section)
        chart = self.value_chart(
            "nopm", "New orders per minute by user count", "NOPM", "nopm", "bars", "", "higher"
        )
        table_no = self.next_table
        intro = (
            "New orders per minute (NOPM) measure business throughput. Figure"
            f" {chart.number} shows the NOPM of each configuration at every user count"
            " measured (taller is better); Table"
        )
        if self.wide:
            intro += (
                f" {table_no} lists them with the ratios to {self.bname}, and Table"
                f" {table_no + 1} gives TPM (database transactions per minute, commits and"
                " rollbacks)."
            )
        else:
            intro += (
                f" {table_no} lists every user count, with TPM (database transactions per"
                " minute, commits and rollbacks)."
            )
        if self.single:
            self.single_throughput(section)
            section.add("text", intro.replace("of each configuration", f"of {self.bname}"))
        elif self.wide:
            section.add("text", intro)
        for other in c.others:
            if other.id in self.repeats_of_base:
                self.repeat_finding(section, other)
            else:
                self.throughput_finding(section, other, "" if self.wide else intro)
        self.add_chart(section, chart)
        self.add_table(section, self.throughput_table(section))
        if self.wide:
            self.add_table(section, self.tpm_table())

    def single_throughput(self, section: Section) -> None:
        levels = self.c.levels[self.base.id]
        best_vus, best = max(
            ((v, lv.value("nopm") or 0.0) for v, lv in levels.items()), key=lambda x: x[1]
        )
        heading = f"{self.bname}: up to {best:,.0f} new orders per minute (at {best_vus} users)"
        section.add("headline", heading)
        self.summary.append(heading)
        self.facts.append(
            Fact(f"{best:,.0f}", "new orders per minute at most", f"{best_vus} users")
        )
        self.bottom_line.append(f"{self.bname}: up to {best:,.0f} NOPM, at {best_vus} users")

    def throughput_finding(self, section: Section, other: SessionData, intro: str) -> None:
        c = self.c
        ext = self.extremes(other, "nopm")
        if ext is None:
            return
        oname = self.names[other.id]
        (lo_vus, _), (hi_vus, _) = ext
        common = sorted(set(c.levels[other.id]) & set(c.levels[self.base.id])) or [lo_vus, hi_vus]
        first, last = common[0], common[-1]
        lo, hi = self.at(other, lo_vus), self.at(other, hi_vus)
        v_first, v_last = self.at(other, first), self.at(other, last)
        assert lo is not None
        assert hi is not None
        assert lo.nopm is not None
        assert hi.nopm is not None
        if lo.nopm.text == hi.nopm.text:
            heading = f"{oname}: {ratio_phrase(hi.nopm, 'new orders per minute', self.bname)}"
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
        text = intro + (" " if intro else "")
        if v_first and v_first.nopm and v_last and v_last.nopm:
            text += (
                f"When the system is lightly loaded ({first} users) {oname} delivers"
                f" {ratio_phrase(v_first.nopm, 'NOPM', self.bname)}; when it is heavily"
                f" loaded ({last} users), {ratio_phrase(v_last.nopm, 'NOPM', self.bname)}"
            )
            if hi_vus not in (first, last):
                text += f", with the peak difference ({hi.nopm.text}) at {hi_vus} users"
            text += "."
        if text.strip():
            section.add("text", text.strip())
        self.facts.append(
            Fact(
                span(lo.nopm.text, hi.nopm.text),
                "more new orders per minute" if lo.nopm.value >= 1 else "new orders per minute",
                f"{oname} vs {self.bname}, {users_text(common)}",
            )
        )
        self.summary.append(heading)
        self.bottom_line.append(
            f"{oname}: {ratio_phrase(hi.nopm, 'NOPM', self.bname)} with {hi_vus} users"
        )

    def repeat_finding(self, section: Section, other: SessionData) -> None:
        """A repeat of the baseline: its spread from the baseline as noise (CV, range)."""
        oname = self.names[other.id]
        rows = [
            r
            for r in self.c.repeatability
            if other.id in r.session_ids and self.base.id in r.session_ids
        ]
        cvs = [r.nopm.cv_pct for r in rows if r.nopm.cv_pct is not None]
        spreads = [
            (r.nopm.high - r.nopm.low) / r.nopm.mean * 100.0
            for r in rows
            if r.nopm.high is not None and r.nopm.low is not None and r.nopm.mean
        ]
        text = (
            f"{oname} ran the plan of {self.bname} again, on a system recorded as the same: it"
            f" is a repeat of {self.bname}, and the difference between the two is run-to-run"
            " noise, not a finding."
        )
        if cvs and spreads:
            text += (
                f" Over {len(rows)} user counts their NOPM differ by up to {max(spreads):.1f}%"
                f" of the mean (CV up to {max(cvs):.1f}%); see Repeatability."
            )
            self.bottom_line.append(
                f"{oname} repeats {self.bname}: NOPM within {max(spreads):.1f}% of each other"
                f" (CV up to {max(cvs):.1f}%), run-to-run noise"
            )
        section.add("message", text)

    def has_noise(self) -> bool:
        return any(
            vs is not None and vs.noise_pct is not None
            for row in self.c.rows
            for vs in row.versus.values()
        )

    def throughput_table(self, section: Section) -> Table:
        c = self.c
        noise = self.has_noise()
        columns = ["Users"] + [f"NOPM\n{self.names[s.id]}" for s in c.sessions]
        if not self.wide:
            columns += [f"TPM\n{self.names[s.id]}" for s in c.sessions]
        for s in c.others:
            columns.append(self.vs_label(s, "NOPM ratio"))
            if not self.wide:
                columns.append(self.vs_label(s, "TPM ratio"))
        if noise:
            columns += [self.vs_label(s, "Repeat noise") for s in c.others]
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
            if not self.wide:
                cells += [Cell.num(lv.value("tpm") if lv else None) for lv in row.levels.values()]
            for s in c.others:
                vs = row.versus.get(s.id)
                shaky = vs is not None and vs.doubtful
                again = s.id in self.repeats_of_base
                cells.append(_doubt(_ratio(vs.nopm if vs else None, again), shaky))
                if not self.wide:
                    cells.append(_ratio(vs.tpm if vs else None, again))
            if noise:
                cells += [_noise(row.versus.get(s.id)) for s in c.others]
            rows.append(cells)
        if doubtful:
            section.add(
                "message",
                f"{DOUBT_MARK} The NOPM of {', '.join(doubtful)} is doubtful: the database"
                " counted New-Orders the driver did not commit (another load on the server?).",
            )
        notes = []
        if c.others:
            what = "NOPM" if self.wide else "NOPM (or TPM)"
            notes.append(
                f"Ratio = {what} of the compared configuration / that of {self.bname} at the"
                " same user count."
                + (
                    " Repeat noise: combined coefficient of variation of repeated measurements"
                    " (— where a step ran once)."
                    if noise
                    else ""
                )
            )
        if doubtful:
            notes.append(DOUBT_NOTE)
        title = (
            "Relative performance: NOPM and TPM by user count"
            if c.others and not self.wide
            else ("NOPM by user count" if not c.others else "Relative performance: NOPM")
        )
        if self.single:
            title = "NOPM and TPM by user count"
        return Table("throughput", title, columns, rows, notes=notes)

    def tpm_table(self) -> Table:
        c = self.c
        columns = ["Users"] + [f"TPM\n{self.names[s.id]}" for s in c.sessions]
        columns += [self.vs_label(s, "TPM ratio") for s in c.others]
        rows = []
        for row in c.rows:
            cells = [Cell(str(row.vus), row.vus)]
            cells += [Cell.num(lv.value("tpm") if lv else None) for lv in row.levels.values()]
            cells += [
                _ratio(
                    vs.tpm if (vs := row.versus.get(s.id)) else None, s.id in self.repeats_of_base
                )
                for s in c.others
            ]
            rows.append(cells)
        return Table(
            "tpm",
            "TPM by user count",
            columns,
            rows,
            notes=[
                "TPM: database transactions per minute (commits and rollbacks); ratio = TPM of"
                f" the compared configuration / that of {self.bname}."
            ],
        )

    # -- response times

    def latency_words(self, key: str) -> tuple[str, str, str]:
        """(title, what, phrase) of a latency section, for the chosen transactions."""
        tx = "New-Order " if self.latency == "new_order" else ""
        if key == "avg":
            return (
                f"Average {tx}response time",
                f"average {tx}response time",
                "average",
            )
        return (
            f"99.9th percentile {tx}response time",
            f"99.9th percentile {tx}response time",
            "99.9th percentile",
        )

    def latency_section(self, metric: str, key: str) -> None:
        c = self.c
        title, what, phrase = self.latency_words(key)
        heading = f"Consistency: {what}" if key == "p999" else f"Responsiveness: {what}"
        section = Section(f"latency_{key}", heading)
        self.sections.append(section)
        if not any(
            lv.value(metric) is not None for by_vus in c.levels.values() for lv in by_vus.values()
        ):
            # (HammerDB with its time profile off): said, not an empty chart and table of "—".
            section.add(
                "message",
                f"No session compared recorded its {phrase} response time: there is nothing to"
                " chart or tabulate (see the notes on the figures).",
            )
            return
        chart = self.value_chart(
            f"latency_{key}", f"{title} by user count", "Milliseconds", metric, "lines", "ms",
            "lower",
        )  # fmt: skip
        scope = (
            " Response times are of New-Order transactions only."
            if self.latency == "new_order"
            else ""
        )
        if key == "avg":
            intro = (
                "While NOPM expresses throughput, the average response time shows how"
                " quickly users and applications get their answers."
            )
        else:
            intro = (
                "Smooth application performance relies on consistent response times: the"
                " 99.9th percentile is the time one transaction in a thousand exceeded."
            )
        whose = self.bname if self.single else "each configuration"
        table_text = (
            f" Figure {chart.number} shows the {phrase} response time of {whose} by"
            f" user count (lower is better); Table {self.next_table} gives the figures"
        )
        if self.single:
            self.single_latency(section, metric, what)
            section.add("text", intro + scope + table_text + " at every user count.")
        else:
            for other in c.others:
                if other.id not in self.repeats_of_base:
                    self.latency_finding(section, other, metric, key, what)
            oname = self.names[c.others[0].id] if not self.several else "each configuration"
            section.add(
                "text",
                intro + scope + table_text + f" and the advantage of {oname} at every user count.",
            )
        self.add_chart(section, chart)
        columns = ["Users"] + [f"{self.names[s.id]}\n(ms)" for s in c.sessions]
        columns += [self.vs_label(s, "Advantage") for s in c.others]
        rows = []
        for row in c.rows:
            cells = [Cell(str(row.vus), row.vus)]
            cells += [_ms(lv.value(metric) if lv else None) for lv in row.levels.values()]
            for s in c.others:
                vs = row.versus.get(s.id)
                cells.append(
                    _adv(getattr(vs, metric) if vs else None, s.id in self.repeats_of_base)
                )
            rows.append(cells)
        which = (
            "New-Order transactions only."
            if self.latency == "new_order"
            else "All transaction types together."
        )
        note = (
            f"Advantage = 1 - ({phrase} response time of the compared configuration / that of"
            f" {self.bname}); positive means lower (better). {which}"
            if c.others
            else which
        )
        self.add_table(
            section, Table(f"latency_{key}", f"{title} by user count", columns, rows, notes=[note])
        )

    def single_latency(self, section: Section, metric: str, what: str) -> None:
        values = [
            (v, x) for v, lv in self.c.levels[self.base.id].items() if (x := lv.value(metric))
        ]
        if not values:
            return
        (v0, x0), (v1, x1) = values[0], values[-1]
        headline = f"{self.bname}: {what} from {fmt_ms(x0)} ms ({v0} users)"
        if v1 != v0:
            headline += f" to {fmt_ms(x1)} ms ({v1} users)"
        section.add("headline", headline)
        self.summary.append(headline)

    def latency_finding(
        self, section: Section, other: SessionData, metric: str, key: str, what: str
    ) -> None:
        ext = self.extremes(other, metric)
        if ext is None:
            return
        oname = self.names[other.id]
        (lo_vus, _), (hi_vus, _) = ext
        lo, hi = self.at(other, lo_vus), self.at(other, hi_vus)
        lo_a = getattr(lo, metric) if lo else None
        hi_a = getattr(hi, metric) if hi else None
        assert lo_a is not None
        assert hi_a is not None
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
        if lo_a.pct >= 0:
            self.facts.append(
                Fact(span(lo_a.text, hi_a.text), f"lower {what}", f"{oname} vs {self.bname}")
            )
        self.summary.append(headline)
        if key == "avg":
            self.bottom_line.append(f"{oname}: {adv_phrase(hi_a)} {what} with {hi_vus} users")

    # -- power

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
            if not self.wide:
                columns.append(f"{self.names[s.id]}\nwatts")
            columns.append(f"{self.names[s.id]}\nmW per NOPM")
        columns += [self.vs_label(s, "Advantage") for s in c.others]
        rows = []
        for row in c.rows:
            cells = [Cell(str(row.vus), row.vus)]
            for lv in row.levels.values():
                if not self.wide:
                    cells.append(Cell.num(lv.value("power_w") if lv else None, 0))
                cells.append(Cell.num(lv.value("mw_per_nopm") if lv else None, 3))
            for s in c.others:
                vs = row.versus.get(s.id)
                cells.append(_adv(vs.mw_per_nopm if vs else None, s.id in self.repeats_of_base))
            rows.append(cells)
        note = (
            "Average power over exactly each step's measured window (integrated, not a last"
            " reading); mW per NOPM = 1000 x watts / NOPM. A meter that reads CPU power only"
            " (RAPL) gives CPU power, not wall power."
        )
        self.add_table(
            section, Table("power", "Power per NOPM by user count", columns, rows, notes=[note])
        )
        if self.wide:
            watts = ["Users"] + [f"{self.names[s.id]}\nwatts" for s in c.sessions]
            wrows = [
                [Cell(str(row.vus), row.vus)]
                + [Cell.num(lv.value("power_w") if lv else None, 0) for lv in row.levels.values()]
                for row in c.rows
            ]
            self.add_table(
                section, Table("power_watts", "Average power by user count", watts, wrows)
            )

    # -- saturation

    def saturation(self) -> None:
        c = self.c
        which = self.bname if self.single else "each configuration"
        section = Section("saturation", f"At saturation: the most load {which} supports")
        self.sections.append(section)
        opening = (
            f"Besides every load measured, {self.bname} is also given at"
            if self.single
            else "Rather than comparing at an arbitrary load, each configuration is also"
            " compared at"
        )
        section.add(
            "text",
            f"{opening}"
            " the highest load it could reasonably support. The load was raised step by step"
            f" until a stop condition was met: {c.conditions.describe()}. The saturation point"
            " is the last step before the stop condition; every chart marks it with a diamond."
            " A sweep that ended before any stop condition did not find its limit: its heaviest"
            " load is marked with an open triangle, and is no saturation point.",
        )
        base_row = c.at_saturation[0]
        if self.single:
            section.add("headline", headlines.sentence(self.bname, base_row.saturation))
        for srow in c.at_saturation[1:]:
            if srow.session_id in self.repeats_of_base:
                continue
            self.saturation_finding(section, srow.session_id, srow.versus, base_row.saturation)
        self.add_table(section, self.saturation_table())

    def saturation_finding(
        self, section: Section, sid: int, vs: Versus | None, base_sat: Saturation
    ) -> None:
        oname = self.names[sid]
        sat = self.c.saturation[sid]
        if vs is None or vs.nopm is None:
            section.add("headline", headlines.sentence(oname, sat))
            return
        found = headlines.claim(oname, sat, self.bname, base_sat, vs.nopm)
        section.add("headline", found.headline)
        if found.caveat:
            section.add("message", found.caveat)
        where = "at saturation" if found.like_for_like else "at the loads compared"
        if vs.mw_per_nopm is not None:
            power_text = (
                adv_phrase(vs.mw_per_nopm).replace(" lower", " less").replace(" higher", " more")
            )
            own = "At its saturation point" if found.like_for_like else "At these loads"
            section.add(
                "text",
                f"{own} {oname} also used {power_text} power per NOPM than {self.bname}"
                + (" at its own." if found.like_for_like else "."),
            )
        self.facts.append(Fact(found.fact_value, found.fact_text, found.fact_detail))
        if vs.mw_per_nopm is not None:
            less = adv_phrase(vs.mw_per_nopm).replace(" lower", " less")
            self.facts.append(Fact(less, f"power per NOPM {where}", f"{oname} vs {self.bname}"))
            self.bottom_line.append(f"{oname}: {less} power per NOPM {where}")

    def saturation_table(self) -> Table:
        c = self.c
        has_power = c.has_power()
        columns = ["Session", "Users at\nsaturation", "Stop condition", "NOPM", "TPM"]
        columns += ["Avg ms", "p99.9 ms"] + (["mW per\nNOPM"] if has_power else [])
        if c.others:
            columns += ["NOPM vs\nbaseline", "Avg\nadvantage", "p99.9\nadvantage"]
            columns += ["Power\nadvantage"] if has_power else []
        rows = []
        reasons = []
        for srow in c.at_saturation:
            sat, lv, vs = srow.saturation, srow.level, srow.versus
            label = self.names[srow.session_id]
            reasons.append(f"{label}: {sat.reason}.")
            if srow.session_id == self.base.id and c.others:
                label += " (baseline)"
            kind = headlines.state(sat)
            tone = "" if kind == "reached" else "flag"
            cells = [
                Cell(label, label),
                Cell(headlines.users_cell(sat), sat.vus, tone),
                Cell(sat.short or sat.reason, sat.reason, tone),
                Cell.num(lv.value("nopm") if lv else None),
                Cell.num(lv.value("tpm") if lv else None),
                _ms(lv.value("avg_ms") if lv else None),
                _ms(lv.value("p999_ms") if lv else None),
            ]
            if has_power:
                cells.append(Cell.num(lv.value("mw_per_nopm") if lv else None, 3))
            if c.others and srow.session_id == self.base.id:
                cells += [Cell("baseline", None, "muted")] * (4 if has_power else 3)
            elif c.others:
                again = srow.session_id in self.repeats_of_base
                cells += [
                    _ratio(vs.nopm if vs else None, again),
                    _adv(vs.avg_ms if vs else None, again),
                    _adv(vs.p999_ms if vs else None, again),
                ]
                if has_power:
                    cells.append(_adv(vs.mw_per_nopm if vs else None, again))
            rows.append(cells)
        notes = [f"Stop condition: {c.conditions.describe()}.", *reasons]
        if any(headlines.state(s) != "reached" for s in c.saturation.values()):
            notes.append(
                "Highlighted: no saturation point in the range tested (the figures are those of"
                " the heaviest load), or one met at the first load tested."
            )
        return Table(
            "saturation",
            f"{self.bname} at its saturation point"
            if self.single
            else "Each configuration at its saturation point",
            columns,
            rows,
            notes=notes,
            text_columns=(0, 1, 2),
        )

    # -- repeatability

    def repeatability(self) -> None:
        c = self.c
        section = Section("repeatability", "Repeatability")
        self.sections.append(section)
        if not c.repeatability:
            section.add(
                "text",
                "No step was repeated (the same configuration at the same user count, in one"
                " session or in sessions of one system), so the run-to-run variation of these"
                " figures is not known from this data.",
            )
            return
        section.add(
            "text",
            "Repeated measurements of one configuration at one user count, summarised as mean,"
            " sample standard deviation and coefficient of variation (CV = standard deviation"
            " / mean). Sessions count as repeats of one another only where the author said so"
            " or everything recorded about their system is the same. A session the author"
            " compares with the baseline is never averaged with it, but one recorded as the"
            " baseline's very system is its repeat: their difference is noise. A ratio whose"
            " difference from 1 is smaller than twice the combined CV of its two sides is marked"
            ' "within noise".',
        )
        basis = {
            "declared": " (repeats by the author's word)",
            "same system": " (same recorded system)",
            "baseline repeat": " (the baseline and its repeats)",
            "steps": "",
        }
        rows = []
        for r in c.repeatability:
            label = ", ".join(self.names[sid] for sid in r.session_ids) + basis[r.basis]
            rows.append(
                [
                    Cell(label),
                    Cell(str(r.vus), r.vus),
                    Cell(str(r.nopm.n), r.nopm.n),
                    Cell.num(r.nopm.mean),
                    Cell.num(r.nopm.std),
                    Cell(_cv(r.nopm), r.nopm.cv_pct),
                    _range(r.nopm),
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
                    "Sessions", "Users", "Runs", "Mean NOPM", "Std dev", "CV", "NOPM\nrange",
                    "Mean\navg ms",
                    "CV\navg", "Mean\np99.9 ms", "CV\np99.9",
                ],
                rows,
            ),
        )  # fmt: skip

    # -- configuration

    def configuration(self) -> None:
        c = self.c
        section = Section("configuration", "The system under test")
        self.sections.append(section)
        cfg = self.config
        tables = [
            t for t in (cfg.platform, cfg.software, cfg.settings, cfg.schema) if t is not None
        ]
        if tables:
            numbers = [self.next_table + i for i in range(len(tables))]
            listing = ", ".join(str(n) for n in numbers[:-1])
            refs = f"Tables {listing} and {numbers[-1]}" if listing else f"Table {numbers[0]}"
            shared = (
                "."
                if self.single
                else ": a value shared by every configuration is printed once, across the"
                " columns, and a value that differs is highlighted."
            )
            ran = (
                f"{refs} give the system {self.bname} ran on"
                if self.single
                else (f"{refs} give the system each configuration ran on")
            )
            section.add(
                "text",
                f"{ran}, as its session recorded it{shared} Storage bench-gui built is given as"
                " it was built; other storage as found under the database's data directory, or"
                " as the author described it (marked so).",
            )
        for table in tables:
            self.add_table(section, table)
        if cfg.settings_sentence:
            section.add("text", cfg.settings_sentence)
        # Every stored item, for CSV/JSON and the GUI (not numbered, not printed).
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
