"""What the report writers ask of a report, of whichever workload.

A workload kit's ``report`` face builds a report (TPROC-C's :class:`bench_gui.report.model.Report`,
random read's ``RandomReadReport``, a third-party kit's own); the HTML, PDF, CSV and JSON
writers never ask which one it is. They render the parts every report has (its title,
disclaimer, tables, charts, author's notes and cover) and ask the report for what is its
workload's own: the templates of its HTML report and of its PDF brief (names in
``bench_gui/resources/report``, where each template reads the rest of its own report), the
notice at the foot of each PDF page, and its JSON.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from bench_gui.report.options import Cover
from bench_gui.report.parts import ChartSpec, Table


@runtime_checkable
class WrittenReport(Protocol):
    """A report the writers render (``isinstance`` checks that a kit's report has each part)."""

    @property
    def title(self) -> str: ...

    @property
    def disclaimer(self) -> str: ...

    @property
    def tables(self) -> Mapping[str, Table]: ...

    @property
    def charts(self) -> Mapping[str, ChartSpec]: ...

    @property
    def notes(self) -> Sequence[str]:
        """The author's notes: what is missing and how to add it (the CSV's last rows)."""
        ...

    @property
    def cover(self) -> Cover: ...

    @property
    def html_template(self) -> str:
        """The HTML report's template: the whole document, rendered with ``r`` = the report."""
        ...

    @property
    def brief_template(self) -> str:
        """The PDF brief's template (Qt's rich-text subset), rendered with ``r`` = the report."""
        ...

    @property
    def footer_notice(self) -> str:
        """What every PDF page says at its foot about how to read the figures."""
        ...

    def json_data(self) -> dict[str, Any]:
        """The report as JSON data: every table's values and texts, and the workload's own."""
        ...
