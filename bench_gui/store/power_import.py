"""A meter's power log imported into a stored session: each step's power figures (issue 6).

:class:`StepPowerImport` is mixed into :class:`~bench_gui.store.sessions.SessionStore`; the
arithmetic (the windows, the idle baseline) is :mod:`bench_gui.core.power`'s, this module
finds the windows in the stored session and writes the figures and the log line.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from bench_gui.core.power import (
    DEFAULT_IDLE_S,
    IMPORT_LABEL_PREFIX,
    POWER_FIELDS,
    PowerImport,
    PowerLogError,
    PowerReading,
    StepPower,
    idle_from_log,
    import_label,
    step_power_from_log,
)
from bench_gui.store.dialect import DbConnection
from bench_gui.store.row_values import _dict, _dumps, _loads, _now, _num
from bench_gui.store.store_core import StoreCore


def _power_import_message(
    source: str,
    figures: Sequence[StepPower],
    previous: dict[int, float | None],
    idle_w: float | None,
    idle_note: str,
    kept_original: bool,
) -> str:
    """The session-log line of a power import: what each step now says, and said before."""
    replaced = any(previous.get(f.step) is not None for f in figures)
    parts = []
    for f in figures:
        text = f"step {f.step + 1} ({f.vus} VU) "
        before = previous.get(f.step)
        if before is not None:
            text += f"{before:.1f} W -> "
        text += f"{f.figures.watts:.1f} W"
        if f.figures.mw_per_nopm is not None:
            text += f", {f.figures.mw_per_nopm:.3f} mW/NOPM"
        parts.append(text)
    verb = "replaced" if replaced else "imported"
    text = f"power figures {verb} from {source}: " + "; ".join(parts)
    text += f"; idle {idle_w:.1f} W" if idle_w is not None else f" ({idle_note})"
    if kept_original:
        text += " (the meter's own figures are kept as power_original in each step)"
    return text


class StepPowerImport(StoreCore):
    """Power figures from a meter's log, given to the steps of a stored session."""

    def import_power_log(
        self, run_id: int, readings: Sequence[PowerReading], source: str
    ) -> PowerImport:
        """Give a stored session's steps the power figures of a meter's log (issue 6).

        Each step gets average watts over exactly its measured window (``window_t0`` to
        ``window_t1``), mW per NOPM, J per new order, the energy and the meter label
        "CSV import: <source>"; the idle baseline comes from the log's readings before the run,
        when it covers them. Figures a meter measured during the run are kept in each step's
        ``power_original`` and the replacement is recorded in the session's log. A log that
        misses a window raises :class:`~bench_gui.core.power.PowerLogError` naming the step and
        the gap, and nothing changes; importing the same log again changes nothing either.
        """
        label = import_label(source)
        ordered = sorted(readings, key=lambda r: r.t)
        with self.transaction() as conn:
            self._require(conn, run_id)
            rows = conn.execute(
                "SELECT step, summary FROM steps WHERE run_id = ? ORDER BY step", (run_id,)
            ).fetchall()
            if not rows:
                raise PowerLogError(f"session {run_id} has no measured step to give power to")
            summaries = {row["step"]: json.loads(row["summary"]) for row in rows}
            figures, skipped = step_power_from_log(
                [{**summary, "step": step} for step, summary in summaries.items()], ordered
            )
            idle, idle_note = self._import_idle(conn, run_id, ordered)
            idle_w = idle[0] if idle else None
            previous: dict[int, float | None] = {}
            updates: list[tuple[int, dict[str, Any]]] = []
            for item in figures:
                old = summaries[item.step]
                previous[item.step] = _num(old.get("power_w"))
                new = dict(old)
                new.update(item.as_summary(label, idle_w))
                original = {k: old[k] for k in POWER_FIELDS if old.get(k) is not None}
                from_meter = not str(old.get("power_label") or "").startswith(IMPORT_LABEL_PREFIX)
                if original and from_meter and "power_original" not in old:
                    new["power_original"] = original
                stamp = {"file": source, "readings": len(ordered)}
                before = {k: v for k, v in _dict(old.get("power_import")).items() if k in stamp}
                if before != stamp or any(new.get(k) != old.get(k) for k in POWER_FIELDS):
                    new["power_import"] = {**stamp, "imported_at": _now()}
                    updates.append((item.step, new))
            message = ""
            if updates:
                kept = any("power_original" in summary for _step, summary in updates)
                message = _power_import_message(source, figures, previous, idle_w, idle_note, kept)
                conn.executemany(
                    "UPDATE steps SET summary = ? WHERE run_id = ? AND step = ?",
                    [(_dumps(summary), run_id, step) for step, summary in updates],
                )
                self._insert_log(conn, run_id, None, datetime.now(UTC).timestamp(), "info", message)
        return PowerImport(
            run_id=run_id,
            source=source,
            label=label,
            steps=figures,
            idle_w=idle_w,
            idle_window=(idle[1], idle[2]) if idle else None,
            idle_note=idle_note,
            skipped=skipped,
            previous_w=previous,
            changed=bool(updates),
            message=message,
        )

    @staticmethod
    def _import_idle(
        conn: DbConnection, run_id: int, readings: Sequence[PowerReading]
    ) -> tuple[tuple[float, float, float] | None, str]:
        """The idle baseline of an imported log: over the agent's own idle measurement when it
        made one, else over the plan's idle time (or DEFAULT_IDLE_S) before the run's first
        event, while the bench had put no load on the server yet."""
        # The JSON is read here, not with json_extract: the same query runs on PostgreSQL.
        progress = conn.execute(
            "SELECT t, data FROM events WHERE run_id = ? AND kind = 'progress' ORDER BY seq",
            (run_id,),
        ).fetchall()
        idle_rows = [
            (t, data.get("done"))
            for t, data in ((row[0], _dict(_loads(row[1], {}))) for row in progress)
            if data.get("task") == "idle"
        ]
        if idle_rows:
            done = _num(idle_rows[0][1]) or 0.0
            t0, t1 = float(idle_rows[0][0]) - done, float(idle_rows[-1][0])
            where = "the run's idle measurement"
        else:
            first = conn.execute("SELECT MIN(t) FROM events WHERE run_id = ?", (run_id,))
            start = first.fetchone()[0]
            if start is None:
                return None, "the session has no events to place an idle period before"
            plan = _loads(
                conn.execute("SELECT plan FROM runs WHERE id = ?", (run_id,)).fetchone()[0], {}
            )
            idle_s = _num(_dict(_dict(plan).get("power")).get("idle_s")) or DEFAULT_IDLE_S
            t0, t1 = float(start) - idle_s, float(start)
            where = f"the {idle_s:g} s before the run started"
        found = idle_from_log(readings, t0, t1)
        if found is None:
            return None, f"no idle baseline: the log does not cover {where}"
        return found, ""
