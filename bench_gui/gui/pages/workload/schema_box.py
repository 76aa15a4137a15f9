"""The Workload page's Schema box: build the TPROC-C schema, check its consistency, and follow
either with a progress bar, a status line and the list of checks."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
)

from bench_gui.wire.protocol import Event

TASK_LABELS = {"build": "Building schema", "check": "Checking consistency"}


def _count(value: float) -> str:
    return f"{value:,.0f}"


class SchemaBox(QGroupBox):
    """The build and check buttons (the page connects them) and what the task reports."""

    def __init__(self) -> None:
        super().__init__("Schema")
        layout = QVBoxLayout(self)
        layout.setSpacing(10)
        buttons = QHBoxLayout()
        self.build_button = QPushButton("Build schema")
        self.check_button = QPushButton("Check consistency")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        buttons.addWidget(self.build_button)
        buttons.addWidget(self.check_button)
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        layout.addLayout(buttons)
        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.progress.setValue(0)
        self.progress.setFormat("%p%")
        layout.addWidget(self.progress)
        self.task_status = QLabel("Build the TPROC-C schema once per target, then run sweeps.")
        self.task_status.setObjectName("muted")
        self.task_status.setWordWrap(True)
        layout.addWidget(self.task_status)
        self.check_list = QListWidget()
        self.check_list.setMinimumHeight(110)
        self.check_list.hide()
        layout.addWidget(self.check_list, 1)

    def set_busy(self, action: str | None) -> None:
        """What is going on (``None``: idle); a build or a check can be cancelled."""
        idle = action is None
        self.build_button.setEnabled(idle)
        self.check_button.setEnabled(idle)
        self.cancel_button.setEnabled(action in TASK_LABELS)
        if action in TASK_LABELS:
            self.progress.setRange(0, 0)  # busy until the first progress event
            self.task_status.setText(f"{TASK_LABELS[action]}…")
            if action == "check":
                self.check_list.clear()
                self.check_list.show()

    def task_event(self, event: Event) -> None:
        """A build or check event: progress, a log line, the check summary."""
        if event.kind == "progress":
            total = event.get("total")
            done = event.get("done")
            unit = str(event.get("unit") or "")
            parts = [str(event.get("stage") or event.get("task") or "")]
            if isinstance(total, int | float) and total > 0 and isinstance(done, int | float):
                self.progress.setRange(0, 1000)
                self.progress.setValue(int(1000 * min(1.0, done / total)))
                parts.append(f"{_count(done)} of {_count(total)} {unit}".strip())
            rate = event.get("rate")
            if isinstance(rate, int | float) and rate > 0:
                parts.append(f"{_count(rate)} {unit}/s".strip())
            message = event.get("message")
            if message:
                parts.append(str(message))
            self.task_status.setText("  ·  ".join(p for p in parts if p))
        elif event.kind == "log":
            message = str(event.get("message") or "")
            if message:
                self.task_status.setText(message)
        elif event.kind == "error":
            self.task_status.setText(f"Error: {event.get('message')}")
        elif event.kind == "summary":
            checks = event.get("checks")
            if isinstance(checks, list):
                self.show_checks(checks)

    def show_checks(self, checks: list[dict[str, Any]]) -> None:
        self.check_list.clear()
        self.check_list.show()
        for check in checks:
            ok = bool(check.get("ok"))
            detail = str(check.get("detail") or "")
            text = f"{'✔' if ok else '✘'}  {check.get('name', '?')}"
            if detail:
                text += f" — {detail}"
            item = QListWidgetItem(text)
            item.setForeground(QColor("#42be65" if ok else "#ff6b74"))
            self.check_list.addItem(item)

    def task_finished(self, action: str, status: str) -> None:
        self.progress.setRange(0, 1000)
        if status == "ok":
            self.progress.setValue(1000)
        label = TASK_LABELS.get(action, action)
        outcome = {"ok": "done", "stopped": "cancelled"}.get(status, status)
        if action == "check" and self.check_list.count():
            failed = sum(
                1 for i in range(self.check_list.count()) if "✘" in self.check_list.item(i).text()
            )
            outcome = "all checks passed" if not failed else f"{failed} check(s) failed"
        self.task_status.setText(f"{label}: {outcome}.")

    def task_failed(self, action: str, message: str) -> None:
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.task_status.setText(f"{TASK_LABELS.get(action, action)} failed: {message}")
