"""What a discovery found: :class:`BlockDevice` (one device with the evidence of its use)
and :class:`Discovery` (a host's devices and the facts behind the evidence).

Built by the evidence analysis, read by the guards and by the description of a built layout.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Final

from bench_gui.core.open_handles import HandleScan
from bench_gui.remote.storage.errors import Evidence
from bench_gui.remote.storage.parsers import Mount

CANDIDATE_TYPES: Final = ("disk", "loop", "part")


@dataclass
class BlockDevice:
    """A block device as discovered, with every piece of evidence about its use."""

    name: str
    path: str
    type: str
    size_bytes: int | None = None
    model: str | None = None
    serial: str | None = None
    firmware: str | None = None
    rotational: bool | None = None
    transport: str | None = None
    fstype: str | None = None
    uuid: str | None = None
    pttype: str | None = None
    probe_error: str = ""  # why blkid -p could not tell what the device holds ("" when it could)
    dev: str = ""  # major:minor
    parent: str = ""  # path of the disk a partition belongs to
    mountpoints: list[str] = field(default_factory=list)
    children: list[str] = field(default_factory=list)  # paths
    holders: list[str] = field(default_factory=list)
    scheduler: str = ""
    schedulers: list[str] = field(default_factory=list)
    read_ahead_kib: int | None = None
    discard: bool = False
    read_only: bool = False
    exclusive: str = ""  # "ok", the error of the O_EXCL open, or "" (not tried)
    open_count: int | None = None  # the kernel's, where it is exposed (device-mapper)
    erase_methods: list[str] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)  # its own and its descendants'

    @property
    def blocking(self) -> list[Evidence]:
        return [e for e in self.evidence if e.blocking]

    @property
    def signatures(self) -> list[Evidence]:
        """What the device (or a partition of it) holds that applying a layout would erase:
        filesystems, partition tables, RAID, LVM and other members' signatures, or a probe
        that could not tell."""
        return [e for e in self.evidence if e.kind in ("signature", "partitions")]

    @property
    def in_use(self) -> bool:
        return bool(self.blocking)

    def use_summary(self) -> str:
        """One short line: "free", or the first reasons it is in use."""
        reasons = self.blocking
        if not reasons:
            notes = [e.text for e in self.evidence]
            return "free" + (f" ({notes[0]})" if notes else "")
        return "; ".join(dict.fromkeys(e.text for e in reasons))

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["in_use"] = self.in_use
        return out


@dataclass
class Discovery:
    """The block devices of a host and the facts behind their evidence."""

    host: str
    devices: list[BlockDevice]
    mounts: list[Mount]
    swaps: list[str]
    md_arrays: dict[str, Any]
    md_available: bool
    tools: list[str]
    root_devices: list[str]
    boot_devices: list[str]
    notes: list[str] = field(default_factory=list)
    collected_at: str = ""
    handles: HandleScan | None = None  # the process scan (None: not run)

    def find(self, path: str) -> BlockDevice | None:
        for device in self.devices:
            if device.path == path:
                return device
        return None

    def mount_at(self, point: str) -> Mount | None:
        found = None
        for mount in self.mounts:
            if mount.point == point:
                found = mount  # the last one wins: it is the one visible there
        return found

    def has_tool(self, name: str) -> bool:
        return name in self.tools

    def candidates(self) -> list[BlockDevice]:
        return [d for d in self.devices if d.type in CANDIDATE_TYPES]

    def to_dict(self) -> dict[str, Any]:
        return {
            "host": self.host,
            "collected_at": self.collected_at,
            "devices": [d.to_dict() for d in self.devices],
            "md_available": self.md_available,
            "md_arrays": self.md_arrays,
            "swaps": self.swaps,
            "root_devices": self.root_devices,
            "boot_devices": self.boot_devices,
            "tools": self.tools,
            "notes": self.notes,
            "process_scan": None
            if self.handles is None
            else {"complete": self.handles.complete, "problem": self.handles.problem()},
        }
