"""TPROC-C's tables and their sizes (TPC-C 5.11, clause 1.2 and 4.3): what the agent builds and
checks on every engine, and what the report states a session's schema held, from one place."""

from __future__ import annotations

from typing import Final

TABLES: Final = (
    "warehouse",
    "district",
    "customer",
    "history",
    "orders",
    "new_order",
    "order_line",
    "item",
    "stock",
)

ITEMS: Final = 100_000  # the item table's rows, whatever the warehouse count

# Rows per warehouse at load time (order_line is ~10 per order and only checked loosely).
ROWS_PER_WAREHOUSE: Final[dict[str, int]] = {
    "warehouse": 1,
    "district": 10,
    "customer": 30_000,
    "history": 30_000,
    "orders": 30_000,
    "new_order": 9_000,
    "order_line": 300_000,
    "stock": 100_000,
}
