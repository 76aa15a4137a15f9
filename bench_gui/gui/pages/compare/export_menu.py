"""The Compare page's Export button: the report as PDF, HTML, CSV or JSON, the charts as PNG
or SVG images. It asks where; the page writes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMenu, QPushButton

REPORT_FORMATS = (
    ("Report as PDF…", ".pdf", "PDF (*.pdf)"),
    ("Report as HTML…", ".html", "HTML (*.html)"),
    ("Tables as CSV…", ".csv", "CSV (*.csv)"),
    ("Tables as JSON…", ".json", "JSON (*.json)"),
)
CHART_FORMATS = (("Charts as PNG…", "png"), ("Charts as SVG…", "svg"))


class ExportButton(QPushButton):
    """A button with the export menu; ``default_name`` gives the file name to suggest.

    Signals:
        report_file_chosen(object): the Path to write the report to (its suffix says how).
        chart_folder_chosen(object, str): the folder for the chart images, and their format.
    """

    report_file_chosen = Signal(object)
    chart_folder_chosen = Signal(object, str)

    def __init__(self, default_name: Callable[[], str]) -> None:
        super().__init__("Export  ▾")
        self.default_name = default_name
        menu = QMenu(self)
        for text, suffix, name_filter in REPORT_FORMATS:
            action = QAction(text, menu)
            action.triggered.connect(
                lambda _=False, s=suffix, f=name_filter: self.choose_report_file(s, f)
            )
            menu.addAction(action)
        menu.addSeparator()
        for text, fmt in CHART_FORMATS:
            action = QAction(text, menu)
            action.triggered.connect(lambda _=False, f=fmt: self.choose_chart_folder(f))
            menu.addAction(action)
        self.setMenu(menu)

    def choose_report_file(self, suffix: str, name_filter: str) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Export the comparison",
            str(Path.home() / f"{self.default_name()}{suffix}"),
            name_filter,
        )
        if path:
            target = Path(path)
            if target.suffix.lower() != suffix:
                target = target.with_name(target.name + suffix)
            self.report_file_chosen.emit(target)

    def choose_chart_folder(self, fmt: str) -> None:
        home = str(Path.home())
        directory = QFileDialog.getExistingDirectory(self, "Folder for the charts", home)
        if directory:
            self.chart_folder_chosen.emit(Path(directory), fmt)
