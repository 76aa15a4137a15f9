"""A third-party engine's name is a target kind once its package is installed: the plan takes
it, the desktop side turns the target into the agent's connection string, and an unknown kind
is refused with the installed ones listed. The plugin is a real package built by pip
(tests/_fixtures/thirdparty), installed into the test's own folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench_gui.core.engine import get_engine
from bench_gui.core.plan import plan_from_dict
from bench_gui.core.plan_checks import plugin_engine_kinds
from bench_gui.core.plan_model import PlanError
from bench_gui.engines import registry
from bench_gui.engines.registry import target_kind
from tests._fixtures.plugin_dist import build_wheels, install


@pytest.fixture
def acme_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    target = install(build_wheels(tmp_path / "build"), tmp_path / "site")
    monkeypatch.syspath_prepend(str(target))
    # The engine kits are read again with the plugin's installed (and as before afterwards).
    monkeypatch.setattr(registry, "_KITS", {})
    return target


def test_an_installed_engine_is_a_target_kind(acme_installed: Path) -> None:
    # Its kit serves the kind, with the kit's defaults (a plugin without a kit would be one of
    # plugin_engine_kinds, read from the entry points alone).
    spec = target_kind("acme")
    assert spec is not None
    assert spec.label == "Acme (PostgreSQL inside)"
    assert "acme" not in plugin_engine_kinds()
    plan = plan_from_dict({"target": {"kind": "acme", "host": "db1", "database": "tpcc"}})
    assert plan.target.kind == "acme"
    conninfo = get_engine("acme").conninfo(plan.target, plan.target.database)
    assert "db1" in conninfo


def test_a_plugin_kind_needs_a_host_and_an_unknown_kind_lists_the_installed(
    acme_installed: Path,
) -> None:
    with pytest.raises(PlanError) as missing_host:
        plan_from_dict({"target": {"kind": "acme", "host": "", "database": "tpcc"}})
    # The installed kit names it by its label.
    said = ("target.host", "is required for a Acme (PostgreSQL inside) target")
    assert said in missing_host.value.problems
    with pytest.raises(PlanError) as unknown:
        plan_from_dict({"target": {"kind": "nosuch", "host": "db1"}})
    reasons = dict(unknown.value.problems)
    assert "acme" in reasons["target.kind"]
    assert "mssql" in reasons["target.kind"]


def test_without_the_plugin_its_kind_is_refused() -> None:
    assert "acme" not in plugin_engine_kinds()
    assert target_kind("acme") is None
    with pytest.raises(PlanError) as refused:
        plan_from_dict({"target": {"kind": "acme", "host": "db1"}})
    assert "target.kind" in dict(refused.value.problems)
