"""PostgreSQL's side of a diff: ``pg_settings`` rows, the unit-aware diff of a proposal against
them, and the :class:`Snapshot` of ``postgresql.auto.conf`` and the touched values that an apply
keeps to be rolled back. No connection here: :mod:`.tuner` reads the rows.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Final

from bench_gui.engines.postgresql.pgtune import (
    Proposal,
    format_setting,
    normalize_value,
    same_value,
)
from bench_gui.engines.tuning_terms import TunedSetting
from bench_gui.remote.db_tuner import DiffRow, diff_rows, not_accepted, out_of_range, outside

AUTO_CONF: Final = "postgresql.auto.conf"
SETTINGS_SQL: Final = (
    "SELECT name, setting, coalesce(unit, ''), context, vartype, source,"
    " coalesce(boot_val, ''), coalesce(reset_val, ''), {pending}, coalesce(enumvals, '{{}}'),"
    " min_val, max_val, sourcefile FROM pg_settings WHERE lower(name) = ANY(%s)"
)


@dataclass
class ServerSetting:
    """One row of ``pg_settings``."""

    name: str
    setting: str
    unit: str
    context: str
    vartype: str
    source: str
    boot_val: str
    reset_val: str
    pending_restart: bool
    enumvals: list[str]
    min_val: str | None
    max_val: str | None
    sourcefile: str | None

    @property
    def display(self) -> str:
        return format_setting(self.setting, self.unit, self.vartype)

    @property
    def needs_restart(self) -> bool:
        return self.context == "postmaster"


def check_value(row: ServerSetting, value: str) -> str:
    """Why the server would refuse ``value`` for this setting ('' if it would take it)."""
    if row.context == "internal":
        return "cannot be changed: it is fixed when PostgreSQL is built or initialised"
    try:
        normal = normalize_value(value, row.unit, row.vartype, row.enumvals)
    except ValueError as exc:
        return str(exc)
    if row.vartype == "enum":
        choices = [c.lower() for c in row.enumvals]
        if choices and normal not in choices:
            return not_accepted(value, row.enumvals)
    if (
        row.vartype in ("integer", "real")
        and isinstance(normal, int | float)
        and outside(normal, row.min_val, row.max_val, float)
    ):
        lo = format_setting(row.min_val or "", row.unit, row.vartype)
        hi = format_setting(row.max_val or "", row.unit, row.vartype)
        return out_of_range(value, lo, hi)
    return ""


def diff_settings(
    proposal: Proposal | list[TunedSetting], current: Mapping[str, ServerSetting]
) -> list[DiffRow]:
    """Each proposed setting against ``pg_settings``: what changes and how it takes effect."""
    items = proposal.settings if isinstance(proposal, Proposal) else proposal
    # Setting names are case-insensitive: compared in lower case.
    return diff_rows(items, current, "setting", _setting_row)


def _setting_row(name: str, item: TunedSetting, row: ServerSetting) -> DiffRow:
    problem = check_value(row, item.value)
    if problem:
        action = "invalid"
    elif row.pending_restart or not same_value(
        item.value, row.setting, row.unit, row.vartype, row.enumvals
    ):
        action = "restart" if row.needs_restart else "reload"
    else:
        action = "same"
    return DiffRow(
        name,
        item.value,
        item.rule,
        row.display,
        action,
        problem,
        row.context,
        row.source,
        row.pending_restart,
    )


def parse_auto_conf(text: str) -> dict[str, str]:
    """``name = 'value'`` lines of ``postgresql.auto.conf`` (the last one of a name wins)."""
    out: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = re.match(r"([A-Za-z_][\w.]*)\s*=?\s*(.*)$", line)
        if not match:
            continue
        name, rest = match.group(1).lower(), match.group(2).strip()
        if rest.startswith("'"):
            value, i = [], 1
            while i < len(rest):
                ch = rest[i]
                if ch == "'" and i + 1 < len(rest) and rest[i + 1] == "'":
                    value.append("'")
                    i += 2
                    continue
                if ch == "\\" and i + 1 < len(rest):
                    value.append(rest[i + 1])
                    i += 2
                    continue
                if ch == "'":
                    break
                value.append(ch)
                i += 1
            out[name] = "".join(value)
        else:
            out[name] = rest.split("#", 1)[0].strip()
    return out


@dataclass
class Snapshot:
    """The state before a change: enough to restore it exactly."""

    taken_at: str
    server: str
    server_version_num: int
    system_identifier: str | None
    data_directory: str | None
    auto_conf: str | None  # the file's text; None when neither SQL nor the control could read it
    auto_conf_settings: dict[str, str]  # name -> value as the file has it
    values: dict[str, dict[str, Any]]  # name -> setting, unit, vartype, context, source, display

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Snapshot:
        return cls(
            taken_at=str(data.get("taken_at", "")),
            server=str(data.get("server", "")),
            server_version_num=int(data.get("server_version_num", 0)),
            system_identifier=data.get("system_identifier"),
            data_directory=data.get("data_directory"),
            auto_conf=data.get("auto_conf"),
            auto_conf_settings=dict(data.get("auto_conf_settings") or {}),
            values={str(k): dict(v) for k, v in (data.get("values") or {}).items()},
        )
