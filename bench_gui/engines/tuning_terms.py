"""What every engine's tuning speaks, whatever its calculator: a proposed setting with the rule
behind it, calculator inputs that are wrong, a preset that cannot be used, the storage types a
calculator asks for, and sizes as people type and read them.

PostgreSQL's PgTune (:mod:`bench_gui.engines.postgresql.pgtune`), the InnoDB calculator
(:mod:`bench_gui.engines.mariadb.innodb`) and SQL Server's tuner all propose
:class:`TunedSetting`; the Database page and the tuning history show them the same way.
Pure: no I/O, no Qt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

STORAGE_TYPES: Final = ("hdd", "ssd", "san", "nvme")
STORAGE_LABELS: Final = {
    "hdd": "HDD (spinning disks)",
    "ssd": "SSD",
    "san": "Network storage (SAN)",
    "nvme": "NVMe SSD",
}

# Byte multipliers of the size suffixes accepted for RAM (binary, as PgTune and PostgreSQL).
_SIZE_UNITS: Final = {
    "": 1024**3,  # a bare number is GiB, like PgTune's default unit
    "b": 1,
    "k": 1024,
    "kb": 1024,
    "kib": 1024,
    "m": 1024**2,
    "mb": 1024**2,
    "mib": 1024**2,
    "g": 1024**3,
    "gb": 1024**3,
    "gib": 1024**3,
    "t": 1024**4,
    "tb": 1024**4,
    "tib": 1024**4,
}


class TuneInputError(ValueError):
    """Calculator inputs with one or more bad values; ``problems`` lists (field, reason)."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        super().__init__("; ".join(f"{name}: {reason}" for name, reason in problems))


class PresetError(ValueError):
    """A preset that cannot be used; the message names the field and the reason."""


@dataclass(frozen=True)
class TunedSetting:
    """One proposed setting: its value as postgresql.conf takes it and the rule behind it."""

    name: str
    value: str
    rule: str
    source: str = "pgtune"  # "pgtune", "preset NAME", "user"

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "value": self.value, "rule": self.rule, "source": self.source}


def parse_size(text: str | int) -> int:
    """A size in bytes from ``"128GiB"``, ``"128GB"``, ``"512 MB"``, ``"64g"`` or ``"128"`` (GiB).

    Units are binary (1 GB = 1024 MB), as PgTune and PostgreSQL count them.
    """
    if isinstance(text, bool):
        raise ValueError(f"{text!r} is not a size")
    if isinstance(text, int):
        if text <= 0:
            raise ValueError(f"{text} is not a positive size")
        return text * _SIZE_UNITS[""]
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", str(text))
    if not match:
        raise ValueError(f"{text!r} is not a size like 128GiB or 512MB")
    number = float(match.group(1))
    unit = match.group(2).lower()
    if unit not in _SIZE_UNITS:
        raise ValueError(f"{text!r}: unknown unit {match.group(2)!r} (use kB, MB, GB, TB)")
    size = int(number * _SIZE_UNITS[unit])
    if size <= 0:
        raise ValueError(f"{text!r} is not a positive size")
    return size


def format_bytes(size: int) -> str:
    """A human size for messages: ``128 GiB``, ``1.5 GiB``, ``512 MiB``."""
    for unit, factor in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if size >= factor:
            amount = size / factor
            text = f"{amount:.1f}".rstrip("0").rstrip(".")
            return f"{text} {unit}"
    return f"{size} B"
