"""The writers ask the report for what is its workload's own (``WrittenReport``): its templates,
the notice at the foot of each PDF page and its JSON. A report of a workload they have never
heard of, as a third-party kit's would be, is written with its own notice and JSON."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bench_gui.report import build_report
from bench_gui.report.html import render_html
from bench_gui.report.model import FOOTER_NOTICE, Report
from bench_gui.report.pdf import write_pdf
from bench_gui.report.tabular import render_csv, render_json
from bench_gui.report.written import WrittenReport
from bench_gui.store import SessionStore
from tests._fixtures.seed_sessions import build_seed000

ACME_NOTICE = "Acme workload measured by acme-bench; these are not audited results."


@dataclasses.dataclass
class AcmeReport(Report):
    """A third-party workload's report: a sweep's parts, with its own notice and JSON."""

    footer_notice: str = ACME_NOTICE

    def json_data(self) -> dict[str, Any]:
        return {
            "format": "acme-comparison",
            "title": self.title,
            "tables": {key: table.title for key, table in self.tables.items()},
        }


@pytest.fixture
def sweep(store: SessionStore) -> Report:
    hdd, ssd = build_seed000(store)
    return build_report(store, [hdd, ssd], baseline_id=hdd)


@pytest.fixture
def acme(sweep: Report) -> AcmeReport:
    parts = {f.name: getattr(sweep, f.name) for f in dataclasses.fields(Report) if f.init}
    return AcmeReport(**{**parts, "footer_notice": ACME_NOTICE})


def pdf_text(path: Path) -> str:
    done = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True
    )
    return done.stdout


def test_every_built_in_report_keeps_the_protocol(sweep: Report, acme: AcmeReport) -> None:
    assert isinstance(sweep, WrittenReport)
    assert isinstance(acme, WrittenReport)
    assert sweep.footer_notice == FOOTER_NOTICE
    assert sweep.json_data()["format"] == "bench-gui-comparison"


def test_a_report_lacking_a_part_is_not_one_the_writers_take() -> None:
    @dataclasses.dataclass
    class NoJson:
        title: str = "a report with no JSON"
        disclaimer: str = ""
        tables: dict[str, Any] = dataclasses.field(default_factory=dict)
        charts: dict[str, Any] = dataclasses.field(default_factory=dict)
        notes: list[str] = dataclasses.field(default_factory=list)
        html_template: str = "report.html.j2"
        brief_template: str = "brief_qt.html.j2"
        footer_notice: str = ACME_NOTICE

    assert not isinstance(NoJson(), WrittenReport)


def test_the_pdf_footer_is_the_report_s_notice(acme: AcmeReport, tmp_path: Path) -> None:
    text = " ".join(pdf_text(write_pdf(acme, tmp_path / "acme.pdf", "a4")).split())
    pages = text.count("bench-gui · page ")
    assert pages > 1
    assert text.count(ACME_NOTICE) == pages
    assert FOOTER_NOTICE not in text


def test_the_json_is_the_report_s_own(acme: AcmeReport) -> None:
    data = json.loads(render_json(acme))
    assert data == acme.json_data()
    assert data["format"] == "acme-comparison"


def test_the_html_and_csv_render_its_parts(acme: AcmeReport, sweep: Report) -> None:
    assert render_html(acme) == render_html(sweep)
    assert render_csv(acme) == render_csv(sweep)
