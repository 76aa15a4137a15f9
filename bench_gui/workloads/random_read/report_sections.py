"""The sections of a random-read report (seed 004), in the order the seed argues them:
ops/s by dataset size (log and linear scales) and the ratio between the storages, the
multiplier over the device's raw IOPS beyond memory, read latency, then "SSDs replace RAM".

Words of this workload only: dataset sizes, multiples of RAM, ops/s, raw IOPS. Tables and
figures are numbered as they appear, as in the other reports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from bench_gui.report.options import in_order
from bench_gui.report.parts import Cell, ChartSpec, Fact, Section, SeriesSpec, Table
from bench_gui.wire.fio_sizes import format_size
from bench_gui.workloads.random_read.compare import (
    MatchedRow,
    RRComparison,
    multiple_text,
    multiplier_text,
    ops_text,
)
from bench_gui.workloads.random_read.economics import RamEconomics
from bench_gui.workloads.random_read.report_economics import ram_section


def _ms(value: float | None) -> Cell:
    if value is None:
        return Cell("—", None, "muted")
    if value >= 10:
        return Cell(f"{value:,.1f}", value)
    if value >= 0.01:
        return Cell(f"{value:.3f}", value)
    return Cell(f"{value:.4f}", value)


def axis_label(row: MatchedRow) -> str:
    """``2x`` under a category of the dataset-size axis."""
    return multiple_text(row.ram_ratio).removesuffix(" RAM")


class RandomReadBuilder:
    """Builds the sections, numbering tables and figures as they appear."""

    def __init__(
        self,
        comparison: RRComparison,
        econ: RamEconomics | None,
        short: Mapping[int, str],
        colors: Mapping[int, str],
    ) -> None:
        self.c = comparison
        self.e = econ
        self.short = dict(short)
        self.colors = dict(colors)
        self.tables: dict[str, Table] = {}
        self.charts: dict[str, ChartSpec] = {}
        self.sections: list[Section] = []
        self.facts: list[Fact] = []
        self.summary: list[str] = []
        self.bottom_line: list[str] = []
        self.bname = self.short[comparison.baseline_id]
        self.same_ram = len({s.memory_bytes for s in comparison.sessions}) == 1

    # -- numbering

    def add_table(self, section: Section, table: Table) -> Table:
        table.number = len([t for t in self.tables.values() if t.number]) + 1
        self.tables[table.key] = table
        section.add("table", table.key)
        return table

    def add_chart(self, section: Section, chart: ChartSpec) -> ChartSpec:
        chart.number = len(self.charts) + 1
        self.charts[chart.key] = chart
        section.add("chart", chart.key)
        return chart

    def chart(
        self,
        key: str,
        title: str,
        y_label: str,
        rows: list[MatchedRow],
        metric: str,
        kind: str = "lines",
        log_y: bool = False,
        better: str = "higher",
    ) -> ChartSpec:
        series = []
        for s in self.c.sessions:
            values: list[float | None] = []
            for row in rows:
                point = row.points.get(s.id)
                value = None if point is None else getattr(point, metric)
                # A log axis has no place for zero: such a point is left out, not drawn at 0.
                values.append(None if value is None or (log_y and value <= 0) else value)
            series.append(
                SeriesSpec(
                    self.short[s.id],
                    self.colors[s.id],
                    values,
                    baseline=s.id == self.c.baseline_id and len(self.c.sessions) > 1,
                )
            )
        return ChartSpec(
            key,
            title,
            y_label,
            list(range(len(rows))),
            series,
            kind,
            "",
            better,
            x_label="Dataset size, as a multiple of RAM",
            category_labels=[axis_label(r) for r in rows],
            log_y=log_y,
        )

    def build(self, order: Sequence[str] = ()) -> None:
        """The sections in the report's order, or with those ``order`` names first."""
        steps: dict[str, Callable[[], None]] = {
            "throughput": self.throughput,
            "multiplier": self.multiplier,
            "latency": self.latency,
        }
        if self.e is not None:
            steps["economics"] = lambda: ram_section(self)
        for key in in_order(list(steps), order):
            steps[key]()

    # -- ops/s by dataset size

    def throughput(self) -> None:
        c = self.c
        section = Section("throughput", "Random reads per second by dataset size")
        self.sections.append(section)
        for h in c.headlines:
            if h.kind == "ratio":
                section.add("headline", h.text)
                self.summary.append(h.text)
                self.bottom_line.append(h.text)
                beyond = [
                    x for r in c.rows if r.beyond_memory and (x := r.ratios.get(h.session_id))
                ]
                if beyond:
                    low = min(beyond, key=lambda x: x.value).text
                    high = max(beyond, key=lambda x: x.value).text
                    self.facts.append(
                        Fact(
                            low if low == high else f"{low} to {high}",
                            f"the ops/s of {self.bname} beyond RAM",
                            self.short[h.session_id],
                        )
                    )
        if len(c.sessions) == 1:
            s = c.sessions[0]
            first, last = s.points[0], s.points[-1]
            text = (
                f"{self.short[s.id]}: {ops_text(first.ops_s or 0)} ops/s at"
                f" {multiple_text(first.ram_ratio)}, {ops_text(last.ops_s or 0)} ops/s at"
                f" {multiple_text(last.ram_ratio)}"
            )
            section.add("headline", text)
            self.summary.append(text)
        log_chart = self.chart(
            "ops_log", "Random reads per second by dataset size (log scale)", "ops/s (log)",
            list(c.rows), "ops_s", log_y=True,
        )  # fmt: skip
        lin_chart = self.chart(
            "ops_linear", "Random reads per second by dataset size (linear scale)", "ops/s",
            list(c.rows), "ops_s",
        )  # fmt: skip
        n_log = len(self.charts) + 1
        section.add(
            "text",
            "Each point reads a prefix of one pre-allocated file at random (scrambled Zipfian"
            " reads through the page cache) with the RAM of the study held fixed, so the"
            " dataset size on the x axis is a multiple of that RAM: left of 1x the dataset"
            " fits in memory and ops/s measure memory and CPU; right of it every miss waits"
            f" for the device. Figure {n_log} uses a logarithmic scale, where the slow device"
            f" stays visible; Figure {n_log + 1} the same figures on a linear scale."
            f" {c.match_rule}",
        )
        self.add_chart(section, log_chart)
        self.add_chart(section, lin_chart)
        self.add_table(section, self.ops_table())

    def ops_table(self) -> Table:
        c = self.c
        several = len(c.sessions) > 1 and any(r.how != "same multiple of RAM" for r in c.rows)
        columns = ["Dataset\n(x RAM)"]
        columns += (
            ["Dataset\nsize"]
            if self.same_ram
            else [f"Size\n{self.short[s.id]}" for s in c.sessions]
        )
        columns += [f"ops/s\n{self.short[s.id]}" for s in c.sessions]
        columns += [f"Ratio\n{self.short[s.id]}" for s in c.others]
        if several:
            columns.append("Matched")
        rows = []
        for row in c.rows:
            cells = [Cell(axis_label(row), round(row.ram_ratio, 6))]
            if self.same_ram:
                point = next(p for p in row.points.values() if p is not None)
                cells.append(Cell(format_size(point.dataset_bytes), point.dataset_bytes))
            else:
                for s in c.sessions:
                    p = row.points.get(s.id)
                    cells.append(
                        Cell(format_size(p.dataset_bytes), p.dataset_bytes)
                        if p
                        else Cell("—", None, "muted")
                    )
            for s in c.sessions:
                p = row.points.get(s.id)
                cells.append(Cell.num(p.ops_s if p else None))
            for s in c.others:
                x = row.ratios.get(s.id)
                tone = ("good" if x.value > 1 else "bad") if x and row.beyond_memory else ""
                cells.append(
                    Cell("—", None, "muted") if x is None else Cell(x.text, round(x.value, 6), tone)
                )
            if several:  # "same multiple of RAM" is the column's title already
                cells.append(Cell(row.how.replace("same multiple of RAM", "same"), row.how))
            rows.append(cells)
        notes = []
        if c.others:
            notes.append(
                f"Ratio = ops/s of the configuration / ops/s of {self.bname} at the same"
                " multiple of RAM; from 2X up as a multiple, below as a percentage, truncated;"
                " in colour where the dataset is larger than RAM (there the devices differ,"
                " below it mostly memory and CPU)."
            )
            if not several:
                notes.append(f"Every row matched at the same multiple of RAM. {c.match_rule}")
        return Table(
            "ops",
            "Random reads per second by dataset size",
            columns,
            rows,
            notes=notes,
            text_columns=(0, len(columns) - 1) if several else (0,),
        )

    # -- multiplier over raw IOPS

    def multiplier(self) -> None:
        c = self.c
        section = Section("multiplier", "Beyond memory: ops/s over the device's raw IOPS")
        self.sections.append(section)
        for h in c.headlines:
            if h.kind in ("multiplier", "memory"):
                section.add("headline", h.text)
                self.summary.append(h.text)
                if h.high is not None:
                    self.bottom_line.append(h.text)
                    low = multiplier_text(h.low or h.high)
                    high = multiplier_text(h.high)
                    self.facts.append(
                        Fact(
                            low if low == high else f"{low} to {high}",
                            "ops/s over the raw device IOPS beyond RAM",
                            self.short[h.session_id],
                        )
                    )
        beyond = [r for r in c.rows if r.beyond_memory]
        rows = beyond or list(c.rows)
        chart = self.chart(
            "multiplier",
            "Ops/s over raw device IOPS" + (" beyond RAM" if beyond else " (log scale)"),
            "x raw IOPS",
            rows,
            "multiplier",
            kind="bars",
            log_y=not beyond,
        )
        chart.reference, chart.reference_label = 1.0, "1X = the raw IOPS"
        section.add(
            "text",
            "Before the sweep, a short pass of 4 KiB random reads with direct I/O (no cache)"
            " measured how many reads a second each device serves on its own: its raw IOPS."
            " The multiplier is a point's ops/s over those raw IOPS: how far caching lets the"
            f" workload hit above the device's weight. Figure {len(self.charts) + 1} shows it"
            + (" for the dataset sizes larger than RAM;" if beyond else ";")
            + " above 1X the cache serves part of the reads. Within RAM the multiplier measures"
            " memory, not the device.",
        )
        self.add_chart(section, chart)
        columns = ["Dataset\n(x RAM)"] + [f"x raw IOPS\n{self.short[s.id]}" for s in c.sessions]
        table_rows = []
        for row in c.rows:
            cells = [Cell(axis_label(row), round(row.ram_ratio, 6))]
            for s in c.sessions:
                p = row.points.get(s.id)
                m = p.multiplier if p else None
                tone = "" if row.beyond_memory else "muted"  # the device is barely read
                cells.append(
                    Cell("—", None, "muted") if m is None else Cell(multiplier_text(m), m, tone)
                )
            table_rows.append(cells)
        notes = [
            f"Raw IOPS of {self.short[s.id]}: "
            + (f"{ops_text(s.raw_iops)} ({s.raw_method})" if s.raw_iops else "not measured")
            + "."
            for s in c.sessions
        ]
        notes.append(
            "Greyed: the dataset is no larger than RAM; these figures measure the cache more"
            " than the device and are left out of the headlines."
        )
        self.add_table(
            section,
            Table("multiplier", "Ops/s over raw device IOPS by dataset size", columns,
                  table_rows, notes=notes),
        )  # fmt: skip

    # -- latency

    def latency(self) -> None:
        c = self.c
        section = Section("latency", "Read latency by dataset size")
        self.sections.append(section)
        chart = self.chart(
            "p99", "99th percentile read latency by dataset size (log scale)", "p99 ms (log)",
            list(c.rows), "p99_ms", log_y=True, better="lower",
        )  # fmt: skip
        section.add(
            "text",
            f"Figure {len(self.charts) + 1} and the table below give fio's read completion"
            " latency over each measured window, in milliseconds (lower is better): a read"
            " served from memory takes microseconds, one that waits for the device its"
            " access time.",
        )
        self.add_chart(section, chart)
        wide = len(c.sessions) > 2
        columns = ["Dataset\n(x RAM)"]
        for s in c.sessions:
            if not wide:
                columns.append(f"p50 ms\n{self.short[s.id]}")
            columns += [f"p99 ms\n{self.short[s.id]}", f"p99.9 ms\n{self.short[s.id]}"]
        rows = []
        for row in c.rows:
            cells = [Cell(axis_label(row), round(row.ram_ratio, 6))]
            for s in c.sessions:
                p = row.points.get(s.id)
                if not wide:
                    cells.append(_ms(p.p50_ms if p else None))
                cells += [_ms(p.p99_ms if p else None), _ms(p.p999_ms if p else None)]
            rows.append(cells)
        self.add_table(
            section, Table("latency", "Read latency by dataset size (ms)", columns, rows)
        )
