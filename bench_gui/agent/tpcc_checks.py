"""The row-level judgements of TPC-C consistency conditions 1-4, the same for every engine.

Each engine's check module reads the rows with its own SQL (one consistent snapshot) and
hands them here, so the conditions read and are worded alike on every engine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench_gui.agent.engines import CheckResult


def result(
    name: str, what: str, total: int, rows: list[Any], describe: Callable[[Any], str]
) -> CheckResult:
    if not rows:
        return CheckResult(name, True, f"holds for all {total} {what}")
    example = describe(rows[0])
    return CheckResult(
        name,
        False,
        f"violated in {len(rows)} of {total} {what}; e.g. {example}",
        len(rows),
    )


def next_o_id(rows: list[tuple[Any, ...]]) -> CheckResult:
    """Condition 2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) (districts with new orders)."""
    bad = [r for r in rows if r[3] != r[2] - 1 or (r[6] and r[4] != r[2] - 1)]
    return result(
        "2: d_next_o_id - 1 = max(o_id) = max(no_o_id)",
        "districts",
        len(rows),
        bad,
        lambda r: (
            f"warehouse {r[0]} district {r[1]}: d_next_o_id {r[2]}, max(o_id) {r[3]},"
            f" max(no_o_id) {r[4]}"
        ),
    )


def new_order_span(rows: list[tuple[Any, ...]]) -> CheckResult:
    """Condition 3: max(NO_O_ID) - min(NO_O_ID) + 1 = number of new_order rows."""
    bad = [r for r in rows if r[6] and r[4] - r[5] + 1 != r[6]]
    return result(
        "3: max(no_o_id) - min(no_o_id) + 1 = count(new_order)",
        "districts",
        len(rows),
        bad,
        lambda r: f"warehouse {r[0]} district {r[1]}: no_o_id {r[5]}..{r[4]} but {r[6]} rows",
    )
