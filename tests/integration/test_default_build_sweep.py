"""A 4-warehouse sweep with default settings (issue 26): ``bench-gui run`` builds the schema
with the default build workers (one per CPU) and runs, on the private MariaDB and PostgreSQL.

The plans name no ``build_workers``: on MariaDB 10.6+ the default workers used to wait on one
another's table locks until "Lock wait timeout exceeded (1205)". Short windows keep it cheap.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests._fixtures.mariadb import MariaDbServer
from tests.integration.test_mariadb_cli import bench, last_json

pytestmark = pytest.mark.integration

WAREHOUSES = 4


def _sweep(plan_text: str, folder: Path) -> tuple[dict[str, Any], str]:
    assert "build_workers" not in plan_text
    plan = folder / "plan.toml"
    plan.write_text(plan_text)
    proc = bench("run", str(plan), "--json", db=folder / "s.sqlite3", timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return last_json(proc.stdout), proc.stderr


def _check(result: dict[str, Any], stderr: str) -> None:
    assert f"building {WAREHOUSES} warehouses with {os.cpu_count()} build workers" in stderr
    assert [s["vus"] for s in result["steps"]] == [1, 2]
    assert all(s["complete"] and s["nopm"] > 0 for s in result["steps"])


def test_mariadb_builds_four_warehouses_with_the_default_workers_and_runs(
    mariadb_server: MariaDbServer, tmp_path: Path
) -> None:
    database = "default_build_4w"
    mariadb_server.sql(f"DROP DATABASE IF EXISTS {database}")
    try:
        text = mariadb_server.plan_text(
            database, vus="1,2", warehouses=WAREHOUSES, rampup=1, duration=2
        )
        _check(*_sweep(text, tmp_path))
        counted = mariadb_server.sql("SELECT COUNT(*) FROM warehouse", database)
        assert int(counted) == WAREHOUSES
    finally:
        mariadb_server.sql(f"DROP DATABASE IF EXISTS {database}")


def test_postgresql_builds_four_warehouses_with_the_default_workers_and_runs(
    pg_server: Any, tmp_path: Path
) -> None:
    database = "default_build_4w"
    pg_server.drop(database)
    try:
        text = pg_server.plan_text(database, vus="1,2", warehouses=WAREHOUSES, rampup=1, duration=2)
        _check(*_sweep(text, tmp_path))
    finally:
        pg_server.drop(database)
