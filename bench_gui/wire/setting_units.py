"""PostgreSQL settings in their real units: a value, its base unit and the text SHOW prints.

``pg_settings`` gives a number and the unit it counts in (``16384`` of ``8kB``): the value is
the product (134217728 bytes), the text PostgreSQL itself prints is ``current_setting()``'s
(``128MB``). Sessions stored before this module joined the two as text (``163848kB``); that
text is deducible (the unit was appended after the number) and :func:`upgrade_setting` turns
it back into a record (with ``migrated_from``: the old text). Stdlib only: the agent builds
records with it, the store migrates with it.

A record::

    {"setting": "16384", "unit": "8kB", "value": 134217728, "value_unit": "B",
     "display": "128MB", "source": "configuration file", "boot_val": "16384",
     "vartype": "integer"}

``value`` is in bytes for memory settings and in the engine's own unit for times (``ms``,
``s``, ``min``: ``value_unit`` says which); a negative value (-1: off) stays as it is, with no
``value_unit``. Settings without a unit keep their text in ``value`` (a number for integer and
real settings, true/false for booleans).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

# Bytes per memory unit, and PostgreSQL's order for printing (largest that divides evenly).
MEMORY_UNITS: Final = {"TB": 1024**4, "GB": 1024**3, "MB": 1024**2, "kB": 1024, "B": 1}
# Milliseconds per time unit, same order.
TIME_UNITS: Final = {
    "d": 86_400_000.0,
    "h": 3_600_000.0,
    "min": 60_000.0,
    "s": 1000.0,
    "ms": 1.0,
    "us": 0.001,
}
_UNIT: Final = re.compile(r"(\d*)\s*(TB|GB|MB|kB|B|d|h|min|s|ms|us)")
_NUMBER: Final = re.compile(r"-?\d+(?:\.\d+)?")

# Settings counted in 8kB blocks in PostgreSQL 10 to 18 (pg_settings.unit = '8kB'). An old
# stored text of one of them ends in "8kB" because the unit was appended to the number.
BLOCK_SETTINGS: Final = frozenset(
    {
        "backend_flush_after", "bgwriter_flush_after", "checkpoint_flush_after",
        "commit_timestamp_buffers", "effective_cache_size", "io_combine_limit",
        "io_max_combine_limit", "min_parallel_index_scan_size", "min_parallel_relation_size",
        "min_parallel_table_scan_size", "multixact_member_buffers", "multixact_offset_buffers",
        "notify_buffers", "segment_size", "serializable_buffers", "shared_buffers",
        "subtransaction_buffers", "temp_buffers", "transaction_buffers", "wal_buffers",
        "wal_writer_flush_after",
    }
)  # fmt: skip
# Settings whose unit changed with the version: (unit before 11, unit from 11 on).
_VERSIONED_UNITS: Final = {
    "wal_segment_size": ("8kB", "B"),
    "min_wal_size": ("16MB", "MB"),
    "max_wal_size": ("16MB", "MB"),
}


def parse_unit(unit: str | None) -> tuple[int, str] | None:
    """``8kB`` -> (8, "kB"), ``ms`` -> (1, "ms"); None for no unit or one not known."""
    match = _UNIT.fullmatch((unit or "").strip())
    if match is None:
        return None
    return int(match.group(1) or 1), match.group(2)


def _number(text: str) -> int | float | None:
    if _NUMBER.fullmatch(text.strip()) is None:
        return None
    value = float(text)
    return int(value) if value.is_integer() and "." not in text else value


def base_value(setting: str, unit: str | None) -> tuple[int | float | None, str | None]:
    """The setting's number in base units: bytes for memory, the unit itself for times.

    (None, None) when the setting is not a number; a negative number (-1 means off) is
    returned as it is, without a unit."""
    number = _number(setting)
    if number is None:
        return None, None
    parsed = parse_unit(unit)
    if parsed is None:
        return number, None
    if number < 0:
        return number, None
    multiple, base = parsed
    if base in MEMORY_UNITS:
        total = number * multiple * MEMORY_UNITS[base]
        return (int(total) if float(total).is_integer() else total), "B"
    if multiple == 1:
        return number, base
    # A time unit with a multiple (none in PostgreSQL 10 to 18): milliseconds.
    return number * multiple * TIME_UNITS[base], "ms"


def show_text(value: int | float | None, value_unit: str | None) -> str:
    """The text PostgreSQL's SHOW prints for a value in base units: the largest unit that
    divides it evenly (``134217728`` B -> ``128MB``, ``300`` s -> ``5min``); 0 and negative
    values without a unit."""
    if value is None:
        return ""
    if value_unit is None or value <= 0:
        return _plain(value)
    if value_unit == "B":
        for name, size in MEMORY_UNITS.items():
            if value % size == 0:
                return f"{int(value // size)}{name}"
        return f"{_plain(value)}B"
    if value_unit not in TIME_UNITS:
        return f"{_plain(value)}{value_unit}"
    in_ms = value * TIME_UNITS[value_unit]
    for name, unit_ms in TIME_UNITS.items():
        count = in_ms / unit_ms
        if abs(count - round(count)) < 1e-9 and round(count) != 0:
            return f"{round(count)}{name}"
    return f"{_plain(value)}{value_unit}"


def _plain(value: int | float) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def typed_value(setting: str, vartype: str | None) -> Any:
    """A unit-less setting as data: a number for integer/real, true/false for bool, else text."""
    if vartype == "bool":
        return setting == "on"
    if vartype in ("integer", "real"):
        number = _number(setting)
        return setting if number is None else number
    return setting


def setting_record(
    setting: str,
    unit: str | None,
    *,
    display: str | None = None,
    source: str | None = None,
    boot_val: str | None = None,
    vartype: str | None = None,
) -> dict[str, Any]:
    """One setting as stored with a session (see the module's docstring)."""
    unit = unit or ""
    value: Any
    value_unit: str | None
    if unit:
        value, value_unit = base_value(setting, unit)
        if value is None:
            value = setting
    else:
        value, value_unit = typed_value(setting, vartype), None
    if display is None:
        display = show_text(value, value_unit) if unit and value_unit else setting
    record: dict[str, Any] = {
        "setting": setting,
        "unit": unit or None,
        "value": value,
        "value_unit": value_unit,
        "display": display,
    }
    for key, item in (("source", source), ("boot_val", boot_val), ("vartype", vartype)):
        if item is not None:
            record[key] = item
    return record


def _unit_of(name: str, text: str, version_num: int) -> str | None:
    """Which unit an old text of ``name`` had appended (None: no unit, or not deducible)."""
    if name in _VERSIONED_UNITS:
        old, new = _VERSIONED_UNITS[name]
        unit = old if 0 < version_num < 110000 else new
        return unit if text.endswith(unit) else None
    if name in BLOCK_SETTINGS:
        return "8kB" if text.endswith("8kB") else None
    match = re.fullmatch(r"-?\d+(?:\.\d+)?(TB|GB|MB|kB|B|d|h|min|s|ms|us)", text)
    return match.group(1) if match else None


def upgrade_setting(name: str, text: str, version_num: int = 0) -> dict[str, Any]:
    """A record from the text older sessions stored (``setting`` and ``unit`` joined). A text
    that carries no unit stays as it was, text (its type was not stored: nothing is guessed)."""
    unit = _unit_of(name, text, version_num)
    setting = text[: -len(unit)] if unit else text
    if unit is None or _number(setting) is None:
        record = setting_record(text, None)
    else:
        record = setting_record(setting, unit)
    record["migrated_from"] = text
    return record


def upgrade_settings(
    settings: Mapping[str, Any], version_num: int = 0
) -> tuple[dict[str, Any], int]:
    """Stored settings with every old text made a record; (settings, how many changed).
    Records are kept as they are."""
    out: dict[str, Any] = {}
    changed = 0
    for name, value in settings.items():
        if isinstance(value, dict):
            out[str(name)] = value
            continue
        out[str(name)] = upgrade_setting(str(name), str(value), version_num)
        changed += 1
    return out, changed
