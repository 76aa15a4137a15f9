"""The database-engine seam: what the desktop side needs to know about an engine.

Engines are plugins found through the ``bench_gui.engines`` entry-point group, the same group a
third-party engine would use; PostgreSQL is the first-party one (``bench_gui_plugins``). An
engine turns a plan's target into connection strings for the agent and names the agent-side
driver that speaks to it.
"""

from __future__ import annotations

import logging
from importlib.metadata import entry_points
from typing import Protocol, runtime_checkable

from bench_gui.core.plan import Target

log = logging.getLogger(__name__)

ENGINE_GROUP = "bench_gui.engines"


@runtime_checkable
class Engine(Protocol):
    """A database engine as the desktop side sees it."""

    name: str  # key used in plans and sessions, e.g. "postgresql"
    label: str  # shown to users
    default_port: int

    def conninfo(self, target: Target, database: str) -> str:
        """Connection string the agent uses to reach ``database`` on ``target``."""
        ...


class EngineNotFound(LookupError):
    """No installed plugin provides the engine a plan asks for."""


def load_engines() -> dict[str, Engine]:
    """Every engine plugin installed, by name; a broken plugin is skipped, not fatal."""
    engines: dict[str, Engine] = {}
    for ep in entry_points(group=ENGINE_GROUP):
        try:
            engine = ep.load()()
        except Exception:  # a plugin's own code can fail in any way: skipped, not fatal
            log.warning(
                "engine plugin %r (%s) skipped: it failed to load", ep.name, ep.value, exc_info=True
            )
            continue
        if isinstance(engine, Engine):
            engines[engine.name] = engine
    return engines


def get_engine(name: str) -> Engine:
    engines = load_engines()
    try:
        return engines[name]
    except KeyError:
        known = ", ".join(sorted(engines)) or "none"
        raise EngineNotFound(f"no engine plugin named {name!r} (installed: {known})") from None
