"""CSV and JSON reports: every table with its raw values, for spreadsheets and scripts.

CSV holds the tables one after the other, each as a title row, a header row and its rows,
separated by a blank row (the way spreadsheet users expect a multi-table export). Measured
figures are raw numbers at full precision; ratios, advantages and money are written as printed
("22X", "95%", "$0.17"), since the printed rule is the claim. JSON carries both, for every cell.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from bench_gui.report.parts import Cell
from bench_gui.report.written import WrittenReport


def render_csv(report: WrittenReport) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([report.title])
    writer.writerow([report.disclaimer])
    writer.writerow([])
    for table in report.tables.values():
        writer.writerow([table.label])
        writer.writerow([col.replace("\n", " ") for col in table.columns])
        for row in table.rows:
            writer.writerow([_csv_value(cell) for cell in row])
        for note in table.notes:
            writer.writerow([note])
        writer.writerow([])
    if report.notes:
        writer.writerow(["Notes"])
        for note in report.notes:
            writer.writerow([note])
    return out.getvalue()


def _csv_value(cell: Cell) -> object:
    """The raw number (whole numbers without ``.0``), a ratio as printed, "" for no value."""
    if cell.value is None:
        return "" if cell.text == "—" else cell.text
    if isinstance(cell.value, str | bool) or _is_ratio(cell.text):
        return cell.text
    if isinstance(cell.value, float) and cell.value.is_integer():
        return int(cell.value)
    return cell.value


def _is_ratio(text: str) -> bool:
    """Ratios and advantages keep their printed form ("22X", "95%"): the rule is the point."""
    stripped = text.strip()
    return stripped.endswith(("X", "%", "lower", "higher")) or stripped.startswith(("±", "$"))


def render_json(report: WrittenReport) -> str:
    return json.dumps(report.json_data(), indent=2, ensure_ascii=False, default=str)


def write_csv(report: WrittenReport, path: Path) -> Path:
    path.write_text(render_csv(report), encoding="utf-8", newline="")
    return path


def write_json(report: WrittenReport, path: Path) -> Path:
    path.write_text(render_json(report), encoding="utf-8")
    return path
