"""The guards: everything that refuses a layout before the host is touched, with evidence.

:func:`check_layout` (each device's evidence of use, erase methods, schedulers, tools, the
mount point, the array device, a process scan that could not read every process),
:func:`check_paths`, :func:`check_confirmation` (the typed device names), and for a teardown
the refusal of a layout bench-gui has no record of building (or built on another host). Pure
but for reading the records, so the GUI and the CLI show the refusals before anything runs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bench_gui.core.storage import ERASE_METHODS, Layout, normalize_device, valid_device_path
from bench_gui.core.storage_plan import StoragePlan, mkfs_argv
from bench_gui.remote.storage.devices import CANDIDATE_TYPES, BlockDevice, Discovery
from bench_gui.remote.storage.errors import (
    NOT_RECORDED_FIELD,
    SIGNED_FIELD,
    UNREADABLE_FIELD,
    Evidence,
    Refusal,
    StorageRefused,
)
from bench_gui.remote.storage.records import recorded_layouts


def _tool_refusals(layout: Layout, disc: Discovery, teardown: bool) -> list[Refusal]:
    out: list[Refusal] = []

    def need(tool: str, field_name: str, why: str) -> None:
        if not disc.has_tool(tool):
            out.append(Refusal(field_name, "", f"{tool} is not installed on {disc.host}: {why}"))

    if teardown:
        need("wipefs", "devices", "teardown wipes signatures with it")
        if layout.uses_md:
            need("mdadm", "array.backend", "the array is stopped with it")
        return out
    mkfs = mkfs_argv(layout)[0]
    need(mkfs, "filesystem.type", "the filesystem is made with it (install its package)")
    if layout.uses_md:
        need("mdadm", "array.backend", 'install mdadm, or use backend = "btrfs"')
        if not disc.md_available:
            out.append(
                Refusal(
                    "array.backend",
                    "",
                    f"the kernel of {disc.host} has no md driver"
                    ' (/proc/mdstat is missing; modprobe md_mod): use backend = "btrfs"',
                )
            )
    for i, spec in enumerate(layout.devices):
        method = ERASE_METHODS.get(spec.erase)
        if method and method.tool:
            need(method.tool, f"devices[{i}].erase", f"{method.label} needs it")
    return out


def unreadable_refusal(disc: Discovery) -> Refusal | None:
    """The process scan did not see every process: one of them may hold a device open."""
    scan = disc.handles
    if scan is None or scan.complete:
        return None
    evidence = [
        Evidence("unreadable", u.describe(), f"/proc/{u.pid}/fd and maps", "")
        for u in scan.unreadable[:20]
    ]
    return Refusal(
        UNREADABLE_FIELD,
        "",
        f"the open files of every process on {disc.host} could not be read"
        f" ({scan.problem()}): a process there may hold a device open; refused unless you"
        " accept that explicitly",
        evidence,
    )


def signed_refusal(
    layout: Layout, disc: Discovery, wipe_signed: Iterable[str] | None = None
) -> Refusal | None:
    """Apply: refuse the devices that carry a signature (a filesystem, a partition table, a
    RAID or LVM member's, or one blkid could not read) unless the user typed each of them again
    (``wipe_signed``), as a teardown of a layout bench-gui did not build is confirmed."""
    signed: dict[str, list[Evidence]] = {}
    for spec in layout.devices:
        device = disc.find(spec.path)
        if device is not None and device.signatures:
            signed[spec.path] = device.signatures
    typed = _typed_devices(wipe_signed or ())
    extra = [d for d in typed if d not in layout.device_paths]
    missing = [d for d in signed if d not in typed]
    if not missing and not extra:
        return None
    evidence = [e for path in missing for e in signed[path]]
    if extra:
        reason = (
            f"named to be wiped but not in the layout: {', '.join(extra)} (type only the"
            f" layout's devices: {', '.join(layout.device_paths)})"
        )
    else:
        reason = (
            f"{', '.join(missing)} {'carries' if len(missing) == 1 else 'carry'} a signature:"
            " applying the layout erases it and whatever it holds. If that is meant, name"
            " every such device once more to confirm it"
        )
    return Refusal(SIGNED_FIELD, ",".join(missing), reason, evidence)


def check_layout(
    layout: Layout,
    disc: Discovery,
    action: str = "apply",
    *,
    accept_unreadable: bool = False,
    wipe_signed: Iterable[str] | None = None,
) -> list[Refusal]:
    """Everything that stops ``layout`` from being applied (or torn down) on this host.

    ``accept_unreadable`` is the user's explicit word that a process scan which could not read
    every process (no root, or processes even root may not read) is good enough; a process
    that the scan did find holding a device refuses whatever it says. ``wipe_signed``: the
    devices that carry a signature, typed again (:func:`signed_refusal`).
    """
    teardown = action == "teardown"
    refusals: list[Refusal] = []
    known = [d.path for d in disc.candidates()]
    volume_mount = disc.mount_at(layout.mount.point)
    for i, spec in enumerate(layout.devices):
        where = f"devices[{i}]"
        if not valid_device_path(spec.path):
            refusals.append(Refusal(f"{where}.path", spec.path, "is not a device path"))
            continue
        device = disc.find(spec.path)
        if device is None:
            hint = ", ".join(known[:12]) or "none"
            refusals.append(
                Refusal(
                    f"{where}.path",
                    spec.path,
                    f"{spec.path} is not one of the block devices of {disc.host} (found: {hint})",
                )
            )
            continue
        if device.type not in CANDIDATE_TYPES:
            refusals.append(
                Refusal(
                    f"{where}.path",
                    spec.path,
                    f"{spec.path} is a {device.type} device, not a disk or a partition",
                )
            )
            continue
        blocking = device.blocking
        if teardown:
            blocking = [e for e in blocking if not _owned_by_layout(e, layout, device)]
        if blocking:
            refusals.append(Refusal(f"{where}.path", spec.path, f"{spec.path} is in use", blocking))
        if teardown:
            continue
        if spec.erase not in device.erase_methods:
            supported = ", ".join(device.erase_methods) or "none"
            refusals.append(
                Refusal(
                    f"{where}.erase",
                    spec.path,
                    f"{spec.erase} is not available for {spec.path} (available: {supported})",
                )
            )
        if spec.scheduler and spec.scheduler not in device.schedulers:
            offered = ", ".join(device.schedulers) or "none (no I/O scheduler here)"
            refusals.append(
                Refusal(
                    f"{where}.scheduler",
                    spec.path,
                    f"{spec.path} has no {spec.scheduler} scheduler (it offers: {offered})",
                )
            )
        if spec.erase.startswith("ata-") and (device.transport or "") == "usb":
            refusals.append(
                Refusal(
                    f"{where}.erase",
                    spec.path,
                    "ATA security erase is refused through a USB bridge",
                )
            )
    refusals.extend(_tool_refusals(layout, disc, teardown))
    if not teardown:
        signed = signed_refusal(layout, disc, wipe_signed)
        if signed is not None:
            refusals.append(signed)
        if volume_mount is not None:
            refusals.append(
                Refusal(
                    "mount.point",
                    "",
                    f"{layout.mount.point} is already a mount point"
                    f" (of {volume_mount.source}, {volume_mount.fstype})",
                )
            )
        if layout.uses_md:
            md = layout.array.device
            md_name = md.removeprefix("/dev/")
            if disc.find(md) is not None or md_name in disc.md_arrays:
                refusals.append(Refusal("array.device", md, f"{md} already exists on {disc.host}"))
    else:
        # The array device itself: a process holding /dev/md0 open would lose it under wipefs.
        md_device = disc.find(layout.array.device) if layout.uses_md else None
        held = [e for e in md_device.blocking if e.kind == "open"] if md_device else []
        if held:
            refusals.append(
                Refusal(
                    "array.device", layout.array.device, f"{layout.array.device} is in use", held
                )
            )
    if teardown and volume_mount is not None:
        sources = {layout.volume, *layout.device_paths}
        if volume_mount.source not in sources:
            refusals.append(
                Refusal(
                    "mount.point",
                    "",
                    f"{layout.mount.point} is mounted from"
                    f" {volume_mount.source}, not from this layout's {layout.volume}",
                )
            )
    if not accept_unreadable:
        unreadable = unreadable_refusal(disc)
        if unreadable is not None:
            refusals.append(unreadable)
    return refusals


def _owned_by_layout(e: Evidence, layout: Layout, device: BlockDevice) -> bool:
    """Teardown: is this evidence just the layout itself (its mount, its array)?"""
    md_name = layout.array.device.removeprefix("/dev/") if layout.uses_md else ""
    if e.kind in ("mounted", "btrfs"):
        return e.mount_point == layout.mount.point and e.device in (device.path, layout.volume)
    if e.kind == "member":
        if not layout.uses_md:
            return False
        return e.holder in ("", md_name) or "linux_raid_member" in e.text
    if e.kind == "holders":
        holders = set(e.holder.split(","))
        md_kernel = {md_name, md_name.replace("md/", "")}
        return (
            layout.uses_md
            and all(h.startswith("md") for h in holders)
            and bool(holders & md_kernel or md_name.startswith("md/"))
        )
    if e.kind == "busy":
        # Held by the layout's own mount or array: the kernel refuses O_EXCL for exactly that.
        others = [x for x in device.blocking if x.kind != "busy"]
        return bool(others) and all(_owned_by_layout(x, layout, device) for x in others)
    return False


def check_paths(layout: Layout) -> None:
    """Refuse a device name that is not a plain /dev path before anything else happens."""
    bad = [
        Refusal(f"devices[{i}].path", spec.path, f"{spec.path!r} is not a block device path")
        for i, spec in enumerate(layout.devices)
        if not valid_device_path(spec.path)
    ]
    if layout.uses_md and not valid_device_path(layout.array.device):
        bad.append(Refusal("array.device", layout.array.device, "is not a device path"))
    if not layout.devices:
        bad.append(Refusal("devices", "", "the layout has no device"))
    if bad:
        raise StorageRefused(bad)


def _typed_devices(confirm: Iterable[str]) -> list[str]:
    """What the user typed (items split at commas and spaces) as /dev paths."""
    typed: list[str] = []
    for item in confirm:
        for part in re.split(r"[,\s]+", item):
            if part:
                typed.append(normalize_device(part))
    return typed


def check_confirmation(plan: StoragePlan, confirm: Iterable[str]) -> None:
    """The typed names must be exactly the plan's devices (``sdb`` or ``/dev/sdb``)."""
    typed = _typed_devices(confirm)
    wanted = plan.confirm_devices
    missing = [d for d in wanted if d not in typed]
    extra = [d for d in typed if d not in wanted]
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"not typed: {', '.join(missing)}")
        if extra:
            parts.append(f"not in the layout: {', '.join(extra)}")
        raise StorageRefused(
            [
                Refusal(
                    "confirm", "", "type every device of the layout to confirm: " + "; ".join(parts)
                )
            ]
        )


