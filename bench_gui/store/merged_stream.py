"""Discarding a session's merged event stream, to merge it again from its sources.

A run on several driver hosts stores one stream merged from every host's events
(:mod:`bench_gui.services.run_stream`); each host's spool holds all of that host's events. A
desktop that re-attaches to such a run after losing it cannot tell which of each host's
events the stored stream already holds (the merged sequence numbers are its own), so it
merges the spools again from their start, once it has found every host's run: the stored
stream goes first, in one transaction. The lines the desktop side wrote itself (no seq: the
clocks, the commands, the links) and everything else of the session stay.
"""

from __future__ import annotations

from typing import Final

from bench_gui.store.sessions import SessionStore

# The tables that hold the stream's events, by (run_id, seq) or by step.
STREAM_TABLES: Final = ("events", "samples", "steps", "histograms")


def discard_stream(store: SessionStore, run_id: int) -> int:
    """Delete the session's stored stream; the number of rows deleted."""
    deleted = 0
    with store.transaction() as conn:
        for table in STREAM_TABLES:
            deleted += conn.execute(f"DELETE FROM {table} WHERE run_id = ?", (run_id,)).rowcount
        deleted += conn.execute(
            "DELETE FROM run_log WHERE run_id = ? AND seq IS NOT NULL", (run_id,)
        ).rowcount
    return deleted
