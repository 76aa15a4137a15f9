"""Edits of a session's tags, note, array and storage description, as operations that reach
the team store: the ones made on a pushed (or pulled) session in the local file are queued
here and sent at the next push, so an edit made offline is never left behind.

Why operations, not copies of the whole record: two people editing one session at once must
both keep what they did. A tag edit is an *add* or a *remove* of one tag, so two colleagues
adding different tags both keep theirs (a copy of the whole set would drop the other's). A
note has one text per session (the reports print it beside the session): the last writer's
text is the note, and the text it replaced is kept in ``run_note_history`` with who wrote
it and who replaced it, flagged ``unseen`` when the new text was written without having seen
it (two people at once, or an edit made offline): nothing anyone wrote is lost, and the
Sessions page can say that a colleague's text was replaced. One note per author was the other
choice; it was left because reports, search and the plan key read one note per session.
The array and the storage description are small records entered by hand: last writer wins.

Applying an operation twice does nothing more (a tag added twice is there once, a note
already holding the text is left alone): a push cut between sending an edit and forgetting
it here sends it again without harm.

Schema migration 6 adds the queue (``run_edits``, only ever filled in a local file), the
history of notes and the author of a note.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Final

from bench_gui.store.dialect import DbConnection
from bench_gui.store.recorder import current_author

EDIT_KINDS: Final = ("tag_add", "tag_remove", "note", "array", "storage")

# Migration 6 of the session store (see sessions.MIGRATIONS).
EDITS_MIGRATION: Final[tuple[str, ...]] = (
    "ALTER TABLE run_notes ADD COLUMN author TEXT NOT NULL DEFAULT ''",
    # Every note text that was replaced or removed, with who wrote it and who replaced it;
    # ``unseen``: the one who replaced it had not seen it (a concurrent or offline edit).
    """CREATE TABLE run_note_history (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        text TEXT NOT NULL,
        author TEXT NOT NULL DEFAULT '',
        written_at TEXT NOT NULL,
        replaced_by TEXT NOT NULL DEFAULT '',
        replaced_at TEXT NOT NULL,
        unseen INTEGER NOT NULL DEFAULT 0
    )""",
    "CREATE INDEX run_note_history_by_run ON run_note_history (run_id, id)",
    # Edits of sessions already in the team store ``store`` (its key), made here while it
    # could not be written to; sent in ``id`` order at the next push, then deleted.
    """CREATE TABLE run_edits (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        store TEXT NOT NULL,
        kind TEXT NOT NULL,
        data TEXT NOT NULL,
        made_at TEXT NOT NULL
    )""",
    "CREATE INDEX run_edits_by_store ON run_edits (store, id)",
    # A deleted price entry, by its content: a merge with another store deletes it there too
    # and never brings it back; an entry of that content made later is a new one and stays.
    """CREATE TABLE deleted_prices (
        price_table TEXT NOT NULL,
        content TEXT NOT NULL,
        deleted_at TEXT NOT NULL,
        PRIMARY KEY (price_table, content)
    )""",
)

# The price lists (not per session): what makes two entries the same one.
PRICE_TABLES: Final = {
    "device_prices": ("device", "unit_price", "currency", "price_date", "source"),
    "power_prices": ("per_kwh", "currency", "price_date", "source"),
}


def price_content(table: str, row: Any) -> str:
    """An entry of a price list as text, the same on both backends (its identity there)."""
    return json.dumps([row[c] for c in PRICE_TABLES[table]])


def delete_price(conn: DbConnection, table: str, price_id: int) -> bool:
    """Delete one price entry and remember it as deleted; False if there is none."""
    row = conn.execute(f"SELECT * FROM {table} WHERE id = ?", (price_id,)).fetchone()
    if row is None:
        return False
    conn.execute(f"DELETE FROM {table} WHERE id = ?", (price_id,))
    conn.execute(
        "INSERT INTO deleted_prices (price_table, content, deleted_at) VALUES (?, ?, ?)"
        " ON CONFLICT (price_table, content) DO UPDATE SET deleted_at = excluded.deleted_at",
        (table, price_content(table, row), now()),
    )
    return True


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def note_edit(text: str, seen: str) -> dict[str, Any]:
    """A note operation: the new text ('' removes the note) and the text its writer saw."""
    return {"text": text, "seen": seen, "author": current_author(), "at": now()}


def apply_edit(conn: DbConnection, run_id: int, kind: str, data: Any) -> None:
    """Carry out one operation on session ``run_id`` of the store ``conn`` belongs to."""
    if kind == "tag_add":
        conn.execute("INSERT OR IGNORE INTO run_tags (run_id, tag) VALUES (?, ?)", (run_id, data))
    elif kind == "tag_remove":
        conn.execute("DELETE FROM run_tags WHERE run_id = ? AND tag = ?", (run_id, data))
    elif kind == "note":
        _apply_note(conn, run_id, data)
    elif kind == "array":
        conn.execute("DELETE FROM run_arrays WHERE run_id = ?", (run_id,))
        if data is not None:
            conn.execute(
                "INSERT INTO run_arrays (run_id, device, count, hand_cost, currency, note)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (run_id, data["device"], data["count"], data["hand_cost"], data["currency"],
                 data["note"]),
            )  # fmt: skip
    elif kind == "storage":
        conn.execute("DELETE FROM run_storage WHERE run_id = ?", (run_id,))
        if data is not None:
            conn.execute(
                "INSERT INTO run_storage (run_id, devices, count, raid, filesystem, note,"
                " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (run_id, data["devices"], data["count"], data["raid"], data["filesystem"],
                 data["note"], data["updated_at"]),
            )  # fmt: skip
    else:
        raise ValueError(f"unknown session edit {kind!r}: one of {', '.join(EDIT_KINDS)}")


def _apply_note(conn: DbConnection, run_id: int, data: dict[str, Any]) -> None:
    row = conn.execute(
        "SELECT text, author, updated_at FROM run_notes WHERE run_id = ?", (run_id,)
    ).fetchone()
    text = str(data["text"])
    if (row is not None and row[0] == text) or (row is None and not text):
        return  # already so: a repeated operation, or two people writing the same
    if row is not None and _later(str(row[2]), str(data["at"])):
        # The note there was written after this edit (sent late, from a desktop that was
        # offline): it stays the note, and this text is kept in the history, unseen.
        if not text:
            return
        conn.execute(
            "INSERT INTO run_note_history (run_id, text, author, written_at, replaced_by,"
            " replaced_at, unseen) VALUES (?, ?, ?, ?, ?, ?, 1)",
            (run_id, text, data["author"], data["at"], row[1], row[2]),
        )
        return
    if row is not None:
        conn.execute(
            "INSERT INTO run_note_history (run_id, text, author, written_at, replaced_by,"
            " replaced_at, unseen) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (run_id, row[0], row[1], row[2], data["author"], data["at"],
             int(row[0] != data["seen"])),
        )  # fmt: skip
    if text:
        conn.execute(
            "INSERT INTO run_notes (run_id, text, updated_at, author) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (run_id) DO UPDATE SET text = excluded.text,"
            " updated_at = excluded.updated_at, author = excluded.author",
            (run_id, text, data["at"], data["author"]),
        )
    else:
        conn.execute("DELETE FROM run_notes WHERE run_id = ?", (run_id,))


def _later(a: str, b: str) -> bool:
    """Time ``a`` is after time ``b`` (ISO texts; unreadable ones are never later)."""
    try:
        return datetime.fromisoformat(a.replace("Z", "+00:00")) > datetime.fromisoformat(
            b.replace("Z", "+00:00")
        )
    except ValueError:
        return False


def queue_edits(conn: DbConnection, run_id: int, edits: Sequence[tuple[str, Any]]) -> int:
    """Queue ``edits`` of ``run_id`` for every team store the session is in (a local file:
    the pushed marks say which); how many team stores that is (0: nothing to send)."""
    stores = [
        str(row[0])
        for row in conn.execute("SELECT store FROM run_pushes WHERE run_id = ?", (run_id,))
    ]
    made = now()
    conn.executemany(
        "INSERT INTO run_edits (run_id, store, kind, data, made_at) VALUES (?, ?, ?, ?, ?)",
        [(run_id, s, kind, json.dumps(data), made) for s in stores for kind, data in edits],
    )
    return len(stores)


def add_note_history(conn: DbConnection, run_id: int, entries: Sequence[dict[str, Any]]) -> None:
    """Copies noted history entries (a session file's, or another store's) as they were, so a
    note's earlier texts and who replaced them survive an import or a refresh."""
    conn.executemany(
        "INSERT INTO run_note_history (run_id, text, author, written_at, replaced_by,"
        " replaced_at, unseen, pushed_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (run_id, h["text"], str(h.get("author") or ""), h["written_at"],
             str(h.get("replaced_by") or ""), h["replaced_at"], int(bool(h.get("unseen"))),
             str(h.get("pushed_by") or ""))
            for h in entries
        ],
    )  # fmt: skip
