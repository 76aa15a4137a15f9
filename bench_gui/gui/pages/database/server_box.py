"""The server box of the database tabs: which server, its version and user, its machine, and
how it is restarted."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout

from bench_gui.engines.tuning_terms import format_bytes
from bench_gui.gui.widgets.page_parts import muted_label
from bench_gui.services.tuning_parts import Connection
from bench_gui.services.tuning_view import HostFacts


class ServerBox(QGroupBox):
    """The server the tab is connected to, and the Connect button."""

    def __init__(self) -> None:
        super().__init__("Server")
        layout = QVBoxLayout(self)
        layout.setSpacing(8)
        row = QHBoxLayout()
        self.target_label = muted_label("The current plan's target")
        row.addWidget(self.target_label, 1)
        self.connect_button = QPushButton("Connect")
        self.connect_button.setProperty("role", "primary")
        row.addWidget(self.connect_button)
        layout.addLayout(row)
        self.server_label = QLabel("Not connected.")
        self.server_label.setWordWrap(True)
        self.server_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.server_label)
        self.machine_label = muted_label()
        layout.addWidget(self.machine_label)
        self.control_label = muted_label()
        layout.addWidget(self.control_label)
        layout.addStretch(1)

    def show_connection(self, conn: Connection, facts: dict[str, Any], machine: HostFacts) -> None:
        role = "superuser" if facts.get("superuser") else "not a superuser: read-only"
        server = facts.get("server", "").split(" on ")[0].removeprefix("PostgreSQL ")
        text = f"PostgreSQL {server}  ·  user {facts.get('user')} ({role})"
        control = getattr(conn.target, "control", None)  # PostgreSQL targets have one
        self.show_server(
            conn.target.label,
            text,
            facts.get("data_directory"),
            machine,
            f"Restarts with {control.label}"
            if control is not None
            else "No server control: settings that need a restart are applied but stay pending.",
        )

    def show_server(
        self,
        target: str,
        server: str,
        data_directory: str | None,
        machine: HostFacts,
        control: str,
    ) -> None:
        """The lines of any engine: target, server and user, the machine, how it restarts."""
        self.target_label.setText(f"Target: {target}")
        text = server
        if data_directory:
            text += f"\nData directory: {data_directory}"
        self.server_label.setText(text)
        parts = []
        if machine.ram_bytes:
            parts.append(f"RAM {format_bytes(machine.ram_bytes)}")
        if machine.cpus:
            parts.append(f"{machine.cpus} CPUs")
        if machine.device:
            parts.append(f"data on {machine.device} ({machine.storage})")
        text = "  ·  ".join(parts) or "The machine's RAM and CPUs are unknown."
        if machine.notes and not parts:
            text += f" ({machine.notes[0]})"
        self.machine_label.setText(text)
        self.control_label.setText(control)

    def set_connected(self, connected: bool, idle: bool) -> None:
        self.connect_button.setEnabled(idle)
        self.connect_button.setText("Reconnect" if connected else "Connect")
