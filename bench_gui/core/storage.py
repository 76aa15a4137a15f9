"""Storage layouts: what to build on a target's disks, validated.

A :class:`Layout` names the devices (each with its erase method, I/O scheduler and read-ahead),
the array (none, mdadm RAID 0/1/10 with its chunk, or a btrfs multi-device profile where the
kernel has no md driver), the filesystem (XFS, ext4 or btrfs, stripe-aligned on arrays), the
mount point and options, and where the database goes on the new volume (a tablespace, the whole
data directory, WAL on its own device). Layouts are TOML files; every bad value is reported with
the field it belongs to, all at once (:class:`LayoutError`), as plans are.

:mod:`bench_gui.core.storage_plan` turns a layout into the exact commands, and
:mod:`bench_gui.core.mdstat` reads /proc/mdstat. Nothing here runs anything:
:mod:`bench_gui.remote.storage` checks the devices on the host (in use? root? swap? array
member?) and runs the plan step by step.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

import tomli_w

from bench_gui.core.echo import problems_text

RAID_LEVELS: Final = ("single", "0", "1", "10")
RAID_BACKENDS: Final = ("mdadm", "btrfs")
FILESYSTEMS: Final = ("xfs", "ext4", "btrfs")
SCHEDULERS: Final = ("", "none", "mq-deadline", "kyber", "bfq")
RESYNC_POLICIES: Final = ("wait", "skip")
PLACEMENTS: Final = ("tablespace", "datadir", "none")


@dataclass(frozen=True)
class EraseMethod:
    """One way of erasing a device before it is used."""

    name: str
    label: str
    description: str
    # Every block reads back as zeroes/deallocated afterwards: an md array built on such
    # members needs no initial resync (mdadm --assume-clean is valid).
    full_discard: bool = False
    tool: str = ""  # the program it needs on the host


ERASE_METHODS: Final[dict[str, EraseMethod]] = {
    m.name: m
    for m in (
        EraseMethod(
            "format-only",
            "Format only",
            "No erase: old signatures are wiped (wipefs -a) and the filesystem is made over"
            " them, as the seeds did for HDDs.",
            tool="wipefs",
        ),
        EraseMethod(
            "discard",
            "Discard (TRIM) the whole device",
            "blkdiscard: every block is unmapped; an SSD returns to a fresh state.",
            full_discard=True,
            tool="blkdiscard",
        ),
        EraseMethod(
            "secure-discard",
            "Secure discard",
            "blkdiscard --secure: discard that also erases every copy of the data (eMMC/SD;"
            " most SATA/SAS/NVMe devices do not support it).",
            full_discard=True,
            tool="blkdiscard",
        ),
        EraseMethod(
            "zeroout",
            "Write zeroes",
            "blkdiscard --zeroout: every block is zeroed (write-zeroes offload where the device"
            " has it, else written: slow on large disks).",
            full_discard=True,
            tool="blkdiscard",
        ),
        EraseMethod(
            "nvme-format",
            "NVMe format, user data erase",
            "nvme format --ses=1: the namespace's user data is erased.",
            tool="nvme",
        ),
        EraseMethod(
            "nvme-crypto-format",
            "NVMe format, cryptographic erase",
            "nvme format --ses=2: the media encryption key is replaced.",
            tool="nvme",
        ),
        EraseMethod(
            "nvme-sanitize-block",
            "NVMe sanitize, block erase",
            "nvme sanitize -a start-block-erase: the whole controller (every namespace), in the"
            " background; progress from nvme sanitize-log.",
            tool="nvme",
        ),
        EraseMethod(
            "nvme-sanitize-crypto",
            "NVMe sanitize, crypto erase",
            "nvme sanitize -a start-crypto-erase: the whole controller (every namespace).",
            tool="nvme",
        ),
        EraseMethod(
            "sg-sanitize-block",
            "SCSI/SAS sanitize, block erase",
            "sg_sanitize --block: continues across power cycles until done.",
            tool="sg_sanitize",
        ),
        EraseMethod(
            "sg-sanitize-crypto",
            "SCSI/SAS sanitize, crypto erase",
            "sg_sanitize --crypto.",
            tool="sg_sanitize",
        ),
        EraseMethod(
            "ata-secure-erase",
            "ATA security erase",
            "hdparm --security-erase (SATA only, never through a USB bridge or a RAID HBA; the"
            " drive must not be frozen).",
            tool="hdparm",
        ),
        EraseMethod(
            "ata-enhanced-erase",
            "ATA enhanced security erase",
            "hdparm --security-erase-enhanced (SATA only; the drive must not be frozen).",
            tool="hdparm",
        ),
    )
}
# The password ATA security erase sets and immediately uses (the drive clears it itself).
ATA_ERASE_PASSWORD: Final = "benchgui"

# Devices are named by their /dev path: letters, digits and . _ - + : @ / (no "..", no
# spaces, no shell metacharacters), so a name can never be read as an option or a command.
_DEV_PATH: Final = re.compile(
    r"^/dev/[A-Za-z0-9][A-Za-z0-9._+:@-]*(/[A-Za-z0-9][A-Za-z0-9._+:@-]*)*$"
)
_MD_PATH: Final = re.compile(r"^/dev/md([0-9]{1,3}|/[A-Za-z0-9][A-Za-z0-9_-]{0,31})$")
_ABS_PATH: Final = re.compile(r"^(/[A-Za-z0-9._+@=,:-]+)+/?$")
_MOUNT_OPTION: Final = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.=:+/-]*$")
_MKFS_OPTION: Final = re.compile(r"^[A-Za-z0-9_=,.:+/-]+$")
_USER: Final = re.compile(r"^[a-z_][a-z0-9_-]{0,31}\$?$")
_MODE: Final = re.compile(r"^0?[0-7]{3}$")
_LABEL: Final = re.compile(r"^[A-Za-z0-9_.-]{0,16}$")
_SQL_NAME: Final = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
_UNIT: Final = re.compile(r"^[A-Za-z0-9@._-]+$")
_CLUSTER: Final = re.compile(r"^[0-9]+(\.[0-9]+)?/[A-Za-z0-9_.-]+$")
_RELATIVE: Final = re.compile(r"^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$")
# Mount points that are never a bench volume (and the trees of the kernel's pseudo files).
_SYSTEM_DIRS: Final = frozenset(
    {
        "/",
        "/boot",
        "/boot/efi",
        "/usr",
        "/etc",
        "/var",
        "/var/lib",
        "/home",
        "/root",
        "/opt",
        "/srv",
        "/mnt",
        "/media",
        "/tmp",
        "/bin",
        "/sbin",
        "/lib",
        "/lib64",
        "/run",
        "/proc",
        "/sys",
        "/dev",
    }
)
_PSEUDO_TREES: Final = ("/proc/", "/sys/", "/dev/", "/run/")
KNOWN_MOUNT_OPTIONS: Final = (
    "noatime",
    "nodiratime",
    "relatime",
    "discard",
    "nodiscard",
    "nobarrier",
    "inode64",
    "largeio",
    "logbufs=8",
    "logbsize=256k",
    "allocsize=",
    "data=ordered",
    "data=writeback",
    "commit=",
    "barrier=0",
    "dioread_nolock",
    "space_cache=v2",
    "ssd",
    "compress=",
)


class LayoutError(ValueError):
    """A layout with one or more bad values; ``problems`` lists (field, reason) pairs."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        super().__init__(f"invalid storage layout: {problems_text(problems)}")


