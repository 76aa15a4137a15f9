"""Storage on a target: find the block devices and what uses them, build a layout, tear it down.

:func:`discover` lists the host's block devices (``lsblk -J``, parsed by the inventory's
parser) with the evidence of every current use, each from where it was read: mounts
(``/proc/self/mountinfo`` by major:minor and source), the root and boot filesystems' devices
(through ``slaves``/``holders`` and partition parents), ``/proc/swaps``, ``/proc/mdstat``,
non-empty ``/sys/class/block/*/holders``, signatures probed with ``blkid -p`` (RAID, LVM, ZFS and
LUKS members, members of a mounted multi-device btrfs), an ``O_EXCL`` open run on the host,
which the kernel refuses for any device something holds exclusively, and finally a process scan
run as root (parsed by :mod:`bench_gui.core.open_handles`): every process's open files and
memory maps, so a device merely held open (``exec 3</dev/sdb``, a ``dd`` reading it) is refused
with the pid and command that hold it. A scan that could not read every process is itself a
refusal, unless the user accepts it explicitly.

:func:`apply_layout` runs a :class:`~bench_gui.core.storage.StoragePlan` only after the user
typed every device name, and only if a fresh discovery finds no evidence against any device;
otherwise :class:`StorageRefused` lists each device with its evidence and nothing is touched.
Steps run one by one with a live log and a progress callback (the md resync from
``/proc/mdstat``). :func:`teardown_layout` undoes a layout with the same guards (what the
layout itself holds is expected; anything else refuses), and only a layout recorded as built by
bench-gui, unless the user types its devices once more to say it was not. :func:`describe_layout`
is the record of a built layout that is stored with every session measured on it.

Every command is an argument list run through the session (SSH, or :class:`LocalShell` for
this machine), so it lands in the command log and never passes through a shell with user data
in it: the two fixed scripts here take device names as arguments (``"$@"``), never as text.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final, NoReturn, Protocol

from bench_gui.core.open_handles import HandleScan, failed_scan, parse_handle_scan
from bench_gui.core.storage import (
    ERASE_METHODS,
    Layout,
    Step,
    StoragePlan,
    build_plan,
    build_teardown,
    mkfs_argv,
    normalize_device,
    parse_mdstat,
    valid_device_path,
)
from bench_gui.remote.connection import DEFAULT_TIMEOUT, CommandLogEntry, CommandResult
from bench_gui.remote.errors import CommandTimeout, NoSudo, SSHError
from bench_gui.remote.inventory import parse_lsblk_json
from bench_gui.remote.local_shell import LOCAL_TARGET, LocalShell

LSBLK_COLUMNS: Final = (
    "NAME,KNAME,PATH,TYPE,SIZE,MODEL,SERIAL,ROTA,TRAN,REV,FSTYPE,MOUNTPOINTS,PKNAME,MAJ:MIN,RO"
)
# util-linux before 2.37 has MOUNTPOINT (one) instead of MOUNTPOINTS.
LSBLK_FALLBACK: Final = (
    "NAME,KNAME,PATH,TYPE,SIZE,MODEL,SERIAL,ROTA,TRAN,REV,FSTYPE,MOUNTPOINT,PKNAME,MAJ:MIN,RO"
)
CANDIDATE_TYPES: Final = ("disk", "loop", "part")
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
TOOLS: Final = (
    "mdadm",
    "mkfs.xfs",
    "mkfs.ext4",
    "mkfs.btrfs",
    "btrfs",
    "blkdiscard",
    "wipefs",
    "blkid",
    "blockdev",
    "nvme",
    "sg_sanitize",
    "hdparm",
    "rsync",
    "python3",
    "perl",
)
BOOT_MOUNTS: Final = ("/boot", "/boot/efi", "/efi")
RESYNC_POLL_S: Final = 1.0
# The field names of the two refusals the user may override (each with its own explicit word).
UNREADABLE_FIELD: Final = "processes"
NOT_RECORDED_FIELD: Final = "recorded"

# Everything about the host but lsblk and blkid in one round trip: a fixed script, no data
# of ours in it. Sections start with "@@name"; sysfs facts are "key device value" lines.
_FACTS_SCRIPT: Final = r"""
printf '@@mountinfo\n'; cat /proc/self/mountinfo 2>/dev/null
printf '@@swaps\n'; cat /proc/swaps 2>/dev/null
if [ -r /proc/mdstat ]; then printf '@@mdstat\n'; cat /proc/mdstat; fi
printf '@@rootdev\n'; stat -c '%d' / 2>/dev/null
printf '@@hostname\n'; uname -n
printf '@@sysfs\n'
for d in /sys/class/block/*; do
  [ -e "$d" ] || continue
  n=${d##*/}
  printf 'dev %s %s\n' "$n" "$(cat "$d/dev" 2>/dev/null)"
  if [ -e "$d/partition" ]; then
    p=$(readlink -f "$d"); p=${p%/*}; printf 'parent %s %s\n' "$n" "${p##*/}"
  fi
  for h in "$d"/holders/*; do [ -e "$h" ] && printf 'holder %s %s\n' "$n" "${h##*/}"; done
  for s in "$d"/slaves/*; do [ -e "$s" ] && printf 'slave %s %s\n' "$n" "${s##*/}"; done
  [ -r "$d/queue/scheduler" ] && printf 'scheduler %s %s\n' "$n" "$(cat "$d/queue/scheduler")"
  for f in discard_max_bytes write_zeroes_max_bytes read_ahead_kb rotational; do
    [ -r "$d/queue/$f" ] && printf '%s %s %s\n' "$f" "$n" "$(cat "$d/queue/$f")"
  done
  [ -r "$d/ro" ] && printf 'ro %s %s\n' "$n" "$(cat "$d/ro")"
  [ -e "$d/device/scsi_device" ] && printf 'scsi %s 1\n' "$n"
