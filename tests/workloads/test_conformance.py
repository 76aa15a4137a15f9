"""The conformance suite every registered workload kit passes (a third-party kit too: add a
maker of one of its stored sessions to :data:`SESSION_MAKERS`).

A kit provides every face of :data:`bench_gui.workloads.contract.FACES`, and a real stored session
of its workload shows on every page and in every format: the Sessions list and detail, the
Compare page, the CLI's ``sessions list`` and ``sessions show``, the report in every format
(its report keeps :class:`bench_gui.report.written.WrittenReport`, all the writers ask of it).
None of them speaks another workload's words (a random-read study shows no "NOPM", a TPROC-C
sweep no "raw IOPS").
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QAbstractButton, QLabel, QTableWidget, QWidget
from pytestqt.qtbot import QtBot

from bench_gui.cli.main import main
from bench_gui.gui.pages.compare.page import ComparePage
from bench_gui.gui.pages.sessions.page import SessionsPage
from bench_gui.services.errors import SessionNotFound
from bench_gui.store import SessionStore
from bench_gui.workloads.base import (
    UnknownWorkload,
    kit_for,
    kit_of_record,
    kits,
    run_record,
)
from bench_gui.workloads.compare_view import CompareInputs, CompareView
from bench_gui.workloads.contract import FACES, OPTIONAL_FACES, WorkloadKit
from tests._fixtures.random_read_sessions import seed004
from tests._fixtures.seed_sessions import build_seed000

pytestmark = pytest.mark.gui

# One stored session of each workload, by the fixtures the pages' own tests use.
SESSION_MAKERS: dict[str, Callable[[SessionStore], int]] = {
    "tproc_c": lambda store: build_seed000(store)[0],
    "random_read": lambda store: seed004(store)[1],
}

KITS = kits()


def others_words(kit: WorkloadKit) -> re.Pattern[str]:
    """Every other kit's own words, as whole words."""
    words = [w for other in KITS if other.name != kit.name for w in other.words]
    return re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\b")


def no_foreign_words(kit: WorkloadKit, text: str, where: str) -> None:
    found = others_words(kit).search(text)
    assert found is None, f"{kit.label} session: {where} says {found.group(0)!r}"


@pytest.fixture(params=KITS, ids=[k.name for k in KITS])
def kit(request: pytest.FixtureRequest) -> WorkloadKit:
    kit: WorkloadKit = request.param
    return kit


@pytest.fixture
def session(kit: WorkloadKit, store: SessionStore) -> int:
    assert kit.name in SESSION_MAKERS, f"no stored session of {kit.label} to run the suite on"
    return SESSION_MAKERS[kit.name](store)


def visible_texts(root: QWidget) -> str:
    """What a user can read on ``root``: labels, buttons and table cells that are shown."""
    out: list[str] = []
    for widget in [root, *root.findChildren(QWidget)]:
        if not widget.isVisibleTo(root):
            continue
        if isinstance(widget, QLabel | QAbstractButton):
            out.append(widget.text())
        if isinstance(widget, QTableWidget):
            for c in range(widget.columnCount()):
                head = widget.horizontalHeaderItem(c)
                out.append(head.text() if head is not None else "")
                for r in range(widget.rowCount()):
                    item = widget.item(r, c)
                    out.append(item.text() if item is not None else "")
    return "\n".join(out)


def test_every_face_is_present_and_loads(kit: WorkloadKit) -> None:
    assert kit.label
    assert kit.one_session
    assert kit.sessions
    assert kit.words
    for face in FACES:
        if face in OPTIONAL_FACES and not kit.has_face(face):
            continue  # plan_options: a kit without it has no options
        if face in DATA_FACES:
            assert kit.face(face), face
        else:
            assert callable(kit.face(face)), face
    assert kit_for(kit.name) is kit


# The faces that are data a kit declares rather than something called.
DATA_FACES = frozenset({"plan_fields"})


def test_a_kit_s_plan_fields_are_workload_fields_no_other_kit_claims(kit: WorkloadKit) -> None:
    from bench_gui.wire.run_config import Workload

    fields = kit.face("plan_fields")
    assert all(isinstance(name, str) for name in fields)
    # Not "options" either: the table of a kit's own fields, which its plan_options checks.
    assert set(fields) <= set(Workload.__dataclass_fields__) - {"kind", "options"}
    for other in kits():
        if other.name != kit.name:
            assert not set(fields) & set(other.face("plan_fields")), other.name
    assert kit.foreign_field("other_kind")


