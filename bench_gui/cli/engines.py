"""``bench-gui engines``: the database engines this installation can run, and the plugins
that failed to load with the reason (a missing engine is never silent)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from bench_gui.cli.terminal import safe


def cmd_engines(args: argparse.Namespace) -> int:
    """List every engine plugin: loaded ones with their label and port, failed ones with the
    error. Exit 1 when a plugin failed to load."""
    from bench_gui.core.engine import engine_catalog

    catalog = engine_catalog()
    if args.json:
        data: dict[str, Any] = {
            "engines": [
                {"name": e.name, "label": e.label, "default_port": e.default_port}
                for e in sorted(catalog.engines.values(), key=lambda e: e.name)
            ],
            "failed": [
                {"name": f.name, "plugin": f.target, "error": f.error} for f in catalog.errors
            ],
        }
        print(json.dumps(data))
    else:
        if not catalog.engines:
            print("no engine plugin loaded")
        for engine in sorted(catalog.engines.values(), key=lambda e: e.name):
            print(f"{safe(engine.name):12} {safe(engine.label):20} port {engine.default_port}")
        for failed in catalog.errors:
            where = safe(failed.target)
            print(f"{safe(failed.name):12} FAILED to load ({where}): {safe(failed.error)}")
    return 1 if catalog.errors else 0


def add_commands(sub: Any) -> None:
    p = sub.add_parser(
        "engines",
        help="the database engines installed, and plugins that failed to load",
        description="List the database engine plugins (bench_gui.engines entry points): each"
        " one that loaded with its label and default port, and each one that failed with the"
        " reason. Exits 1 when a plugin failed to load.",
    )
    p.add_argument("--json", action="store_true", help="print the list as JSON")
    p.set_defaults(func=cmd_engines)