@dataclass
class DeviceSpec:
    """One device of a layout. ``scheduler`` "" and ``read_ahead_kib`` None leave them as is."""

    path: str
    erase: str = "discard"
    scheduler: str = ""
    read_ahead_kib: int | None = None


@dataclass
class ArraySpec:
    """The array over the devices: ``single`` (one device, no array), or RAID 0/1/10.

    ``backend`` mdadm builds ``device`` (an md array); btrfs makes one multi-device btrfs with
    that data and metadata profile (for kernels without md). ``resync`` "skip" creates the md
    array with ``--assume-clean``: valid only after every member was fully discarded or zeroed.
    """

    level: str = "single"
    backend: str = "mdadm"
    chunk_kib: int = 512
    device: str = "/dev/md0"
    resync: str = "wait"
    read_ahead_kib: int | None = None  # of the array device (md)


@dataclass
class FilesystemSpec:
    """The filesystem on the volume; ``options`` are extra mkfs arguments, one per item."""

    type: str = "xfs"
    label: str = ""
    stripe_align: bool = True
    # mkfs's own discard of the whole volume; off by default, since the erase step did it.
    discard: bool = False
    options: list[str] = field(default_factory=list)


@dataclass
class MountSpec:
    """Where and how the volume is mounted, and who gets it (the database's OS user)."""

    point: str = "/mnt/bench"
    options: list[str] = field(default_factory=lambda: ["noatime"])
    owner: str = "postgres"  # user or user:group; "" leaves it to root
    mode: str = ""  # e.g. "0750"; "" leaves mkfs's default


