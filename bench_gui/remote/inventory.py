"""Hardware and OS inventory of a host, stored with every session.

A comparison is only as good as the record of what was compared: CPU, memory, kernel and
distribution, block devices (model, serial, size, rotational, transport, firmware, I/O
scheduler, read-ahead) and filesystems. The same inventory is taken over SSH and on this
machine (:class:`~bench_gui.remote.local_shell.LocalShell`); :func:`data_directory_storage`
adds where the database's data directory lives. Each item comes from the usual tool
(``lscpu -J``, ``lsblk -J``, ``findmnt -J``) with a fallback on ``/proc``; a tool that is
missing or too old leaves a note in ``notes`` instead of failing the inventory. The parsers
are pure functions, tested on captured output. (The database's version and settings come
from the agent's ``hello`` event.)
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any, Final, Protocol

from bench_gui.remote.connection import CommandResult
from bench_gui.remote.errors import SSHError

LSBLK_COLUMNS: Final = "NAME,PATH,TYPE,SIZE,MODEL,SERIAL,ROTA,TRAN,REV,FSTYPE,MOUNTPOINTS,SCHED,RA"
# util-linux before 2.37 has MOUNTPOINT (one) instead of MOUNTPOINTS, before 2.33 no PATH;
# SCHED and RA (the I/O scheduler, the read-ahead in KiB) are tried first, then left out.
LSBLK_FALLBACK_COLUMNS: Final = (
    "NAME,PATH,TYPE,SIZE,MODEL,SERIAL,ROTA,TRAN,REV,FSTYPE,MOUNTPOINTS",
    "NAME,PATH,TYPE,SIZE,MODEL,SERIAL,ROTA,TRAN,REV,FSTYPE,MOUNTPOINT",
    "NAME,TYPE,SIZE,MODEL,SERIAL,ROTA,TRAN,REV,FSTYPE,MOUNTPOINT",
)
FINDMNT_COLUMNS: Final = "TARGET,SOURCE,FSTYPE,OPTIONS,SIZE,AVAIL,USED"
PSEUDO_FILESYSTEMS: Final = frozenset(
    {
        "autofs", "binfmt_misc", "bpf", "cgroup", "cgroup2", "configfs", "debugfs", "devpts",
        "efivarfs", "fusectl", "hugetlbfs", "mqueue", "nsfs", "proc", "pstore", "rpc_pipefs",
        "securityfs", "selinuxfs", "sysfs", "tracefs", "devtmpfs", "ramfs",
    }
)  # fmt: skip
_UNAME_SCRIPT: Final = "uname -r; uname -v; uname -m; uname -n"


class Shell(Protocol):
    """Where an inventory runs its commands: an SSH connection, or this machine's LocalShell."""

    @property
    def host(self) -> str: ...

    def run(
        self,
        argv: list[str],
        sudo: bool = False,
        timeout: float = 60.0,
        input: str | bytes | None = None,
        check: bool = False,
    ) -> CommandResult: ...


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text)
        except ValueError:
            try:
                return int(float(text.replace(",", ".")))
            except ValueError:
                return None
    return None


def _bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value != 0
    if isinstance(value, str):
        if value.strip() in ("1", "true", "True"):
            return True
        if value.strip() in ("0", "false", "False"):
            return False
    return None


