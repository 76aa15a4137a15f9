"""Which database engines the Workload page offers, and what it says about them.

The list is the installed ``bench_gui.engines`` plugins (:func:`bench_gui.core.engine.
engine_catalog`): the engine kits' listed target kinds (:func:`bench_gui.engines.registry.
target_kinds`) in the kits' order, then other plugins' by name. A plugin that failed to load is
never silent: the page shows it, with its error, under the engine choice; so is an engine not run
against a live server here (the plugin's ``verified_live``, else its kit's ``unverified``).

Loading the plugins imports their database drivers (psycopg...), which the window must not
wait for (tests/gui/test_startup.py): until the page loads them, the list is the entry points'
names (``catalog`` is None below), read without importing anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import entry_points

from bench_gui.core.engine import ENGINE_GROUP, Engine, EngineCatalog
from bench_gui.core.plan_model import Target
from bench_gui.engines.registry import target_kind, target_kinds


def kind_label(kind: str) -> str:
    """An engine's name as its kit says it, for when no plugin of that kind is loaded."""
    spec = target_kind(kind)
    return spec.label if spec is not None else kind


@dataclass(frozen=True)
class EngineOption:
    """One entry of the engine list."""

    kind: str
    label: str
    installed: bool

    @property
    def text(self) -> str:
        return self.label if self.installed else f"{self.label} (not installed)"


def kind_defaults(kind: str) -> tuple[int, str, str]:
    """The port, user and admin database a target of ``kind`` has when a plan says nothing
    (its kit's; the plan model's own for a kind no kit serves)."""
    spec = target_kind(kind)
    if spec is not None:
        return spec.port, spec.user, spec.admin_database
    target = Target()
    return target.port, target.user, target.admin_database


def listed_kinds() -> tuple[str, ...]:
    """The kits' server kinds, in the kits' order (other plugins' follow them)."""
    return tuple(t.name for t in target_kinds() if t.listed)


def default_engine() -> str:
    """The engine a server target starts with: the first kit's first server kind."""
    return next(iter(listed_kinds()), "")


def listed_engines() -> list[str]:
    """The names of the installed engine plugins, as their entry points say (none imported)."""
    return [ep.name for ep in entry_points(group=ENGINE_GROUP)]


def engine_options(catalog: EngineCatalog | None, listed: list[str]) -> list[EngineOption]:
    """The installed engines a plan can name, the plan model's own first and third-party ones
    after them by name: those that loaded, or (``catalog`` None: not loaded yet) those
    ``listed``."""
    kinds = listed_kinds()
    extra = sorted(k for k in (listed if catalog is None else catalog.engines) if k not in kinds)
    if catalog is None:
        return [EngineOption(k, kind_label(k), True) for k in (*kinds, *extra) if k in listed]
    return [
        EngineOption(kind, catalog.engines[kind].label, True)
        for kind in (*kinds, *extra)
        if kind in catalog.engines
    ]


def missing_option(kind: str) -> EngineOption:
    """The entry for a plan's engine that no installed plugin provides (kept so that saving
    the plan keeps it, and marked as such)."""
    return EngineOption(kind, kind_label(kind), False)


def catalog_notices(catalog: EngineCatalog) -> list[str]:
    """One line for each plugin that failed to load."""
    return [
        f"⚠ Engine plugin {e.name!r} failed to load ({e.target}): {e.error}" for e in catalog.errors
    ]


def verification(kind: str, engine: Engine | None) -> tuple[bool | None, str]:
    """Whether the engine has been run against a live server, and how (or why not): the
    plugin's ``verified_live`` and ``verified_how`` when it says, else its kit's ``unverified``
    (None: not stated)."""
    said = getattr(engine, "verified_live", None)
    how = str(getattr(engine, "verified_how", "") or "")
    if isinstance(said, bool):
        return said, how
    spec = target_kind(kind)
    if spec is not None and spec.unverified:
        return False, spec.unverified
    return None, ""


def kind_note(kind: str, catalog: EngineCatalog | None) -> str:
    """What the page says under the engine when ``kind`` is chosen ('' when nothing; before
    the plugins are loaded, what the kind alone tells)."""
    engine = catalog.engines.get(kind) if catalog is not None else None
    label = engine.label if engine is not None else kind_label(kind)
    if kind == "demo":
        return ""
    if catalog is not None and engine is None:
        failed = [e for e in catalog.errors if e.name == kind]
        why = f": its plugin failed to load ({failed[0].error})" if failed else ""
        return f"⚠ No installed engine plugin provides {label}{why}; a run cannot start."
    verified, how = verification(kind, engine)
    if verified is False:
        note = f"{label} has not been verified against a live server here"
        return f"⚠ {note} ({how})." if how else f"⚠ {note}."
    return ""
