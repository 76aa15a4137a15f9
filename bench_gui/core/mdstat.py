"""/proc/mdstat read: each md array's level, members, state and the resync in progress (how far,
how long left), which the storage steps wait on and the guards show as evidence."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final


@dataclass
class MdArray:
    """One array of /proc/mdstat; ``action`` resync/recovery/reshape/check while one runs."""

    name: str
    state: str
    level: str
    members: list[str]
    action: str = ""
    percent: float | None = None
    finish: str = ""
    speed: str = ""
    pending: bool = False  # resync=PENDING / DELAYED: not started yet

    @property
    def syncing(self) -> bool:
        return bool(self.action) or self.pending


_MD_HEAD: Final = re.compile(
    r"^(md[\w/-]*)\s*:\s*(\S+)\s+(?:\((?:auto-)?read-only\)\s+)?(\S+)?\s*(.*)$"
)
_MD_PROGRESS: Final = re.compile(r"(resync|recovery|reshape|check|repair)\s*=\s*([0-9.]+)%")
_MD_FINISH: Final = re.compile(r"finish=(\S+)")
_MD_SPEED: Final = re.compile(r"speed=(\S+)")
_MD_PENDING: Final = re.compile(r"(resync|recovery|reshape|check)\s*=\s*(PENDING|DELAYED)")


def parse_mdstat(text: str) -> dict[str, MdArray]:
    """``/proc/mdstat`` -> arrays by name (md0), with the progress of a running resync."""
    arrays: dict[str, MdArray] = {}
    current: MdArray | None = None
    for line in text.splitlines():
        m = _MD_HEAD.match(line)
        if m:
            name, state, level, rest = m.group(1), m.group(2), m.group(3) or "", m.group(4)
            if level and "[" in level:
                rest, level = f"{level} {rest}", ""
            members = [re.sub(r"\[\d+\].*$", "", tok) for tok in rest.split() if "[" in tok]
            current = MdArray(name=name, state=state, level=level, members=members)
            arrays[name] = current
            continue
        if current is None:
            continue
        if not line.strip():
            current = None
            continue
        p = _MD_PROGRESS.search(line)
        if p:
            current.action = p.group(1)
            current.percent = float(p.group(2))
            finish = _MD_FINISH.search(line)
            speed = _MD_SPEED.search(line)
            current.finish = finish.group(1) if finish else ""
            current.speed = speed.group(1) if speed else ""
            continue
        if _MD_PENDING.search(line):
            current.pending = True
    return arrays