def _str(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


# -- CPU ---------------------------------------------------------------------------------------


def parse_lscpu_json(text: str) -> dict[str, Any]:
    """``lscpu -J`` (flat or, in newer versions, nested ``children``) -> CPU facts."""
    doc = json.loads(text)
    fields: dict[str, str] = {}

    def walk(items: list[Any]) -> None:
        for item in items:
            if not isinstance(item, dict):
                continue
            key = str(item.get("field", "")).strip().rstrip(":")
            if key and key not in fields and item.get("data") is not None:
                fields[key] = str(item["data"]).strip()
            walk(item.get("children") or [])

    walk(doc.get("lscpu") or [])
    return _cpu_from_fields(fields)


def _cpu_from_fields(fields: dict[str, str]) -> dict[str, Any]:
    threads = _int(fields.get("CPU(s)"))
    sockets = _int(fields.get("Socket(s)"))
    per_socket = _int(fields.get("Core(s) per socket")) or _int(fields.get("Core(s) per cluster"))
    per_core = _int(fields.get("Thread(s) per core"))
    cores = sockets * per_socket if sockets and per_socket else None
    if cores is None and threads and per_core:
        cores = threads // per_core
    out: dict[str, Any] = {
        "model": fields.get("Model name"),
        "vendor": fields.get("Vendor ID"),
        "architecture": fields.get("Architecture"),
        "sockets": sockets,
        "cores": cores,
        "threads": threads,
        "threads_per_core": per_core,
        "numa_nodes": _int(fields.get("NUMA node(s)")),
        "max_mhz": _float(fields.get("CPU max MHz")),
    }
    cache_keys = ("L1d cache", "L1i cache", "L2 cache", "L3 cache")
    caches = {k: fields[k] for k in cache_keys if k in fields}
    if caches:
        out["caches"] = caches
    if fields.get("Hypervisor vendor"):
        out["hypervisor"] = fields["Hypervisor vendor"]
    return out


def _float(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return float(value.replace(",", "."))
    except ValueError:
        return None


def parse_cpuinfo(text: str) -> dict[str, Any]:
    """``/proc/cpuinfo`` -> the same facts as :func:`parse_lscpu_json` (x86 and ARM)."""
    processors: list[dict[str, str]] = []
    current: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            if current:
                processors.append(current)
                current = {}
            continue
        key, sep, value = line.partition(":")
        if sep:
            current[key.strip()] = value.strip()
    if current:
        processors.append(current)
    procs = [p for p in processors if "processor" in p]
    threads = len(procs) or None
    model = next(
        (p.get("model name") or p.get("Model") or p.get("cpu model") for p in processors
         if p.get("model name") or p.get("Model") or p.get("cpu model")),
        None,
    )  # fmt: skip
    sockets_set = {p.get("physical id") for p in procs if p.get("physical id") is not None}
    cores_set = {(p.get("physical id"), p.get("core id")) for p in procs if p.get("core id")}
    sockets = len(sockets_set) or None
    cores = len(cores_set) or None
    return {
        "model": model,
        "vendor": next((p["vendor_id"] for p in procs if p.get("vendor_id")), None),
        "architecture": None,
        "sockets": sockets,
        "cores": cores,
        "threads": threads,
        "threads_per_core": threads // cores if threads and cores else None,
        "numa_nodes": None,
        "max_mhz": None,
    }


# -- memory, OS --------------------------------------------------------------------------------


def parse_meminfo(text: str) -> dict[str, Any]:
    """``/proc/meminfo`` -> bytes of RAM, available memory, swap and huge pages."""
    values: dict[str, int] = {}
    for line in text.splitlines():
        key, sep, rest = line.partition(":")
        if not sep:
            continue
        parts = rest.split()
        if not parts:
            continue
        number = _int(parts[0])
        if number is None:
            continue
        factor = 1024 if len(parts) > 1 and parts[1].lower() == "kb" else 1
        values[key.strip()] = number * factor
    return {
        "total_bytes": values.get("MemTotal"),
        "available_bytes": values.get("MemAvailable"),
        "swap_total_bytes": values.get("SwapTotal"),
        "hugepages_total": values.get("HugePages_Total"),
        "hugepage_size_bytes": values.get("Hugepagesize"),
    }


def parse_os_release(text: str) -> dict[str, Any]:
    """``/etc/os-release`` (shell-style KEY=value lines) -> the distribution."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        values[key.strip()] = value
    return {
        "pretty_name": values.get("PRETTY_NAME"),
        "id": values.get("ID"),
        "version_id": values.get("VERSION_ID"),
        "version_codename": values.get("VERSION_CODENAME"),
    }


# -- block devices, filesystems ----------------------------------------------------------------


def parse_lsblk_json(text: str) -> list[dict[str, Any]]:
    """``lsblk -J -b`` -> devices (children nested), values normalised across versions."""
    doc = json.loads(text)

    def device(raw: dict[str, Any]) -> dict[str, Any]:
        mounts = raw.get("mountpoints")
        if mounts is None:
            mounts = [raw.get("mountpoint")]
        out: dict[str, Any] = {
            "name": _str(raw.get("name")),
            "path": _str(raw.get("path")) or (f"/dev/{raw['name']}" if raw.get("name") else None),
            "type": _str(raw.get("type")),
            "size_bytes": _int(raw.get("size")),
            "model": _str(raw.get("model")),
            "serial": _str(raw.get("serial")),
            "rotational": _bool(raw.get("rota")),
            "transport": _str(raw.get("tran")),
            "firmware": _str(raw.get("rev")),
            "fstype": _str(raw.get("fstype")),
            "mountpoints": [m for m in mounts if m],
        }
        if "sched" in raw or "ra" in raw:
            out["scheduler"] = _str(raw.get("sched"))
            out["read_ahead_kib"] = _int(raw.get("ra"))
        children = [device(c) for c in raw.get("children") or [] if isinstance(c, dict)]
        if children:
            out["children"] = children
        return out

    return [device(d) for d in doc.get("blockdevices") or [] if isinstance(d, dict)]


def parse_findmnt_json(text: str) -> list[dict[str, Any]]:
    """``findmnt -J -b`` (a tree) -> a flat list of mounts, pseudo filesystems left out."""
    doc = json.loads(text)
    out: list[dict[str, Any]] = []

    def walk(items: list[Any]) -> None:
        for raw in items:
            if not isinstance(raw, dict):
                continue
            fstype = _str(raw.get("fstype"))
            if fstype not in PSEUDO_FILESYSTEMS:
                out.append(
                    {
                        "target": _str(raw.get("target")),
                        "source": _str(raw.get("source")),
                        "fstype": fstype,
                        "options": _str(raw.get("options")),
                        "size_bytes": _int(raw.get("size")),
                        "avail_bytes": _int(raw.get("avail")),
                        "used_bytes": _int(raw.get("used")),
                    }
                )
            walk(raw.get("children") or [])

    walk(doc.get("filesystems") or [])
    return out


def _unescape_mount(field: str) -> str:
    """/proc/mounts escapes space, tab, newline and backslash as octal."""
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(code, char)
    return field


def parse_proc_mounts(text: str) -> list[dict[str, Any]]:
    """``/proc/mounts`` -> the same list as :func:`parse_findmnt_json`, without sizes."""
    out: list[dict[str, Any]] = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 4 or parts[2] in PSEUDO_FILESYSTEMS:
            continue
        out.append(
            {
                "target": _unescape_mount(parts[1]),
                "source": _unescape_mount(parts[0]),
                "fstype": parts[2],
                "options": parts[3],
                "size_bytes": None,
                "avail_bytes": None,
                "used_bytes": None,
            }
        )
    return out


# -- collecting --------------------------------------------------------------------------------


def _run(session: Shell, argv: list[str], notes: list[str]) -> CommandResult | None:
    try:
        result = session.run(argv, timeout=60)
    except SSHError as exc:
        notes.append(f"{argv[0]}: {exc}")
        return None
    return result


def _try(
    notes: list[str], what: str, parse: Callable[[str], Any], result: CommandResult | None
) -> Any:
    if result is None:
        return None
    if not result.ok:
        notes.append(f"{what}: {result.first_error_line()}")
        return None
    try:
        return parse(result.stdout)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        notes.append(f"{what}: output not understood ({exc})")
        return None


def collect_inventory(session: Shell) -> dict[str, Any]:
    """The host's inventory; never fails on a missing tool (see ``notes``)."""
    notes: list[str] = []
    inventory: dict[str, Any] = {
        "collected_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "host": session.host,
        "notes": notes,
    }

    cpu = _try(notes, "lscpu -J", parse_lscpu_json, _run(session, ["lscpu", "-J"], notes))
    if not cpu or not cpu.get("threads"):
        fallback = _try(
            notes, "/proc/cpuinfo", parse_cpuinfo, _run(session, ["cat", "/proc/cpuinfo"], notes)
        )
        if fallback:
            cpu = {**fallback, **{k: v for k, v in (cpu or {}).items() if v is not None}}
    inventory["cpu"] = cpu or {}

    inventory["memory"] = (
        _try(notes, "/proc/meminfo", parse_meminfo, _run(session, ["cat", "/proc/meminfo"], notes))
        or {}
    )

    uname = _run(session, ["sh", "-c", _UNAME_SCRIPT], notes)
    if uname is not None and uname.ok:
        lines = uname.stdout.splitlines() + ["", "", "", ""]
        inventory["kernel"] = {
            "release": lines[0].strip() or None,
            "version": lines[1].strip() or None,
            "machine": lines[2].strip() or None,
        }
        inventory["hostname"] = lines[3].strip() or None
    else:
        inventory["kernel"] = {}
        if uname is not None:
            notes.append(f"uname: {uname.first_error_line()}")

    osr = _run(session, ["cat", "/etc/os-release"], notes)
    if osr is not None and not osr.ok:
        osr = _run(session, ["cat", "/usr/lib/os-release"], notes)
    inventory["os"] = _try(notes, "os-release", parse_os_release, osr) or {}

    devices = None
    attempts: list[str] = []
    for columns in (LSBLK_COLUMNS, *LSBLK_FALLBACK_COLUMNS):
        result = _run(session, ["lsblk", "-J", "-b", "-o", columns], notes)
        if result is None:
            break
        if result.ok:
            devices = _try(notes, "lsblk -J", parse_lsblk_json, result)
            break
        attempts.append(result.first_error_line())
        if result.exit_status == 127:
            break
    if devices is None and attempts:
        notes.append(f"lsblk: {attempts[-1]}")
    inventory["block_devices"] = devices or []

    mounts = None
    result = _run(session, ["findmnt", "-J", "-b", "-o", FINDMNT_COLUMNS], notes)
    if result is not None and result.ok:
        mounts = _try(notes, "findmnt -J", parse_findmnt_json, result)
    else:
        if result is not None:
            notes.append(f"findmnt: {result.first_error_line()}; sizes left out")
        mounts = _try(
            notes, "/proc/mounts", parse_proc_mounts, _run(session, ["cat", "/proc/mounts"], notes)
        )
    inventory["filesystems"] = mounts or []
    return inventory


# -- the database's data directory --------------------------------------------------------------

_DISK_COLUMNS: Final = (
    "NAME,PATH,TYPE,SIZE,MODEL,SERIAL,ROTA,TRAN,REV,SCHED,RA",
    "NAME,PATH,TYPE,SIZE,MODEL,SERIAL,ROTA,TRAN,REV",
)
# findmnt -T needs a path it can stat: the data directory (mode 0700, another user's) may not
# be, so the nearest ancestor that is stands in for it (same filesystem unless a mount point
# hides in between, which the unreadable part of a path cannot show anyway).
_FINDMNT_T: Final = (
    'p=$1; while [ ! -e "$p" ] && [ "$p" != / ]; do p=$(dirname "$p"); done;'
    f' exec findmnt -J -b -o {FINDMNT_COLUMNS} -T "$p"'
)


def _leaves(devices: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The disks at the bottom of an inverse ``lsblk -s`` tree (partition -> LV -> disk...)."""
    out: list[dict[str, Any]] = []
    for device in devices:
        children = device.get("children") or []
        if children:
            out.extend(_leaves(children))
        elif not any(d.get("path") == device.get("path") for d in out):
            out.append({k: v for k, v in device.items() if k not in ("mountpoints", "fstype")})
    return out


def data_directory_storage(session: Shell, data_directory: str) -> dict[str, Any]:
    """Where a data directory lives: its mount, filesystem, device and the disks under it
    (model, size, rotational, scheduler, read-ahead); never fails (see ``notes``)."""
    notes: list[str] = []
    out: dict[str, Any] = {"data_directory": data_directory, "notes": notes}
    result = _run(session, ["sh", "-c", _FINDMNT_T, "sh", data_directory], notes)
    mounts = _try(notes, "findmnt -T", parse_findmnt_json, result) if result else None
    if not mounts:
        if mounts is not None:
            notes.append(f"findmnt -T: no filesystem found for {data_directory}")
        return out
    mount = mounts[0]
    source = str(mount.get("source") or "")
    device = source.split("[", 1)[0]  # btrfs: /dev/sda1[/subvolume]
    out.update(
        mount=mount.get("target"),
        filesystem=mount.get("fstype"),
        device=source or None,
        mount_options=mount.get("options"),
        size_bytes=mount.get("size_bytes"),
    )
    if not device.startswith("/dev/"):
        notes.append(f"{source or 'the filesystem'} is not a block device: no disks to list")
        out["disks"] = []
        return out
    devices = None
    for columns in _DISK_COLUMNS:
        listed = _run(session, ["lsblk", "-J", "-b", "-s", "-o", columns, device], notes)
        if listed is None:
            break
        if listed.ok:
            devices = _try(notes, "lsblk -s", parse_lsblk_json, listed)
            break
        if listed.exit_status == 127 or columns == _DISK_COLUMNS[-1]:
            notes.append(f"lsblk -s: {listed.first_error_line()}")
            break
    if devices:
        out["device_type"] = devices[0].get("type")
    out["disks"] = _leaves(devices or [])
    for disk in out["disks"]:
        _add_backing_file(session, disk, notes)
    return out


def _add_backing_file(session: Shell, disk: dict[str, Any], notes: list[str]) -> None:
    """A loop device's backing file (its rotational flag says nothing of what backs it)."""
    name = str(disk.get("name") or disk.get("path") or "").rsplit("/", 1)[-1]
    if not re.fullmatch(r"loop\d+", name):
        return
    found = _run(session, ["cat", f"/sys/block/{name}/loop/backing_file"], notes)
    if found is not None and found.ok and found.stdout.strip():
        disk["backing_file"] = found.stdout.strip()
