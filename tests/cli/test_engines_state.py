"""``bench-gui engines``: each engine with its state (installed by which plugin, its ODBC driver
on this machine, verified against a live server or not, all said by the plugin classes) and
each plugin that failed to load with its error. Through the real command and the real entry
points of this installation (and of a broken distribution put on the path)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyodbc
import pytest

from bench_gui.cli.engines import odbc_state, verification
from bench_gui.wire.odbc_drivers import OdbcDriver

BROKEN = """[bench_gui.engines]
oracle = bench_gui_no_such_module_here:OracleEngine
"""
THIRD_PARTY = '''"""A third-party engine that says nothing of its verification or drivers."""


class DuckEngine:
    name = "duck"
    label = "Duck DB"
    default_port = 1

    def conninfo(self, target, database):
        return ""
'''


def bench(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bench_gui", "engines", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )


@pytest.fixture
def plugins(tmp_path: Path) -> dict[str, str]:
    """An environment whose path holds a broken engine plugin and a third-party one."""
    site = tmp_path / "site"
    dist = site / "more_engines-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: more-engines\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(BROKEN + "duck = duck_engine:DuckEngine\n")
    (site / "duck_engine.py").write_text(THIRD_PARTY)
    return {**os.environ, "PYTHONPATH": str(site)}


def _block(text: str, name: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{name} "))
    return [lines[start], *[line.strip() for line in lines[start + 1 : start + 4]]]


def test_each_engine_is_listed_with_its_state() -> None:
    proc = bench()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    mssql = _block(proc.stdout, "mssql")
    assert mssql == [
        "mssql        SQL Server           port 1433",
        "installed: yes (bench_gui.engines.mssql.connection:MssqlEngine)",
        "ODBC driver on this machine: not found (looked for: ODBC Driver 18 for SQL Server,"
        " ODBC Driver 17 for SQL Server, sql server, freetds)",
        "verified against a live server: no (no SQL Server here; statements parsed by"
        " sqlglot's T-SQL dialect; its driver's CPU per transaction against its ODBC round-trip"
        " floor not measured)",
    ]
    mariadb = _block(proc.stdout, "mariadb")
    mariadb_driver = next(d for d in pyodbc.drivers() if "mariadb" in d.lower())
    assert mariadb[2] == f"ODBC driver on this machine: found ({mariadb_driver})"
    assert mariadb[3].startswith("verified against a live server: yes (by this project's tests")
    postgresql = _block(proc.stdout, "postgresql")
    assert postgresql[2] == "ODBC driver on this machine: not used (no ODBC)"
    assert postgresql[3].startswith("verified against a live server: yes (")
    assert _block(proc.stdout, "mysql")[3].startswith("verified against a live server: no (")


def test_json_gives_the_same_state() -> None:
    proc = bench("--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    engines = {e["name"]: e for e in data["engines"]}
    assert {"postgresql", "mariadb", "mysql", "mssql"} <= set(engines)
    mssql = engines["mssql"]
    assert (mssql["installed"], mssql["plugin"]) == (
        True,
        "bench_gui.engines.mssql.connection:MssqlEngine",
    )
    assert mssql["odbc"]["used"]
    assert mssql["odbc"]["found"] is None
    assert mssql["verified_live"] is False
    assert engines["mariadb"]["verified_live"] is True
    assert engines["mariadb"]["odbc"]["found"] in data["odbc_drivers"]
    assert engines["postgresql"]["odbc"] == {
        "used": False,
        "looked_for": [],
        "found": None,
        "problem": "",
    }
    assert data["odbc_drivers"] == pyodbc.drivers()
    assert data["failed"] == []


def test_a_failing_plugin_is_listed_with_its_error_and_a_silent_one_as_not_stated(
    plugins: dict[str, str],
) -> None:
    proc = bench(env=plugins)
    assert proc.returncode == 1, proc.stderr
    assert (
        "oracle       FAILED to load (bench_gui_no_such_module_here:OracleEngine):"
        " ModuleNotFoundError: No module named 'bench_gui_no_such_module_here'" in proc.stdout
    )
    assert _block(proc.stdout, "duck")[1:] == [
        "installed: yes (duck_engine:DuckEngine)",
        "ODBC driver on this machine: not used (no ODBC)",
        "verified against a live server: not stated",
    ]
    data = json.loads(bench("--json", env=plugins).stdout)
    assert data["failed"] == [
        {
            "name": "oracle",
            "plugin": "bench_gui_no_such_module_here:OracleEngine",
            "error": "ModuleNotFoundError: No module named 'bench_gui_no_such_module_here'",
        }
    ]
    duck = next(e for e in data["engines"] if e["name"] == "duck")
    assert (duck["verified_live"], duck["verified_how"]) == (None, "not stated by the plugin")


class _Odbc:
    odbc_drivers = ("ODBC Driver 18 for SQL Server", "freetds")
    verified_live = "yes"  # not a bool: not taken for a statement


def test_the_state_comes_from_the_class_attributes() -> None:
    engine: Any = _Odbc()
    tds, msodbc = (
        OdbcDriver("FreeTDS", "libtdsodbc.so", ""),
        OdbcDriver("ODBC Driver 18 for SQL Server", "/opt/microsoft/libmsodbcsql-18.so", ""),
    )
    assert odbc_state(engine, [tds, msodbc]).found == "ODBC Driver 18 for SQL Server"
    assert odbc_state(engine, [tds]).found == "FreeTDS"
    gone = OdbcDriver(msodbc.name, msodbc.library, "its library … does not exist")
    assert odbc_state(engine, [tds, gone]).found == "FreeTDS"
    missing = odbc_state(engine, [], "pyodbc is not installed here")
    assert (missing.used, missing.found, missing.problem) == (
        True,
        None,
        "pyodbc is not installed here",
    )
    assert verification(engine) == (None, "not stated by the plugin")


GHOST_INI = """[MariaDB Ghost]
Driver = /nonexistent/libghost.so
"""


def _odbc_env(tmp_path: Path, ini: str) -> dict[str, str]:
    """unixODBC reading an odbcinst.ini of the test's (and no user file)."""
    (tmp_path / "odbcinst.ini").write_text(ini)
    return {**os.environ, "ODBCSYSINI": str(tmp_path), "HOME": str(tmp_path)}


