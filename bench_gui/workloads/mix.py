"""Sessions of one workload, or an error naming two that are not: their figures measure
different things (NOPM by virtual users, ops/s by dataset size) and are never compared."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bench_gui.core.compare import CompareError
from bench_gui.workloads.base import UnknownWorkload, kit_for, run_record, workload_of_record


class WorkloadMixError(CompareError):
    """Sessions of different workloads asked for one comparison; the message names two."""


def _one_session(workload: str) -> str:
    """ "a random-read study", "a TPROC-C sweep": one session of ``workload`` in words."""
    try:
        return kit_for(workload).one_session
    except UnknownWorkload:
        return f"of the workload {workload}"


def check_same_workload(sessions: Sequence[tuple[int, str, str]]) -> str:
    """The one workload of ``(id, name, kind)`` sessions; raise WorkloadMixError naming the
    first two sessions of different workloads (their figures measure different things)."""
    if not sessions:
        raise WorkloadMixError("a comparison needs at least one session (got none)")
    first_id, first_name, first_kind = sessions[0]
    for sid, name, kind in sessions[1:]:
        if kind != first_kind:
            raise WorkloadMixError(
                f"session {first_id} ({first_name}) is {_one_session(first_kind)}"
                f" and session {sid} ({name}) is {_one_session(kind)}: their figures"
                " measure different things and are not compared; compare sessions of one"
                " workload"
            )
    return first_kind


def workload_of(store: Any, session_ids: Sequence[int]) -> str:
    """The one workload of the stored sessions (a ``SessionStore``); WorkloadMixError names
    two sessions of different workloads, SessionNotFound an unknown id."""
    kinds = []
    for sid in session_ids:
        detail = store.get_run(sid)
        kinds.append((sid, detail.name, workload_of_record(run_record(detail))))
    return check_same_workload(kinds)
