"""The boundaries import-linter checks, checked in a running process too: lazy imports inside
functions are exceptions the linter is told about, so here the contract is imported whole
and loads no database driver, and the desktop's modules that share code with the agent load
none of the agent's (the deployment ships its files without importing them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

WIRE_SCRIPT = """
import importlib, json, pkgutil, sys
import bench_gui.wire
for info in pkgutil.iter_modules(bench_gui.wire.__path__, "bench_gui.wire."):
    importlib.import_module(info.name)
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ("pyodbc", "psycopg")
                        or m.startswith(("bench_gui.agent", "bench_gui.gui", "bench_gui.core")))))
"""

DESKTOP_SCRIPT = """
import json, sys
import bench_gui.cli.engines, bench_gui.gui.pages.database.common
import bench_gui.engines.mariadb.tuner, bench_gui.engines.mssql.tuner
import bench_gui.engines.postgresql.tuner
import bench_gui_plugins.mariadb, bench_gui_plugins.mssql, bench_gui_plugins.postgresql
from bench_gui.remote import deploy
files = deploy._agent_files()
print(json.dumps({
    "loaded": sorted(m for m in sys.modules if m.startswith("bench_gui.agent")),
    "shipped": sorted(files),
}))
"""


def _run(script: str) -> object:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, env=env, check=True)  # fmt: skip
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_the_contract_imports_no_database_driver_and_nothing_else_of_bench_gui() -> None:
    assert _run(WIRE_SCRIPT) == []


def test_the_desktop_imports_no_agent_module_and_still_ships_it() -> None:
    said = _run(DESKTOP_SCRIPT)
    assert isinstance(said, dict)
    assert said["loaded"] == []
    shipped = set(said["shipped"])
    assert {"bench_gui/agent/__main__.py", "bench_gui/agent/mssql/engine.py"} <= shipped
    # What the agent takes from the contract goes with it.
    assert {"bench_gui/wire/engine_errors.py", "bench_gui/wire/odbc.py",
            "bench_gui/wire/mssql_connect.py", "bench_gui/wire/names.py"} <= shipped  # fmt: skip
