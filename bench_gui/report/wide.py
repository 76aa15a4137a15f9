"""Wide tables printed in parts: a comparison of many sessions never runs off the page and
never breaks a word or a number to fit.

A table with a column (or a few) per session grows with the sessions compared: at 12 sessions
Table 1 had 37 columns. Printed (PDF and HTML), a table by user count that would print in more
than two parts is turned, sessions as rows and user counts as columns, when that fits
:data:`MAX_COLUMNS` columns (at 12 sessions Table 1 printed in four parts over three pages,
each comparing three sessions with the baseline). Any other is split into parts of at most
:data:`MAX_COLUMNS` columns, every part repeating the columns shared by all (the user count,
the item) and the baseline's, so each part reads on its own: "Table 1 (part 2 of 3)". CSV
and JSON keep the whole table.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from bench_gui.report.parts import Cell, Table

MAX_COLUMNS = 11  # of one printed part (a portrait page at the brief's small table type)
# A table by user count that would print in more parts than this is turned (by_session): two
# parts read side by side, three and more are paged through.
TURN_AT = 2
WHOLE_LABEL = 16  # characters of a figure's label a turned table keeps on one line


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


def _whole(text: str) -> str:
    """``text`` on one line (its spaces no-break): a session's name or a short figure label in
    a turned table is never wrapped into a row two lines high."""
    return text.replace(" ", "\u00a0")


def all_shared(table: Table) -> Table | None:
    """A table of items whose every value is shared by all sessions (one cell across their
    columns) as two columns, the item and "All configurations"; None when a value differs.
    (At 12 sessions the test schema, the same for all, printed twice, in two parts.)"""
    width = len(table.columns)
    out: list[list[Cell]] = []
    for row in table.rows:
        if row and row[0].span == width:  # a section's own row
            out.append([dataclasses.replace(row[0], span=2), dataclasses.replace(row[1], span=1)])
        elif len(row) > 1 and row[0].span == 1 and row[1].span == width - 1:
            out.append([row[0], dataclasses.replace(row[1], span=1)])
        else:
            return None
    if not out:
        return None
    return dataclasses.replace(
        table, columns=[table.columns[0], "All configurations"], rows=out, text_columns=(0, 1)
    )


def by_session(table: Table, names: Mapping[int, str], baseline: int | None) -> Table | None:
    """A table of user counts (a row each) by session turned a quarter: a row per session and
    figure (the baseline's first), a column per user count; None when ``table`` is not one
    (its first column is not the user count, a column is of no session, cells are merged)."""
    if not table.columns or table.columns[0] != "Users" or not table.rows:
        return None
    sessions = column_sessions(table, names)
    if any(sid is None for sid in sessions[1:]):
        return None
    if any(cell.covered or cell.span > 1 for row in table.rows for cell in row):
        return None
    order = [sid for sid in dict.fromkeys(sessions[1:]) if sid is not None]
    order.sort(key=lambda sid: sid != baseline)
    named = set(names.values())
    rows: list[list[Cell]] = []
    for sid in order:
        for k, i in enumerate(j for j, owner in enumerate(sessions) if owner == sid):
            figure = " ".join(line for line in table.columns[i].split("\n") if line not in named)
            figure = figure.strip("()")
            rows.append(
                [
                    # Named on every row: a table run on to another page between two of
                    # a session's rows still says whose they are (its first row in bold).
                    Cell(_whole(names[sid]), names[sid], "head" if k == 0 else "muted"),
                    Cell(_whole(figure) if len(figure) <= WHOLE_LABEL else figure, figure),
                    *(row[i] for row in table.rows),
                ]
            )
    return dataclasses.replace(
        table,
        columns=["Configuration", "", *(f"{row[0].text}\nusers" for row in table.rows)],
        rows=rows,
        text_columns=(0, 1),
    )


def printed_parts(
    table: Table, names: Mapping[int, str], baseline: int | None, limit: int = MAX_COLUMNS
) -> list[Table]:
    """``table`` as printed: whole when it fits ``limit`` columns; else, a table by user
    count that would print in more than TURN_AT parts with sessions as rows when that fits
    (:func:`by_session`); else in parts, each with the shared columns and the baseline's."""
    if len(table.columns) <= limit:
        return [table]
    shared = all_shared(table)
    if shared is not None:
        return [shared]
    parts = _parts(table, names, baseline, limit)
    turned = by_session(table, names, baseline) if len(parts) > TURN_AT else None
    if turned is not None and len(turned.columns) <= limit:
        return [turned]
    return parts


def _parts(table: Table, names: Mapping[int, str], baseline: int | None, limit: int) -> list[Table]:
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
