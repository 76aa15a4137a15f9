"""The evidence of every device's use, from what discovery read on the host (pure).

Mounts by major:minor and source, the root and boot filesystems' devices (through
``slaves``/``holders`` and partition parents), swap, md members, holders, signatures, the
``O_EXCL`` open and the process scan's holders: each piece says where it was read, so a
refusal shows the user why. Nothing here runs a command, so it is tested on captured output.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import asdict
from typing import Any, Final

from bench_gui.core.mdstat import parse_mdstat
from bench_gui.core.open_handles import HandleScan
from bench_gui.remote.storage.devices import CANDIDATE_TYPES, BlockDevice, Discovery
from bench_gui.remote.storage.errors import Evidence
from bench_gui.remote.storage.parsers import (
    Mount,
    SysBlock,
    parse_mountinfo,
    parse_swaps,
    parse_sysfs,
)

# Signatures that make a device a member of something else.
MEMBER_SIGNATURES: Final = {
    "linux_raid_member": "a member of an md RAID array",
    "LVM2_member": "an LVM physical volume",
    "zfs_member": "a member of a ZFS pool",
    "crypto_LUKS": "a LUKS encrypted volume",
    "ddf_raid_member": "a member of a firmware (DDF) RAID set",
    "isw_raid_member": "a member of an Intel firmware RAID set",
    "bcache": "a bcache device",
}
BOOT_MOUNTS: Final = ("/boot", "/boot/efi", "/efi")


def _root_chain(start: Iterable[str], sysfs: dict[str, SysBlock]) -> set[str]:
    """Kernel names a filesystem lives on: the device, its slaves (dm, md), their disks."""
    seen: set[str] = set()
    todo = list(start)
    while todo:
        name = todo.pop()
        if not name or name in seen:
            continue
        seen.add(name)
        block = sysfs.get(name)
        if block is None:
            continue
        todo.extend(block.slaves)
        if block.parent:
            todo.append(block.parent)
    return seen


def _name_by_dev(sysfs: dict[str, SysBlock]) -> dict[str, str]:
    return {b.dev: b.name for b in sysfs.values() if b.dev}


def _erase_methods(node: dict[str, Any], block: SysBlock | None, tools: list[str]) -> list[str]:
    kind = node.get("type")
    name = str(node.get("kname") or "")
    tran = (node.get("transport") or "").lower()
    methods: list[str] = []
    if "wipefs" in tools:
        methods.append("format-only")
    if "blkdiscard" in tools:
        disc_max = block.discard_max_bytes if block else None
        if disc_max is None and kind == "part":
            disc_max = 1  # a partition has no queue of its own: its disk's counts
        if disc_max:
            methods.append("discard")
        if name.startswith("mmcblk"):
            methods.append("secure-discard")
        methods.append("zeroout")
    if kind == "part":
        return methods
    if "nvme" in tools and re.match(r"^nvme\d+n\d+$", name):
        methods += [
            "nvme-format",
            "nvme-crypto-format",
            "nvme-sanitize-block",
            "nvme-sanitize-crypto",
        ]
    if "sg_sanitize" in tools and tran in ("sas", "fc", "iscsi") and block and block.scsi:
        methods += ["sg-sanitize-block", "sg-sanitize-crypto"]
    if "hdparm" in tools and tran in ("sata", "ata"):
        methods += ["ata-secure-erase", "ata-enhanced-erase"]
    return methods


def analyse(
    nodes: list[dict[str, Any]],
    sections: dict[str, str],
    signatures: dict[str, dict[str, str]],
    excl: dict[str, str],
    tools: list[str],
    host: str = "",
    notes: list[str] | None = None,
    handles: HandleScan | None = None,
) -> Discovery:
    """The evidence of every device's use, from what :func:`discover` read (pure)."""
    notes = notes if notes is not None else []
    mounts = parse_mountinfo(sections.get("mountinfo", ""))
    swaps = parse_swaps(sections.get("swaps", ""))
    md_available = "mdstat" in sections
    md_arrays = parse_mdstat(sections.get("mdstat", "")) if md_available else {}
    sysfs = parse_sysfs(sections.get("sysfs", ""))
    by_dev = _name_by_dev(sysfs)
    path_of = {str(n.get("kname")): str(n.get("path")) for n in nodes}

    def name_of_source(source: str) -> str:
        if source.startswith("/dev/"):
            for n in nodes:
                if n.get("path") == source:
                    return str(n.get("kname"))
            return source.removeprefix("/dev/").replace("/", "!")
        return ""

    # Root and boot filesystems: the device behind the mount, down to its disks.
    root_start: list[str] = []
    boot_start: list[str] = []
    for mount in mounts:
        target = (
            root_start if mount.point == "/" else boot_start if mount.point in BOOT_MOUNTS else None
        )
        if target is None:
            continue
        if mount.major != 0 and mount.dev in by_dev:
            target.append(by_dev[mount.dev])
        target.append(name_of_source(mount.source))
    rootdev = sections.get("rootdev", "").strip()
    if rootdev.isdigit():
        number = int(rootdev)
        key = f"{os.major(number)}:{os.minor(number)}"
        if key in by_dev:
            root_start.append(by_dev[key])
    root_names = _root_chain(root_start, sysfs)
    boot_names = _root_chain(boot_start, sysfs)

    mounted_btrfs: dict[str, str] = {}  # UUID -> mount point
    for mount in mounts:
        if mount.fstype == "btrfs":
            kname = name_of_source(mount.source)
            uuid = signatures.get(path_of.get(kname, mount.source), {}).get("UUID")
            if uuid:
                mounted_btrfs.setdefault(uuid, mount.point)

    devices: dict[str, BlockDevice] = {}
    own: dict[str, list[Evidence]] = {}
    for node in nodes:
        kname = str(node.get("kname"))
        path = str(node.get("path"))
        block = sysfs.get(kname)
        sig = signatures.get(path, {})
        device = BlockDevice(
            name=str(node.get("name") or kname),
            path=path,
            type=str(node.get("type") or ""),
            size_bytes=node.get("size_bytes"),
            model=node.get("model"),
            serial=node.get("serial"),
            firmware=node.get("firmware"),
            rotational=node.get("rotational"),
            transport=node.get("transport"),
            fstype=sig.get("TYPE") or node.get("fstype"),
            uuid=sig.get("UUID"),
            pttype=sig.get("PTTYPE"),
            probe_error=sig.get("PROBE_ERROR", ""),
            dev=str(node.get("dev") or (block.dev if block else "")),
            parent=path_of.get(str(node.get("pkname") or ""), ""),
            mountpoints=list(node.get("mountpoints") or []),
            holders=list(block.holders) if block else [],
            scheduler=block.scheduler if block else "",
            schedulers=list(block.schedulers) if block else [],
            read_ahead_kib=block.read_ahead_kb if block else None,
            discard=bool(block and block.discard_max_bytes),
            read_only=bool(node.get("ro")) or bool(block and block.ro),
            exclusive=excl.get(path, ""),
        )
        if handles is not None and device.dev:
            device.open_count = handles.open_counts.get(device.dev)
        device.erase_methods = _erase_methods(node, block, tools)
        if device.parent and device.parent in devices:
            devices[device.parent].children.append(path)
        devices[path] = device
        own[path] = _evidence(
            device, kname, mounts, swaps, md_arrays, root_names, boot_names, mounted_btrfs
        )
        if handles is not None:
            own[path] += _handle_evidence(device, kname, handles, sysfs)

    # A device carries its own evidence and that of everything under it (partitions).
    for path, device in devices.items():
        evidence = list(own[path])
        stack = list(device.children)
        while stack:
            child = stack.pop()
            child_device = devices.get(child)
            if child_device is None:
                continue
            for e in own.get(child, []):
                if e.kind in ("busy",):
                    continue  # the parent's own open test covers it
                evidence.append(e)
            stack.extend(child_device.children)
        parts = [devices[c] for c in device.children if c in devices]
        if parts:
            listed = ", ".join(f"{p.path}" + (f" ({p.fstype})" if p.fstype else "") for p in parts)
            evidence.append(
                Evidence("partitions", f"has partitions: {listed}", "lsblk", path, blocking=False)
            )
        device.evidence = _dedup(evidence)
    ordered = [devices[str(n.get("path"))] for n in nodes if str(n.get("path")) in devices]
    return Discovery(
        host=host,
        devices=ordered,
        mounts=mounts,
        swaps=swaps,
        md_arrays={k: asdict(v) for k, v in md_arrays.items()},
        md_available=md_available,
        tools=tools,
        root_devices=sorted(path_of.get(n, f"/dev/{n}") for n in root_names),
        boot_devices=sorted(path_of.get(n, f"/dev/{n}") for n in boot_names),
        notes=notes,
        handles=handles,
    )