def _recorded_as(layout: Layout, state_dir: Path | None) -> dict[str, Any] | None:
    """The record of ``layout`` as bench-gui built it: same mount point, volume and devices."""
    if state_dir is None:
        return None
    for item in recorded_layouts(state_dir, layout.target):
        mount = item.get("mount") or {}
        devices = [str(d.get("path")) for d in item.get("devices") or [] if isinstance(d, dict)]
        if (
            mount.get("point") == layout.mount.point
            and item.get("volume") == layout.volume
            and sorted(devices) == sorted(layout.device_paths)
        ):
            return item
    return None


def not_recorded_refusal(
    layout: Layout, state_dir: Path | None, not_built_confirm: list[str] | None = None
) -> Refusal | None:
    """Teardown: refuse a layout bench-gui has no record of building, unless the user typed
    its devices once more (``not_built_confirm``) to say it was not built here and may go.

    Pure but for reading the records; None when the teardown may go on.
    """
    if not_built_confirm is not None:
        typed = _typed_devices(not_built_confirm)
        if sorted(set(typed)) == sorted(layout.device_paths):
            return None
        return Refusal(
            NOT_RECORDED_FIELD,
            "",
            "to tear down a layout that bench-gui did not build, type every device of it"
            f" again ({', '.join(layout.device_paths)}); typed: {', '.join(typed) or 'nothing'}",
        )
    if _recorded_as(layout, state_dir) is not None:
        return None
    point = layout.mount.point
    records = recorded_layouts(state_dir, layout.target) if state_dir is not None else []
    same_point = [r for r in records if (r.get("mount") or {}).get("point") == point]
    if same_point:
        built = [str(d.get("path")) for d in same_point[0].get("devices") or []]
        what = (
            f"the layout bench-gui built on {point} of {layout.target} is over"
            f" {', '.join(built) or '?'}, not {', '.join(layout.device_paths)}"
        )
    else:
        what = (
            f"bench-gui has no record of building {layout.name!r} on {layout.target}"
            f" ({point} over {', '.join(layout.device_paths)})"
        )
    return Refusal(
        NOT_RECORDED_FIELD,
        "",
        f"{what}: it tears down only the layouts it built. If this one was not built by"
        " bench-gui and is to be destroyed, confirm that separately by typing its devices"
        " again",
    )


def other_host_refusal(layout: Layout, state_dir: Path | None, host: str) -> list[Refusal]:
    """The record names another host than the one the target reaches now."""
    record = _recorded_as(layout, state_dir)
    built_on = str((record or {}).get("host") or "")
    if not built_on or not host or built_on == host:
        return []
    return [
        Refusal(
            NOT_RECORDED_FIELD,
            "",
            f"{layout.name!r} was built on host {built_on}, but target {layout.target} now"
            f" reaches {host}: bench-gui did not build it there. If it is to be destroyed"
            " anyway, confirm that separately by typing its devices again",
        )
    ]
