"""The engine plugins: every one that loads, and every one that fails with its reason, in the
catalog and in ``bench-gui engines``; a plan asking for a failed one says why."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench_gui.core.engine import EngineNotFound, engine_catalog, get_engine
from bench_gui.core.plan_model import Target

BROKEN = """[bench_gui.engines]
oracle = bench_gui_no_such_module_here:OracleEngine
weird = json:JSONDecoder
"""


@pytest.fixture
def broken_plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A real installed distribution (a dist-info folder on the path) whose engine plugins
    fail: one cannot be imported, one is not an engine."""
    dist = tmp_path / "site" / "broken_engines-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-engines\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(BROKEN)
    monkeypatch.syspath_prepend(str(dist.parent))
    return dist.parent


def test_first_party_engines_load() -> None:
    catalog = engine_catalog()
    assert {"postgresql", "mariadb", "mysql"} <= set(catalog.engines)
    assert catalog.engines["mariadb"].default_port == 3306


def test_a_plugin_that_fails_is_kept_with_its_error(broken_plugins: Path) -> None:
    catalog = engine_catalog()
    errors = {e.name: e for e in catalog.errors}
    assert errors["oracle"].error.startswith("ModuleNotFoundError: No module named")
    assert errors["oracle"].target == "bench_gui_no_such_module_here:OracleEngine"
    assert errors["weird"].error.startswith("not an engine: JSONDecoder has no name, label")
    assert "postgresql" in catalog.engines  # the others still load


def test_a_plan_for_a_failed_engine_says_why(broken_plugins: Path) -> None:
    with pytest.raises(EngineNotFound, match=r"plugin 'oracle' failed to load: ModuleNotFound"):
        get_engine("oracle")


def test_bench_gui_engines_lists_the_failed_plugins(broken_plugins: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(broken_plugins)}
    proc = subprocess.run(
        [sys.executable, "-m", "bench_gui", "engines", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    assert {e["name"] for e in data["engines"]} >= {"postgresql", "mariadb", "mysql"}
    assert {f["name"] for f in data["failed"]} == {"oracle", "weird"}
    text = subprocess.run(
        [sys.executable, "-m", "bench_gui", "engines"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    ).stdout
    assert "oracle       FAILED to load (bench_gui_no_such_module_here:OracleEngine):" in text


def test_bench_gui_engines_exits_0_when_all_load() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "bench_gui", "engines"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "mariadb      MariaDB" in proc.stdout


def test_the_mariadb_plugin_writes_no_password_and_names_the_options() -> None:
    engine = get_engine("mariadb")
    target = Target(kind="mariadb", host="db1", port=3307, user="u", tls="verify")
    text = engine.conninfo(target, "tpcc")
    assert text == "SERVER=db1;PORT=3307;UID=u;DATABASE=tpcc;FORCETLS=1;SSLVERIFY=1"
    target = Target(kind="mysql", dsn="bench", user="u", odbc_driver="ignored", tls="on")
    assert get_engine("mysql").conninfo(target, "tpcc") == (
        "DSN=bench;UID=u;DATABASE=tpcc;SSLMODE=REQUIRED"
    )
    socket = Target(kind="mariadb", host="/run/mysqld/mysqld.sock", odbc_driver="MariaDB")
    assert engine.conninfo(socket, "") == (
        "DRIVER=MariaDB;SOCKET=/run/mysqld/mysqld.sock;UID=postgres"
    )
