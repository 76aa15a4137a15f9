"""Sessions between the local file and a team store: push what was recorded here, pull what
colleagues recorded, nothing lost or duplicated on either side.

A session is known everywhere by its UUID (schema 4). Copying one writes it whole in one
transaction of the receiving store, its run row inserted with ``ON CONFLICT (uuid) DO
NOTHING``: a session already there (pushed before, by this desktop or by another that pulled
it) is left alone, so pushing twice, or two desktops pushing at once, gives one copy. Once a
session is in the team store the local file marks it (``run_pushes``: which store, when); a
pulled session is marked the same way and is never sent back.

What a push sends is the session as it stands: measured data, tags, note, the array and the
storage described by hand. Runs still going on are not pushed (they are, once finished).
Later edits of tags and notes are made in the team store itself (by any desktop, at once:
the store's writers serialise).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from bench_gui.store.dialect import DbConnection
from bench_gui.store.sessions import SessionNotFound, SessionStore, StoreError, fill_run_uuids
from bench_gui.store.team_store import TeamStoreConfig

log = logging.getLogger(__name__)

# The tables that hold a session's data, besides ``runs``: copied row by row.
SESSION_TABLES: Final = (
    "events",
    "samples",
    "steps",
    "histograms",
    "run_log",
    "run_tags",
    "run_notes",
    "run_arrays",
    "run_storage",
)
# Columns the receiving store gives itself.
_OWN_COLUMNS: Final = {"runs": ("id",), "run_log": ("id",)}
_ORDER: Final = {"run_log": "id", "events": "seq", "samples": "seq", "steps": "step"}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass
class SyncResult:
    """What a push or pull did: the sessions copied (source id -> new id), those the other
    side had already, and why nothing happened when the team store could not be reached."""

    store: str
    copied: dict[int, int] = field(default_factory=dict)
    already: list[int] = field(default_factory=list)
    unreachable: str = ""

    @property
    def reached(self) -> bool:
        return not self.unreachable


def _read_session(source: SessionStore, run_id: int) -> tuple[Any, dict[str, list[Any]]]:
    with source._snapshot() as conn:
        run = conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
        if run is None:
            raise SessionNotFound(run_id)
        rows = {}
        for table in SESSION_TABLES:
            order = _ORDER.get(table)
            rows[table] = conn.execute(
                f"SELECT * FROM {table} WHERE run_id = ?" + (f" ORDER BY {order}" if order else ""),
                (run_id,),
            ).fetchall()
    return run, rows


def _insert_all(conn: DbConnection, table: str, rows: list[Any], run_id: int) -> None:
    """The rows of one table, given to the new run (one batch: psycopg pipelines it)."""
    if not rows:
        return
    columns: list[str] = rows[0].keys()  # a Row iterates over its values, not its names
    names = [n for n in columns if n not in _OWN_COLUMNS.get(table, ())]
    conn.executemany(
        f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
        [tuple(run_id if n == "run_id" else row[n] for n in names) for row in rows],
    )


def copy_session(source: SessionStore, run_id: int, target: SessionStore) -> int | None:
    """Copy one session of ``source`` into ``target``, whole, in one transaction; its id
    there, or None when ``target`` has it already (same UUID): nothing is written then."""
    run, rows = _read_session(source, run_id)
    if not run["uuid"]:
        raise ValueError(f"session {run_id} has no UUID: open its store once to give it one")
    columns: list[str] = run.keys()
    names = [n for n in columns if n != "id"]
    with target.transaction() as conn:
        cur = conn.execute(
            f"INSERT INTO runs ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"
            " ON CONFLICT (uuid) DO NOTHING RETURNING id",
            tuple(run[n] for n in names),
        )
        created = cur.fetchone()
        if created is None:
            return None
        new_id = int(created[0])
        for table in SESSION_TABLES:
            _insert_all(conn, table, rows[table], new_id)
    return new_id


def _mark(store: SessionStore, run_ids: Sequence[int], key: str) -> None:
    with store.transaction() as conn:
        conn.executemany(
            "INSERT OR IGNORE INTO run_pushes (run_id, store, pushed_at) VALUES (?, ?, ?)",
            [(run_id, key, _now()) for run_id in run_ids],
        )


def unpushed(local: SessionStore, key: str) -> list[int]:
    """Finished sessions of ``local`` not yet in the team store ``key``, oldest first."""
    with local.transaction() as conn:
        fill_run_uuids(conn)  # rows written without one (imports of other tools)
        rows = conn.execute(
            "SELECT r.id FROM runs r WHERE r.status <> 'running' AND NOT EXISTS"
            " (SELECT 1 FROM run_pushes p WHERE p.run_id = r.id AND p.store = ?)"
            " ORDER BY r.id",
            (key,),
        ).fetchall()
    return [int(row[0]) for row in rows]


def push(local: SessionStore, team: SessionStore) -> SyncResult:
    """Send every finished session of ``local`` that the team store does not have yet, each
    in its own transaction, and mark it pushed here; safe to repeat, and to run on two
    desktops at once."""
    config = _config(team)
    result = SyncResult(config.display)
    for run_id in unpushed(local, config.key):
        new_id = copy_session(local, run_id, team)
        if new_id is None:
            result.already.append(run_id)
        else:
            result.copied[run_id] = new_id
        _mark(local, [run_id], config.key)
    return result


def pull(
    team: SessionStore,
    local: SessionStore,
    *,
    author: str | None = None,
    tag: str | None = None,
    system: str | None = None,
    kind: str | None = "run",
) -> SyncResult:
    """Copy the team store's finished sessions (those of ``author``, with ``tag``, of
    ``system``, when given) into the local file, for comparisons offline. Sessions the file
    has already are left as they are."""
    config = _config(team)
    result = SyncResult(config.display)
    wanted = team.filter_runs(author=author, tag=tag, system=system, kind=kind)
    with local._snapshot() as conn:
        have = {row[0] for row in conn.execute("SELECT uuid FROM runs WHERE uuid IS NOT NULL")}
    for info in wanted:
        if info.status == "running":
            continue
        if info.uuid in have:
            result.already.append(info.id)
            continue
        new_id = copy_session(team, info.id, local)
        if new_id is None:  # arrived meanwhile (another window pulled it)
            result.already.append(info.id)
            continue
        result.copied[info.id] = new_id
        _mark(local, [new_id], config.key)
    return result


def _config(team: SessionStore) -> TeamStoreConfig:
    if team.team is None:
        raise ValueError(f"{team.where} is not a team store")
    return team.team


def push_when_reachable(
    local: SessionStore,
    config: TeamStoreConfig,
    opener: Callable[[TeamStoreConfig], SessionStore] | None = None,
) -> SyncResult:
    """Push to the team store if it can be reached now; when it cannot (offline, server
    down, login refused), nothing changes here and the result says why: the sessions stay
    marked unpushed for the next attempt."""
    open_store = opener or (lambda c: SessionStore(team=c))
    try:
        team = open_store(config)
    except StoreError as exc:
        log.info("team store %s not reachable: %s", config.display, exc.reason)
        return SyncResult(config.display, unreachable=exc.reason)
    with team:
        return push(local, team)
