"""The boundaries import-linter checks, checked in a running process too: lazy imports inside
functions are exceptions the linter is told about, so here the contract is imported whole
and loads no database driver, and the desktop's modules that share code with the agent load
none of the agent's (the deployment ships its files without importing them)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "bench_gui"
KIT_AGENTS = sorted(
    init.parent
    for family in ("engines", "workloads")
    for init in PACKAGE.glob(f"{family}/*/agent/__init__.py")
)
# The code a kit's agent and desktop sides both run, shipped beside its agent/.
KIT_SHARED = sorted(
    init.parent
    for family in ("engines", "workloads")
    for init in PACKAGE.glob(f"{family}/*/shared/__init__.py")
)

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
import bench_gui.engines.mariadb.connection, bench_gui.engines.mssql.connection
import bench_gui.engines.postgresql.connection
from bench_gui.remote import deploy
files = deploy._agent_files()
print(json.dumps({
    "loaded": sorted(m for m in sys.modules if m.startswith("bench_gui") and (
                     m.startswith("bench_gui.agent") or ".agent." in m or m.endswith(".agent"))),
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
    assert {"bench_gui/agent/__main__.py", "bench_gui/engines/mssql/agent/engine.py"} <= shipped
    # What the agent takes from the contract goes with it.
    assert {"bench_gui/wire/engine_errors.py", "bench_gui/wire/odbc.py",
            "bench_gui/wire/names.py"} <= shipped  # fmt: skip
    # So does the code a kit's agent shares with its desktop side, every file of it.
    for folder in KIT_SHARED:
        rel = folder.relative_to(PACKAGE.parent).as_posix()
        files = {f"{rel}/{p.relative_to(folder).as_posix()}" for p in folder.rglob("*.py")}
        assert files, rel
        assert files <= shipped, rel

    # A kit's agent side goes, with stubs for the packages above it; none of its desktop side.
    families = ("bench_gui/engines/", "bench_gui/workloads/")
    kits = {name for name in shipped if name.startswith(families)}
    assert {"bench_gui/engines/postgresql/agent/engine.py",
            "bench_gui/engines/mariadb/agent/engine.py",
            "bench_gui/workloads/random_read/agent/sweep.py", "bench_gui/engines/__init__.py",
            "bench_gui/workloads/random_read/__init__.py"} <= kits  # fmt: skip
    outside = {
        n
        for n in kits
        if "/agent/" not in n and "/shared/" not in n and not n.endswith("/__init__.py")
    }
    assert outside == set()


def _imports(path: Path) -> set[str]:
    """Every module a file imports, anywhere in it (lazy imports inside functions too)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_there_is_a_kit_agent_side_for_every_built_in_engine_and_random_read() -> None:
    assert [p.relative_to(PACKAGE).as_posix() for p in KIT_AGENTS] == [
        "engines/mariadb/agent", "engines/mssql/agent", "engines/postgresql/agent",
        "workloads/random_read/agent",
    ]  # fmt: skip


@pytest.mark.parametrize("folder", KIT_AGENTS, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_a_kit_s_agent_side_imports_only_the_agent_the_contract_and_itself(folder: Path) -> None:
    """The host gets a kit's agent/ and shared/ folders alone: an import of its kit's desktop
    side, of another kit (its shared code too) or of the desktop would fail there (the linter
    sees top-level imports only)."""
    own = "bench_gui." + folder.relative_to(PACKAGE).as_posix().replace("/", ".")
    own_shared = own.rsplit(".", 1)[0] + ".shared"
    assert _outside(folder, ("bench_gui.agent", "bench_gui.wire", own, own_shared)) == set()


def _outside(folder: Path, allowed: tuple[str, ...]) -> set[str]:
    """The imports of bench_gui modules under ``folder`` (a kit's ``<family>/<kit>/<side>``)
    that are not one of ``allowed``, each after its file."""
    return {
        f"{path.relative_to(folder.parents[2]).as_posix()}: {name}"
        for path in folder.rglob("*.py")
        for name in _imports(path)
        if name.startswith("bench_gui")
        and not any(name == a or name.startswith(a + ".") for a in allowed)
    }


def test_an_agent_side_may_not_import_another_kit_s_shared_code(tmp_path: Path) -> None:
    """What the check above allows, shown on a kit written here: its own shared/ yes, another
    kit's no (the host has it, but kits stay independent of each other)."""
    agent = tmp_path / "engines" / "demo" / "agent"
    agent.mkdir(parents=True)
    (agent / "engine.py").write_text(
        "from bench_gui.engines.demo.shared import words\n"
        "from bench_gui.engines.mssql.shared.connect import connect\n"
    )
    own = "bench_gui.engines.demo.agent"
    allowed = ("bench_gui.agent", "bench_gui.wire", own, "bench_gui.engines.demo.shared")
    said = {line.rsplit(": ", 1)[1] for line in _outside(agent, allowed)}
    assert said == {"bench_gui.engines.mssql.shared.connect"}


def test_there_is_shared_code_for_every_built_in_engine() -> None:
    assert [p.relative_to(PACKAGE).as_posix() for p in KIT_SHARED] == [
        "engines/mariadb/shared", "engines/mssql/shared", "engines/postgresql/shared",
    ]  # fmt: skip


@pytest.mark.parametrize("folder", KIT_SHARED, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_a_kit_s_shared_code_imports_only_the_contract_and_itself(folder: Path) -> None:
    """Both sides of a kit import its shared/ folder, so it imports neither: not the agent
    (the desktop never loads it), not the kit's desktop modules (absent on the host)."""
    own = "bench_gui." + folder.relative_to(PACKAGE).as_posix().replace("/", ".")
    assert _outside(folder, ("bench_gui.wire", own)) == set()


def test_a_kit_s_desktop_side_never_imports_an_agent_side() -> None:
    """The desktop ships the agent's files and never runs them, its kits' agents included."""
    wrong = {
        f"{path.relative_to(PACKAGE)}: {name}"
        for family in ("engines", "workloads")
        for path in (PACKAGE / family).rglob("*.py")
        if "agent" not in path.relative_to(PACKAGE / family).parts
        for name in _imports(path)
        if name.startswith("bench_gui.agent") or ".agent." in name or name.endswith(".agent")
    }
    assert wrong == set()


def test_the_contract_names_no_engine_but_the_run_configuration_s_default() -> None:
    """Engine-specific code lives in its kit (``shared/`` when both sides run it): the wire's
    ODBC helpers are given a kit's driver words and install hint, never look them up."""
    engines = {"postgresql", "mariadb", "mysql", "mssql"}
    named = {
        (path.name, node.value)
        for path in (PACKAGE / "wire").rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and node.value in engines
    }
    assert named == {("run_config.py", "postgresql")}  # RunConfig.engine's default