done
printf '@@tools\n'
for t do command -v "$t" >/dev/null 2>&1 && printf '%s\n' "$t"; done
printf '@@end\n'
"""
# The exclusive-open test: O_EXCL on a block device fails (EBUSY) while anything holds it.
_EXCL_PYTHON: Final = r"""
import os, sys
for d in sys.argv[1:]:
    try:
        fd = os.open(d, os.O_RDONLY | os.O_EXCL | os.O_NONBLOCK)
    except OSError as e:
        print(d, e.errno, e.strerror)
    else:
        os.close(fd)
        print(d, "ok")
"""
_EXCL_PERL: Final = r"""
use Fcntl;
for my $d (@ARGV) {
  if (sysopen(my $fh, $d, O_RDONLY | O_EXCL | O_NONBLOCK)) { close($fh); print "$d ok\n"; }
  else { printf "%s %d %s\n", $d, $! + 0, "$!"; }
}
"""
# Who holds a device open without holding it exclusively (parsed by core.open_handles): every
# process's open files that point into /dev (their device numbers, by stat through the magic
# link: no file is opened, and nothing outside /dev is stat'ed, so a hung network mount cannot
# hang it), the memory maps that name one of the devices given as arguments, the commands of
# those processes, and device-mapper's open counts. Errors stay in their section (2>&1).
_HANDLES_SCRIPT: Final = r"""
export LC_ALL=C
printf '@@uid\n'; id -u
fds=$(find /proc/[0-9]*/fd -mindepth 1 -maxdepth 1 -lname '/dev/*' \
  -exec stat -L -c '%n %f %t %T' -- {} + 2>&1)
maps=
if [ "$#" -gt 0 ]; then
  pat=$(for d do printf ' %s\n' "$d"; done)
  maps=$(grep -H -F -e "$pat" /proc/[0-9]*/maps 2>&1)
fi
printf '@@fds\n%s\n@@maps\n%s\n@@comm\n' "$fds" "$maps"
for p in $(printf '%s\n%s\n' "$fds" "$maps" | sed -n 's#^[^/]*/proc/\([0-9][0-9]*\)/.*#\1#p' \
  | sort -un); do
  c=$(cat "/proc/$p/comm" 2>/dev/null) && printf '%s %s\n' "$p" "$c"
done
printf '@@dmopen\n'
if command -v dmsetup >/dev/null 2>&1; then
  dmsetup info -c --noheadings -o devno,open --separator ' ' 2>/dev/null
fi
printf '@@end\n'
"""


class Runner(Protocol):
    """What storage work needs of a session: SSHConnection and LocalShell both are one."""

    @property
    def label(self) -> str: ...

    @property
    def host(self) -> str: ...

    @property
    def user(self) -> str: ...

    command_log: list[CommandLogEntry]

    def run(
        self,
        argv: list[str],
        sudo: bool = False,
        timeout: float = 60.0,
        input: str | bytes | None = None,
        check: bool = False,
    ) -> CommandResult: ...

    def read_bytes(self, path: str, offset: int = 0, limit: int | None = None) -> bytes: ...

    def close(self) -> None: ...

    def log_command(
        self, command: str, exit_status: int | None, duration: float, started: float
    ) -> CommandLogEntry: ...


def open_runner(
    target: str,
    *,
    targets_file: Path,
    known_hosts: Path | None = None,
    accept_fingerprint: str | None = None,
    on_command: Callable[[CommandLogEntry], None] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> Runner:
    """A session to ``target``: "local" is this machine, anything else a saved SSH target."""
    if target == LOCAL_TARGET:
        return LocalShell(on_command=on_command)
    from bench_gui.remote.connection import connect
    from bench_gui.remote.targets import get_target

    ssh_target = get_target(target, targets_file)
    return connect(
        ssh_target, accept_fingerprint, timeout, known_hosts=known_hosts, on_command=on_command
    )


# ---- errors ------------------------------------------------------------------------------------


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


class StepFailed(StorageError):
    """A step of a running plan failed; ``result`` holds what was done up to there."""

    def __init__(self, message: str, result: ApplyResult) -> None:
        super().__init__(message)
        self.result = result


# ---- parsers (pure) ----------------------------------------------------------------------------


def _unescape(field: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


@dataclass
class Mount:
    major: int
    minor: int
    root: str
    point: str
    options: str
    fstype: str
    source: str
    super_options: str

    @property
    def dev(self) -> str:
        return f"{self.major}:{self.minor}"


def parse_mountinfo(text: str) -> list[Mount]:
    """``/proc/self/mountinfo`` lines -> mounts (octal escapes of paths decoded)."""
    mounts: list[Mount] = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        parts = left.split()
        tail = right.split()
        if len(parts) < 6 or len(tail) < 2:
            continue
        major, _, minor = parts[2].partition(":")
        try:
            major_n, minor_n = int(major), int(minor)
        except ValueError:
            continue
        mounts.append(
            Mount(
                major=major_n,
                minor=minor_n,
                root=_unescape(parts[3]),
                point=_unescape(parts[4]),
                options=parts[5],
                fstype=tail[0],
                source=_unescape(tail[1]),
                super_options=tail[2] if len(tail) > 2 else "",
            )
        )
    return mounts


def parse_swaps(text: str) -> list[str]:
    """``/proc/swaps`` -> the swap areas' file names (devices or files)."""
    out = []
    for line in text.splitlines()[1:]:
        parts = line.split()
        if parts:
            out.append(_unescape(parts[0]))
    return out


