"""Sessions between the local file and a team store: push what was recorded here, pull what
colleagues recorded, nothing lost or duplicated on either side.

A session is known everywhere by its UUID (schema 4). Copying one writes it whole in one
transaction of the receiving store, its run row inserted with ``ON CONFLICT (uuid) DO
NOTHING``: a session already there (pushed before, by this desktop or by another that pulled
it) is left alone, so pushing twice, or two desktops pushing at once, gives one copy. Once a
session is in the team store the local file marks it (``run_pushes``: which store, when); a
pulled session is marked the same way and is never sent back.

What a push sends is the session as it stands: measured data, tags, note and its history, the
array and the storage described by hand (:data:`SESSION_TABLES`). Runs still going on are not
pushed (they are, once finished). Edits made here later to a pushed or pulled session (tags,
note, array, storage) are queued as operations (:mod:`bench_gui.store.team_edits`) and sent
by the next push or pull; a pull (and :func:`sync`) then brings the local copies of the
sessions both sides have up to date with what colleagues changed. The price lists the
economics read (device and power prices) are merged both ways, an entry once per content, a
deletion on one side deleting it on the other (:func:`merge_prices`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from bench_gui.store.dialect import DbConnection
from bench_gui.store.session_check import RecordError, check_session
from bench_gui.store.session_write import write_session
from bench_gui.store.sessions import SessionNotFound, SessionStore, StoreError, fill_run_uuids
from bench_gui.store.team_edits import PRICE_TABLES, apply_edit, price_content
from bench_gui.store.team_read import read_session
from bench_gui.store.team_refresh import refresh_session
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
    "run_note_history",
    "run_arrays",
    "run_storage",
)
# Of those, what people edit after the fact: what a pull refreshes in the sessions it has.
EDITED_TABLES: Final = ("run_tags", "run_notes", "run_note_history", "run_arrays", "run_storage")
# Tables with a ``run_id`` that stay in their own store: which team stores a session is in,
# the edits waiting to be sent there.
LOCAL_TABLES: Final = ("run_pushes", "run_edits")
# Columns the receiving store gives itself.
_OWN_COLUMNS: Final = {
    "runs": ("id",),
    "run_log": ("id",),
    "run_note_history": ("id",),
    "device_prices": ("id",),
    "power_prices": ("id",),
}
_ORDER: Final = {
    "run_log": "id",
    "events": "seq",
    "samples": "seq",
    "steps": "step",
    "run_note_history": "id",
}


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
    edits_sent: int = 0  # edits of sessions both sides have, sent to the team store
    refreshed: list[int] = field(default_factory=list)  # local sessions brought up to date
    prices: int = 0  # price entries copied
    # Sessions of the team store refused by the check every import passes (id -> why): the
    # rest were pulled.
    refused: dict[int, str] = field(default_factory=dict)
    # Why the edits queued here could not be sent (a reader's login): they wait here.
    edits_kept: str = ""

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
    result.edits_sent = send_edits(local, team)
    result.prices = merge_prices(local, team)
    return result


def sync(local: SessionStore, team: SessionStore) -> SyncResult:
    """Push, then bring the sessions both sides have up to date with the team store's tags,
    notes, arrays and storage, and take the team's prices: what the Sessions page runs."""
    result = push(local, team)
    result.refreshed = refresh(team, local)
    result.prices += merge_prices(team, local)
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
    ``system``, when given) into the local file, for comparisons offline. Each is read as a
    record and checked as a file import is (:mod:`bench_gui.store.session_check`): one that
    fails is refused, named in ``refused``, and the others come. Edits queued here are
    sent first; the sessions the file has already get the team's tags, notes, arrays and
    storage (:func:`refresh`), and the team's prices come along (:func:`merge_prices`)."""
    config = _config(team)
    result = SyncResult(config.display)
    try:
        result.edits_sent = send_edits(local, team)  # before the refresh: none is overwritten
    except StoreError as exc:
        if not exc.reason.startswith("permission denied"):
            raise
        # A reader's login: the edits stay queued here (sent by a writer's push) and the pull
        # goes on; the refresh keeps what they changed.
        result.edits_kept = exc.reason
    wanted = team.filter_runs(author=author, tag=tag, system=system, kind=kind)
    with local._snapshot() as conn:
        have = {row[0] for row in conn.execute("SELECT uuid FROM runs WHERE uuid IS NOT NULL")}
    for info in wanted:
        if info.status == "running":
            continue
        if info.uuid in have:
            result.already.append(info.id)
            continue
        try:
            session = read_session(team, info.id)
            check_session(session)
        except RecordError as exc:
            log.warning("%s: session %s refused: %s", team.where, info.uuid, exc.what)
            result.refused[info.id] = exc.what
            continue
        new_id = write_session(local, session, f"pulled from {config.display}", copy_if_known=False)
        if new_id is None:  # arrived meanwhile (another window pulled it)
            result.already.append(info.id)
            continue
        result.copied[info.id] = new_id
        _mark(local, [new_id], config.key)
    result.refreshed = refresh(team, local, result.refused)
    result.prices = merge_prices(team, local)
    return result


