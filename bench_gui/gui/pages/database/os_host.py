"""The OS knobs tab's host: which machine (this one or a saved SSH target), its data
directory and devices; and the background job that opens that host, runs on it and closes it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtWidgets import QComboBox, QGridLayout, QGroupBox, QLineEdit, QPushButton

from bench_gui.core.plan_model import Plan
from bench_gui.gui.widgets.page_parts import form_label, muted_label
from bench_gui.services.errors import HostKeyError, TargetError
from bench_gui.services.hosts import (
    HostIO,
    LocalHost,
    saved_target_names,
)
from bench_gui.services.tuning_parts import ssh_host

LOCAL = "local"
THIS_MACHINE = "This machine"


def open_host(name: str, accept_fingerprint: str | None = None) -> tuple[HostIO, Any]:
    """(the host, what to close) for "local" or a saved SSH target; blocking."""
    if name == LOCAL:
        return LocalHost(), None
    return ssh_host(name, accept_fingerprint)


@dataclass
class HostJob:
    """A task of the OS knobs tab: open ``host``, run ``work`` on it, close it (in a worker
    thread). A host-key error is kept, so the tab can ask about the key and run it again
    with the fingerprint the user accepted."""

    kind: str
    host: str
    work: Callable[[HostIO], Any]
    then: Callable[[Any], None]
    fingerprint: str | None = None
    host_key_error: HostKeyError | None = None

    def __call__(self) -> Any:
        try:
            host, closer = open_host(self.host, self.fingerprint)
        except HostKeyError as exc:
            self.host_key_error = exc
            raise
        try:
            return self.work(host)
        finally:
            if closer is not None:
                closer.close()


class OsHostBox(QGroupBox):
    """The database host to read and change, its data directory and devices."""

    def __init__(self, plan_provider: Callable[[], Plan | None] | None = None) -> None:
        super().__init__("Host and data devices")
        self.plan_provider = plan_provider
        grid = QGridLayout(self)
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(8)
        self.host_combo = QComboBox()
        self.host_combo.setMinimumWidth(200)
        self.data_dir_edit = QLineEdit()
        self.data_dir_edit.setPlaceholderText("/var/lib/postgresql/18/main")
        self.devices_edit = QLineEdit()
        self.devices_edit.setPlaceholderText("from the data directory, else every disk")
        self.read_button = QPushButton("Read knobs")
        self.read_button.setProperty("role", "primary")
        grid.addWidget(form_label("Host"), 0, 0)
        grid.addWidget(self.host_combo, 0, 1)
        grid.addWidget(form_label("Data directory"), 0, 2)
        grid.addWidget(self.data_dir_edit, 0, 3)
        grid.addWidget(form_label("Devices"), 0, 4)
        grid.addWidget(self.devices_edit, 0, 5)
        grid.addWidget(self.read_button, 0, 6)
        grid.setColumnStretch(3, 3)
        grid.setColumnStretch(5, 2)
        self.host_note = muted_label(
            "The database host: knobs are changed as root there (sudo over SSH), for the run,"
            " and never persisted unless you ask."
        )
        grid.addWidget(self.host_note, 1, 0, 1, 7)
        self.reload_hosts()

    def reload_hosts(self) -> None:
        """This machine and the saved SSH targets; the plan's driver host chosen first."""
        try:
            names = saved_target_names()
        except TargetError:
            names = []  # a broken targets file: the Targets page says why
        current = self.host_combo.currentData()
        if current is None:
            plan = self.plan_provider() if self.plan_provider is not None else None
            current = (plan.driver.target if plan is not None else "") or LOCAL
        self.host_combo.blockSignals(True)
        self.host_combo.clear()
        self.host_combo.addItem(THIS_MACHINE, LOCAL)
        for name in names:
            self.host_combo.addItem(f"{name} (SSH)", name)
        index = self.host_combo.findData(current)
        if index < 0:
            self.host_combo.addItem(f"{current} (not saved)", current)
            index = self.host_combo.count() - 1
        self.host_combo.setCurrentIndex(index)
        self.host_combo.blockSignals(False)

    def host_name(self) -> str:
        return str(self.host_combo.currentData() or LOCAL)

    def select_host(self, name: str) -> None:
        index = self.host_combo.findData(name)
        if index < 0:
            raise KeyError(name)
        self.host_combo.setCurrentIndex(index)

    def suggest_data_dir(self, path: str | None) -> None:
        """The server's data directory, when it is on this machine (kept if one is typed)."""
        if path and not self.data_dir_edit.text().strip() and self.host_name() == LOCAL:
            self.data_dir_edit.setText(path)

    def data_directory(self) -> str:
        return self.data_dir_edit.text().strip()

    def device_list(self) -> list[str]:
        text = self.devices_edit.text().replace(",", " ")
        return [d.removeprefix("/dev/") for d in text.split() if d]

    def set_idle(self, idle: bool) -> None:
        for widget in (self.host_combo, self.data_dir_edit, self.devices_edit, self.read_button):
            widget.setEnabled(idle)