def parse_blkid_export(text: str) -> dict[str, dict[str, str]]:
    """``blkid -p -o export DEV...`` -> signatures by device (TYPE, UUID, PTTYPE, USAGE...)."""
    out: dict[str, dict[str, str]] = {}
    current: dict[str, str] = {}
    for line in [*text.splitlines(), ""]:
        if not line.strip():
            if current.get("DEVNAME"):
                out[current["DEVNAME"]] = current
            current = {}
            continue
        key, sep, value = line.partition("=")
        if sep:
            current[key.strip()] = value.strip()
    return out


@dataclass
class SysBlock:
    """What ``/sys/class/block/NAME`` tells about one block device."""

    name: str
    dev: str = ""
    parent: str = ""
    holders: list[str] = field(default_factory=list)
    slaves: list[str] = field(default_factory=list)
    scheduler: str = ""
    schedulers: list[str] = field(default_factory=list)
    discard_max_bytes: int | None = None
    write_zeroes_max_bytes: int | None = None
    read_ahead_kb: int | None = None
    rotational: bool | None = None
    ro: bool = False
    scsi: bool = False


def parse_sysfs(text: str) -> dict[str, SysBlock]:
    blocks: dict[str, SysBlock] = {}
    for line in text.splitlines():
        parts = line.split(" ", 2)
        if len(parts) < 2:
            continue
        key, name = parts[0], parts[1].replace("!", "/")
        value = parts[2].strip() if len(parts) > 2 else ""
        block = blocks.setdefault(name, SysBlock(name))
        if key == "dev":
            block.dev = value
        elif key == "parent":
            block.parent = value.replace("!", "/")
        elif key == "holder":
            block.holders.append(value.replace("!", "/"))
        elif key == "slave":
            block.slaves.append(value.replace("!", "/"))
        elif key == "scheduler":
            names = value.split()
            block.schedulers = [n.strip("[]") for n in names]
            block.scheduler = next((n.strip("[]") for n in names if n.startswith("[")), "")
        elif key in ("discard_max_bytes", "write_zeroes_max_bytes", "read_ahead_kb"):
            try:
                setattr(block, key, int(value))
            except ValueError:
                pass
        elif key == "rotational":
            block.rotational = value == "1"
        elif key == "ro":
            block.ro = value == "1"
        elif key == "scsi":
            block.scsi = True
    return blocks


def parse_excl(text: str) -> dict[str, str]:
    """The exclusive-open test's output -> "ok", or the error, by device."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        dev, _, rest = line.partition(" ")
        if dev.startswith("/dev/"):
            out[dev] = rest.strip()
    return out


def _sections(text: str) -> dict[str, str]:
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("@@"):
            current = out.setdefault(line[2:].strip(), [])
            continue
        if current is not None:
            current.append(line)
    return {k: "\n".join(v) + ("\n" if v else "") for k, v in out.items()}


# ---- discovery ---------------------------------------------------------------------------------


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


def _flatten_lsblk(raw_doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Every node of ``lsblk -J`` (children included), parents first; PKNAME filled in."""
    out: list[dict[str, Any]] = []
    parsed = parse_lsblk_json(json.dumps(raw_doc))

    def walk(parsed_nodes: list[dict[str, Any]], raw_nodes: list[Any], parent: str) -> None:
        raws = [r for r in raw_nodes if isinstance(r, dict)]
        for node, raw in zip(parsed_nodes, raws, strict=False):
            entry = dict(node)
            entry.pop("children", None)
            entry["kname"] = str(raw.get("kname") or raw.get("name") or "")
            entry["dev"] = str(raw.get("maj:min") or "")
            entry["pkname"] = str(raw.get("pkname") or "") or parent
            entry["ro"] = raw.get("ro") in (True, 1, "1")
            out.append(entry)
            walk(node.get("children") or [], raw.get("children") or [], entry["kname"])

    walk(parsed, raw_doc.get("blockdevices") or [], "")
    return out


def _lsblk(runner: Runner, notes: list[str]) -> dict[str, Any]:
    last = ""
    for columns in (LSBLK_COLUMNS, LSBLK_FALLBACK):
        result = runner.run(["lsblk", "-J", "-b", "-o", columns], timeout=60)
        if result.ok:
            try:
                doc = json.loads(result.stdout)
            except ValueError as exc:
                raise StorageError(f"lsblk -J printed something else than JSON: {exc}") from None
            return doc if isinstance(doc, dict) else {}
        last = result.first_error_line()
        if result.exit_status == 127:
            break
    raise StorageError(f"cannot list the block devices of {runner.label}: lsblk: {last}")


