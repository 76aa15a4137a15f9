"""The runs themselves: creating, describing, finishing, deleting, listing and filtering them.

:class:`RunRows` is mixed into :class:`~bench_gui.store.sessions.SessionStore` and works
through its transactions (:class:`~bench_gui.store.store_core.StoreCore`). A run is claimed by
the process that creates it (:mod:`bench_gui.store.run_claims`); closing runs a crashed app
left "running" leaves alone the ones a live process still writes.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection
from dataclasses import asdict
from typing import Any, Final

from bench_gui import __version__
from bench_gui.store.annotations import storable_text
from bench_gui.store.errors import SessionNotFound, StoreError
from bench_gui.store.recorder import current_author, current_host
from bench_gui.store.records import RunDetail, RunInfo
from bench_gui.store.row_values import (
    _column,
    _dict,
    _dumps,
    _iso,
    _listed,
    _loads,
    _loads_or,
    _now,
)
from bench_gui.store.schema import FINAL_STATUSES
from bench_gui.store.store_core import StoreCore
from bench_gui.workloads.base import kits

STALE_MESSAGE: Final = "bench-gui stopped while this run was going on"


def target_summary(target: dict[str, Any]) -> str:
    """A short label for a target: what the session list shows."""
    kind = str(target.get("kind") or "")
    if kind == "demo":
        return "embedded demo"
    owner = next((kit for kit in kits() if kit.name == kind), None)
    if owner is not None:  # a workload that reads no database is its own target
        return str(owner.face("target_summary")(target))
    return database_summary(target)


def database_summary(target: dict[str, Any]) -> str:
    """A database target in a few words: ``user@host:port/database``."""
    kind = str(target.get("kind") or "")
    host = target.get("host")
    if not host:
        return kind or "unknown target"
    text = f"{host}:{target['port']}" if target.get("port") else str(host)
    if target.get("user"):
        text = f"{target['user']}@{text}"
    if target.get("database"):
        text = f"{text}/{target['database']}"
    return text


class RunRows(StoreCore):
    """A run's row: its life from "running" to an end, its name and details, the run lists."""

    # -- writing ------------------------------------------------------------------------------

    def create_run(
        self,
        name: str,
        plan: dict[str, Any],
        plan_toml: str,
        target: dict[str, Any],
        engine: str,
        kind: str = "run",
    ) -> int:
        """Record a new run, status "running", before its first event arrives; return its id.

        This process claims the run (:attr:`claims`) before anyone can see it: an app that
        starts meanwhile leaves it running. The run is named by a new UUID in every store, and
        carries who records it and on which machine (:mod:`bench_gui.store.recorder`)."""
        with self.transaction() as conn:
            cur = conn.execute(
                "INSERT INTO runs (kind, name, status, created_at, engine, app_version, plan,"
                " plan_toml, target, uuid, author, host)"
                " VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    kind,
                    name,
                    _now(),
                    engine,
                    __version__,
                    _dumps(plan),
                    plan_toml,
                    _dumps(target),
                    str(uuid.uuid4()),
                    current_author(),
                    current_host(),
                ),
            )
            assert cur.lastrowid is not None
            self.claims.claim(cur.lastrowid)
            return cur.lastrowid

    def set_server_info(
        self,
        run_id: int,
        version: str,
        settings: dict[str, Any],
        inventory: dict[str, Any] | None = None,
    ) -> None:
        """Record the server's version and settings; an inventory of None keeps the stored one.

        Settings are records (:mod:`bench_gui.wire.setting_units`); text is kept as given.
        """
        with self.transaction() as conn:
            if inventory is None:
                cur = conn.execute(
                    "UPDATE runs SET server_version = ?, settings = ? WHERE id = ?",
                    (version, _dumps(settings), run_id),
                )
            else:
                cur = conn.execute(
                    "UPDATE runs SET server_version = ?, settings = ?, inventory = ? WHERE id = ?",
                    (version, _dumps(settings), _dumps(inventory), run_id),
                )
            if cur.rowcount == 0:
                raise SessionNotFound(run_id)

    def update_inventory(self, run_id: int, fields: dict[str, Any]) -> dict[str, Any]:
        """Add or replace top-level parts of a run's inventory (the database's placement, found
        once the agent said where its data directory is); return the inventory."""
        with self.transaction() as conn:
            row = conn.execute("SELECT inventory FROM runs WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                raise SessionNotFound(run_id)
            inventory = _dict(_loads(row[0], {}))
            inventory.update(fields)
            conn.execute("UPDATE runs SET inventory = ? WHERE id = ?", (_dumps(inventory), run_id))
        return inventory

    def finish_run(self, run_id: int, status: str, message: str = "") -> None:
        """Close a run; "incomplete" keeps everything measured. An empty message keeps the
        one already recorded (for instance the agent's, from its ``done`` event)."""
        if status not in FINAL_STATUSES:
            raise ValueError(f"status must be one of {', '.join(FINAL_STATUSES)}, got {status!r}")
        with self.transaction() as conn:
            cur = conn.execute(
                "UPDATE runs SET status = ?, finished_at = ?,"
                " message = CASE WHEN ? = '' THEN message ELSE ? END WHERE id = ?",
                (status, _now(), message, message, run_id),
            )
            if cur.rowcount == 0:
                raise SessionNotFound(run_id)
        self.claims.release(run_id)

    def mark_stale_running(
        self,
        status: str = "incomplete",
        keep: Collection[int] = (),
        message: str = STALE_MESSAGE,
    ) -> list[int]:
        """On app start: close runs a crashed app left "running"; return their ids.

        ``keep`` lists runs to leave running (runs about to be re-attached); runs a live
        process is still writing (:attr:`claims`: a ``bench-gui run`` in a terminal, another
        window) are always left alone. A finished_at of the last event received is the best
        guess of when the app lost the run.
        """
        if status not in FINAL_STATUSES:
            raise ValueError(f"status must be one of {', '.join(FINAL_STATUSES)}, got {status!r}")
        marked: list[int] = []
        # On a team store, only this machine's runs: claims are seen on this machine only, and
        # a colleague's run that is still going on must never be closed from here.
        mine = " AND r.host = ?" if self._team is not None else ""
        with self.transaction() as conn:
            rows = conn.execute(
                "SELECT r.id, r.created_at, (SELECT MAX(t) FROM events e WHERE e.run_id = r.id)"
                f" FROM runs r WHERE r.status = 'running'{mine} ORDER BY r.id",
                (current_host(),) if mine else (),
            ).fetchall()
            for run_id, created_at, last_t in rows:
                if run_id in keep or self.claims.held(run_id):
                    continue
                finished = created_at if last_t is None else _iso(last_t)
                conn.execute(
                    "UPDATE runs SET status = ?, finished_at = ?, message = ? WHERE id = ?",
                    (status, finished, message, run_id),
                )
                marked.append(run_id)
        return marked

    def close_unfinished(self, run_id: int, message: str) -> bool:
        """Close a run whose agent never reported its end (not re-attached, driver host out of
        reach...) as "incomplete" with ``message``; False if the run is no longer open.

        Only "running" and "incomplete" runs change: a run that received its ``done`` meanwhile
        keeps its outcome, and one another live process is writing (:attr:`claims`) is left to
        it. As in :meth:`mark_stale_running`, finished_at is the time of the last event
        received; a run closed already keeps its finished_at.
        """
        if self.claims.held(run_id) and not self.claims.mine(run_id):
            return False
        with self.transaction() as conn:
            row = conn.execute(
                "SELECT r.status, r.created_at, r.finished_at,"
                " (SELECT MAX(t) FROM events e WHERE e.run_id = r.id) FROM runs r WHERE r.id = ?",
                (run_id,),
            ).fetchone()
            if row is None:
                raise SessionNotFound(run_id)
            status, created_at, finished_at, last_t = row
            if status not in ("running", "incomplete"):
                return False
            if status == "running" or finished_at is None:
                finished_at = created_at if last_t is None else _iso(last_t)
            conn.execute(
                "UPDATE runs SET status = 'incomplete', finished_at = ?, message = ? WHERE id = ?",
                (finished_at, message, run_id),
            )
        self.claims.release(run_id)
        return True

    def delete_run(self, run_id: int) -> None:
        """Delete a run and everything stored with it."""
        with self.transaction() as conn:
            if conn.execute("DELETE FROM runs WHERE id = ?", (run_id,)).rowcount == 0:
                raise SessionNotFound(run_id)

    def rename_run(self, run_id: int, name: str) -> None:
        """Rename a run; names are for people, the id stays the reference."""
        name = storable_text(name.strip(), "session name")
        if not name:
            raise ValueError("a session name cannot be empty")
        with self.transaction() as conn:
            cur = conn.execute("UPDATE runs SET name = ? WHERE id = ?", (name, run_id))
            if cur.rowcount == 0:
                raise SessionNotFound(run_id)

    # -- reading ------------------------------------------------------------------------------

    def _load_runs(self, where: str, params: tuple[Any, ...]) -> list[tuple[Any, RunInfo]]:
        with self._snapshot() as conn:
            rows = conn.execute(
                "SELECT r.*,"
                " (SELECT COUNT(*) FROM steps s WHERE s.run_id = r.id) AS n_steps,"
                " (SELECT COALESCE(MAX(CASE WHEN s.complete <> 0 THEN s.nopm END), MAX(s.nopm))"
                "  FROM steps s WHERE s.run_id = r.id) AS best_nopm"
                f" FROM runs r {where} ORDER BY r.created_at DESC, r.id DESC",
                params,
            ).fetchall()
            vus: dict[int, list[int]] = {}
            for run_id, n in conn.execute(
                f"SELECT run_id, vus FROM steps WHERE run_id IN (SELECT r.id FROM runs r {where})"
                " ORDER BY run_id, step",
                params,
            ):
                vus.setdefault(run_id, []).append(n)
        return [
            (
                row,
                RunInfo(
                    id=row["id"],
                    name=_listed(row["name"]),
                    kind=row["kind"],
                    status=row["status"],
                    created_at=row["created_at"],
                    finished_at=row["finished_at"],
                    engine=row["engine"],
                    target_summary=target_summary(_dict(_loads_or(row["target"], {}))),
                    steps=row["n_steps"],
                    best_nopm=row["best_nopm"],
                    vus=vus.get(row["id"], []),
                    uuid=_column(row, "uuid") or "",
                    author=_column(row, "author") or "",
                    host=_column(row, "host") or "",
                    origin=_column(row, "origin") or "",
                    pushed_by=_column(row, "pushed_by") or "",
                ),
            )
            for row in rows
        ]

    def list_runs(self, kind: str | None = "run") -> list[RunInfo]:
        """Runs of one kind (all kinds for None), newest first."""
        if kind is None:
            return [info for _row, info in self._load_runs("", ())]
        return [info for _row, info in self._load_runs("WHERE r.kind = ?", (kind,))]

    def filter_runs(
        self,
        *,
        author: str | None = None,
        tag: str | None = None,
        system: str | None = None,
        host: str | None = None,
        kind: str | None = "run",
    ) -> list[RunInfo]:
        """Runs recorded by ``author``, carrying ``tag``, of the tested ``system`` (a part of
        the target's label or the server's host name in its inventory) or recorded on ``host``;
        newest first, every condition given must hold (any case). The same on a team store."""
        clauses: list[str] = []
        params: list[Any] = []
        if kind is not None:
            clauses.append("r.kind = ?")
            params.append(kind)
        if author is not None:
            clauses.append("lower(r.author) = lower(?)")
            params.append(author.strip())
        if host is not None:
            clauses.append("lower(r.host) = lower(?)")
            params.append(host.strip())
        if tag is not None:
            clauses.append(
                "EXISTS (SELECT 1 FROM run_tags g"
                " WHERE g.run_id = r.id AND lower(g.tag) = lower(?))"
            )
            params.append(" ".join(tag.split()))
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        found = self._load_runs(where, tuple(params))
        if system is None:
            return [info for _row, info in found]
        needle = system.strip().lower()
        out = []
        for row, info in found:
            inventory = _dict(_loads_or(row["inventory"], {}))
            names = (info.target_summary, str(inventory.get("hostname") or ""))
            if any(needle in name.lower() for name in names):
                out.append(info)
        return out

    def run_info(self, run_id: int) -> RunInfo:
        """One run's line of the session list: read even when its record is damaged (what a
        deletion names)."""
        found = self._load_runs("WHERE r.id = ?", (run_id,))
        if not found:
            raise SessionNotFound(run_id)
        return found[0][1]

    def get_run(self, run_id: int) -> RunDetail:
        """One run with its plan, target and server details (no bulk data)."""
        found = self._load_runs("WHERE r.id = ?", (run_id,))
        if not found:
            raise SessionNotFound(run_id)
        row, info = found[0]
        parsed: dict[str, Any] = {}
        for column in ("plan", "target", "settings", "inventory", "agent"):
            try:
                parsed[column] = _loads(row[column], None if column == "inventory" else {})
            except (ValueError, RecursionError):
                raise StoreError(
                    self.where,
                    f"read session {run_id}",
                    f"its {column} is not valid JSON: the record is damaged (delete it, or"
                    " import it again from a file)",
                ) from None
        return RunDetail(
            **asdict(info),
            plan_toml=row["plan_toml"],
            server_version=row["server_version"],
            app_version=row["app_version"],
            message=row["message"],
            **parsed,
        )