def waiting_edits(local: SessionStore, run_id: int) -> list[str]:
    """The team stores (as messages name them) that edits of ``run_id`` wait to be sent to."""
    with local._snapshot() as conn:
        rows = conn.execute(
            "SELECT DISTINCT store FROM run_edits WHERE run_id = ? ORDER BY store", (run_id,)
        ).fetchall()
    return [f"postgresql://{row[0]}" for row in rows]


def send_edits(local: SessionStore, team: SessionStore) -> int:
    """Send the edits queued in ``local`` for ``team`` (in the order they were made, in one
    transaction of the team store), then forget them here; how many were sent. An edit of a
    session the team store no longer has is dropped with a log line."""
    key = _config(team).key
    with local._snapshot() as conn:
        rows = conn.execute(
            "SELECT e.id, e.kind, e.data, r.uuid FROM run_edits e JOIN runs r ON r.id = e.run_id"
            " WHERE e.store = ? ORDER BY e.id",
            (key,),
        ).fetchall()
    if not rows:
        return 0
    with team.transaction() as conn:
        ids: dict[str, int | None] = {}
        for _edit_id, kind, data, run_uuid in rows:
            if run_uuid not in ids:
                found = conn.execute("SELECT id FROM runs WHERE uuid = ?", (run_uuid,)).fetchone()
                ids[run_uuid] = None if found is None else int(found[0])
            run_id = ids[run_uuid]
            if run_id is None:
                log.warning("%s: session %s is gone, its edit is dropped", team.where, run_uuid)
                continue
            apply_edit(conn, run_id, str(kind), json.loads(data))
    # Sent: a cut before this line sends them again, which changes nothing (team_edits).
    with local.transaction() as conn:
        conn.executemany("DELETE FROM run_edits WHERE id = ?", [(row[0],) for row in rows])
    return len(rows)


def _edited_rows(store: SessionStore) -> dict[str, dict[str, list[tuple[Any, ...]]]]:
    """{session UUID: {table: its rows of the edited tables, as comparable (name, value)
    tuples without run_id or ids}}: small tables, read whole."""
    out: dict[str, dict[str, list[tuple[Any, ...]]]] = {}
    with store._snapshot() as conn:
        for table in EDITED_TABLES:
            skip = {"run_id", *_OWN_COLUMNS.get(table, ())}
            order = _ORDER.get(table, "run_id")
            for row in conn.execute(
                f"SELECT r.uuid AS run_uuid, t.* FROM {table} t JOIN runs r ON r.id = t.run_id"
                f" ORDER BY t.{order}"
            ):
                names: list[str] = row.keys()
                values = tuple((n, row[n]) for n in names if n not in skip and n != "run_uuid")
                out.setdefault(row["run_uuid"], {}).setdefault(table, []).append(values)
    return out


def _comparable(rows: dict[str, list[tuple[Any, ...]]]) -> dict[str, list[tuple[Any, ...]]]:
    return {t: sorted(rows.get(t, []), key=repr) for t in EDITED_TABLES}


