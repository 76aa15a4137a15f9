"""The HTML report: one self-contained file (styles inline, charts embedded as data URIs).

Rendered from a Jinja2 template with autoescaping on: session names and notes are user text.
Two filters keep table text whole: ``lines`` prints a header's lines (the model splits a header
where it may break, so no header breaks in the middle of a word) and ``soft`` lets a long token
(a path, mount options) break after its punctuation rather than run off the page.
"""

from __future__ import annotations

import base64
import re
from functools import cache
from pathlib import Path

import jinja2
from markupsafe import Markup, escape

from bench_gui import __version__
from bench_gui.report.charts import chart_png
from bench_gui.report.wide import report_parts
from bench_gui.report.written import WrittenReport
from bench_gui.resources import folder

# Package data in bench_gui/resources (a wheel, a checkout and the bundle alike).
TEMPLATES = Path(str(folder("report")))
LONG_TOKEN = 18  # characters from which a token gets break opportunities
_BREAK_AFTER = re.compile(r"([,/=;:_|.-])(?=\S)")
LOGO_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".svg": "image/svg+xml",
}


# A name and its number ("RAID 10", "PostgreSQL 15") and a count with its devices ("4 x
# 800GB") are never split over two lines: "Micron S650DC RAID" over "10 cost / new order"
# read as a cost of ten.
# (A model number, "Micron 7450", may break: binding it widened twelve sessions' columns.)
_NAME_NUMBER = re.compile(r"\b([A-Z][\w-]*) (\d[\w.]{0,2})(?![\w.])")
_COUNT = re.compile(r"\b(\d+) ([x×]) (?=\d)")
_COUNT_ALONE = re.compile(r"\b(\d+) ([x×]) ")


def bound(text: str) -> str:
    """``text`` with no-break spaces inside "RAID 10", "PostgreSQL 15", "4 x 800GB" and the
    "2 x" of "2 x Micron"."""
    text = _NAME_NUMBER.sub("\\1\u00a0\\2", text)
    text = _COUNT.sub("\\1\u00a0\\2\u00a0", text)
    return _COUNT_ALONE.sub("\\1\u00a0\\2 ", text)


def lines(text: str) -> Markup:
    """A header's lines, escaped, joined by line breaks."""
    return Markup("<br>").join(escape(bound(part)) for part in str(text).split("\n"))


def soft(text: object, mark: str = "\u200b") -> Markup:
    """``text`` escaped, with a break opportunity after the punctuation of long tokens, and
    every ``LONG_TOKEN`` characters in a token with no punctuation at all."""
    out = []
    # No-break spaces separate tokens too (they stay no-break): a name on one line is not
    # one long token to be cut every LONG_TOKEN characters.
    for token in re.split(r"(\s+)", bound(str(text))):
        if len(token) > LONG_TOKEN and not token.isspace():
            token = _BREAK_AFTER.sub(lambda m: m.group(1) + "\x00", token)
            pieces = []
            for part in token.split("\x00"):
                while len(part) > LONG_TOKEN + 6:
                    pieces.append(part[:LONG_TOKEN])
                    part = part[LONG_TOKEN:]
                pieces.append(part)
            out.append(Markup(mark).join(escape(p) for p in pieces))
        else:
            out.append(escape(token))
    return Markup("").join(out)


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["lines"] = lines
    env.filters["soft"] = soft
    env.filters["wbr"] = lambda text: soft(text, "<wbr>")
    env.globals["parts"] = report_parts  # a wide table printed in parts (report.wide)
    return env


def data_uri(png: bytes, mime: str = "image/png") -> str:
    return f"data:{mime};base64," + base64.b64encode(png).decode("ascii")


def logo_uri(path: Path) -> str:
    """The author's logo as a data URI (an unreadable file raises OSError naming it)."""
    mime = LOGO_TYPES.get(path.suffix.lower(), "image/png")
    return data_uri(path.read_bytes(), mime)


def render_html(report: WrittenReport) -> str:
    """The whole report as one HTML document, through its workload's template."""
    images = {key: data_uri(chart_png(spec)) for key, spec in report.charts.items()}
    logo = logo_uri(report.cover.logo) if report.cover.logo else ""
    template = environment().get_template(report.html_template)
    return template.render(r=report, images=images, logo=logo, app_version=__version__)


def write_html(report: WrittenReport, path: Path) -> Path:
    path.write_text(render_html(report), encoding="utf-8")
    return path
