"""Wide tables printed in parts: a comparison of many sessions never runs off the page and
never breaks a word or a number to fit.

A table with a column (or a few) per session grows with the sessions compared: at 12 sessions
Table 1 had 37 columns. Printed (PDF and HTML), such a table is split into parts of at most
:data:`MAX_COLUMNS` columns; every part repeats the columns shared by all (the user count, the
item) and the baseline's, so each part reads on its own: "Table 1 (part 2 of 3)". CSV and JSON
keep the whole table.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from bench_gui.report.parts import Cell, Table

MAX_COLUMNS = 11  # of one printed part (a portrait page at the brief's small table type)


def column_sessions(table: Table, names: Mapping[int, str]) -> list[int | None]:
    """The session each column is of (its header names it, on a line of its own), else None."""
    by_name = {name: sid for sid, name in names.items()}
    out: list[int | None] = []
    for header in table.columns:
        found = [by_name[line] for line in header.split("\n") if line in by_name]
        out.append(found[0] if found else None)
    return out


def _cells(row: Sequence[Cell], picked: Sequence[int]) -> list[Cell]:
    """The cells of ``picked`` columns, spans cut to the columns kept."""
    owner: list[int] = []
    for i, cell in enumerate(row):
        owner.append(i if not cell.covered or not owner else owner[-1])
    out: list[Cell] = []
    for j, col in enumerate(picked):
        first = j == 0 or owner[picked[j - 1]] != owner[col]
        if first:
            span = 1
            while j + span < len(picked) and owner[picked[j + span]] == owner[col]:
                span += 1
            out.append(dataclasses.replace(row[owner[col]], span=span, covered=False))
        else:
            out.append(dataclasses.replace(row[col], covered=True, span=1))
    return out


def printed_parts(
    table: Table, names: Mapping[int, str], baseline: int | None, limit: int = MAX_COLUMNS
) -> list[Table]:
    """``table`` as printed: whole when it fits ``limit`` columns, else in parts, each with
    the shared columns and the baseline's."""
    if len(table.columns) <= limit:
        return [table]
    sessions = column_sessions(table, names)
    kept = [i for i, sid in enumerate(sessions) if sid is None or sid == baseline]
    order: list[int] = []
    for sid in sessions:
        if sid is not None and sid != baseline and sid not in order:
            order.append(sid)
    room = limit - len(kept)
    if not order or room < 1:
        return [table]
    widths = {sid: sessions.count(sid) for sid in order}
    count = -(-sum(widths.values()) // room)  # parts needed
    per = -(-len(order) // count)  # sessions a part, balanced
    groups: list[list[int]] = [[]]
    for sid in order:
        used = sum(widths[s] for s in groups[-1])
        if groups[-1] and (len(groups[-1]) == per or used + widths[sid] > room):
            groups.append([])
        groups[-1].append(sid)
    parts = []
    for n, group in enumerate(groups, 1):
        picked = sorted(kept + [i for i, sid in enumerate(sessions) if sid in group])
        parts.append(
            dataclasses.replace(
                table,
                title=f"{table.title} (part {n} of {len(groups)})",
                columns=[table.columns[i] for i in picked],
                rows=[_cells(row, picked) for row in table.rows],
                notes=table.notes if n == len(groups) else [],
                text_columns=tuple(j for j, i in enumerate(picked) if i in table.text_columns),
            )
        )
    return parts


def report_parts(table: Table, report: object, limit: int = MAX_COLUMNS) -> list[Table]:
    """:func:`printed_parts` with a report's short names and baseline (templates call it)."""
    names = getattr(report, "short", None) or getattr(report, "names", {})
    base = getattr(getattr(report, "comparison", None), "baseline", None)
    baseline = getattr(base, "id", None)
    return printed_parts(table, names, baseline, limit)
