"""The error an engine's code raises with a message meant for the user (wrong credentials, a
missing schema, no ODBC driver): the agent's engines and the desktop's tuners both raise it,
and the pages catch it."""

from __future__ import annotations


class EngineError(RuntimeError):
    """A failure with a message meant for the user (wrong credentials, missing schema...)."""