def test_a_kit_without_its_plan_fields_fails_the_contract(kit: WorkloadKit) -> None:
    from dataclasses import replace

    lacking = replace(kit, faces={k: v for k, v in kit.faces.items() if k != "plan_fields"})
    with pytest.raises(KeyError, match="plan_fields"):
        lacking.face("plan_fields")


def test_an_unknown_workload_is_named_with_the_known_ones() -> None:
    with pytest.raises(UnknownWorkload, match="'tpc_h'.*random_read, tproc_c"):
        kit_for("tpc_h")


def test_a_stored_session_is_its_kit_s(kit: WorkloadKit, store: SessionStore, session: int) -> None:
    assert kit_of_record(run_record(store.get_run(session))) is kit


def test_the_sessions_list_and_detail_speak_its_words(
    kit: WorkloadKit, store: SessionStore, session: int, qtbot: QtBot
) -> None:
    page = SessionsPage(store)
    qtbot.addWidget(page)
    page.resize(1600, 1000)
    page.show()
    page.refresh()
    row = next(r for r in page.row_texts() if r[0] == store.get_run(session).name)
    assert any(cell for cell in row[1:]), row
    no_foreign_words(kit, " ".join(row), "the Sessions list")
    assert page.open_run(session), page.error_label.text()
    overview = page.detail.overviews[kit.name]
    assert overview.isVisibleTo(page)
    assert all(
        not other.isVisibleTo(page)
        for name, other in page.detail.overviews.items()
        if other is not overview
    )
    shown = visible_texts(page.detail)
    assert "No samples were stored" not in shown
    no_foreign_words(kit, shown, "the Sessions detail")


def test_the_compare_page_shows_its_view(
    kit: WorkloadKit, store: SessionStore, session: int, qtbot: QtBot
) -> None:
    page = ComparePage(store)
    qtbot.addWidget(page)
    page.resize(1700, 1000)
    page.show()
    page.refresh()
    page.set_checked([session])
    assert page.set_baseline(session)
    assert page.compare(), page.error_label.text()
    view = page.compare_views[kit.name]
    assert page.views.currentWidget() is view
    no_foreign_words(kit, visible_texts(view), "the Compare page")


def _page_inputs(store: SessionStore) -> CompareInputs:
    """The Compare page's shared inputs as a fresh page hands them over."""
    from bench_gui.core.saturation import DEFAULT_MIN_GAIN_PCT, StopConditions
    from bench_gui.report.options import ReportOptions

    return CompareInputs(
        conditions=StopConditions(DEFAULT_MIN_GAIN_PCT, None, None),
        title="A conformance comparison",
        options=ReportOptions(),
        arrays={},
        prices=store.device_prices(),
        power_price=None,
    )


def test_its_compare_view_keeps_the_page_s_contract(
    kit: WorkloadKit, store: SessionStore, session: int, qtbot: QtBot
) -> None:
    """Its ``compare_view`` keeps the Compare page's contract (every method, with the page's
    arguments, and the two signals): it builds the report of its sessions from the page's
    inputs, shows it, says it in a status line, clears, and says why it cannot compare."""
    import inspect

    from PySide6.QtCore import SignalInstance

    view_class = kit.face("compare_view")
    for name, member in vars(CompareView).items():
        if inspect.isfunction(member) and not name.startswith("_"):
            theirs = inspect.signature(getattr(view_class, name))
            assert list(theirs.parameters) == list(inspect.signature(member).parameters), name
    view = view_class()
    qtbot.addWidget(view)
    assert isinstance(view, CompareView)
    assert isinstance(view, QWidget)
    assert isinstance(view.changed, SignalInstance)
    assert isinstance(view.problem, SignalInstance)

    report = view.compare(store, [session], session, _page_inputs(store))
    assert report.title == "A conformance comparison"
    assert report.charts  # what Export writes as images
    view.resize(1400, 900)
    view.show()
    view.show_report(report)
    shown = visible_texts(view)
    assert store.get_run(session).name in shown
    no_foreign_words(kit, shown, "its compare view")
    said = view.status_text(report)
    assert store.get_run(session).name in said
    no_foreign_words(kit, said, "its status line")
    view.clear()
    assert store.get_run(session).name not in visible_texts(view)

    with pytest.raises((ValueError, SessionNotFound)) as refused:  # an unknown baseline
        view.compare(store, [session], 999_999, _page_inputs(store))
    assert "999999" in str(refused.value)
    other = next(k for k in KITS if k.name != kit.name)
    foreign = SESSION_MAKERS[other.name](store)
    with pytest.raises(ValueError, match=rf"sessions? {foreign}\b"):  # another workload's
        view.compare(store, [foreign], foreign, _page_inputs(store))


