"""The database-engine seam: what the desktop side needs to know about an engine.

Engines are plugins found through the ``bench_gui.engines`` entry-point group, the same group a
third-party engine would use; PostgreSQL is the first-party one (``bench_gui_plugins``). An
engine turns a plan's target into connection strings for the agent and names the agent-side
driver that speaks to it. A plugin that fails to load is kept in the catalog with its error
(:func:`engine_catalog`), so the user learns why an engine is missing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Protocol, runtime_checkable

from bench_gui.core.plan_model import Target

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


@dataclass(frozen=True)
class EngineLoadError:
    """An engine plugin that is installed but could not be used, and why (shown to users:
    ``bench-gui engines`` now, the GUI's engine list later)."""

    name: str  # the entry point's name
    target: str  # what it points at, "module:attribute"
    error: str  # one line: the exception's type and message, or what the object lacks


@dataclass(frozen=True)
class EngineCatalog:
    """Every engine plugin: those that loaded, by name, and those that failed, with why."""

    engines: dict[str, Engine] = field(default_factory=dict)
    errors: tuple[EngineLoadError, ...] = ()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__


def engine_catalog() -> EngineCatalog:
    """Load every plugin of the ``bench_gui.engines`` group; a broken one is kept with its
    error instead of stopping the others."""
    engines: dict[str, Engine] = {}
    errors: list[EngineLoadError] = []
    for ep in entry_points(group=ENGINE_GROUP):
        try:
            engine = ep.load()()
        except Exception as exc:  # a plugin's own code can fail in any way: kept, not fatal
            log.warning("engine plugin %r (%s) failed to load", ep.name, ep.value, exc_info=True)
            errors.append(EngineLoadError(ep.name, ep.value, _first_line(exc)))
            continue
        if not isinstance(engine, Engine):
            missing = [
                m for m in ("name", "label", "default_port", "conninfo") if not hasattr(engine, m)
            ]
            errors.append(
                EngineLoadError(
                    ep.name,
                    ep.value,
                    f"not an engine: {type(engine).__name__} has no {', '.join(missing)}",
                )
            )
            continue
        engines[engine.name] = engine
    return EngineCatalog(engines, tuple(errors))


def load_engines() -> dict[str, Engine]:
    """Every engine plugin that loaded, by name (see :func:`engine_catalog` for the others)."""
    return engine_catalog().engines


def get_engine(name: str) -> Engine:
    catalog = engine_catalog()
    try:
        return catalog.engines[name]
    except KeyError:
        known = ", ".join(sorted(catalog.engines)) or "none"
        failed = "".join(
            f"; plugin {e.name!r} failed to load: {e.error}"
            for e in catalog.errors
            if e.name == name
        )
        others = [e.name for e in catalog.errors if e.name != name]
        if others:
            failed += f" (also failed: {', '.join(others)}; see bench-gui engines)"
        raise EngineNotFound(
            f"no engine plugin named {name!r} (installed: {known}){failed}"
        ) from None
