"""Bringing colleagues' edits of sessions both stores have into the local file, without letting
the team store take anything away that was written here.

The team store is written by anyone with a login, so what it says about a session's tags, note,
note history, array and storage is checked as a pull checks a session
(:func:`bench_gui.store.session_check.check_annotations`), then merged:

- the note history is append-only: texts the team store has that this file lacks are added;
  nothing of the history here is ever deleted or changed;
- the note is decided by the time it was written: the newer of the two texts is the note, and
  the other is kept in the history (marked unseen when it was never seen here), so an older
  note sent late from a laptop that was offline never replaces a newer one;
- tags, the array and the storage description are the team store's (every edit made here was
  sent to it before: its state includes them), unless edits of this session wait here to be
  sent (a reader's login, the store unreachable when it was sent): then they stay as they are
  here, and the note and its history are still merged, so a local edit never blocks a pull.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from bench_gui.store.dialect import DbConnection
from bench_gui.store.session_check import RecordError, check_annotations
from bench_gui.store.sessions import SessionStore
from bench_gui.store.team_edits import add_note_history
from bench_gui.store.team_read import read_annotations

log = logging.getLogger(__name__)


def when(text: Any) -> datetime | None:
    """A stored time as a moment to compare (ISO text), or None."""
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None


def _history_key(entry: Any) -> tuple[str, str, str]:
    """One version of a note: its text, who wrote it and when (whoever replaced it)."""
    return (str(entry["text"]), str(entry["author"]), str(entry["written_at"]))


def refresh_session(
    team: SessionStore, team_id: int, local: SessionStore, run_id: int
) -> bool | str:
    """Merge the team store's annotations of ``team_id`` into local session ``run_id``:
    True when something changed here, False when nothing did, the reason when the team's
    record was refused."""
    with team._snapshot() as conn:
        theirs: dict[str, Any] = {
            "tags": [
                r[0]
                for r in conn.execute(
                    "SELECT tag FROM run_tags WHERE run_id = ? ORDER BY tag", (team_id,)
                )
            ]
        }
        read_annotations(conn, team_id, theirs)
    try:
        check_annotations(theirs)
    except RecordError as exc:
        return exc.what
    changed = False
    with local.transaction() as conn:
        waiting = conn.execute("SELECT 1 FROM run_edits WHERE run_id = ?", (run_id,)).fetchone()
        changed |= _merge_history(conn, run_id, theirs["note_history"])
        changed |= _merge_note(conn, run_id, theirs)
        if not waiting:
            changed |= _replace_rest(conn, run_id, theirs)
    return changed


def _merge_history(conn: DbConnection, run_id: int, history: list[dict[str, Any]]) -> bool:
    rows = conn.execute(
        "SELECT text, author, written_at FROM run_note_history WHERE run_id = ?",
        (run_id,),
    ).fetchall()
    have = {_history_key(r) for r in rows}
    added = [h for h in history if _history_key(h) not in have]
    add_note_history(conn, run_id, added)
    return bool(added)


def _merge_note(conn: DbConnection, run_id: int, theirs: dict[str, Any]) -> bool:
    """The newer note wins; the other text is kept in the history."""
    row = conn.execute(
        "SELECT text, author, updated_at, pushed_by FROM run_notes WHERE run_id = ?", (run_id,)
    ).fetchone()
    text = str(theirs.get("note") or "")
    if not text:
        # The team has no note: removed there (its text is in the team's history, merged
        # above) or never written; a note written here stays until a newer edit removes it.
        removed = row is not None and any(
            h["text"] == row[0] and h["written_at"] == row[2] for h in theirs["note_history"]
        )
        if removed:
            conn.execute("DELETE FROM run_notes WHERE run_id = ?", (run_id,))
        return removed
    at, author = theirs["note_at"], str(theirs.get("note_author") or "")
    pushed_by = str(theirs.get("note_pushed_by") or "")
    if row is not None and row[0] == text:
        return False
    ours = None if row is None else when(row[2])
    newer = ours is None or (when(at) or ours) > ours
    history_rows = conn.execute(
        "SELECT text, author, written_at FROM run_note_history WHERE run_id = ?",
        (run_id,),
    ).fetchall()
    have = {_history_key(r) for r in history_rows}
    if newer:
        if row is not None:
            kept = {
                "text": row[0], "author": row[1], "written_at": row[2], "replaced_by": author,
                "replaced_at": at, "unseen": 1, "pushed_by": row[3],
            }  # fmt: skip
            if _history_key(kept) not in have:
                add_note_history(conn, run_id, [kept])
        conn.execute(
            "INSERT INTO run_notes (run_id, text, updated_at, author, pushed_by)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET text = excluded.text,"
            " updated_at = excluded.updated_at, author = excluded.author,"
            " pushed_by = excluded.pushed_by",
            (run_id, text, at, author, pushed_by),
        )
        return True
    assert row is not None
    older = {
        "text": text, "author": author, "written_at": at, "replaced_by": row[1],
        "replaced_at": row[2], "unseen": 1, "pushed_by": pushed_by,
    }  # fmt: skip
    if _history_key(older) in have:
        return False
    add_note_history(conn, run_id, [older])
    return True


def _replace_rest(conn: DbConnection, run_id: int, theirs: dict[str, Any]) -> bool:
    """Tags, array and storage as the team store has them; whether anything changed."""
    changed = False
    tags = sorted(
        str(r[0]) for r in conn.execute("SELECT tag FROM run_tags WHERE run_id = ?", (run_id,))
    )
    if tags != sorted(theirs["tags"]):
        conn.execute("DELETE FROM run_tags WHERE run_id = ?", (run_id,))
        conn.executemany(
            "INSERT INTO run_tags (run_id, tag) VALUES (?, ?)",
            [(run_id, tag) for tag in theirs["tags"]],
        )
        changed = True
    for table, key, columns in (
        ("run_arrays", "array", ("device", "count", "hand_cost", "currency", "note")),
        (
            "run_storage",
            "storage",
            ("devices", "count", "raid", "filesystem", "note", "updated_at"),
        ),
    ):
        row = conn.execute(
            f"SELECT {', '.join(columns)} FROM {table} WHERE run_id = ?", (run_id,)
        ).fetchone()
        ours = None if row is None else dict(zip(columns, tuple(row), strict=True))
        wanted = theirs.get(key)
        if ours == wanted:
            continue
        conn.execute(f"DELETE FROM {table} WHERE run_id = ?", (run_id,))
        if wanted is not None:
            conn.execute(
                f"INSERT INTO {table} (run_id, {', '.join(columns)})"
                f" VALUES (?, {', '.join('?' * len(columns))})",
                (run_id, *(wanted[c] for c in columns)),
            )
        changed = True
    return changed