def test_the_compare_page_exports_its_report_and_charts(
    kit: WorkloadKit, store: SessionStore, session: int, qtbot: QtBot, tmp_path: Path
) -> None:
    """What the page's Export writes of a comparison its view built: the report file in each
    format and the charts as images."""
    import json

    page = ComparePage(store)
    qtbot.addWidget(page)
    page.resize(1700, 1000)
    page.show()
    page.refresh()
    page.set_checked([session])
    assert page.set_baseline(session)
    said: list[str] = []
    page.status.connect(said.append)
    assert page.compare(), page.error_label.text()
    view = page.view_of(kit.name)
    assert page.report is not None
    assert said[-1] == view.status_text(page.report)
    for name in ("report.html", "report.pdf", "report.csv", "report.json"):
        assert page.export_report(tmp_path / name), page.error_label.text()
        assert (tmp_path / name).stat().st_size > 0, name
    data = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert store.get_run(session).name in json.dumps(data)
    written = page.export_charts(tmp_path / "charts")
    assert written, page.error_label.text()
    assert len(written) == len(page.report.charts)
    assert all(path.stat().st_size > 0 for path in written)


def test_the_compare_page_names_no_workload() -> None:
    """The Compare page asks the kits (their ``compare_view``); no module of its package
    names a workload or imports anything of a kit's folder."""
    import bench_gui.gui.pages.compare as compare_package

    assert _kit_folders() >= {f"bench_gui.workloads.{kit.name}" for kit in KITS[:2]}
    modules = sorted(Path(compare_package.__file__).parent.glob("*.py"))
    assert any(m.name == "page.py" for m in modules)
    for module in modules:
        source = module.read_text(encoding="utf-8")
        for kit in KITS:
            assert kit.name not in source, f"{module.name} names {kit.name}"
        assert not _kit_imports(source), f"{module.name} imports {_kit_imports(source)}"


def _kit_folders() -> set[str]:
    """The packages of the built-in kits' folders (``bench_gui.workloads.<name>``)."""
    import bench_gui.workloads as workloads_package

    return {
        f"bench_gui.workloads.{folder.name}"
        for folder in Path(workloads_package.__file__).parent.iterdir()
        if (folder / "__init__.py").exists()
    }


def _kit_imports(source: str) -> list[str]:
    """The modules of a kit's folder that ``source`` imports."""
    import ast

    folders = _kit_folders()
    names: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            names.append(node.module or "")
        elif isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
    return [
        name
        for name in names
        if any(name == folder or name.startswith(f"{folder}.") for folder in folders)
    ]


def test_the_live_page_shows_its_view(kit: WorkloadKit, qtbot: QtBot) -> None:
    """Its ``live_view`` keeps the Live page's contract (every method, with the page's
    arguments) and is the view a plan of it gets; the page then speaks only its words."""
    import inspect

    from bench_gui.core.plan_model import Plan
    from bench_gui.gui.pages.live.page import LivePage
    from bench_gui.workloads.live_view import LiveView

    view_class = kit.face("live_view")
    for name, member in vars(LiveView).items():
        if inspect.isfunction(member) and not name.startswith("_"):
            theirs = inspect.signature(getattr(view_class, name))
            assert list(theirs.parameters) == list(inspect.signature(member).parameters), name
    page = LivePage()
    qtbot.addWidget(page)
    page.resize(1600, 1000)
    page.show()
    plan = Plan(name="a run of the conformance suite")
    plan.workload.kind = kit.name
    page.begin_run(plan)
    view = page.views[kit.name]
    assert isinstance(view, view_class)
    assert isinstance(view, LiveView)
    assert page.view is view
    assert any(widget.isVisibleTo(page) for widget, _stretch in view.widgets())
    for other in page.views.values():
        if other is not view:
            assert not any(widget.isVisibleTo(page) for widget, _stretch in other.widgets())
    page.ask_stop()
    assert page.stop_confirm is not None
    no_foreign_words(kit, page.stop_confirm.informativeText(), "the Live page's stop box")
    page.stop_confirm.reject()
    page.run_finished("stopped")
    no_foreign_words(kit, visible_texts(page), "the Live page")


def test_the_live_page_names_no_workload() -> None:
    """The Live page asks the kits (their ``live_view``); it never branches on a name."""
    import bench_gui.gui.pages.live.page as live_page

    source = Path(live_page.__file__).read_text(encoding="utf-8")
    for kit in KITS:
        assert kit.name not in source, kit.name