@dataclass
class DatabaseSpec:
    """Where PostgreSQL goes on the new volume, and how this app reaches the server there.

    ``placement`` tablespace (default, non-invasive: CREATE TABLESPACE on the mount, the named
    databases moved or created there), datadir (the whole data directory relocated: stop, copy,
    point the server at it, start, check ``SHOW data_directory``) or none. ``wal_directory``
    puts ``pg_wal`` on its own device (a directory on another mounted layout). The server is
    reached with ``psql`` run as ``os_user`` on the host (peer or trust on the local socket);
    ``control`` stops and starts it: pg_ctl[:PATH], systemctl:UNIT or
    pg_ctlcluster:VERSION/CLUSTER.
    """

    placement: str = "tablespace"
    conninfo: str = ""
    os_user: str = "postgres"
    bin_dir: str = ""
    control: str = "pg_ctl"
    data_directory: str = ""
    tablespace: str = "bench"
    databases: list[str] = field(default_factory=lambda: ["tpcc"])
    directory: str = "pgdata"
    wal_directory: str = ""


@dataclass
class Layout:
    """A storage layout on one target (an SSH target's name, or "local" for this machine)."""

    name: str = "bench volume"
    target: str = "local"
    devices: list[DeviceSpec] = field(default_factory=list)
    array: ArraySpec = field(default_factory=ArraySpec)
    filesystem: FilesystemSpec = field(default_factory=FilesystemSpec)
    mount: MountSpec = field(default_factory=MountSpec)
    database: DatabaseSpec = field(default_factory=DatabaseSpec)
    notes: str = ""

    @property
    def device_paths(self) -> list[str]:
        return [d.path for d in self.devices]

    @property
    def volume(self) -> str:
        """The block device the filesystem is made on (and mounted from)."""
        if self.array.level != "single" and self.array.backend == "mdadm":
            return self.array.device
        return self.devices[0].path if self.devices else ""

    @property
    def uses_md(self) -> bool:
        return self.array.level != "single" and self.array.backend == "mdadm"

    def data_devices(self) -> int:
        """How many devices hold distinct data (stripe width): RAID 10 mirrors in pairs."""
        n = len(self.devices)
        level = self.array.level
        if level == "0":
            return n
        if level == "10":
            return max(1, n // 2)
        return 1

    def to_dict(self) -> dict[str, Any]:
        """The layout as TOML-ready data (None values left out: TOML has no null)."""

        def clean(value: Any) -> Any:
            if isinstance(value, dict):
                return {k: clean(v) for k, v in value.items() if v is not None}
            if isinstance(value, list):
                return [clean(v) for v in value]
            return value

        data: dict[str, Any] = clean(asdict(self))
        return data

    def to_toml(self) -> str:
        return tomli_w.dumps(self.to_dict())

    def save(self, path: Path) -> None:
        path.write_text(self.to_toml(), encoding="utf-8")


# ---- validation --------------------------------------------------------------------------------


def normalize_device(name: str) -> str:
    """``sdb`` -> ``/dev/sdb``; a /dev path is kept as is."""
    text = name.strip()
    return text if text.startswith("/dev/") else f"/dev/{text}"


def valid_device_path(path: str) -> bool:
    return bool(_DEV_PATH.match(path)) and "/../" not in path + "/" and "/./" not in path + "/"


def valid_abs_path(path: str) -> bool:
    parts = path.strip("/").split("/")
    return bool(_ABS_PATH.match(path)) and ".." not in parts and "." not in parts


def _typed(problems: list[tuple[str, str]], name: str, value: Any, kind: type, what: str) -> Any:
    if isinstance(value, bool) and kind is not bool:
        problems.append((name, f"must be {what}, got {value!r}"))
        return None
    if not isinstance(value, kind):
        problems.append((name, f"must be {what}, got {value!r}"))
        return None
    return value


def _text(problems: list[tuple[str, str]], name: str, value: Any, default: str) -> str:
    got = _typed(problems, name, value, str, "text")
    return default if got is None else str(got)


def _opt_int(
    problems: list[tuple[str, str]], name: str, value: Any, low: int, high: int
) -> int | None:
    if value is None or value == "":
        return None
    got = _typed(problems, name, value, int, "a whole number")
    if got is None:
        return None
    if not low <= got <= high:
        problems.append((name, f"must be between {low} and {high}, got {got}"))
    return int(got)


def _str_list(problems: list[tuple[str, str]], name: str, value: Any) -> list[str]:
    if isinstance(value, str):
        value = [v for v in value.replace(",", " ").split() if v]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append((name, "must be a list of text items"))
        return []
    return [str(v).strip() for v in value if str(v).strip()]


def _table(
    problems: list[tuple[str, str]], name: str, value: Any, known: set[str]
) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        problems.append((name, "must be a table"))
        return {}
    for key in value:
        if key not in known:
            problems.append((f"{name}.{key}", "unknown field"))
    return value


def _fields(cls: type) -> set[str]:
    return set(getattr(cls, "__dataclass_fields__", {}))


def _check_owner(problems: list[tuple[str, str]], name: str, owner: str) -> None:
    if not owner:
        return
    user, sep, group = owner.partition(":")
    if not _USER.match(user) or (sep and group and not _USER.match(group)):
        problems.append((name, f"{owner!r} is not a user name (or user:group)"))


def layout_from_dict(data: dict[str, Any]) -> Layout:
    """Build and validate a layout; raise :class:`LayoutError` naming every bad field."""
    problems: list[tuple[str, str]] = []
    known_top = {"name", "target", "devices", "array", "filesystem", "mount", "database", "notes"}
    for key in data:
        if key not in known_top:
            problems.append((key, "unknown section or field"))
    layout = Layout()
    layout.name = _text(problems, "name", data.get("name", layout.name), layout.name).strip()
    if not layout.name:
        problems.append(("name", "must not be empty"))
    layout.notes = _text(problems, "notes", data.get("notes", ""), "")
    layout.target = _text(problems, "target", data.get("target", "local"), "local").strip()
    if not re.match(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", layout.target):
        problems.append(("target", "must be 'local' or the name of a saved SSH target"))

    raw_devices = data.get("devices", [])
    if not isinstance(raw_devices, list):
        problems.append(("devices", "must be a list of devices"))
        raw_devices = []
    seen: set[str] = set()
    for i, raw in enumerate(raw_devices):
        where = f"devices[{i}]"
        if isinstance(raw, str):
            raw = {"path": raw}
        entry = _table(problems, where, raw, _fields(DeviceSpec))
        path_value = entry.get("path")
        if not isinstance(path_value, str) or not path_value.strip():
            problems.append((f"{where}.path", "is required (a /dev path such as /dev/sdb)"))
            continue
        path = normalize_device(path_value)
        if not valid_device_path(path):
            problems.append(
                (f"{where}.path", f"{path_value!r} is not a block device path (/dev/NAME)")
            )
            continue
        if path in seen:
            problems.append((f"{where}.path", f"{path} is listed twice"))
        seen.add(path)
        spec = DeviceSpec(path=path)
        spec.erase = _text(problems, f"{where}.erase", entry.get("erase", spec.erase), spec.erase)
        if spec.erase not in ERASE_METHODS:
            problems.append(
                (f"{where}.erase", f"must be one of {', '.join(ERASE_METHODS)}, got {spec.erase!r}")
            )
        spec.scheduler = _text(problems, f"{where}.scheduler", entry.get("scheduler", ""), "")
        if spec.scheduler not in SCHEDULERS:
            problems.append(
                (f"{where}.scheduler", "must be one of none, mq-deadline, kyber, bfq (or empty)")
            )
        spec.read_ahead_kib = _opt_int(
            problems, f"{where}.read_ahead_kib", entry.get("read_ahead_kib"), 0, 1 << 20
        )
        layout.devices.append(spec)
    if not raw_devices:
        problems.append(("devices", "list at least one device"))

    _check_array(problems, layout, data.get("array"))
    _check_filesystem(problems, layout, data.get("filesystem"))
    _check_mount(problems, layout, data.get("mount"))
    _check_database(problems, layout, data.get("database"))
    if problems:
        raise LayoutError(problems)
    return layout


def _check_array(problems: list[tuple[str, str]], layout: Layout, raw: Any) -> None:
    entry = _table(problems, "array", raw, _fields(ArraySpec))
    array = layout.array
    level = entry.get("level", array.level)
    if isinstance(level, int) and not isinstance(level, bool):
        level = str(level)
    array.level = _text(problems, "array.level", level, array.level)
    if array.level in ("none", "raid0", "raid1", "raid10"):
        array.level = {"none": "single"}.get(array.level, array.level.removeprefix("raid"))
    if array.level not in RAID_LEVELS:
        problems.append(("array.level", "must be single, 0, 1 or 10"))
    array.backend = _text(problems, "array.backend", entry.get("backend", array.backend), "mdadm")
    if array.backend not in RAID_BACKENDS:
        problems.append(("array.backend", "must be mdadm or btrfs"))
    chunk = _opt_int(problems, "array.chunk_kib", entry.get("chunk_kib", array.chunk_kib), 4, 65536)
    array.chunk_kib = chunk if chunk is not None else array.chunk_kib
    if chunk is not None and chunk & (chunk - 1):
        problems.append(("array.chunk_kib", f"must be a power of two (KiB), got {chunk}"))
    array.device = _text(problems, "array.device", entry.get("device", array.device), array.device)
    if array.level != "single" and array.backend == "mdadm" and not _MD_PATH.match(array.device):
        problems.append(("array.device", "must be an md device: /dev/mdN or /dev/md/NAME"))
    array.resync = _text(problems, "array.resync", entry.get("resync", array.resync), "wait")
    if array.resync not in RESYNC_POLICIES:
        problems.append(("array.resync", "must be wait or skip"))
    array.read_ahead_kib = _opt_int(
        problems, "array.read_ahead_kib", entry.get("read_ahead_kib"), 0, 1 << 20
    )

    n = len(layout.devices)
    if array.level == "single":
        if n > 1:
            problems.append(
                ("array.level", f"{n} devices need an array (0, 1 or 10); single takes one device")
            )
        return
    if array.level in ("0", "1") and n < 2:
        problems.append(("devices", f"RAID {array.level} needs at least 2 devices, got {n}"))
    if array.level == "10" and (n < 4 or n % 2):
        problems.append(
            ("devices", f"RAID 10 needs an even number of devices, at least 4, got {n}")
        )
    if array.backend == "btrfs" and array.resync == "skip":
        problems.append(("array.resync", "applies to mdadm arrays only (btrfs has no resync)"))
    if array.backend == "mdadm" and array.resync == "skip":
        partial = [
            d.path
            for d in layout.devices
            if d.erase in ERASE_METHODS and not ERASE_METHODS[d.erase].full_discard
        ]
        if partial:
            problems.append(
                (
                    "array.resync",
                    "skip (--assume-clean) is valid only after a full discard or zeroing of every"
                    f" member; {', '.join(partial)} would not be erased that way",
                )
            )


def _check_filesystem(problems: list[tuple[str, str]], layout: Layout, raw: Any) -> None:
    entry = _table(problems, "filesystem", raw, _fields(FilesystemSpec))
    fs = layout.filesystem
    fs.type = _text(problems, "filesystem.type", entry.get("type", fs.type), fs.type)
    if fs.type not in FILESYSTEMS:
        problems.append(("filesystem.type", "must be xfs, ext4 or btrfs"))
    fs.label = _text(problems, "filesystem.label", entry.get("label", ""), "")
    if not _LABEL.match(fs.label) or (fs.type == "xfs" and len(fs.label) > 12):
        problems.append(
            ("filesystem.label", "use at most 12 (XFS) or 16 letters, digits, '.', '_' or '-'")
        )
    for key in ("stripe_align", "discard"):
        value = entry.get(key, getattr(fs, key))
        if not isinstance(value, bool):
            problems.append((f"filesystem.{key}", f"must be true or false, got {value!r}"))
        else:
            setattr(fs, key, value)
    fs.options = _str_list(problems, "filesystem.options", entry.get("options", []))
    for option in fs.options:
        if not _MKFS_OPTION.match(option):
            problems.append(("filesystem.options", f"{option!r} is not a plain mkfs argument"))
    if layout.array.level != "single" and layout.array.backend == "btrfs" and fs.type != "btrfs":
        problems.append(
            ("filesystem.type", 'a btrfs array is a btrfs filesystem: set type = "btrfs"')
        )


def _check_mount(problems: list[tuple[str, str]], layout: Layout, raw: Any) -> None:
    entry = _table(problems, "mount", raw, _fields(MountSpec))
    mount = layout.mount
    mount.point = _text(problems, "mount.point", entry.get("point", mount.point), mount.point)
    point = mount.point.rstrip("/") or "/"
    if point in _SYSTEM_DIRS:
        problems.append(("mount.point", f"{point} is a system directory: use e.g. /mnt/bench"))
    elif not valid_abs_path(mount.point):
        problems.append(("mount.point", f"{mount.point!r} is not an absolute path of plain names"))
    elif any(point.startswith(t) for t in _PSEUDO_TREES):
        problems.append(("mount.point", f"{point} is a system directory: use e.g. /mnt/bench"))
    mount.point = point
    mount.options = _str_list(problems, "mount.options", entry.get("options", mount.options))
    for option in mount.options:
        if not _MOUNT_OPTION.match(option):
            problems.append(("mount.options", f"{option!r} is not a mount option"))
    mount.owner = _text(problems, "mount.owner", entry.get("owner", mount.owner), "").strip()
    _check_owner(problems, "mount.owner", mount.owner)
    mount.mode = _text(problems, "mount.mode", entry.get("mode", ""), "").strip()
    if mount.mode and not _MODE.match(mount.mode):
        problems.append(("mount.mode", f"{mount.mode!r} is not an octal mode such as 0750"))


def _check_database(problems: list[tuple[str, str]], layout: Layout, raw: Any) -> None:
    entry = _table(problems, "database", raw, _fields(DatabaseSpec))
    db = layout.database
    for key in (
        "placement",
        "conninfo",
        "os_user",
        "bin_dir",
        "control",
        "data_directory",
        "tablespace",
        "directory",
        "wal_directory",
    ):
        setattr(db, key, _text(problems, f"database.{key}", entry.get(key, getattr(db, key)), ""))
    if db.placement not in PLACEMENTS:
        problems.append(("database.placement", "must be tablespace, datadir or none"))
    if "\n" in db.conninfo or "\x00" in db.conninfo:
        problems.append(("database.conninfo", "must be one line"))
    if db.os_user and not _USER.match(db.os_user):
        problems.append(("database.os_user", f"{db.os_user!r} is not a user name"))
    for key in ("bin_dir", "data_directory", "wal_directory"):
        value = getattr(db, key)
        if value and not valid_abs_path(value):
            problems.append((f"database.{key}", f"{value!r} is not an absolute path"))
    if (
        db.wal_directory
        and layout.mount.point
        and (
            db.wal_directory == layout.mount.point
            or db.wal_directory.startswith(layout.mount.point + "/")
        )
    ):
        problems.append(
            ("database.wal_directory", "must be on another device (another layout's mount)")
        )
    kind, _, arg = db.control.partition(":")
    if not (
        (kind == "pg_ctl" and (not arg or valid_abs_path(arg)))
        or (kind == "systemctl" and _UNIT.match(arg))
        or (kind == "pg_ctlcluster" and _CLUSTER.match(arg))
    ):
        problems.append(
            (
                "database.control",
                "use pg_ctl[:PATH], systemctl:UNIT or pg_ctlcluster:VERSION/CLUSTER",
            )
        )
    if not _SQL_NAME.match(db.tablespace):
        problems.append(
            ("database.tablespace", "must be a plain lower-case name (letters, digits, _)")
        )
    elif db.tablespace.startswith("pg_"):
        problems.append(("database.tablespace", "names starting with pg_ are reserved"))
    db.databases = _str_list(problems, "database.databases", entry.get("databases", db.databases))
    for name in db.databases:
        if not _SQL_NAME.match(name):
            problems.append(("database.databases", f"{name!r} is not a plain lower-case name"))
        elif name in ("postgres", "template0", "template1"):
            problems.append(("database.databases", f"{name} is a system database"))
    if not _RELATIVE.match(db.directory) or ".." in db.directory.split("/"):
        problems.append(("database.directory", "must be a relative directory name such as pgdata"))


def load_layout(path: Path) -> Layout:
    """Read a TOML layout file; syntax errors and bad values both raise :class:`LayoutError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise LayoutError([(str(path), f"cannot be read: {exc.strerror}")]) from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LayoutError([(str(path), f"is not valid TOML: {exc}")]) from exc
    return layout_from_dict(data)
