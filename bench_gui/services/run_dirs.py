"""Which run directory on a driver host belongs to a stored session (for re-attaching).

Every re-attach path needs it: :meth:`bench_gui.services.run.RunController.reattach` (one
driver host or every host of a run on several) and :mod:`bench_gui.services.reattach`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from bench_gui.remote.ssh_transport import RemoteRun


def utc(text: str) -> datetime | None:
    """An ISO 8601 time as an aware UTC datetime (a naive one is taken as UTC); None if not one."""
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def session_run(
    runs: Sequence[RemoteRun], session_id: int, created_at: str, me: str, target: str = ""
) -> RemoteRun | None:
    """The run directory of a session: this desktop's (``me``) newest run with its session id
    that started after the session was created (a store started afresh reuses ids; another
    desktop sharing the host has session ids of its own). ``target``: only a run started
    through that saved SSH target (several driver hosts of one run may share a machine)."""
    created = utc(created_at)
    best = None
    for run in runs:
        meta = run.meta
        if meta.get("session_id") != session_id or meta.get("desktop", me) != me:
            continue
        if target and meta.get("target") != target:
            continue
        started = utc(str(meta.get("started_at") or ""))
        if created is not None and started is not None and started < created.replace(microsecond=0):
            continue
        best = run
    return best
