"""A recording stand-in for a pyodbc connection to SQL Server: a test seam, not a server.

No SQL Server runs here, so the only way to learn *every* statement the engine and its users
send is to give them a connection that writes down each SQL text it is handed and answers
with rows a test scripts. Tests that use it say so in their names and docstrings ("recorded
statements"); what they prove is what was sent (each text then goes through the T-SQL parser
of :mod:`tests.engines.mssql.agent.tsql_check`) and how the engine reads well-formed answers, never
how a server would answer. The call surface is pyodbc's, as far as the engine uses it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

ResultSets = list[list[tuple[Any, ...]]]
# (sql, params) -> the result sets of that statement ([] for none); may raise pyodbc.Error.
Answer = Callable[[str, Sequence[Any]], ResultSets]


@dataclass
class Sent:
    """One statement handed to a cursor: its text, and its parameters (rows for executemany)."""

    sql: str
    params: tuple[Any, ...] = ()
    many: int = 0  # rows of an executemany


@dataclass
class Log:
    """Everything sent on the connections sharing this log."""

    sent: list[Sent] = field(default_factory=list)
    commits: int = 0
    commit_points: list[int] = field(default_factory=list)  # len(sent) at each commit
    rollbacks: int = 0
    opened: int = 0
    closed: int = 0

    def texts(self) -> list[str]:
        """Each distinct statement text, in the order first sent."""
        return list(dict.fromkeys(s.sql for s in self.sent))


class RecordingCursor:
    def __init__(self, conn: RecordingConnection) -> None:
        self.conn = conn
        self._sets: ResultSets = []
        self._index = 0
        self.description: Any = None
        self.fast_executemany = False
        self.input_sizes: Any = None

    def _load(self, sets: ResultSets) -> None:
        self._sets = sets
        self._index = 0
        self.description = (("c",),) if sets else None

    def execute(self, sql: str, *params: Any) -> RecordingCursor:
        if len(params) == 1 and isinstance(params[0], (list, tuple)):
            params = tuple(params[0])
        self.conn.log.sent.append(Sent(sql, tuple(params)))
        self._load(self.conn.answer(sql, params))
        return self

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        rows = list(rows)
        self.conn.log.sent.append(Sent(sql, tuple(rows[0]) if rows else (), len(rows)))
        self._load([])

    def setinputsizes(self, sizes: Any) -> None:
        self.input_sizes = sizes

    def fetchone(self) -> tuple[Any, ...] | None:
        rows = self._sets[self._index] if self._sets else []
        return rows[0] if rows else None

    def fetchall(self) -> list[tuple[Any, ...]]:
        return list(self._sets[self._index]) if self._sets else []

    def nextset(self) -> bool:
        if self._index + 1 < len(self._sets):
            self._index += 1
            return True
        self.description = None
        return False

    def close(self) -> None:
        pass


class RecordingConnection:
    """Hands out :class:`RecordingCursor` objects that write into ``log`` and answer with
    ``answer``."""

    def __init__(self, answer: Answer, log: Log | None = None) -> None:
        self.answer = answer
        self.log = log or Log()
        self.log.opened += 1
        self.autocommit = True
        self.timeout = 0

    def cursor(self) -> RecordingCursor:
        return RecordingCursor(self)

    def commit(self) -> None:
        self.log.commits += 1
        self.log.commit_points.append(len(self.log.sent))

    def rollback(self) -> None:
        self.log.rollbacks += 1

    def close(self) -> None:
        self.log.closed += 1
