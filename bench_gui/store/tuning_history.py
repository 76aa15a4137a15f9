"""Tuning history: what was applied to which server (or host), and the snapshot to undo it.

Kept in the session store (its SQLite file or a team's PostgreSQL), in the table that schema
migration 5 creates (:mod:`bench_gui.store.tuning_migration`); writes go through the store's
transactions, on the calling thread's connection. ``kind`` says what was tuned: a database
engine (``postgresql``, ``mariadb``, ``mysql``, ``mssql``) or a host's kernel (``os``).

An entry is an apply (with the snapshot taken before it) or a rollback (pointing at the apply
it undid). ``bench-gui tune rollback TARGET`` restores the newest apply of that target that
has not been rolled back.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

from bench_gui.store.sessions import SessionStore
from bench_gui.store.tuning_migration import TUNING_KINDS

KINDS: Final = TUNING_KINDS
ACTIONS: Final = ("apply", "rollback")


@dataclass
class TuningEntry:
    """One line of the history."""

    id: int
    target_key: str
    target_label: str
    kind: str  # an engine (postgresql, mariadb, mysql, mssql) or os
    action: str  # apply or rollback
    created_at: str
    profile: str  # preset or PgTune summary ('' for a rollback)
    changes: dict[str, Any]  # name -> {"from": ..., "to": ...}
    snapshot: dict[str, Any] | None  # the state before an apply
    result: dict[str, Any]
    undoes: int | None  # a rollback: the apply it undid
    undone_by: int | None  # an apply: the rollback that undid it

    def describe(self) -> str:
        verb = "Applied" if self.action == "apply" else "Rolled back"
        what = self.profile or f"{len(self.changes)} setting(s)"
        text = f"{verb} {what}"
        if self.undone_by is not None:
            text += f" (rolled back by #{self.undone_by})"
        if self.undoes is not None:
            text += f" (undid #{self.undoes})"
        return text


class TuningHistory:
    """The tuning history in a :class:`SessionStore`'s database."""

    def __init__(self, store: SessionStore) -> None:
        self.store = store

    def record(
        self,
        *,
        target_key: str,
        target_label: str,
        kind: str,
        action: str,
        profile: str = "",
        changes: dict[str, Any] | None = None,
        snapshot: dict[str, Any] | None = None,
        result: dict[str, Any] | None = None,
        undoes: int | None = None,
    ) -> int:
        """Add an entry; a rollback (``undoes`` set) marks the apply it undid."""
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}")
        if action not in ACTIONS:
            raise ValueError(f"action must be one of {', '.join(ACTIONS)}")
        with self.store.transaction() as conn:
            cur = conn.execute(
                "INSERT INTO tuning_history (target_key, target_label, kind, action,"
                " created_at, profile, changes, snapshot, result, undoes)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    target_key,
                    target_label,
                    kind,
                    action,
                    datetime.now(UTC).isoformat(timespec="milliseconds"),
                    profile,
                    json.dumps(changes or {}, default=str),
                    None if snapshot is None else json.dumps(snapshot, default=str),
                    json.dumps(result or {}, default=str),
                    undoes,
                ),
            )
            entry_id = cur.lastrowid
            assert entry_id is not None
            if undoes is not None:
                conn.execute(
                    "UPDATE tuning_history SET undone_by = ? WHERE id = ?", (entry_id, undoes)
                )
            return entry_id

    def _rows(self, where: str, params: tuple[Any, ...]) -> list[TuningEntry]:
        with self.store.transaction() as conn:
            rows = conn.execute(
                f"SELECT * FROM tuning_history {where} ORDER BY id DESC", params
            ).fetchall()
        return [
            TuningEntry(
                id=row["id"],
                target_key=row["target_key"],
                target_label=row["target_label"],
                kind=row["kind"],
                action=row["action"],
                created_at=row["created_at"],
                profile=row["profile"],
                changes=json.loads(row["changes"]),
                snapshot=None if row["snapshot"] is None else json.loads(row["snapshot"]),
                result=json.loads(row["result"]),
                undoes=row["undoes"],
                undone_by=row["undone_by"],
            )
            for row in rows
        ]

    def entries(self, target_key: str | None = None, kind: str | None = None) -> list[TuningEntry]:
        """History entries, newest first, of one target and kind if given."""
        clauses, params = [], []
        if target_key is not None:
            clauses.append("target_key = ?")
            params.append(target_key)
        if kind is not None:
            clauses.append("kind = ?")
            params.append(kind)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        return self._rows(where, tuple(params))

    def get(self, entry_id: int) -> TuningEntry | None:
        found = self._rows("WHERE id = ?", (entry_id,))
        return found[0] if found else None

    def last_open_apply(self, target_key: str, kind: str = "postgresql") -> TuningEntry | None:
        """The newest apply of a target not rolled back yet (what ``rollback`` undoes)."""
        found = self._rows(
            "WHERE target_key = ? AND kind = ? AND action = 'apply' AND undone_by IS NULL"
            " AND snapshot IS NOT NULL",
            (target_key, kind),
        )
        return found[0] if found else None
