"""The plan's ``[target]`` for each engine: kinds, their defaults, the ODBC engines' own
fields, and every bad value named with its field."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench_gui.core.plan import load_plan, plan_from_dict
from bench_gui.core.plan_model import ODBC_FIELDS, Plan, PlanError


def problems(data: dict[str, object]) -> dict[str, str]:
    with pytest.raises(PlanError) as info:
        plan_from_dict(data)
    return dict(info.value.problems)


@pytest.mark.parametrize(
    ("kind", "port", "user", "admin"),
    [
        ("mariadb", 3306, "root", "mysql"),
        ("mysql", 3306, "root", "mysql"),
        ("mssql", 1433, "sa", "master"),
        ("postgresql", 5432, "postgres", "postgres"),
    ],
)
def test_each_kind_has_its_engine_defaults(kind: str, port: int, user: str, admin: str) -> None:
    target = plan_from_dict({"target": {"kind": kind, "host": "db1"}}).target
    assert (target.port, target.user, target.admin_database) == (port, user, admin)


def test_the_plans_own_values_win_over_the_kinds_defaults() -> None:
    target = plan_from_dict(
        {"target": {"kind": "mariadb", "host": "db1", "port": 3307, "user": "bench"}}
    ).target
    assert (target.port, target.user) == (3307, "bench")


def test_a_mariadb_plan_round_trips_with_its_odbc_fields(tmp_path: Path) -> None:
    plan = plan_from_dict(
        {
            "target": {
                "kind": "mariadb",
                "host": "db1",
                "odbc_driver": "MariaDB Unicode",
                "tls": "verify",
                "authentication": "password",
            }
        }
    )
    path = tmp_path / "plan.toml"
    plan.save(path)
    again = load_plan(path)
    assert again.target == plan.target
    assert "sslmode" not in plan.to_dict()["target"]


def test_a_postgresql_plan_is_written_as_before() -> None:
    target = Plan().to_dict()["target"]
    assert not set(ODBC_FIELDS) & set(target)
    assert target["sslmode"] == "prefer"


def test_odbc_fields_on_postgresql_are_refused_by_name() -> None:
    found = problems({"target": {"kind": "postgresql", "host": "h", "dsn": "x", "tls": "on"}})
    assert found["target.dsn"].startswith("only for ODBC targets")
    assert found["target.tls"].startswith("only for ODBC targets")


def test_every_bad_odbc_value_is_named_at_once() -> None:
    found = problems(
        {
            "target": {
                "kind": "mariadb",
                "host": "",
                "odbc_driver": "MariaDB;PWD=x",
                "tls": "maybe",
                "authentication": "kerberos",
                "sslmode": "require",
            }
        }
    )
    assert "may not contain" in found["target.odbc_driver"]
    assert found["target.tls"] == "must be one of off, on, verify (or empty)"
    assert found["target.authentication"] == "must be one of password for mariadb"
    assert found["target.sslmode"] == "a PostgreSQL field: use target.tls"
    assert found["target.host"] == "is required for a mariadb target (or a dsn)"


def test_a_dsn_stands_for_the_host() -> None:
    target = plan_from_dict({"target": {"kind": "mysql", "host": "", "dsn": "bench"}}).target
    assert target.dsn == "bench"


def test_sql_server_authentication_modes() -> None:
    target = plan_from_dict(
        {"target": {"kind": "mssql", "host": "h", "authentication": "windows"}}
    ).target
    assert target.authentication == "windows"
    assert "target.authentication" in problems(
        {"target": {"kind": "mssql", "host": "h", "authentication": "password"}}
    )


def test_an_unknown_kind_lists_every_engine() -> None:
    assert problems({"target": {"kind": "oracle"}})["target.kind"] == (
        "must be one of demo, postgresql, mariadb, mysql, mssql"
    )