def _excl_test(
    runner: Runner, paths: list[str], tools: list[str], notes: list[str]
) -> dict[str, str]:
    if not paths:
        return {}
    if "python3" in tools:
        argv = ["python3", "-c", _EXCL_PYTHON, *paths]
    elif "perl" in tools:
        argv = ["perl", "-e", _EXCL_PERL, *paths]
    else:
        notes.append("no python3 or perl on the host: the exclusive-open test could not run")
        return {p: "untested: no python3 or perl on the host" for p in paths}
    try:
        result = runner.run(argv, sudo=True, timeout=60)
    except NoSudo as exc:
        notes.append(f"the exclusive-open test needs root: {exc}")
        return {p: "untested: no root access" for p in paths}
    found = parse_excl(result.stdout)
    if not result.ok and not found:
        notes.append(f"exclusive-open test failed: {result.first_error_line()}")
    return {p: found.get(p, f"untested: {result.first_error_line()}") for p in paths}


def _handle_scan(runner: Runner, paths: list[str], notes: list[str]) -> HandleScan:
    """Read, as root where possible, which processes hold the host's devices open."""
    argv = ["sh", "-c", _HANDLES_SCRIPT, "sh", *paths]
    try:
        try:
            result = runner.run(argv, sudo=True, timeout=60)
        except NoSudo as exc:
            notes.append(f"the process scan needs root to see every process: {exc}")
            result = runner.run(argv, timeout=60)
        if "@@end" not in result.stdout and result.exit_status == 127:  # no sudo at all here
            result = runner.run(argv, timeout=60)
    except CommandTimeout:
        return failed_scan("the process scan did not finish in 60 s")
    if "@@end" not in result.stdout:
        return failed_scan(f"the process scan failed: {result.first_error_line()}")
    scan = parse_handle_scan(result.stdout)
    if not scan.complete:
        notes.append(f"open handles: {scan.problem()}")
    return scan


