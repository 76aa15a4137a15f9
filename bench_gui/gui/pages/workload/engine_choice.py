"""Which database engines the Workload page offers, and what it says about them.

The list is the installed ``bench_gui.engines`` plugins (:func:`bench_gui.core.engine.
engine_catalog`): the plan model's own kinds (:data:`bench_gui.core.plan.TARGET_KINDS`) in its
order, then third-party ones by name. A plugin that failed to load is never silent: the page
shows it, with its error, under the engine choice; so is an engine not run against a live server
here (the plugin's ``verified_live``: SQL Server, MySQL).

Loading the plugins imports their database drivers (psycopg...), which the window must not
wait for (tests/gui/test_startup.py): until the page loads them, the list is the entry points'
names (``catalog`` is None below), read without importing anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Final

from bench_gui.core.engine import ENGINE_GROUP, Engine, EngineCatalog
from bench_gui.core.plan_model import ODBC_DEFAULTS, TARGET_KINDS, Target

# Names for engines a plan can name, for when no plugin of that kind is installed.
KIND_LABELS = {
    "postgresql": "PostgreSQL",
    "mariadb": "MariaDB",
    "mysql": "MySQL",
    "mssql": "SQL Server",
}
# What the page says of an engine whose plugin does not say whether it was run against a live
# server (``verified_live`` and ``verified_how``, as ``bench-gui engines`` reads them).
UNVERIFIED_KINDS: Final = {
    "mssql": "no SQL Server here; its T-SQL is only checked by a parser in the tests",
}


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
    (the plan model's own defaults)."""
    if kind in ODBC_DEFAULTS:
        return ODBC_DEFAULTS[kind]
    target = Target()
    return target.port, target.user, target.admin_database


# The plan model's own server kinds, in its order (third-party engines follow them).
KINDS = tuple(k for k in TARGET_KINDS if k != "demo")


def listed_engines() -> list[str]:
    """The names of the installed engine plugins, as their entry points say (none imported)."""
    return [ep.name for ep in entry_points(group=ENGINE_GROUP)]


def engine_options(catalog: EngineCatalog | None, listed: list[str]) -> list[EngineOption]:
    """The installed engines a plan can name, the plan model's own first and third-party ones
    after them by name: those that loaded, or (``catalog`` None: not loaded yet) those
    ``listed``."""
    extra = sorted(k for k in (listed if catalog is None else catalog.engines) if k not in KINDS)
    if catalog is None:
        return [
            EngineOption(k, KIND_LABELS.get(k, k), True) for k in (*KINDS, *extra) if k in listed
        ]
    return [
        EngineOption(kind, catalog.engines[kind].label, True)
        for kind in (*KINDS, *extra)
        if kind in catalog.engines
    ]


def missing_option(kind: str) -> EngineOption:
    """The entry for a plan's engine that no installed plugin provides (kept so that saving
    the plan keeps it, and marked as such)."""
    return EngineOption(kind, KIND_LABELS.get(kind, kind), False)


def catalog_notices(catalog: EngineCatalog) -> list[str]:
    """One line for each plugin that failed to load."""
    return [
        f"⚠ Engine plugin {e.name!r} failed to load ({e.target}): {e.error}" for e in catalog.errors
    ]


def verification(kind: str, engine: Engine | None) -> tuple[bool | None, str]:
    """Whether the engine has been run against a live server, and how (or why not): the
    plugin's ``verified_live`` and ``verified_how`` when it says, else from the kind (None:
    not stated)."""
    said = getattr(engine, "verified_live", None)
    how = str(getattr(engine, "verified_how", "") or "")
    if isinstance(said, bool):
        return said, how
    if kind in UNVERIFIED_KINDS:
        return False, UNVERIFIED_KINDS[kind]
    return None, ""


def kind_note(kind: str, catalog: EngineCatalog | None) -> str:
    """What the page says under the engine when ``kind`` is chosen ('' when nothing; before
    the plugins are loaded, what the kind alone tells)."""
    engine = catalog.engines.get(kind) if catalog is not None else None
    label = engine.label if engine is not None else KIND_LABELS.get(kind, kind)
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
