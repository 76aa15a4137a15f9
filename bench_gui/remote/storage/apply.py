"""Applying and tearing down a layout: the guarded entry points.

:func:`apply_layout` runs a :class:`~bench_gui.core.storage_plan.StoragePlan` only after the user
typed every device name, and only if a fresh discovery finds no evidence against any device;
otherwise :class:`StorageRefused` lists each device with its evidence and nothing is touched.
Steps run one by one with a live log and a progress callback (the md resync from
``/proc/mdstat``). :func:`teardown_layout` undoes a layout with the same guards (what the
layout itself holds is expected; anything else refuses), and only a layout recorded as built by
bench-gui, unless the user types its devices once more to say it was not.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bench_gui.core.storage import Layout
from bench_gui.core.storage_plan import build_plan, build_teardown
from bench_gui.remote.storage.discovery import discover
from bench_gui.remote.storage.errors import Evidence, Refusal, StorageRefused
from bench_gui.remote.storage.executor import ApplyResult, LogFn, ProgressFn, StepExecutor
from bench_gui.remote.storage.guards import (
    check_confirmation,
    check_layout,
    check_paths,
    not_recorded_refusal,
    other_host_refusal,
)
from bench_gui.remote.storage.records import (
    PLACEMENT_FILE,
    describe_layout,
    describe_line,
    forget_layout,
    record_layout,
    utc_now,
)
from bench_gui.remote.storage.runner import Runner


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
    wipe_signed: Iterable[str] | None = None,
) -> ApplyResult:
    """Build ``layout`` on the host after the guards; raise StorageRefused or StepFailed.

    ``confirm`` is what the user typed: every device of the layout, nothing else. A fresh
    discovery (with the exclusive-open test and the process scan) runs right before the first
    command; ``accept_unreadable`` see :func:`check_layout`. With ``state_dir`` the resulting
    description is recorded there (see :func:`record_layout`). ``wipe_signed``: the devices
    that carry a signature, named once more (:func:`signed_refusal`): else they are refused.
    """
    check_paths(layout)
    plan = build_plan(layout)
    check_confirmation(plan, confirm)
    log = on_log or (lambda _line: None)
    log(f"Checking the devices on {runner.label}…")
    disc = discover(runner)
    refusals = check_layout(
        layout, disc, "apply", accept_unreadable=accept_unreadable, wipe_signed=wipe_signed
    )
    if refusals:
        raise StorageRefused(refusals, disc.host)
    result = ApplyResult("apply", layout.name, layout.target, disc.host, started_at=utc_now())
    result.resync = _resync_note(layout)
    executor = StepExecutor(runner, result, on_log, on_progress, cancel)
    executor.run_steps(plan.steps)
    if result.resync and result.resync.get("policy") == "skip":
        log(result.resync["text"])
    after = discover(runner, exclusive_test=False)
    result.description = describe_layout(layout, after, result.resync)
    result.ok = True
    result.finished_at = utc_now()
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
        refusals += other_host_refusal(layout, state_dir, disc.host)
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
    result = ApplyResult("teardown", layout.name, layout.target, disc.host, started_at=utc_now())
    StepExecutor(runner, result, on_log, on_progress, cancel).run_steps(plan.steps, skip)
    result.ok = True
    result.finished_at = utc_now()
    if state_dir is not None:
        forget_layout(state_dir, layout.target, layout.mount.point)
    log(f"Done: {layout.name} is taken down; its devices hold no signature any more.")
    return result