def discover(runner: Runner, *, exclusive_test: bool = True) -> Discovery:
    """The host's block devices with the evidence of their use (read-only: changes nothing).

    ``exclusive_test`` also runs the open tests: the ``O_EXCL`` open and the process scan.
    """
    notes: list[str] = []
    doc = _lsblk(runner, notes)
    facts = runner.run(["sh", "-c", _FACTS_SCRIPT, "sh", *TOOLS], timeout=60)
    if "@@end" not in facts.stdout:
        raise StorageError(
            f"cannot read the block device facts of {runner.label}: {facts.first_error_line()}"
        )
    sections = _sections(facts.stdout)
    tools = sections.get("tools", "").split()
    nodes = _flatten_lsblk(doc)
    probe = [
        str(n["path"])
        for n in nodes
        if n.get("type") in CANDIDATE_TYPES and (n.get("size_bytes") or 0) > 0 and n.get("path")
    ]
    signatures: dict[str, dict[str, str]] = {}
    if probe and "blkid" in tools:
        try:
            blkid = runner.run(
                ["blkid", "-p", "-o", "export", "--", *probe], sudo=True, timeout=120
            )
        except NoSudo as exc:
            notes.append(f"blkid -p needs root: {exc}")
        else:
            signatures = parse_blkid_export(blkid.stdout)
            if blkid.exit_status not in (0, 2) and not signatures:
                notes.append(f"blkid -p: {blkid.first_error_line()}")
    elif probe:
        notes.append("blkid is missing: signatures come from lsblk only")
    excl = _excl_test(runner, probe, tools, notes) if exclusive_test else {}
    handles = None
    if exclusive_test:
        names = [str(n["path"]) for n in nodes if n.get("path")]
        names += [f"/dev/{n['kname']}" for n in nodes if n.get("kname")]
        handles = _handle_scan(runner, list(dict.fromkeys(names)), notes)
    disc = analyse(
        nodes,
        sections,
        signatures,
        excl,
        tools,
        host=(sections.get("hostname", "").strip() or runner.host),
        notes=notes,
        handles=handles,
    )
    disc.collected_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return disc


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
        out.append(
            Evidence(
                "member", f"is {MEMBER_SIGNATURES[fstype]} (signature {fstype})", "blkid -p", path
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


# ---- guards ------------------------------------------------------------------------------------


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


def check_layout(
    layout: Layout, disc: Discovery, action: str = "apply", *, accept_unreadable: bool = False
) -> list[Refusal]:
    """Everything that stops ``layout`` from being applied (or torn down) on this host.

    ``accept_unreadable`` is the user's explicit word that a process scan which could not read
    every process (no root, or processes even root may not read) is good enough; a process
    that the scan did find holding a device refuses whatever it says.
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


# ---- running a plan ----------------------------------------------------------------------------


@dataclass
class Progress:
    """Where a running plan is: step ``index`` of ``count``, and how far within it."""

    index: int
    count: int
    title: str
    fraction: float | None = None  # within the step, when known (resync)
    detail: str = ""

    @property
    def overall(self) -> float:
        within = self.fraction if self.fraction is not None else 0.0
        return min(1.0, (self.index + within) / max(1, self.count))


@dataclass
class StepOutcome:
    index: int
    phase: str
    title: str
    command: str
    status: str  # ok, failed, skipped, warning
    exit_status: int | None = None
    duration_s: float = 0.0
    output: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ApplyResult:
    """What an apply (or a teardown) did, step by step."""

    action: str
    layout: str
    target: str
    host: str
    steps: list[StepOutcome] = field(default_factory=list)
    ok: bool = False
    error: str = ""
    resync: dict[str, Any] | None = None
    description: dict[str, Any] | None = None
    started_at: str = ""
    finished_at: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "layout": self.layout,
            "target": self.target,
            "host": self.host,
            "ok": self.ok,
            "error": self.error,
            "resync": self.resync,
            "steps": [s.to_dict() for s in self.steps],
            "description": self.description,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
        }


LogFn = Callable[[str], None]
ProgressFn = Callable[[Progress], None]


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _tail(text: str, lines: int = 40) -> str:
    rows = [r for r in text.splitlines() if r.strip()]
    return "\n".join(rows[-lines:])


class _Executor:
    """Runs steps on a runner, reporting as it goes."""

    def __init__(
        self,
        runner: Runner,
        result: ApplyResult,
        on_log: LogFn | None,
        on_progress: ProgressFn | None,
        cancel: threading.Event | None,
    ) -> None:
        self.runner = runner
        self.result = result
        self.on_log = on_log
        self.on_progress = on_progress
        self.cancel = cancel

    def log(self, text: str) -> None:
        if self.on_log is not None:
            for line in text.splitlines() or [""]:
                self.on_log(line)

    def progress(self, p: Progress) -> None:
        if self.on_progress is not None:
            self.on_progress(p)

    def cancelled(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()

    def run_steps(self, steps: list[Step], skip: dict[int, str] | None = None) -> None:
        skip = skip or {}
        count = len(steps)
        for i, step in enumerate(steps):
            if self.cancelled():
                self.result.error = "cancelled before step " + str(i + 1)
                raise StepFailed(f"cancelled before step {i + 1} ({step.title})", self.result)
            self.progress(Progress(i, count, step.title))
            if i in skip:
                self.log(f"[{i + 1}/{count}] {step.title}: skipped ({skip[i]})")
                self.result.steps.append(
                    StepOutcome(
                        i, step.phase, step.title, step.display(), "skipped", output=skip[i]
                    )
                )
                continue
            self.log(f"[{i + 1}/{count}] {step.title}")
            if step.wait.startswith("resync:"):
                self._wait_resync(i, count, step)
                continue
            self.log(f"$ {step.display()}")
            t0 = time.monotonic()
            try:
                res = self.runner.run(
                    list(step.argv), sudo=True, timeout=step.timeout_s, input=step.input
                )
            except SSHError as exc:
                self._fail(i, step, None, time.monotonic() - t0, str(exc))
            output = res.stdout + ("\n" if res.stdout and res.stderr else "") + res.stderr
            shown = _tail(output, 200)
            if shown and not (step.input is not None and shown.strip() == step.input.strip()):
                self.log(shown)
            ok = res.ok
            reason = res.first_error_line() if not ok else ""
            if ok and step.expect and not re.search(step.expect, output):
                ok = False
                reason = f"the output does not show {step.expect!r}"
            if not ok and step.optional:
                self.log(f"  (optional step failed: {reason}; going on)")
                self.result.steps.append(
                    StepOutcome(
                        i,
                        step.phase,
                        step.title,
                        step.display(),
                        "warning",
                        res.exit_status,
                        res.duration,
                        _tail(output),
                    )
                )
                continue
            if not ok:
                self._fail(i, step, res.exit_status, res.duration, reason, _tail(output))
            self.result.steps.append(
                StepOutcome(
                    i,
                    step.phase,
                    step.title,
                    step.display(),
                    "ok",
                    res.exit_status,
                    res.duration,
                    _tail(output),
                )
            )
            if step.wait.startswith("sanitize:"):
                self._wait_sanitize(i, count, step)
        self.progress(Progress(count, count, "done", 1.0))

    def _fail(
        self,
        i: int,
        step: Step,
        exit_status: int | None,
        duration: float,
        reason: str,
        output: str = "",
    ) -> NoReturn:
        self.result.steps.append(
            StepOutcome(
                i,
                step.phase,
                step.title,
                step.display(),
                "failed",
                exit_status,
                duration,
                output or reason,
            )
        )
        message = f"step {i + 1} ({step.title}) failed: {reason}"
        self.result.error = message
        self.log(f"FAILED: {message}")
        raise StepFailed(message, self.result)

    def _read(self, path: str) -> str:
        try:
            return self.runner.read_bytes(path).decode("utf-8", errors="replace")
        except (OSError, SSHError):
            res = self.runner.run(["cat", "--", path], timeout=30)
            return res.stdout

    def _wait_resync(self, i: int, count: int, step: Step) -> None:
        md = step.wait.partition(":")[2]
        name = md
        if md.startswith("/dev/md/"):  # a named array: its kernel name is md127 or so
            real = self.runner.run(["readlink", "-f", "--", md], timeout=30)
            name = real.stdout.strip() if real.ok and real.stdout.strip() else md
        name = name.removeprefix("/dev/")
        started = time.time()
        t0 = time.monotonic()
        last_logged = -10.0
        while True:
            text = self._read("/proc/mdstat")
            arrays = parse_mdstat(text)
            array = arrays.get(name)
            if array is None:
                self._fail(i, step, None, time.monotonic() - t0, f"{md} is not in /proc/mdstat")
            if not array.syncing:
                break
            pct = array.percent
            detail = (
                f"{array.action or 'resync'} {pct:.1f} %" if pct is not None else "resync pending"
            )
            if array.finish:
                detail += f", about {array.finish} left at {array.speed}"
            self.progress(Progress(i, count, step.title, (pct or 0.0) / 100, detail))
            if pct is not None and pct - last_logged >= 10:
                self.log(f"  {detail}")
                last_logged = pct
            if self.cancelled():
                seconds = time.monotonic() - t0
                self.result.resync = {
                    "policy": "wait",
                    "done": False,
                    "seconds": round(seconds, 1),
                    "text": f"the wait for the initial resync was cancelled at {detail}: the"
                    " array is still resyncing, measurements would compete with it",
                }
                self.runner.log_command("wait for the resync (cancelled)", None, seconds, started)
                self._fail(i, step, None, seconds, "cancelled while waiting for the resync")
            time.sleep(RESYNC_POLL_S)
        seconds = time.monotonic() - t0
        text = f"waited {seconds:.0f} s for the initial resync to finish before measuring"
        self.result.resync = {
            "policy": "wait",
            "done": True,
            "seconds": round(seconds, 1),
            "text": text,
        }
        self.log(f"  {text}")
        self.runner.log_command(f"wait until /proc/mdstat shows {md} in sync", 0, seconds, started)
        self.result.steps.append(
            StepOutcome(i, step.phase, step.title, "wait for /proc/mdstat", "ok", 0, seconds, text)
        )

    def _wait_sanitize(self, i: int, count: int, step: Step) -> None:
        ctrl = step.wait.partition(":")[2]
        t0 = time.monotonic()
        while True:
            res = self.runner.run(["nvme", "sanitize-log", ctrl], sudo=True, timeout=60)
            m = re.search(r"\(SPROG\)\s*:\s*(\d+)", res.stdout)
            if not res.ok or m is None:
                self._fail(
                    i,
                    step,
                    res.exit_status,
                    time.monotonic() - t0,
                    f"cannot read the sanitize progress: {res.first_error_line()}",
                )
            sprog = int(m.group(1))
            if sprog >= 65535:
                break
            self.progress(
                Progress(i, count, step.title, sprog / 65536, f"sanitize {sprog / 655.36:.1f} %")
            )
            time.sleep(5)


def _resync_note(layout: Layout) -> dict[str, Any] | None:
    if layout.array.level == "single":
        return None
    if layout.array.backend == "btrfs":
        return {
            "policy": "none",
            "done": True,
            "text": "btrfs RAID: no initial resync (mirrors are written as data arrives)",
        }
    if layout.array.resync == "skip":
        return {
            "policy": "skip",
            "done": True,
            "text": "initial resync skipped (--assume-clean) after a full discard or zeroing"
            " of every member",
        }
    return None


def apply_layout(
    runner: Runner,
    layout: Layout,
    confirm: Iterable[str],
    *,
    on_log: LogFn | None = None,
    on_progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
    state_dir: Path | None = None,
    accept_unreadable: bool = False,
) -> ApplyResult:
    """Build ``layout`` on the host after the guards; raise StorageRefused or StepFailed.

    ``confirm`` is what the user typed: every device of the layout, nothing else. A fresh
    discovery (with the exclusive-open test and the process scan) runs right before the first
    command; ``accept_unreadable`` see :func:`check_layout`. With ``state_dir`` the resulting
    description is recorded there (see :func:`record_layout`).
    """
    check_paths(layout)
    plan = build_plan(layout)
    check_confirmation(plan, confirm)
    log = on_log or (lambda _line: None)
    log(f"Checking the devices on {runner.label}…")
    disc = discover(runner)
    refusals = check_layout(layout, disc, "apply", accept_unreadable=accept_unreadable)
    if refusals:
        raise StorageRefused(refusals, disc.host)
    result = ApplyResult("apply", layout.name, layout.target, disc.host, started_at=_now())
    result.resync = _resync_note(layout)
    executor = _Executor(runner, result, on_log, on_progress, cancel)
    executor.run_steps(plan.steps)
    if result.resync and result.resync.get("policy") == "skip":
        log(result.resync["text"])
    after = discover(runner, exclusive_test=False)
    result.description = describe_layout(layout, after, result.resync)
    result.ok = True
    result.finished_at = _now()
    if state_dir is not None:
        record_layout(state_dir, result.description)
    log("Done: " + describe_line(result.description))
    return result


def _pgdata_evidence(runner: Runner, layout: Layout) -> list[Evidence]:
    point = layout.mount.point
    res = runner.run(
        [
            "find",
            point,
            "-xdev",
            "-maxdepth",
            "3",
            "(",
            "-name",
            "PG_VERSION",
            "-o",
            "-name",
            "PG_[0-9]*_[0-9]*",
            "-o",
            "-name",
            PLACEMENT_FILE,
            ")",
            "-print",
            "-quit",
        ],
        sudo=True,
        timeout=60,
    )
    found = res.stdout.strip()
    if res.ok and found:
        return [
            Evidence(
                "pgdata",
                f"{point} holds PostgreSQL data ({found}): restore the database first (db-restore)",
                "find on the mount",
                layout.volume,
            )
        ]
    return []


PLACEMENT_FILE: Final = ".bench-gui-placement.json"


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


def _other_host_refusal(layout: Layout, state_dir: Path | None, host: str) -> list[Refusal]:
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


def teardown_layout(
    runner: Runner,
    layout: Layout,
    confirm: Iterable[str],
    *,
    on_log: LogFn | None = None,
    on_progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
    state_dir: Path | None = None,
    accept_unreadable: bool = False,
    not_built_confirm: Iterable[str] | None = None,
) -> ApplyResult:
    """Unmount, stop the array and wipe the signatures, with the same guards as apply.

    Only a layout that bench-gui built and recorded in ``state_dir`` is taken down (same
    target, mount point and devices, on the same host): anything else is refused before the
    host is touched, unless ``not_built_confirm`` holds the layout's devices typed once more,
    the user's separate word that it was not built by bench-gui and may be destroyed.
    What the layout itself holds (its mount on ``mount.point``, its md array) is expected;
    any other use of a device refuses, and so does a mount that still holds PostgreSQL data.
    Steps whose object is already gone (not mounted, array stopped) are skipped and said so.
    """
    check_paths(layout)
    plan = build_teardown(layout)
    check_confirmation(plan, confirm)
    not_built = list(not_built_confirm) if not_built_confirm is not None else None
    record_refusal = not_recorded_refusal(layout, state_dir, not_built)
    if record_refusal is not None:
        raise StorageRefused([record_refusal])
    log = on_log or (lambda _line: None)
    log(f"Checking the devices on {runner.label}…")
    disc = discover(runner)
    refusals = check_layout(layout, disc, "teardown", accept_unreadable=accept_unreadable)
    if not_built is None:
        refusals += _other_host_refusal(layout, state_dir, disc.host)
    mounted = disc.mount_at(layout.mount.point)
    if mounted is not None and not refusals:
        pg = _pgdata_evidence(runner, layout)
        if pg:
            refusals.append(Refusal("database", layout.volume, "the volume holds a database", pg))
    if refusals:
        raise StorageRefused(refusals, disc.host)
    skip: dict[int, str] = {}
    md_name = layout.array.device.removeprefix("/dev/")
    md_present = layout.uses_md and (
        disc.find(layout.array.device) is not None or md_name in disc.md_arrays
    )
    for i, step in enumerate(plan.steps):
        if step.phase == "unmount" and mounted is None:
            skip[i] = f"{layout.mount.point} is not mounted"
        elif layout.uses_md and step.device == layout.array.device and not md_present:
            skip[i] = f"{layout.array.device} is not active"
    result = ApplyResult("teardown", layout.name, layout.target, disc.host, started_at=_now())
    _Executor(runner, result, on_log, on_progress, cancel).run_steps(plan.steps, skip)
    result.ok = True
    result.finished_at = _now()
    if state_dir is not None:
        forget_layout(state_dir, layout.target, layout.mount.point)
    log(f"Done: {layout.name} is taken down; its devices hold no signature any more.")
    return result


# ---- the description stored with sessions -----------------------------------------------------


def describe_layout(
    layout: Layout, disc: Discovery, resync: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The layout as built: what a session measured on it records (and comparisons show).

    Devices with model, serial, firmware, size, transport, erase method, the scheduler and
    read-ahead in force; the array (level, chunk, backend); the filesystem with its mkfs
    command and stripe geometry; the mount point and the options the kernel reports.
    """
    devices = []
    for spec in layout.devices:
        found = disc.find(spec.path)
        method = ERASE_METHODS.get(spec.erase)
        devices.append(
            {
                "path": spec.path,
                "model": found.model if found else None,
                "serial": found.serial if found else None,
                "firmware": found.firmware if found else None,
                "size_bytes": found.size_bytes if found else None,
                "rotational": found.rotational if found else None,
                "transport": found.transport if found else None,
                "erase": spec.erase,
                "erase_label": method.label if method else spec.erase,
                "scheduler": (found.scheduler or None) if found else None,
                "read_ahead_kib": found.read_ahead_kib if found else None,
            }
        )
    array: dict[str, Any] = {"level": layout.array.level}
    if layout.array.level != "single":
        array.update(backend=layout.array.backend, devices=len(layout.devices))
        if layout.array.backend == "mdadm":
            md = disc.find(layout.array.device)
            array.update(
                device=layout.array.device,
                read_ahead_kib=md.read_ahead_kib if md else None,
            )
            if layout.array.level != "1":
                array["chunk_kib"] = layout.array.chunk_kib
        if resync:
            array["resync"] = resync.get("text", "")
    mount = disc.mount_at(layout.mount.point)
    fs: dict[str, Any] = {
        "type": layout.filesystem.type,
        "mkfs": shlex.join(mkfs_argv(layout)),
    }
    if layout.filesystem.label:
        fs["label"] = layout.filesystem.label
    if layout.filesystem.stripe_align and layout.uses_md and layout.filesystem.type != "btrfs":
        fs["stripe"] = f"{layout.array.chunk_kib} KiB x {layout.data_devices()}"
    methods = sorted({spec.erase for spec in layout.devices})
    return {
        "name": layout.name,
        "target": layout.target,
        "host": disc.host,
        "volume": layout.volume,
        "devices": devices,
        "erase": ", ".join(methods),
        "array": array,
        "filesystem": fs,
        "mount": {
            "point": layout.mount.point,
            "options": _mount_options(mount) if mount else ",".join(layout.mount.options),
            "owner": layout.mount.owner,
        },
        "applied_at": _now(),
    }


def _mount_options(mount: Mount) -> str:
    """The per-mount and the filesystem's options, each once, as the kernel reports them."""
    items = [*mount.options.split(","), *mount.super_options.split(",")]
    return ",".join(dict.fromkeys(i for i in items if i))


def describe_line(description: dict[str, Any]) -> str:
    """One line: "4 x /dev/sdb… RAID 10 (512 KiB) xfs on /mnt/bench (noatime)"."""
    devices = description.get("devices") or []
    array = description.get("array") or {}
    level = array.get("level", "single")
    what = (
        f"{len(devices)} devices in RAID {level}"
        + (" (btrfs)" if array.get("backend") == "btrfs" else "")
        if level != "single"
        else (devices[0].get("path") if devices else "?")
    )
    if array.get("chunk_kib"):
        what += f", {array['chunk_kib']} KiB chunk"
    fs = (description.get("filesystem") or {}).get("type", "?")
    mount = description.get("mount") or {}
    return f"{what}, {fs} on {mount.get('point', '?')}"


# ---- recorded layouts (for sessions) -----------------------------------------------------------


def _records_path(state_dir: Path, target: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", target) or "local"
    return state_dir / f"{safe}.json"


def _load_records(state_dir: Path, target: str) -> dict[str, Any]:
    path = _records_path(state_dir, target)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"layouts": {}}
    if not isinstance(data, dict) or not isinstance(data.get("layouts"), dict):
        return {"layouts": {}}
    return data


def _save_records(state_dir: Path, target: str, data: dict[str, Any]) -> None:
    state_dir.mkdir(parents=True, exist_ok=True)
    path = _records_path(state_dir, target)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, default=str), encoding="utf-8")
    os.replace(tmp, path)


