"""Calling a stored procedure or a query over ODBC as the users do, in tests."""

from __future__ import annotations

from typing import Any


def call(cursor: Any, text: str) -> tuple[int, int]:
    """A procedure's (status, figure) row; its further result sets are drained."""
    cursor.execute(text)
    row = cursor.fetchone()
    while cursor.nextset():
        pass
    return int(row[0]), int(row[1] or 0)


def one(cursor: Any, query: str) -> Any:
    """The first column of a query's first row."""
    cursor.execute(query)
    return cursor.fetchone()[0]