def _handle_evidence(
    device: BlockDevice, kname: str, handles: HandleScan, sysfs: dict[str, SysBlock]
) -> list[Evidence]:
    """Processes that hold the device open, and the kernel's open counts (device-mapper)."""
    path = device.path
    out = [
        Evidence(
            "open",
            f"is held open by {hold.describe()}",
            hold.source,
            path,
            holder=str(hold.pid),
        )
        for hold in handles.holds(device.dev, {path, f"/dev/{kname}"})
    ]
    if device.open_count:
        times = "time" if device.open_count == 1 else "times"
        out.append(
            Evidence(
                "open-count",
                f"is open {device.open_count} {times} (the kernel's open count)",
                "dmsetup info -o open",
                path,
                blocking=False,
            )
        )
    counted = []
    for holder in device.holders:
        block = sysfs.get(holder)
        count = handles.open_counts.get(block.dev) if block else None
        if count:
            counted.append(f"{holder} is open {count} {'time' if count == 1 else 'times'}")
    if counted:
        out.append(
            Evidence(
                "open-count",
                f"its holder is in use: {', '.join(counted)} (the kernel's open count)",
                "dmsetup info -o open",
                path,
                blocking=False,
            )
        )
    return out


def _dedup(items: list[Evidence]) -> list[Evidence]:
    seen: set[tuple[str, str]] = set()
    out = []
    for e in items:
        key = (e.kind, e.text)
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out