def record_layout(state_dir: Path, description: dict[str, Any]) -> None:
    """Remember a built layout (by target and mount point) until it is torn down."""
    target = str(description.get("target") or LOCAL_TARGET)
    data = _load_records(state_dir, target)
    point = str((description.get("mount") or {}).get("point") or description.get("volume"))
    data["layouts"][point] = description
    _save_records(state_dir, target, data)


def update_recorded_database(
    state_dir: Path, target: str, point: str, database: dict[str, Any] | None
) -> None:
    """Set (or clear, with None) where the database lives on a recorded layout."""
    data = _load_records(state_dir, target)
    layout = data["layouts"].get(point)
    if layout is None:
        return
    if database:
        layout["database"] = database
    else:
        layout.pop("database", None)
    _save_records(state_dir, target, data)


def forget_layout(state_dir: Path, target: str, point: str) -> None:
    data = _load_records(state_dir, target)
    if data["layouts"].pop(point, None) is not None:
        _save_records(state_dir, target, data)


def recorded_layouts(state_dir: Path, target: str) -> list[dict[str, Any]]:
    return list(_load_records(state_dir, target)["layouts"].values())


def session_layout(state_dir: Path, target: str) -> dict[str, Any] | None:
    """The layout a session on ``target`` measures: the one holding the database (with the
    WAL's layout under ``wal`` when WAL has its own device), else the only one recorded."""
    layouts = recorded_layouts(state_dir, target)
    holding = [item for item in layouts if item.get("database")]
    chosen = holding[0] if holding else (layouts[0] if len(layouts) == 1 else None)
    if chosen is None:
        return None
    chosen = dict(chosen)
    wal_dir = str((chosen.get("database") or {}).get("wal_directory") or "")
    if wal_dir:
        for item in layouts:
            point = str((item.get("mount") or {}).get("point") or "")
            if point and (wal_dir == point or wal_dir.startswith(point + "/")):
                chosen["wal"] = {k: v for k, v in item.items() if k != "database"}
    return chosen


__all__ = [
    "ApplyResult",
    "BlockDevice",
    "Discovery",
    "Evidence",
    "PLACEMENT_FILE",
    "Progress",
    "Refusal",
    "Runner",
    "StepFailed",
    "StorageError",
    "StorageRefused",
    "analyse",
    "apply_layout",
    "check_confirmation",
    "check_paths",
    "check_layout",
    "describe_layout",
    "not_recorded_refusal",
    "unreadable_refusal",
    "describe_line",
    "discover",
    "open_runner",
    "record_layout",
    "recorded_layouts",
    "session_layout",
    "teardown_layout",
]
