"""``bench-gui engines``: the database engines this installation can run, each with its state
(installed by which plugin, its ODBC driver on this machine, whether this project's tests ran
it against a live server), and the plugins that failed to load with the reason (a missing
engine is never silent).

What an engine says about itself comes from attributes of its plugin class, none of them
required of a third-party engine (one without them is shown as "not stated"):

- ``odbc_drivers``: words searched for, case-insensitively and in order, in the names
  ``pyodbc.drivers()`` gives (absent or empty: the engine does not use ODBC); a driver counts
  as found only when its library loads (:mod:`bench_gui.wire.odbc_drivers`), and the
  installed drivers are listed with their libraries;
- ``verified_live`` (bool) and ``verified_how`` (one line): whether, and how, the engine was
  run against a real server of its kind.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from typing import Any

from bench_gui.cli.terminal import safe
from bench_gui.wire.odbc_drivers import OdbcDriver
from bench_gui.wire.odbc_drivers import drivers as odbc_drivers


@dataclass(frozen=True)
class OdbcState:
    """An engine's ODBC driver on this machine."""

    used: bool  # the engine connects through ODBC
    looked_for: tuple[str, ...]
    found: str | None  # the installed, usable driver's name (None: none of them)
    problem: str = ""  # why none is usable or the drivers could not be listed ('' if found)


def installed_odbc_drivers() -> tuple[list[OdbcDriver], str]:
    """``pyodbc.drivers()`` with their libraries, and '' or, when it cannot be asked, [] and
    why."""
    try:
        import pyodbc
    except ImportError as exc:
        return [], f"pyodbc is not installed here ({exc})"
    try:
        names = [str(name) for name in pyodbc.drivers()]
    except Exception as exc:  # noqa: BLE001 - unixODBC itself can fail: said, not fatal
        return [], f"unixODBC could not list its drivers ({type(exc).__name__}: {exc})"
    return odbc_drivers(names), ""


def odbc_state(engine: Any, drivers: list[OdbcDriver], problem: str = "") -> OdbcState:
    """Which of the drivers ``engine.odbc_drivers`` names this machine has and can load (the
    first by the engine's order of preference); the named ones that cannot load are said."""
    words = tuple(str(w) for w in (getattr(engine, "odbc_drivers", None) or ()))
    if not words:
        return OdbcState(False, (), None)
    broken: list[OdbcDriver] = []
    for word in words:
        for driver in drivers:
            if word.lower() in driver.name.lower():
                if driver.usable:
                    return OdbcState(True, words, driver.name, problem)
                broken.append(driver)
    if broken:
        problem = "; ".join(
            [*dict.fromkeys(d.describe() for d in broken), *[problem][: bool(problem)]]
        )
    return OdbcState(True, words, None, problem)


def verification(engine: Any) -> tuple[bool | None, str]:
    """(verified against a live server, how) from the engine's class; (None, "not stated")
    for an engine that does not say."""
    verified = getattr(engine, "verified_live", None)
    how = str(getattr(engine, "verified_how", "") or "")
    if not isinstance(verified, bool):
        return None, "not stated by the plugin"
    return verified, how


def _plugin(engine: Any) -> str:
    kind = type(engine)
    return f"{kind.__module__}:{kind.__qualname__}"


def _odbc_text(state: OdbcState) -> str:
    if not state.used:
        return "not used (no ODBC)"
    if state.found:
        return f"found ({state.found})"
    wanted = ", ".join(state.looked_for)
    why = f"; {state.problem}" if state.problem else ""
    return f"not found (looked for: {wanted}{why})"


def _verified_text(verified: bool | None, how: str) -> str:
    word = {True: "yes", False: "no", None: "not stated"}[verified]
    return f"{word} ({how})" if how and verified is not None else word


def cmd_engines(args: argparse.Namespace) -> int:
    """List every engine plugin with its state, and the failed ones with the error. Exit 1
    when a plugin failed to load."""
    from bench_gui.core.engine import engine_catalog

    catalog = engine_catalog()
    drivers, problem = installed_odbc_drivers()
    engines = sorted(catalog.engines.values(), key=lambda e: e.name)
    if args.json:
        rows: list[dict[str, Any]] = []
        for e in engines:
            state = odbc_state(e, drivers, problem)
            verified, how = verification(e)
            rows.append(
                {
                    "name": e.name,
                    "label": e.label,
                    "default_port": e.default_port,
                    "installed": True,
                    "plugin": _plugin(e),
                    "odbc": {
                        "used": state.used,
                        "looked_for": list(state.looked_for),
                        "found": state.found,
                        "problem": state.problem,
                    },
                    "verified_live": verified,
                    "verified_how": how,
                }
            )
        data: dict[str, Any] = {
            "engines": rows,
            "odbc_drivers": [d.name for d in drivers],
            "odbc_driver_libraries": [
                {"name": d.name, "library": d.library, "usable": d.usable, "problem": d.problem}
                for d in drivers
            ],
            "failed": [
                {"name": f.name, "plugin": f.target, "error": f.error} for f in catalog.errors
            ],
        }
        print(json.dumps(data))
    else:
        if not catalog.engines:
            print("no engine plugin loaded")
        indent = " " * 13
        for engine in engines:
            print(f"{safe(engine.name):12} {safe(engine.label):20} port {engine.default_port}")
            print(f"{indent}installed: yes ({safe(_plugin(engine))})")
            state = odbc_state(engine, drivers, problem)
            print(f"{indent}ODBC driver on this machine: {safe(_odbc_text(state))}")
            text = _verified_text(*verification(engine))
            print(f"{indent}verified against a live server: {safe(text)}")
        if any(odbc_state(e, drivers).used for e in engines):
            listed = ", ".join(d.describe() for d in drivers) or problem or "none"
            print(f"ODBC drivers on this machine: {safe(listed)}")
        for failed in catalog.errors:
            where = safe(failed.target)
            print(f"{safe(failed.name):12} FAILED to load ({where}): {safe(failed.error)}")
    return 1 if catalog.errors else 0


def add_commands(sub: Any) -> None:
    p = sub.add_parser(
        "engines",
        help="the database engines installed, their state, and plugins that failed to load",
        description="List the database engine plugins (bench_gui.engines entry points): each"
        " one that loaded with its label, default port, plugin, its ODBC driver on this"
        " machine (pyodbc.drivers()) and whether this project's tests ran it against a live"
        " server; and each one that failed with the reason. Exits 1 when a plugin failed to"
        " load.",
    )
    p.add_argument("--json", action="store_true", help="print the list as JSON")
    p.set_defaults(func=cmd_engines)