def _evidence(
    device: BlockDevice,
    kname: str,
    mounts: list[Mount],
    swaps: list[str],
    md_arrays: dict[str, Any],
    root_names: set[str],
    boot_names: set[str],
    mounted_btrfs: dict[str, str],
) -> list[Evidence]:
    path = device.path
    out: list[Evidence] = []
    if device.type not in CANDIDATE_TYPES:
        out.append(
            Evidence(
                "not-disk",
                f"is a {device.type or 'non-disk'} device, not a disk or a partition",
                "lsblk TYPE",
                path,
            )
        )
    if device.size_bytes == 0 and device.type in CANDIDATE_TYPES:
        out.append(
            Evidence(
                "empty",
                "has no capacity (size 0: no medium, or a device not set up)",
                "lsblk SIZE",
                path,
            )
        )
    points: dict[str, str] = {}
    for mount in mounts:
        if mount.dev == device.dev and mount.major != 0:
            points.setdefault(mount.point, f"/proc/self/mountinfo ({mount.dev})")
        elif mount.source == path:
            points.setdefault(mount.point, f"/proc/self/mountinfo (source {mount.source})")
    for point in device.mountpoints:
        points.setdefault(point, "lsblk MOUNTPOINTS")
    for point, source in points.items():
        what = "is mounted" if device.type != "part" else f"partition {path} is mounted"
        out.append(Evidence("mounted", f"{what} on {point}", source, path, mount_point=point))
    if kname in root_names:
        out.append(
            Evidence(
                "root",
                "holds the root filesystem (/)",
                "/proc/self/mountinfo, stat / and sysfs slaves",
                path,
            )
        )
    if kname in boot_names:
        out.append(
            Evidence("boot", "holds the boot filesystem", "/proc/self/mountinfo and sysfs", path)
        )
    if path in swaps:
        out.append(Evidence("swap", "is in use as swap", "/proc/swaps", path))
    fstype = device.fstype or ""
    if fstype in MEMBER_SIGNATURES:
        # A member's signature alone (no active array or volume group holds it: that is the
        # holders' and mdstat's evidence) is data the user may still want: refused unless the
        # user names the device again (guards.signed_refusal).
        out.append(
            Evidence(
                "signature",
                f"is {MEMBER_SIGNATURES[fstype]} (signature {fstype})",
                "blkid -p",
                path,
                False,
            )
        )
    if device.pttype:
        out.append(
            Evidence("signature", f"has a {device.pttype} partition table", "blkid -p", path, False)
        )
    if device.probe_error:
        out.append(
            Evidence(
                "signature",
                f"what it holds could not be read ({device.probe_error})",
                "blkid -p",
                path,
                False,
            )
        )
    for name, array in md_arrays.items():
        if kname in getattr(array, "members", []):
            out.append(
                Evidence(
                    "member",
                    f"is a member of the active array /dev/{name} ({array.level or array.state})",
                    "/proc/mdstat",
                    path,
                    holder=name,
                )
            )
    if fstype == "btrfs" and device.uuid in mounted_btrfs and not points:
        point = mounted_btrfs[device.uuid or ""]
        out.append(
            Evidence(
                "btrfs",
                f"is a device of the btrfs filesystem mounted on {point}",
                "blkid -p UUID and /proc/self/mountinfo",
                path,
                mount_point=point,
            )
        )
    if device.holders:
        out.append(
            Evidence(
                "holders",
                f"is held by {', '.join(device.holders)}",
                f"/sys/class/block/{kname}/holders",
                path,
                holder=",".join(device.holders),
            )
        )
    if fstype == "swap" and path not in swaps:
        out.append(
            Evidence("signature", "has a swap signature (not active)", "blkid -p", path, False)
        )
    elif fstype and fstype not in MEMBER_SIGNATURES and not points and fstype != "btrfs":
        out.append(
            Evidence(
                "signature", f"holds a {fstype} filesystem (not mounted)", "blkid -p", path, False
            )
        )
    elif fstype == "btrfs" and device.uuid not in mounted_btrfs and not points:
        out.append(
            Evidence("signature", "holds a btrfs filesystem (not mounted)", "blkid -p", path, False)
        )
    if device.read_only:
        out.append(Evidence("readonly", "is read-only", "lsblk RO / sysfs ro", path))
    if device.exclusive and device.exclusive != "ok":
        text = device.exclusive
        if text.startswith("untested"):
            out.append(Evidence("busy", f"exclusive open {text}", "O_EXCL open on the host", path))
        else:
            errno_text = text.partition(" ")[2] or text
            out.append(
                Evidence(
                    "busy",
                    f"cannot be opened exclusively: {errno_text}",
                    "O_EXCL open on the host",
                    path,
                )
            )
    return out
