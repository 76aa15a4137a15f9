"""bench_gui.report: comparison reports as HTML, PDF, CSV and JSON, and charts as PNG/SVG.

:func:`build_report` (in :mod:`bench_gui.report.model`) gathers the figures once; the writers
render that one model. Random-read studies have a report of their own
(:mod:`bench_gui.workloads.random_read.report`); :func:`build_any_report` picks by workload.
The writers take any :class:`~bench_gui.report.written.WrittenReport`: they ask the report for
its templates, footer notice and JSON, never which workload's it is.
The writers that draw (HTML charts, PDF, PNG/SVG) use Qt's offscreen
renderer and start an offscreen application when none runs.
"""

from __future__ import annotations

from pathlib import Path

from bench_gui.report.model import Report, build_report
from bench_gui.report.workloads import build_any_report
from bench_gui.report.written import WrittenReport

REPORT_FORMATS = (".html", ".pdf", ".csv", ".json")


class ReportError(ValueError):
    """A report cannot be written as asked (unknown format...)."""


def report_format(path: Path) -> str:
    """The format of a report file, from its name; raise ReportError for an unknown one."""
    suffix = path.suffix.lower()
    if suffix == ".htm":
        suffix = ".html"
    if suffix not in REPORT_FORMATS:
        raise ReportError(
            f"{path.name}: a report file ends in {', '.join(REPORT_FORMATS)} (got"
            f" {suffix or 'no extension'})"
        )
    return suffix


def write_report(report: WrittenReport, path: Path, page_size: str | None = None) -> Path:
    """Write ``report`` to ``path`` in the format its extension names; ``page_size`` (a4 or
    letter, default: the locale's) is the PDF's paper."""
    fmt = report_format(path)
    if fmt == ".html":
        from bench_gui.report.html import write_html

        return write_html(report, path)
    if fmt == ".pdf":
        from bench_gui.report.pdf import write_pdf

        return write_pdf(report, path, page_size)
    from bench_gui.report.tabular import write_csv, write_json

    return write_csv(report, path) if fmt == ".csv" else write_json(report, path)


def write_charts(report: WrittenReport, directory: Path, fmt: str = "png") -> list[Path]:
    """Every chart of the report as PNG or SVG files in ``directory``."""
    from bench_gui.report.charts import write_charts as _write

    return _write(list(report.charts.values()), directory, fmt)


__all__ = [
    "REPORT_FORMATS",
    "Report",
    "ReportError",
    "build_any_report",
    "build_report",
    "report_format",
    "write_charts",
    "write_report",
]
