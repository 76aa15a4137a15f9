"""The conformance suite every registered engine kit passes (a third-party kit too).

A kit provides every face of :data:`bench_gui.engines.base.FACES`; its tuner gives every step
of the flow that :class:`bench_gui.remote.db_tuner.DbTuner` writes once; each target kind it
serves is a plan's kind, served by it alone, with a desktop plugin and an agent side; its tab
on the Database page takes exactly its kinds, and a plan of one of them opens the page on it;
`bench-gui tune` lists and shows its presets and takes its calculator's options.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from bench_gui.agent.engines import engine_target
from bench_gui.core.engine import get_engine
from bench_gui.core.plan import plan_from_dict
from bench_gui.core.plan_model import Plan, PlanError, Target
from bench_gui.engines.base import FACES, EngineKit
from bench_gui.engines.registry import UnknownEngine, kit_for, kits, target_kind
from bench_gui.gui.pages.database.page import DatabasePage
from bench_gui.gui.pages.workload.engine_choice import kind_defaults, kind_label, listed_kinds
from bench_gui.remote.db_tuner import DbTuner
from bench_gui.report.profiles import tpm_source
from bench_gui.store import SessionStore

# Qt's offscreen platform warns about a window-manager hint it cannot pass on whenever a
# top-level window is shown (as tests/gui/conftest.py says); it says nothing about our code.
pytestmark = [
    pytest.mark.gui,
    pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints"),
]

KITS = kits()
# The steps an engine's tuner gives (DbTuner raises NotImplementedError for each).
ENGINE_STEPS = (
    "_open",
    "_facts",
    "_state",
    "_diff",
    "_take_snapshot",
    "_change",
    "_settle",
    "_snapshot_names",
    "_identity",
    "_restore_all",
    "_settle_rollback",
)


@pytest.fixture(params=KITS, ids=[k.name for k in KITS])
def kit(request: pytest.FixtureRequest) -> EngineKit:
    kit: EngineKit = request.param
    return kit


@pytest.fixture
def store(tmp_path: Path) -> Any:
    opened = SessionStore(tmp_path / "sessions.sqlite3")
    yield opened
    opened.close()


def test_the_builtin_engines_have_kits() -> None:
    assert [k.name for k in KITS[:3]] == ["postgresql", "mariadb", "mssql"]


def test_every_face_is_there(kit: EngineKit) -> None:
    for name in FACES:
        assert callable(kit.face(name)), f"{kit.label}: face {name!r}"
    with pytest.raises(KeyError, match="no engine face"):
        kit.face("no such face")


def test_the_tuner_gives_every_step_of_the_shared_flow(kit: EngineKit) -> None:
    tuner = kit.face("tuner")
    assert issubclass(tuner, DbTuner)
    for step in ENGINE_STEPS:
        assert getattr(tuner, step) is not getattr(DbTuner, step), f"{kit.label}: {step}"
    # The flow itself is the shared one, never the engine's own copy.
    for flow in ("connect", "facts", "diff", "apply", "rollback"):
        assert getattr(tuner, flow) is getattr(DbTuner, flow), f"{kit.label}: {flow}"


def test_each_kind_is_a_plan_kind_with_one_kit_a_plugin_and_an_agent(kit: EngineKit) -> None:
    assert kit.kinds
    assert kit.profile
    assert kit.label
    assert get_engine(kit.name).name == kit.name  # the desktop plugin of its own name
    for kind in kit.kinds:
        assert kit_for(kind) is kit
        if kind != "demo":  # the demo is an embedded PostgreSQL, not an engine of its own
            assert get_engine(kind).name == kind
            assert engine_target(kind) is not None, f"no agent side for {kind}"


def test_a_built_in_kit_is_one_folder(kit: EngineKit) -> None:
    """Its entry, its connection string (the plugin) and its agent side all live in
    ``bench_gui/engines/<name>/``: adding an engine is that folder and its entry points."""
    from bench_gui.agent.engines import AGENT_ENGINES

    folder = f"bench_gui.engines.{kit.name}"
    for kind in kit.kinds:
        if kind == "demo":
            continue
        assert type(get_engine(kind)).__module__ == f"{folder}.connection", kind
        assert AGENT_ENGINES[kind].startswith(f"{folder}.agent."), kind
    for where in kit.faces.values():
        assert where.startswith(f"{folder}."), where


def test_its_plan_and_form_words_come_from_the_kit(kit: EngineKit) -> None:
    """What the plan check, the ODBC form and `tune` say of an engine is the kit's, never a
    branch on its name: a host is required by its label, TLS is asked its way, and a tuning
    that could not be verified here says so."""
    assert kit.tls_style in ("tls", "encrypt")
    assert kit.unverified == "" or kit.unverified[0].isupper()
    server = next(k for k in kit.kinds if k != "demo")
    with pytest.raises(PlanError) as refused:
        plan_from_dict({"target": {"kind": server, "host": ""}})
    assert any(
        field == "target.host" and (kit.label in text or "dsn" in text)
        for field, text in refused.value.problems
    ), refused.value.problems


def test_its_target_kinds_give_the_plan_and_the_pages_what_they_ask(kit: EngineKit) -> None:
    """The plan's defaults, its ODBC fields, the Workload page's words and the report's TPM
    source of each kind are its kit's :class:`TargetKind`: nothing outside keeps a table by
    engine name, so a new kit's kinds are planned, shown and reported as the built-in ones."""
    for spec in kit.targets:
        assert spec.label, spec
        assert spec.tpm_source, spec
        assert target_kind(spec.name) is spec
        assert tpm_source(spec.name) == spec.tpm_source
        assert "" in spec.authentication
        if spec.name == "demo":
            continue
        plan = plan_from_dict({"target": {"kind": spec.name, "host": "db1.lab"}})
        target = plan.target
        assert (target.port, target.user, target.admin_database) == (
            spec.port,
            spec.user,
            spec.admin_database,
        ), spec.name
        assert kind_defaults(spec.name) == (spec.port, spec.user, spec.admin_database)
        assert kind_label(spec.name) == spec.label
        assert (spec.name in listed_kinds()) == spec.listed
        written = plan.to_dict()["target"]
        assert ("sslmode" in written) == (not spec.odbc), spec.name
        field = {"kind": spec.name, "host": "db1.lab", "dsn": "lab"}
        if spec.odbc:
            assert spec.odbc_driver
            assert spec.odbc_driver_hint
            assert spec.password_env
            for mode in spec.authentication:
                plan_from_dict({"target": {**field, "authentication": mode}})
            with pytest.raises(PlanError, match="target.authentication"):
                plan_from_dict({"target": {**field, "authentication": "kerberos-ish"}})
        else:
            with pytest.raises(PlanError, match="only for ODBC targets"):
                plan_from_dict({"target": field})


