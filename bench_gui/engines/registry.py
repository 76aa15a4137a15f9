"""The engine kits' registry: the built-in kits and those of the ``bench_gui.engine_kits`` entry
point group, looked up by the plan's target kind (:func:`kit_for`)."""

from __future__ import annotations

import logging
from importlib.metadata import entry_points
from typing import Final

from bench_gui.engines.base import EngineKit, TargetKind

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP: Final = "bench_gui.engine_kits"


class UnknownEngine(LookupError):
    """A target kind no registered kit serves; the message names the known ones."""


_KITS: dict[str, EngineKit] = {}


def register(kit: EngineKit) -> EngineKit:
    """Add ``kit`` to the registry (the last one of a name wins, as a plugin overriding it)."""
    _KITS[kit.name] = kit
    return kit


def _load() -> dict[str, EngineKit]:
    if not _KITS:
        from bench_gui.engines.mariadb.kit import KIT as MARIADB
        from bench_gui.engines.mssql.kit import KIT as MSSQL
        from bench_gui.engines.postgresql.kit import KIT as POSTGRESQL

        for kit in (POSTGRESQL, MARIADB, MSSQL):
            register(kit)
        for point in entry_points(group=ENTRY_POINT_GROUP):
            try:
                kit = point.load()
            except Exception:  # a plugin's own code can fail in any way: logged, not fatal
                log.warning("engine kit %r (%s) failed to load", point.name, point.value,
                            exc_info=True)  # fmt: skip
                continue
            if isinstance(kit, EngineKit):
                register(kit)
            else:
                log.warning("engine kit %r (%s) is a %s, not an EngineKit", point.name,
                            point.value, type(kit).__name__)  # fmt: skip
    return _KITS


def kits() -> list[EngineKit]:
    """Every registered kit, PostgreSQL (the demo's engine) first."""
    return list(_load().values())


def kit_for(kind: str) -> EngineKit:
    """The kit serving the target kind ``kind``; :class:`UnknownEngine` if none does."""
    for kit in _load().values():
        if kind in kit.kinds:
            return kit
    known = ", ".join(k for kit in _load().values() for k in kit.kinds)
    raise UnknownEngine(f"no engine kit tunes {kind!r} targets (tuned: {known})")


def target_kinds() -> list[TargetKind]:
    """Every target kind of every kit, in the kits' order (the demo's engine first)."""
    return [t for kit in _load().values() for t in kit.targets]


def target_kind(kind: str) -> TargetKind | None:
    """What a kit says of the target kind ``kind``; None when no registered kit serves it (a
    third-party engine with a connection plugin and no kit, or a typo the plan check names)."""
    return next((t for t in target_kinds() if t.name == kind), None)