def test_the_cli_lists_and_shows_it(
    kit: WorkloadKit, store: SessionStore, session: int, capsys: pytest.CaptureFixture[str]
) -> None:
    # The store's data directory is the environment's (DATA_DIR_ENV): the CLI opens the same.
    assert main(["sessions", "list"]) == 0
    listed = capsys.readouterr().out
    line = next(x for x in listed.splitlines() if x.split()[:1] == [str(session)])
    no_foreign_words(kit, line, "sessions list")
    assert main(["sessions", "show", str(session)]) == 0
    shown = capsys.readouterr().out
    assert store.get_run(session).name in shown
    no_foreign_words(kit, shown, "sessions show")


def _pdf_text(path: Path) -> str:
    """The PDF's text, ligatures (the "fi" of "fio") undone."""
    import unicodedata

    done = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True
    )
    return unicodedata.normalize("NFKC", done.stdout)


def test_its_report_renders_in_every_format(
    kit: WorkloadKit, store: SessionStore, session: int, tmp_path: Path
) -> None:
    """Its ``report`` face builds a report the writers render as they find it: they ask it for
    its templates, its PDF footer's notice and its JSON (the parts of ``WrittenReport``)."""
    import json

    from bench_gui.report.html import environment, render_html
    from bench_gui.report.pdf import write_pdf
    from bench_gui.report.tabular import render_csv, render_json
    from bench_gui.report.written import WrittenReport

    report = kit.face("report")(store, [session], session)
    assert isinstance(report, WrittenReport)
    for name in (report.html_template, report.brief_template):
        assert environment().get_template(name), name
    assert report.footer_notice
    no_foreign_words(kit, report.footer_notice, "the PDF footer's notice")
    name = store.get_run(session).name

    html = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", render_html(report))
    assert name in html
    no_foreign_words(kit, html, "the HTML report")
    pdf = " ".join(_pdf_text(write_pdf(report, tmp_path / "report.pdf")).split())
    assert name in pdf
    assert " ".join(report.footer_notice.split()) in pdf
    no_foreign_words(kit, pdf, "the PDF report")
    csv_text = render_csv(report)
    assert report.title in csv_text
    no_foreign_words(kit, csv_text, "the CSV report")
    data = json.loads(render_json(report))
    assert data == json.loads(json.dumps(report.json_data(), default=str))
    assert name in json.dumps(data, ensure_ascii=False)
    no_foreign_words(kit, json.dumps(data, ensure_ascii=False), "the JSON report")


# The writers: every report goes through them, whichever kit built it.
REPORT_WRITERS = ("html.py", "pdf.py", "tabular.py", "charts.py", "written.py")


@pytest.mark.parametrize("writer", REPORT_WRITERS)
def test_the_report_writers_name_no_workload(writer: str) -> None:
    """The writers ask the report (``WrittenReport``) rather than branch on its type: no
    writer imports anything of a kit's folder or names a workload."""
    import bench_gui.report as report_package

    module = Path(report_package.__file__).parent / writer
    source = module.read_text(encoding="utf-8")
    for kit in KITS:
        assert kit.name not in source, f"{writer} names {kit.name}"
    assert not _kit_imports(source), f"{writer} imports {_kit_imports(source)}"


def test_the_workload_page_shows_its_own_form_and_words(kit: WorkloadKit, qtbot: QtBot) -> None:
    """The Workload page asks the kit: its kind list's words, its own section of the form (the
    others hidden), its start button's words; it shows no other workload's words."""
    from bench_gui.gui.pages.workload.page import WorkloadPage

    page = WorkloadPage()
    qtbot.addWidget(page)
    combo = page.workload_kind_combo
    index = combo.findData(kit.name)
    assert index >= 0, kit.name
    assert kit.choice_label
    assert combo.itemText(index) == kit.choice_label
    combo.setCurrentIndex(index)
    assert page.workload_kind == kit.name
    assert page.kit_form(kit.name).isVisibleTo(page)
    for name in page.forms:
        if name != kit.name:
            assert not page.kit_form(name).isVisibleTo(page), name
    assert kit.start_words
    assert page.start_button.text().startswith(kit.start_words)
    assert kit.plan_title
    no_foreign_words(kit, visible_texts(page), "the Workload page")


