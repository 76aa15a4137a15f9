"""Storage on a target: find the block devices and what uses them, build a layout, tear it down.

The work is split by what each part holds; this package re-exports their public names, so
``from bench_gui.remote.storage import ...`` stays the one way in:

- ``errors``: :class:`StorageError`, :class:`StorageRefused` and what a refusal carries
  (:class:`Evidence`, :class:`Refusal`, the names of the two refusals a user may override).
- ``runner``: :class:`Runner`, what storage work needs of a session, and :func:`open_runner`.
- ``parsers``: pure parsers of mountinfo, swaps, ``blkid -p``, sysfs and the ``O_EXCL`` test.
- ``devices``: :class:`BlockDevice` and :class:`Discovery`, what a discovery found.
- ``evidence``: :func:`analyse`, the evidence of every device's use from what was read.
- ``discovery``: :func:`discover` and the fixed scripts it runs on the host.
- ``guards``: :func:`check_layout`, :func:`check_paths`, :func:`check_confirmation` and the
  refusal of a layout bench-gui has no record of building.
- ``executor``: a plan's steps run one by one, with the log, the progress and each outcome.
- ``apply``: :func:`apply_layout` and :func:`teardown_layout`, the guarded entry points.
- ``records``: :func:`describe_layout`, :func:`describe_line` and the recorded layouts that
  sessions measure on (:func:`session_layout`).
"""

from __future__ import annotations

from bench_gui.remote.storage.apply import apply_layout, teardown_layout
from bench_gui.remote.storage.devices import CANDIDATE_TYPES, BlockDevice, Discovery
from bench_gui.remote.storage.discovery import LSBLK_COLUMNS, LSBLK_FALLBACK, TOOLS, discover
from bench_gui.remote.storage.errors import (
    NOT_RECORDED_FIELD,
    SIGNED_FIELD,
    UNREADABLE_FIELD,
    Evidence,
    Refusal,
    StorageError,
    StorageRefused,
)
from bench_gui.remote.storage.evidence import BOOT_MOUNTS, MEMBER_SIGNATURES, analyse
from bench_gui.remote.storage.executor import (
    RESYNC_POLL_S,
    ApplyResult,
    LogFn,
    Progress,
    ProgressFn,
    StepFailed,
    StepOutcome,
)
from bench_gui.remote.storage.guards import (
    check_confirmation,
    check_layout,
    check_paths,
    not_recorded_refusal,
    signed_refusal,
    unreadable_refusal,
)
from bench_gui.remote.storage.parsers import (
    Mount,
    SysBlock,
    parse_blkid_export,
    parse_blkid_probes,
    parse_excl,
    parse_mountinfo,
    parse_swaps,
    parse_sysfs,
)
from bench_gui.remote.storage.records import (
    PLACEMENT_FILE,
    describe_layout,
    describe_line,
    forget_layout,
    record_layout,
    recorded_layouts,
    session_layout,
    update_recorded_database,
)
from bench_gui.remote.storage.runner import Runner, open_runner

__all__ = [
    "BOOT_MOUNTS",
    "CANDIDATE_TYPES",
    "LSBLK_COLUMNS",
    "LSBLK_FALLBACK",
    "MEMBER_SIGNATURES",
    "NOT_RECORDED_FIELD",
    "SIGNED_FIELD",
    "PLACEMENT_FILE",
    "RESYNC_POLL_S",
    "TOOLS",
    "UNREADABLE_FIELD",
    "ApplyResult",
    "BlockDevice",
    "Discovery",
    "Evidence",
    "LogFn",
    "Mount",
    "Progress",
    "ProgressFn",
    "Refusal",
    "Runner",
    "StepFailed",
    "StepOutcome",
    "StorageError",
    "StorageRefused",
    "SysBlock",
    "analyse",
    "apply_layout",
    "check_confirmation",
    "check_layout",
    "check_paths",
    "describe_layout",
    "describe_line",
    "discover",
    "forget_layout",
    "not_recorded_refusal",
    "open_runner",
    "parse_blkid_export",
    "parse_blkid_probes",
    "parse_excl",
    "parse_mountinfo",
    "parse_swaps",
    "parse_sysfs",
    "record_layout",
    "recorded_layouts",
    "session_layout",
    "teardown_layout",
    "signed_refusal",
    "unreadable_refusal",
    "update_recorded_database",
]
