"""The errors of storage work and what a refusal carries: evidence, by field and device.

One small module the other parts of :mod:`bench_gui.remote.storage` import, so the error types,
the evidence they show and the names of the two refusals a user may override are defined once.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Final

# The field names of the refusals the user may override (each with its own explicit word).
UNREADABLE_FIELD: Final = "processes"
NOT_RECORDED_FIELD: Final = "recorded"
SIGNED_FIELD: Final = "signatures"


class StorageError(RuntimeError):
    """Storage work that cannot go on; the message is meant for the user."""


@dataclass
class Evidence:
    """One reason a device is in use (``blocking``) or a fact about it worth showing."""

    kind: str  # mounted, root, boot, swap, member, btrfs, holders, busy, open, open-count,
    # readonly, partitions, signature, not-disk, pgdata
    text: str
    source: str
    device: str  # the device the evidence was found on (a partition, for a disk's evidence)
    blocking: bool = True
    mount_point: str = ""
    holder: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Refusal:
    """Why the layout cannot touch one device (or one setting): the field and the evidence."""

    field_name: str
    device: str
    reason: str
    evidence: list[Evidence] = field(default_factory=list)

    def format(self) -> str:
        lines = [f"{self.field_name}: {self.reason}"]
        lines += [f"    - {e.text}  [{e.source}]" for e in self.evidence]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "field": self.field_name,
            "device": self.device,
            "reason": self.reason,
            "evidence": [e.to_dict() for e in self.evidence],
        }


class StorageRefused(StorageError):
    """The plan was not run: one or more devices (or settings) are refused, with evidence."""

    def __init__(self, refusals: list[Refusal], host: str = "") -> None:
        self.refusals = refusals
        self.host = host
        where = f" on {host}" if host else ""
        text = "\n".join(r.format() for r in refusals)
        super().__init__(f"refused{where}; nothing was changed:\n{text}")