def test_the_workload_page_speaks_of_its_host_and_data(kit: WorkloadKit, qtbot: QtBot) -> None:
    """The OS knobs' and the block devices' words are the kit's: a database's host and data
    directory, or the host fio runs on and its file."""
    from bench_gui.gui.pages.workload.page import WorkloadPage

    page = WorkloadPage()
    qtbot.addWidget(page)
    page.workload_kind_combo.setCurrentIndex(page.workload_kind_combo.findData(kit.name))
    os_knobs, power = page.os_section, page.power_options
    assert os_knobs.host_edit.placeholderText() == f"{kit.host_noun} (the driver host)"
    assert os_knobs.data_dir_edit.placeholderText() == kit.data_dir_words
    assert power.devices_edit.placeholderText() == kit.devices_words
    assert power.fields.hints["monitor.devices"].text() == kit.devices_hint
    power.meter_combo.setCurrentIndex(power.meter_combo.findData("rapl"))
    assert kit.host_noun in power.scope_note.text()
    for words in (kit.data_dir_words, kit.devices_words, kit.devices_hint):
        no_foreign_words(kit, words, "the Workload page's host and data")


def test_its_plan_form_edits_only_workload_fields(kit: WorkloadKit, qtbot: QtBot) -> None:
    """The kit's plan_form is a section of plan fields the page can fill and check."""
    from bench_gui.core.plan_model import Plan

    form = kit.face("plan_form")()
    qtbot.addWidget(form)
    plan = Plan()
    plan.workload.kind = kit.name
    form.set_plan(plan)
    assert form.fields.inputs, "a plan_form with no fields"
    assert all(isinstance(p, tuple) and len(p) == 2 for p in form.problems())


def test_the_plan_reader_asks_its_plan_checks(kit: WorkloadKit) -> None:
    """A plan of its kind is checked by its kit's plan_checks: a wrong value of each of its own
    fields is named, reading the plan file and calling the face alike."""
    from bench_gui.core.plan import plan_from_dict
    from bench_gui.core.plan_model import Plan, PlanError

    checks = kit.face("plan_checks")
    for name in kit.face("plan_fields"):
        data: dict[str, Any] = {"workload": {"kind": kit.name, name: {"not": "a value"}}}
        problems: list[tuple[str, str]] = []
        plan = Plan()
        plan.workload.kind = kit.name
        checks(problems, plan, data)
        assert any(field == f"workload.{name}" for field, _ in problems), name
        with pytest.raises(PlanError) as raised:
            plan_from_dict(data)
        assert f"workload.{name}" in str(raised.value), name


def test_the_plan_reader_refuses_options_the_kit_does_not_declare(kit: WorkloadKit) -> None:
    """A plan's ``[workload.options]`` are its kit's own fields: one it does not know is named
    (a kit without ``plan_options`` has none), and an empty table is no option at all."""
    from bench_gui.core.plan import plan_from_dict
    from bench_gui.core.plan_model import PlanError

    data: dict[str, Any] = {"workload": {"kind": kit.name, "options": {"no_such_option": 1}}}
    with pytest.raises(PlanError) as raised:
        plan_from_dict(data)
    said = dict(raised.value.problems).get("workload.options.no_such_option", "")
    assert said
    if kit.has_face("plan_options"):
        problems: list[tuple[str, str]] = []
        assert kit.face("plan_options")(problems, {}) == {}
        assert problems == []
    else:
        assert said == f"the {kit.label} workload ({kit.name}) has no options"


def test_its_target_summary_is_the_sessions_list_s(
    kit: WorkloadKit, store: SessionStore, session: int
) -> None:
    """The Sessions list labels a target of the kit's own kind by its target_summary face."""
    from bench_gui.store import target_summary

    summary = kit.face("target_summary")
    target = store.get_run(session).target
    said = summary(target)
    assert isinstance(said, str)
    assert said
    no_foreign_words(kit, said, "the target's summary")
    if target.get("kind") == kit.name:  # the workload is its own target (fio's file)
        assert target_summary(target) == said


# Where the pages, the plan reader and the store once branched on a workload's name.
ASKS_THE_KITS = (
    "bench_gui/gui/pages/workload/page.py",
    "bench_gui/gui/pages/workload/sections.py",
    "bench_gui/store/run_rows.py",
    "bench_gui/core/plan.py",
    "bench_gui/gui/pages/workload/os_section.py",
    "bench_gui/gui/pages/workload/target_section.py",
    "bench_gui/gui/widgets/power_options.py",
)


@pytest.mark.parametrize("path", ASKS_THE_KITS)
def test_the_workload_page_plan_reader_and_store_name_no_workload(path: str) -> None:
    source = (Path(__file__).parents[2] / path).read_text(encoding="utf-8")
    for kit in KITS:
        assert f'"{kit.name}"' not in source, f"{path} names {kit.name}"
