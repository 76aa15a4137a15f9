"""The HTML report: one self-contained file (styles inline, charts embedded as data URIs).

Rendered from a Jinja2 template with autoescaping on: session names and notes are user text.
"""

from __future__ import annotations

import base64
from functools import cache
from pathlib import Path

import jinja2

from bench_gui import __version__
from bench_gui.report.charts import chart_png
from bench_gui.report.model import Report

TEMPLATES = Path(__file__).resolve().parent / "templates"


@cache
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )


def data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def render_html(report: Report) -> str:
    """The whole report as one HTML document."""
    images = {key: data_uri(chart_png(spec)) for key, spec in report.charts.items()}
    template = environment().get_template("report.html.j2")
    return template.render(r=report, images=images, app_version=__version__)


def write_html(report: Report, path: Path) -> Path:
    path.write_text(render_html(report), encoding="utf-8")
    return path