def test_a_driver_whose_library_is_missing_is_not_found_and_the_drivers_are_listed(
    tmp_path: Path,
) -> None:
    """Issue 26: a registered driver was "found" by its name though its file was gone."""
    proc = bench(env=_odbc_env(tmp_path, GHOST_INI))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    mariadb = _block(proc.stdout, "mariadb")
    assert mariadb[2] == (
        "ODBC driver on this machine: not found (looked for: mariadb, mysql; MariaDB Ghost"
        " (not usable: its library /nonexistent/libghost.so does not exist))"
    )
    assert (
        "ODBC drivers on this machine: MariaDB Ghost (not usable: its library"
        " /nonexistent/libghost.so does not exist)" in proc.stdout.splitlines()
    )
    real = next(d for d in pyodbc.drivers() if "mariadb" in d.lower())
    library = next(
        line.split("=", 1)[1].strip()
        for line in Path("/etc/odbcinst.ini").read_text().split(f"[{real}]", 1)[1].splitlines()
        if line.strip().lower().startswith("driver")
    )
    both = _odbc_env(tmp_path, GHOST_INI + f"\n[{real}]\nDriver = {library}\n")
    listed = json.loads(bench("--json", env=both).stdout)
    engine = next(e for e in listed["engines"] if e["name"] == "mariadb")
    assert engine["odbc"]["found"] == real  # the usable one, not the first name
    usable = {d["name"]: d["usable"] for d in listed["odbc_driver_libraries"]}
    assert usable == {"MariaDB Ghost": False, real: True}


def test_connecting_through_a_missing_driver_says_so_not_the_server(tmp_path: Path) -> None:
    script = (
        "from bench_gui.engines.mariadb.shared import odbc\n"
        "for name in ('MariaDB Ghost', 'No Such Driver'):\n"
        "    try:\n"
        "        odbc.connect('DRIVER={' + name + '};SERVER=127.0.0.1;PORT=1', 'mariadb')\n"
        "    except Exception as exc:\n"
        "        print(exc)\n"
        "try:\n"
        "    odbc.installed_driver('mariadb')\n"
        "except Exception as exc:\n"
        "    print(exc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, env=_odbc_env(tmp_path, GHOST_INI), check=False)  # fmt: skip
    ghost, unknown, none = proc.stdout.strip().splitlines()
    assert ghost.startswith("the ODBC driver 'MariaDB Ghost' cannot be used on ")
    assert "Can't open lib '/nonexistent/libghost.so'" in ghost
    assert "nothing reached the server" in ghost
    assert "cannot connect to the database" not in ghost
    listed = "MariaDB Ghost (not usable: its library /nonexistent/libghost.so does not exist)"
    assert ghost.endswith(f"ODBC drivers on this host: {listed}")
    assert unknown.startswith("the ODBC driver 'No Such Driver' is not installed on ")
    assert none.startswith("no MariaDB or MySQL ODBC driver can be loaded on ")
    assert listed in none


def test_a_sql_server_driver_left_registered_without_its_library(tmp_path: Path) -> None:
    ini = "[ODBC Driver 18 for SQL Server]\nDriver = /opt/microsoft/gone/libmsodbcsql-18.so\n"
    env = _odbc_env(tmp_path, ini)
    mssql = _block(bench(env=env).stdout, "mssql")
    assert mssql[2].startswith("ODBC driver on this machine: not found (looked for: ")
    assert "libmsodbcsql-18.so does not exist" in mssql[2]
    script = (
        "from bench_gui.engines.mssql.shared.connect import installed_driver\n"
        "try:\n"
        "    installed_driver()\n"
        "except Exception as exc:\n"
        "    print(exc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, env=env, check=False)  # fmt: skip
    assert proc.stdout.startswith("no SQL Server ODBC driver is installed on this host")
    assert "ODBC Driver 18 for SQL Server (not usable: its library" in proc.stdout
