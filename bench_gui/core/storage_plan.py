"""A storage layout's exact commands: :func:`build_plan` turns a layout
(:class:`~bench_gui.core.storage.Layout`) into a :class:`StoragePlan` (argument lists, never
shell strings, in the order the seeds' test sequence runs them: erase, RAID, mkfs, mount,
read-ahead and scheduler, ownership for the database user), which the user reviews and
confirms by typing the device names; :func:`build_teardown` is the same for taking a layout
down. Nothing here runs anything.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Any, Final

from bench_gui.core.storage import ATA_ERASE_PASSWORD, ERASE_METHODS, DeviceSpec, Layout


@dataclass(frozen=True)
class Step:
    """One command of a plan. ``input`` goes to its stdin (the value written to a sysfs file).

    ``wait`` names what the applier polls after the command (``resync:/dev/md0``,
    ``sanitize:/dev/nvme0``); ``expect`` is a regular expression the output must match (a
    check such as "not frozen"); an ``optional`` step's failure is reported, not fatal.
    """

    phase: str
    title: str
    argv: tuple[str, ...]
    device: str = ""
    destructive: bool = False
    input: str | None = None
    wait: str = ""
    expect: str = ""
    optional: bool = False
    timeout_s: float = 600.0

    def display(self) -> str:
        """The command as a user would type it (quoted for a POSIX shell)."""
        text = shlex.join(self.argv)
        if self.input is not None:
            text += f" <<< {shlex.quote(self.input.strip())}"
        return text

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "phase": self.phase,
            "title": self.title,
            "argv": list(self.argv),
            "command": self.display(),
            "destructive": self.destructive,
        }
        if self.device:
            out["device"] = self.device
        if self.input is not None:
            out["input"] = self.input
        if self.wait:
            out["wait"] = self.wait
        if self.expect:
            out["expect"] = self.expect
        if self.optional:
            out["optional"] = True
        return out


@dataclass
class StoragePlan:
    """The steps of an apply (or a teardown), the devices to confirm, and notes for the user."""

    layout: Layout
    action: str  # apply | teardown
    steps: list[Step]
    notes: list[str] = field(default_factory=list)

    @property
    def confirm_devices(self) -> list[str]:
        """The names the user types to let the plan run: every device it destroys."""
        return self.layout.device_paths

    def to_dict(self) -> dict[str, Any]:
        return {
            "layout": self.layout.name,
            "target": self.layout.target,
            "action": self.action,
            "volume": self.layout.volume,
            "mount_point": self.layout.mount.point,
            "confirm": self.confirm_devices,
            "steps": [s.to_dict() for s in self.steps],
            "notes": list(self.notes),
        }

    def commands(self) -> list[str]:
        return [s.display() for s in self.steps]


LONG: Final = 48 * 3600.0  # erase and mkfs of large devices: hours, not minutes


def nvme_controller(path: str) -> str:
    """``/dev/nvme0n1`` -> ``/dev/nvme0`` (sanitize acts on the controller)."""
    m = re.match(r"^(/dev/nvme[0-9]+)n[0-9]+$", path)
    return m.group(1) if m else path


def erase_steps(spec: DeviceSpec) -> list[Step]:
    """The commands that erase one device by its method."""
    dev = spec.path
    method = spec.erase
    label = ERASE_METHODS[method].label if method in ERASE_METHODS else method

    def step(argv: list[str], title: str = "", **kw: Any) -> Step:
        return Step("erase", title or f"{label}: {dev}", tuple(argv), dev, True, **kw)

    if method == "format-only":
        return [step(["wipefs", "--all", "--", dev], f"Wipe old signatures: {dev}")]
    if method == "discard":
        return [step(["blkdiscard", "--verbose", "--", dev], timeout_s=LONG)]
    if method == "secure-discard":
        return [step(["blkdiscard", "--verbose", "--secure", "--", dev], timeout_s=LONG)]
    if method == "zeroout":
        return [step(["blkdiscard", "--verbose", "--zeroout", "--", dev], timeout_s=LONG)]
    if method in ("nvme-format", "nvme-crypto-format"):
        ses = "1" if method == "nvme-format" else "2"
        return [step(["nvme", "format", dev, f"--ses={ses}", "--force"], timeout_s=LONG)]
    if method in ("nvme-sanitize-block", "nvme-sanitize-crypto"):
        ctrl = nvme_controller(dev)
        action = "start-block-erase" if method == "nvme-sanitize-block" else "start-crypto-erase"
        return [step(["nvme", "sanitize", ctrl, "-a", action], wait=f"sanitize:{ctrl}")]
    if method in ("sg-sanitize-block", "sg-sanitize-crypto"):
        kind = "--block" if method == "sg-sanitize-block" else "--crypto"
        return [step(["sg_sanitize", "--quick", kind, dev], timeout_s=LONG)]
    if method in ("ata-secure-erase", "ata-enhanced-erase"):
        erase = "--security-erase" if method == "ata-secure-erase" else "--security-erase-enhanced"
        return [
            Step(
                "erase",
                f"Check that {dev} is not frozen",
                ("hdparm", "-I", dev),
                dev,
                expect=r"not\s+frozen",
            ),
            step(
                ["hdparm", "--user-master", "u", "--security-set-pass", ATA_ERASE_PASSWORD, dev],
                f"Set a temporary ATA security password: {dev}",
            ),
            step(["hdparm", "--user-master", "u", erase, ATA_ERASE_PASSWORD, dev], timeout_s=LONG),
        ]
    raise ValueError(f"unknown erase method {method!r}")


def mkfs_argv(layout: Layout) -> list[str]:
    """The mkfs command for the layout's filesystem (stripe-aligned on arrays)."""
    fs = layout.filesystem
    array = layout.array
    chunk = array.chunk_kib
    width = layout.data_devices()
    align = fs.stripe_align and layout.uses_md
    if fs.type == "xfs":
        argv = ["mkfs.xfs"]
        if not fs.discard:
            argv.append("-K")
        if align:
            argv += ["-d", f"su={chunk}k,sw={width}"]
        if fs.label:
            argv += ["-L", fs.label]
        return [*argv, *fs.options, "--", layout.volume]
    if fs.type == "ext4":
        argv = ["mkfs.ext4", "-q"]
        extended = [] if fs.discard else ["nodiscard"]
        if align:
            stride = max(1, chunk // 4)  # in 4 KiB blocks
            extended += [f"stride={stride}", f"stripe_width={stride * width}"]
        if extended:
            argv += ["-E", ",".join(extended)]
        if fs.label:
            argv += ["-L", fs.label]
        return [*argv, *fs.options, "--", layout.volume]
    # btrfs: over the md array, a single device, or all devices with a RAID profile.
    argv = ["mkfs.btrfs"]
    if not fs.discard:
        argv.append("--nodiscard")
    if fs.label:
        argv += ["--label", fs.label]
    if array.level != "single" and array.backend == "btrfs":
        profile = f"raid{array.level}"
        argv += ["--data", profile, "--metadata", profile]
        return [*argv, *fs.options, "--", *layout.device_paths]
    return [*argv, *fs.options, "--", layout.volume]


def mount_options(layout: Layout) -> str:
    return ",".join(layout.mount.options) or "defaults"


def build_plan(layout: Layout) -> StoragePlan:
    """The exact commands that build ``layout`` from its devices, in order."""
    steps: list[Step] = []
    notes: list[str] = []
    array = layout.array
    for spec in layout.devices:
        steps.extend(erase_steps(spec))
    if layout.uses_md:
        argv = [
            "mdadm",
            "--create",
            array.device,
            "--run",
            "--metadata=1.2",
            f"--level={array.level}",
            f"--raid-devices={len(layout.devices)}",
        ]
        if array.level != "1":
            argv.append(f"--chunk={array.chunk_kib}K")
        if array.resync == "skip":
            argv.append("--assume-clean")
        argv += ["--", *layout.device_paths]
        level_name = f"RAID {array.level}"
        steps.append(
            Step(
                "array",
                f"Create the {level_name} array {array.device}",
                tuple(argv),
                array.device,
                True,
                timeout_s=300,
            )
        )
        if array.resync == "skip":
            notes.append(
                "The initial resync is skipped (--assume-clean): every member is fully"
                " discarded or zeroed first, so the mirrors already agree."
            )
        else:
            steps.append(
                Step(
                    "resync",
                    f"Wait for the initial resync of {array.device}",
                    ("cat", "/proc/mdstat"),
                    array.device,
                    wait=f"resync:{array.device}",
                    timeout_s=LONG,
                )
            )
            notes.append(
                "The initial resync runs before measuring (it would compete with the benchmark"
                " for the disks); its progress comes from /proc/mdstat."
            )
        notes.append(
            f"{array.device} is not written to mdadm.conf: after a reboot, assemble it with"
            f" mdadm --assemble {array.device} {' '.join(layout.device_paths)}."
        )
    fs_title = f"Make an {layout.filesystem.type.upper()} filesystem on {layout.volume}"
    if layout.filesystem.type == "btrfs" and array.level != "single" and array.backend == "btrfs":
        fs_title = f"Make a btrfs RAID {array.level} filesystem over {len(layout.devices)} devices"
    elif layout.filesystem.type != "xfs":
        fs_title = fs_title.replace("an EXT4", "an ext4").replace("an BTRFS", "a btrfs")
    steps.append(
        Step("mkfs", fs_title, tuple(mkfs_argv(layout)), layout.volume, True, timeout_s=LONG)
    )
    if layout.filesystem.stripe_align and layout.uses_md and layout.filesystem.type != "btrfs":
        notes.append(
            f"Stripe alignment: {array.chunk_kib} KiB chunk × {layout.data_devices()} data devices."
        )
    point = layout.mount.point
    steps.append(Step("mount", f"Create the mount point {point}", ("mkdir", "-p", "--", point)))
    steps.append(
        Step(
            "mount",
            f"Mount {layout.volume} on {point}",
            (
                "mount",
                "-t",
                layout.filesystem.type,
                "-o",
                mount_options(layout),
                "--",
                layout.volume,
                point,
            ),
            layout.volume,
        )
    )
    for spec in layout.devices:
        name = spec.path.removeprefix("/dev/")
        if spec.read_ahead_kib is not None:
            steps.append(
                Step(
                    "tune",
                    f"Read-ahead of {spec.path}: {spec.read_ahead_kib} KiB",
                    ("blockdev", "--setra", str(spec.read_ahead_kib * 2), spec.path),
                    spec.path,
                )
            )
        if spec.scheduler:
            steps.append(
                Step(
                    "tune",
                    f"I/O scheduler of {spec.path}: {spec.scheduler}",
                    ("tee", f"/sys/block/{name}/queue/scheduler"),
                    spec.path,
                    input=spec.scheduler + "\n",
                )
            )
    if layout.uses_md and array.read_ahead_kib is not None:
        steps.append(
            Step(
                "tune",
                f"Read-ahead of {array.device}: {array.read_ahead_kib} KiB",
                ("blockdev", "--setra", str(array.read_ahead_kib * 2), array.device),
                array.device,
            )
        )
    if layout.mount.owner:
        owner = layout.mount.owner if ":" in layout.mount.owner else layout.mount.owner + ":"
        steps.append(
            Step(
                "owner",
                f"Give {point} to {layout.mount.owner.partition(':')[0]}",
                ("chown", "--", owner, point),
            )
        )
    if layout.mount.mode:
        steps.append(
            Step(
                "owner",
                f"Mode {layout.mount.mode} on {point}",
                ("chmod", "--", layout.mount.mode, point),
            )
        )
    notes.append("Nothing is written to /etc/fstab: the volume is mounted for this bench only.")
    return StoragePlan(layout=layout, action="apply", steps=steps, notes=notes)


def build_teardown(layout: Layout) -> StoragePlan:
    """The commands that take ``layout`` down: unmount, stop the array, wipe signatures."""
    steps: list[Step] = []
    point = layout.mount.point
    steps.append(Step("unmount", f"Unmount {point}", ("umount", "--", point), layout.volume))
    if layout.uses_md:
        md = layout.array.device
        steps.append(
            Step(
                "wipe",
                f"Wipe the filesystem signature of {md}",
                ("wipefs", "--all", "--", md),
                md,
                True,
            )
        )
        steps.append(Step("array", f"Stop the array {md}", ("mdadm", "--stop", md), md, True))
        steps.append(
            Step(
                "array",
                "Clear the md superblocks of the members",
                ("mdadm", "--zero-superblock", "--", *layout.device_paths),
                "",
                True,
            )
        )
    elif layout.filesystem.type == "btrfs" and len(layout.devices) > 1:
        steps.append(
            Step(
                "array",
                "Make the kernel forget the btrfs devices",
                ("btrfs", "device", "scan", "--forget", *layout.device_paths),
                optional=True,
            )
        )
    for spec in layout.devices:
        steps.append(
            Step(
                "wipe",
                f"Wipe signatures: {spec.path}",
                ("wipefs", "--all", "--", spec.path),
                spec.path,
                True,
            )
        )
    notes = [f"The mount point {point} itself is left in place (empty)."]
    return StoragePlan(layout=layout, action="teardown", steps=steps, notes=notes)