def refresh(
    team: SessionStore, local: SessionStore, refused: dict[int, str] | None = None
) -> list[int]:
    """Bring the local copies of sessions both stores have (pushed from here or pulled) up to
    date with the team store's tags, notes, note history, arrays and storage, merged as
    :mod:`bench_gui.store.team_refresh` says (history append-only, the newer note wins, a
    session with edits waiting here keeps its tags, array and storage); their local ids. A
    team record that fails its check is left out, named in ``refused`` (team id -> why)."""
    key = _config(team).key
    with local._snapshot() as conn:
        marked = {
            str(row[1]): int(row[0])
            for row in conn.execute(
                "SELECT r.id, r.uuid FROM runs r JOIN run_pushes p ON p.run_id = r.id"
                " WHERE p.store = ? AND r.uuid IS NOT NULL",
                (key,),
            )
        }
    if not marked:
        return []
    with team._snapshot() as conn:
        present = {
            str(row[1]): int(row[0])
            for row in conn.execute("SELECT id, uuid FROM runs WHERE uuid IS NOT NULL")
            if str(row[1]) in marked
        }
    theirs, ours = _edited_rows(team), _edited_rows(local)
    changed = [
        u for u in sorted(present) if _comparable(theirs.get(u, {})) != _comparable(ours.get(u, {}))
    ]
    refreshed = []
    for run_uuid in changed:
        outcome = refresh_session(team, present[run_uuid], local, marked[run_uuid])
        if isinstance(outcome, str):
            log.warning("%s: edits of session %s refused: %s", team.where, run_uuid, outcome)
            if refused is not None:
                refused[present[run_uuid]] = f"its tags, note or storage: {outcome}"
        elif outcome:
            refreshed.append(marked[run_uuid])
    return refreshed


def merge_prices(source: SessionStore, target: SessionStore) -> int:
    """Bring the device and power price lists of ``source`` into ``target``: its entries that
    ``target`` lacks (same content: an entry is never doubled), and its deletions (an entry
    deleted on one side is deleted on the other, and not brought back by a later merge; one
    entered again after the deletion stays). How many entries were copied."""
    copied = 0
    for table in PRICE_TABLES:
        with source._snapshot() as conn:
            rows = conn.execute(f"SELECT * FROM {table} ORDER BY id").fetchall()
            gone = {
                str(r[0]): str(r[1])
                for r in conn.execute(
                    "SELECT content, deleted_at FROM deleted_prices WHERE price_table = ?",
                    (table,),
                )
            }
        if not rows and not gone:
            continue
        with target.transaction() as conn:
            for content, at in gone.items():
                conn.execute(
                    "INSERT INTO deleted_prices (price_table, content, deleted_at)"
                    " VALUES (?, ?, ?) ON CONFLICT (price_table, content) DO UPDATE SET"
                    " deleted_at = excluded.deleted_at WHERE excluded.deleted_at >"
                    " deleted_prices.deleted_at",
                    (table, content, at),
                )
            deleted = {
                str(r[0]): str(r[1])
                for r in conn.execute(
                    "SELECT content, deleted_at FROM deleted_prices WHERE price_table = ?",
                    (table,),
                )
            }

            have = set()
            for row in conn.execute(f"SELECT * FROM {table}").fetchall():
                if _deleted(table, row, deleted):
                    conn.execute(f"DELETE FROM {table} WHERE id = ?", (row["id"],))
                else:
                    have.add(price_content(table, row))
            missing = []
            for row in rows:
                content = price_content(table, row)
                if content not in have and not _deleted(table, row, deleted):
                    have.add(content)
                    missing.append(row)
            _insert_all_rows(conn, table, missing)
        copied += len(missing)
    return copied


def _deleted(table: str, row: Any, deleted: dict[str, str]) -> bool:
    """The entry was deleted (on either side) after it was made."""
    at = deleted.get(price_content(table, row))
    return at is not None and str(row["created_at"]) <= at


def _insert_all_rows(conn: DbConnection, table: str, rows: list[Any]) -> None:
    if not rows:
        return
    columns: list[str] = rows[0].keys()
    names = [n for n in columns if n not in _OWN_COLUMNS.get(table, ())]
    conn.executemany(
        f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
        [tuple(row[n] for n in names) for row in rows],
    )


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
