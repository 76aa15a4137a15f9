"""What the Database page's tabs share: table cells and colours, a form label, the current
plan, and the errors a tab expects from its background work (shown in the page's banner)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import psycopg
import pyodbc
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTableWidgetItem

from bench_gui.core.plan import plan_from_dict
from bench_gui.core.plan_model import Plan, PlanError
from bench_gui.engines.tuning_terms import PresetError
from bench_gui.services.errors import (
    DemoUnavailable,
    OsKnobError,
    SSHError,
    StoreError,
    TuningError,
)
from bench_gui.wire.engine_errors import EngineError

TEXT = "#e8ecf3"
MUTED = "#6f7b93"
GREEN = "#42be65"
YELLOW = "#f1c21b"
RED = "#ff6b74"

# Failures the user can act on: the banner says what and why. Anything else is a bug, which
# the task runner logs and sends to the error notifier.
PG_ERRORS: tuple[type[BaseException], ...] = (
    TuningError,
    PresetError,
    PlanError,
    DemoUnavailable,
    psycopg.Error,
    SSHError,
    StoreError,
    OSError,
)
# The MariaDB and SQL Server tabs': those, and the ODBC side's (a driver error, a bad value).
ODBC_ERRORS: tuple[type[BaseException], ...] = (*PG_ERRORS, EngineError, pyodbc.Error, ValueError)
OS_ERRORS: tuple[type[BaseException], ...] = (
    OsKnobError,
    TuningError,
    PresetError,
    SSHError,
    StoreError,
    OSError,
)

PlanProvider = Callable[[], dict[str, Any] | Plan | None]


def plan_of(provider: PlanProvider | None) -> Plan | None:
    """The provider's plan (a default plan without one); PlanError if it is not valid."""
    if provider is None:
        return Plan()
    data = provider()
    if data is None or isinstance(data, Plan):
        return data
    return plan_from_dict(data)


def cell(text: str) -> QTableWidgetItem:
    """A read-only, selectable table cell."""
    item = QTableWidgetItem(text)
    item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
    return item


def sentences(lines: list[str]) -> str:
    """A result's messages as sentences after its summary."""
    return "".join(f" {line[:1].upper()}{line[1:]}." for line in lines if line)
