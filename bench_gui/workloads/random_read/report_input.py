"""Stored sessions read for a random-read comparison, and the one check of their workload.

A comparison is of one workload: random-read studies with random-read studies, TPROC-C
sweeps with TPROC-C sweeps. :func:`workload_of` says which a list of stored sessions is, and
refuses a mix with an error that names two sessions of different workloads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, replace

from bench_gui.store.compare_input import storage_description
from bench_gui.store.sessions import SessionStore
from bench_gui.workloads.random_read.compare import (
    RRSession,
    session_from_record,
)


def load_random_read(store: SessionStore, session_ids: Sequence[int]) -> list[RRSession]:
    """The stored random-read sessions, as the comparison reads them."""
    sessions = []
    for sid in session_ids:
        detail = store.get_run(sid)
        steps = [asdict(step) for step in store.steps(sid)]
        session = session_from_record(asdict(detail), steps)
        described = storage_description(store, sid)
        if isinstance(described, dict) and described.get("text"):
            session = replace(session, storage_text=str(described["text"]))
        sessions.append(session)
    return sessions
