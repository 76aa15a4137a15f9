"""Schema migration 3 of the session store: settings in real units, and storage descriptions.

Sessions stored before it keep each database setting as text with its unit appended to the
number (shared_buffers of 16384 x 8kB was stored "163848kB"). The migration rewrites every such
text as a record with the value in real units and PostgreSQL's own text (``128MB``), keeping the
old text in ``migrated_from`` (:mod:`bench_gui.wire.setting_units`). The ``hello`` events
keep what the agent sent, as it sent it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Final

from bench_gui.store.annotations import STORAGE_DESCRIPTION_DDL
from bench_gui.store.dialect import DbConnection
from bench_gui.wire.setting_units import upgrade_settings


def _version_num(agent: str | None) -> object:
    """The agent's server_version_num (read in Python: the migration runs on PostgreSQL too)."""
    try:
        record = json.loads(agent or "{}")
    except ValueError:
        return None
    return record.get("server_version_num") if isinstance(record, dict) else None


def upgrade_stored_settings(conn: DbConnection) -> int:
    """Rewrite the old text settings of every run as records; the number of runs changed."""
    rows = conn.execute(
        "SELECT id, settings, agent FROM runs"
        " WHERE settings IS NOT NULL AND settings NOT IN ('', '{}')",
        (),
    ).fetchall()
    changed = 0
    for run_id, text, agent in rows:
        version = _version_num(agent)
        try:
            settings = json.loads(text)
        except ValueError:
            continue  # not JSON: left for a person to look at, never thrown away
        if not isinstance(settings, dict):
            continue
        number = version if isinstance(version, int) and not isinstance(version, bool) else 0
        upgraded, count = upgrade_settings(settings, number)
        if count:
            conn.execute(
                "UPDATE runs SET settings = ? WHERE id = ?",
                (json.dumps(upgraded, separators=(",", ":"), default=str), run_id),
            )
            changed += 1
    return changed


# Migration 3 (see sessions.MIGRATIONS): a statement is SQL, a callable gets the connection.
SETTINGS_MIGRATION: Final[tuple[str | Callable[[DbConnection], object], ...]] = (
    *STORAGE_DESCRIPTION_DDL,
    upgrade_stored_settings,
)
