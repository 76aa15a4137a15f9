"""The connection test panel of the Targets page: its button, and the report of a test as one
line per check with its mark under a summary banner."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from bench_gui.gui.pages.targets.parts import (
    BAD_COLOR,
    NEUTRAL_COLOR,
    OK_COLOR,
    action_header,
    busy_bar,
    placeholder,
)
from bench_gui.gui.widgets.page_parts import Banner
from bench_gui.services.hosts import TargetReport


class ConnectionTestPanel(QGroupBox):
    """Shows what a connection test found (:class:`~bench_gui.remote.ssh_transport.TargetReport`).

    ``report`` is the report on show (None: none); ``check_rows`` its lines as (ok, text),
    ``ok`` None for a line that is neither a pass nor a problem. The page connects ``button``.

    Signals:
        status(str): a short line for the window's status bar.
    """

    status = Signal(str)

    def __init__(self) -> None:
        super().__init__("Connection test")
        self.report: TargetReport | None = None
        self.check_rows: list[tuple[bool | None, str]] = []
        layout = QVBoxLayout(self)
        layout.setSpacing(8)
        self.button = QPushButton("Test connection")
        layout.addLayout(
            action_header(
                "Logs in, then checks the remote Python, root access and whether the current"
                " plan's database answers from that host.",
                self.button,
            )
        )
        self.busy_bar = busy_bar()
        layout.addWidget(self.busy_bar)
        self.banner = Banner()
        layout.addWidget(self.banner)
        self.checks_box = QWidget()
        self.checks_layout = QVBoxLayout(self.checks_box)
        self.checks_layout.setContentsMargins(4, 2, 4, 2)
        self.checks_layout.setSpacing(6)
        layout.addWidget(self.checks_box)
        self.placeholder = placeholder(
            "Not tested yet. The test uses the form as it is: try a target before saving it."
        )
        layout.addWidget(self.placeholder)

    def begin(self) -> None:
        """A test starts: forget the last one."""
        self.report = None
        self._clear_checks()
        self.banner.clear()
        self.placeholder.hide()

    def clear(self) -> None:
        """Back to "not tested yet"."""
        self.report = None
        self._clear_checks()
        self.banner.clear()
        self.placeholder.show()

    def _clear_checks(self) -> None:
        self.check_rows = []
        while self.checks_layout.count():
            item = self.checks_layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.hide()  # at once: deleteLater waits for the event loop
                widget.deleteLater()

    def _add_check(self, ok: bool | None, text: str) -> None:
        self.check_rows.append((ok, text))
        row = QWidget()
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        line.setSpacing(10)
        mark = QLabel("✔" if ok else ("✘" if ok is False else "–"))
        color = OK_COLOR if ok else (BAD_COLOR if ok is False else NEUTRAL_COLOR)
        mark.setStyleSheet(f"color: {color}; font-size: 18px; font-weight: 700;")
        mark.setFixedWidth(22)
        mark.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignHCenter)
        line.addWidget(mark)
        label = QLabel(text)
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        if ok is None:
            label.setObjectName("muted")
        line.addWidget(label, 1)
        self.checks_layout.addWidget(row)

    def show_report(self, report: TargetReport, skipped: str = "") -> None:
        """Show a test report: one line per check with its mark, and a summary banner;
        ``skipped`` says why the database was not checked."""
        self.report = report
        self._clear_checks()
        self.placeholder.hide()
        if not report.connected:
            # The one problem is why it failed: shown once, in the banner.
            reason = report.problems[0] if report.problems else "unknown reason"
            self.banner.show_text("failed", f"Cannot connect to {report.target}: {reason}")
            self.status.emit(f"Cannot connect to {report.target}.")
            return
        for line in report.lines:
            if line.startswith("ok: "):
                self._add_check(True, line.removeprefix("ok: "))
            elif line.startswith("PROBLEM: "):
                self._add_check(False, line.removeprefix("PROBLEM: "))
            else:  # a note: said, neither passed nor failed
                note = line.removeprefix("note: ")
                self._add_check(None, note[:1].upper() + note[1:])
        if report.database_ok is None and not report.database:
            self._add_check(None, f"Database not checked: {skipped or 'no database given'}")
        if report.problems:
            count = len(report.problems)
            noun = "problem" if count == 1 else "problems"
            self.banner.show_text(
                "stopped", f"Connected to {report.login}, with {count} {noun} (see below)."
            )
            self.status.emit(f"{report.target}: connected, {count} {noun}.")
        else:
            self.banner.show_text(
                "ok", f"Connected to {report.login}: everything a benchmark needs works."
            )
            self.status.emit(f"{report.target}: all checks passed.")