def test_its_presets_are_listed_and_shown_and_its_tune_options_parse(kit: EngineKit) -> None:
    """What `bench-gui tune` asks of it: each preset it lists it shows by name (as text and
    JSON), a name it does not know it leaves to the others, and its calculator's options and
    commands join the command line's parser."""
    book = kit.face("presets")()
    for row in book.rows:
        assert row.title, row
        assert row.data["name"] == row.name, row
        view = book.show(row.name, None)
        assert view is not None, row.name
        assert view.text.endswith("\n"), row.name
        assert json.loads(view.json), row.name
    assert book.show("no-such-preset", None) is None
    parser = argparse.ArgumentParser()
    kit.face("tune_options")(parser)
    parser.parse_args([])
    commands = argparse.ArgumentParser().add_subparsers()
    handlers = kit.face("tune_commands")(commands, lambda sp, ram_required: None)
    assert set(handlers) == set(commands.choices)
    assert all(callable(handler) for handler in handlers.values())


def test_an_unknown_kind_names_the_tuned_ones() -> None:
    with pytest.raises(UnknownEngine, match="tuned: demo, postgresql, mariadb"):
        kit_for("acme")


def test_its_tab_takes_its_kinds_and_opens_for_its_plans(
    kit: EngineKit, qtbot: QtBot, store: Any
) -> None:
    panel = kit.face("panel")(store, None)
    qtbot.addWidget(panel)
    others = [k for other in KITS if other is not kit for k in other.kinds]
    assert all(panel._takes(kind) for kind in kit.kinds)
    assert not any(panel._takes(kind) for kind in others)

    kind = kit.kinds[0]
    page = DatabasePage(store, lambda: Plan(target=Target(kind=kind)))
    qtbot.addWidget(page)
    labels = [page.tabs.tabText(i) for i in range(page.tabs.count())]
    assert labels[: len(KITS)] == [k.label for k in KITS]
    assert page.tabs.currentWidget() is page.scrolls[kit.name]
    assert page.panels[kit.name].KIT is kit
    page.shutdown(5)
