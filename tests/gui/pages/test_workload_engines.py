"""The Workload page's engine choice: every installed engine offered, each kind's own fields,
defaults that follow the engine without clobbering what the user typed, plans that round-trip,
problems next to their field, and plugins that failed to load listed with their error."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from bench_gui.core.engine import EngineCatalog, EngineLoadError, engine_catalog
from bench_gui.core.plan import load_plan, plan_from_dict, plan_from_toml
from bench_gui.core.plan_model import Driver, Plan
from bench_gui.engines.registry import target_kind
from bench_gui.gui.pages.workload.engine_choice import kind_defaults
from bench_gui.gui.pages.workload.page import WorkloadPage

pytestmark = pytest.mark.gui

ODBC_ROWS = ("target.odbc_driver", "target.dsn", "target.tls", "target.authentication")
BROKEN = """[bench_gui.engines]
oracle = bench_gui_no_such_module_here:OracleEngine
weird = json:JSONDecoder
"""


def make_page(
    qtbot: QtBot, plan: Plan | None = None, catalog: EngineCatalog | None = None
) -> WorkloadPage:
    page = WorkloadPage(plan, catalog=catalog)
    qtbot.addWidget(page)
    page.resize(1500, 950)
    page.show()
    return page


def choose(page: WorkloadPage, kind: str) -> None:
    """What a user does: the server radio, then the engine in the list."""
    page.pg_radio.setChecked(True)
    index = page.engine_combo.findData(kind)
    assert index >= 0, f"{kind} is not offered"
    page.engine_combo.setCurrentIndex(index)


def shown(page: WorkloadPage, name: str) -> bool:
    return page.fields.inputs[name].isVisibleTo(page)


@pytest.fixture
def broken_plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A real installed distribution (a dist-info folder on the path) whose engine plugins
    fail: one cannot be imported, one is not an engine (as tests/core/test_engine_catalog.py)."""
    dist = tmp_path / "site" / "broken_engines-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-engines\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(BROKEN)
    monkeypatch.syspath_prepend(str(dist.parent))
    return dist.parent


def test_every_installed_engine_is_offered_with_its_own_fields_and_a_valid_plan(
    qtbot: QtBot,
) -> None:
    catalog = engine_catalog()
    page = make_page(qtbot)
    offered = [page.engine_combo.itemData(i) for i in range(page.engine_combo.count())]
    assert offered == [
        k for k in ("postgresql", "mariadb", "mysql", "mssql") if k in catalog.engines
    ]
    assert {"postgresql", "mariadb", "mysql"} <= set(offered)
    assert not page.engine_combo.isEnabled()  # the demo is PostgreSQL, embedded
    assert not any(shown(page, name) for name in ODBC_ROWS)

    for kind in offered:
        choose(page, kind)
        spec = target_kind(kind)
        odbc = spec is not None and spec.odbc
        assert [shown(page, name) for name in ODBC_ROWS] == [odbc] * 4, kind
        assert page.target.odbc.tls.trust_check.isVisibleTo(page) == (kind == "mssql")
        port, user, admin = kind_defaults(kind)
        assert (page.port_spin.value(), page.user_edit.text()) == (port, user)
        page.host_edit.setText("db1.lab")
        plan = page.validated_plan()
        assert plan is not None, page.fields.errors
        assert (plan.target.kind, plan.target.port, plan.target.user) == (kind, port, user)
        assert plan.target.admin_database == admin
        data = page.plan_data()
        assert ("sslmode" in data["target"]) == (not odbc)
        assert all((key.split(".")[1] in data["target"]) == odbc for key in ODBC_ROWS)
        # The plan shown on a new page gives the same plan back.
        other = make_page(qtbot, plan)
        assert other.engine_combo.currentData() == kind
        assert plan_from_dict(other.plan_data()) == plan
        assert other.plan_data() == data


def test_the_engine_defaults_follow_the_engine_but_never_what_the_user_typed(
    qtbot: QtBot,
) -> None:
    page = make_page(qtbot)
    choose(page, "postgresql")
    assert (page.port_spin.value(), page.user_edit.text()) == (5432, "postgres")
    choose(page, "mariadb")
    assert (page.port_spin.value(), page.user_edit.text()) == (3306, "root")
    page.port_spin.setValue(3307)
    page.user_edit.setText("bench")
    choose(page, "mysql")
    assert (page.port_spin.value(), page.user_edit.text()) == (3307, "bench")
    choose(page, "postgresql")
    assert (page.port_spin.value(), page.user_edit.text()) == (3307, "bench")
    page.port_spin.setValue(5432)
    choose(page, "mariadb")
    assert (page.port_spin.value(), page.user_edit.text()) == (3306, "bench")
    # Back to the demo and out again: nothing typed is lost.
    page.demo_radio.setChecked(True)
    page.pg_radio.setChecked(True)
    assert (page.engine_combo.currentData(), page.user_edit.text()) == ("mariadb", "bench")


def test_a_postgresql_plan_moved_to_mariadb_takes_its_admin_database_unless_chosen(
    qtbot: QtBot,
) -> None:
    plan = plan_from_toml('[target]\nkind = "postgresql"\nhost = "db1"\nsslmode = "require"\n')
    page = make_page(qtbot, plan)
    choose(page, "mariadb")
    moved = page.validated_plan()
    assert moved is not None
    assert (moved.target.admin_database, moved.target.port) == ("mysql", 3306)
    assert moved.target.sslmode == "prefer"  # not a MariaDB field: not written, not refused
    choose(page, "postgresql")
    back = page.validated_plan()
    assert back is not None
    assert (back.target.admin_database, back.target.sslmode) == ("postgres", "require")

    own = plan_from_toml('[target]\nkind = "postgresql"\nhost = "db1"\nadmin_database = "maint"\n')
    page.set_plan(own)
    choose(page, "mariadb")
    kept = page.validated_plan()
    assert kept is not None
    assert kept.target.admin_database == "maint"


def test_odbc_values_round_trip_through_a_file(qtbot: QtBot, tmp_path: Path) -> None:
    source = tmp_path / "mariadb.toml"
    source.write_text(
        'name = "MariaDB 11"\n[target]\nkind = "mariadb"\nhost = "db1"\nport = 3307\n'
        'user = "bench"\nodbc_driver = "MariaDB Unicode"\ntls = "verify"\n'
        'authentication = "password"\npassword_env = "BENCH_GUI_DB1"\n'
        "[workload]\nwarehouses = 10\n",
        encoding="utf-8",
    )
    page = make_page(qtbot)
    assert page.load_plan_file(source)
    assert page.engine_combo.currentData() == "mariadb"
    odbc = page.target.odbc
    assert odbc.driver_edit.text() == "MariaDB Unicode"
    assert odbc.tls.combo.currentText() == "On, certificate verified"
    assert odbc.auth_combo.currentData() == "password"
    saved = tmp_path / "saved.toml"
    assert page.save_plan_file(saved)
    assert load_plan(saved) == load_plan(source)
    assert saved.read_text(encoding="utf-8") == load_plan(source).to_toml()


def test_sql_server_encrypt_and_trust_make_the_plans_tls(qtbot: QtBot) -> None:
    page = make_page(qtbot)
    choose_mssql(page)
    assert tls_label(page) == "Encrypt"
    tls = page.target.odbc.tls
    page.host_edit.setText("sql1")
    expected = {("", False): "", ("off", False): "off", ("on", True): "on", ("on", False): "verify"}
    for (mode, trust), value in expected.items():
        tls.combo.setCurrentIndex(tls.combo.findData(mode))
        assert tls.trust_check.isEnabled() == (mode == "on")
        tls.trust_check.setChecked(trust)
        plan = page.validated_plan()
        assert plan is not None
        assert plan.target.tls == value
        other = make_page(qtbot, plan)
        assert (other.target.odbc.tls.value(), other.plan_data()) == (value, page.plan_data())
    modes = [
        page.target.odbc.auth_combo.itemData(i) for i in range(page.target.odbc.auth_combo.count())
    ]
    assert modes == ["", "sql", "windows", "entra_password", "entra_integrated"]
    # A mode SQL Server has is no MariaDB mode: back to the driver's default there.
    page.target.odbc.auth_combo.setCurrentIndex(modes.index("windows"))
    choose(page, "mariadb")
    assert page.target.odbc.auth_combo.currentData() == ""
    assert tls_label(page) == "TLS"


def tls_label(page: WorkloadPage) -> str:
    label = page.target.form.labelForField(page.target.odbc.tls_cell)
    assert isinstance(label, QLabel)
    return label.text()


def choose_mssql(page: WorkloadPage) -> None:
    """SQL Server whether or not its plugin is installed here (a plan naming it lists it)."""
    if page.engine_combo.findData("mssql") < 0:
        page.set_plan(plan_from_toml('[target]\nkind = "mssql"\nhost = "sql1"\n'))
    choose(page, "mssql")


def test_the_page_says_plainly_what_was_not_verified_against_a_live_server(
    qtbot: QtBot,
) -> None:
    page = make_page(qtbot)
    note = page.target.kind_note
    choose(page, "mariadb")
    assert not note.isVisibleTo(page)  # run against a private MariaDB by the tests
    choose_mssql(page)
    assert note.isVisibleTo(page)
    if "mssql" in engine_catalog().engines:
        assert note.text().startswith("⚠ SQL Server has not been verified against a live server")
    else:
        assert note.text().startswith("⚠ No installed engine plugin provides SQL Server")
    page.demo_radio.setChecked(True)
    assert not note.isVisibleTo(page)


def test_an_engine_whose_plugin_failed_is_kept_marked_and_says_why(qtbot: QtBot) -> None:
    real = engine_catalog()
    catalog = EngineCatalog(
        {k: e for k, e in real.engines.items() if k != "mssql"},
        (
            EngineLoadError(
                "mssql", "bench_gui.engines.mssql.connection:MssqlEngine", "ImportError: no pyodbc"
            ),
        ),
    )
    plan = plan_from_toml('[target]\nkind = "mssql"\nhost = "sql1"\ntls = "on"\n')
    page = make_page(qtbot, plan, catalog)
    assert page.engine_combo.currentText() == "SQL Server (not installed)"
    assert page.target.kind_note.text() == (
        "⚠ No installed engine plugin provides SQL Server: its plugin failed to load"
        " (ImportError: no pyodbc); a run cannot start."
    )
    assert page.target.plugin_notice.text() == (
        "⚠ Engine plugin 'mssql' failed to load (bench_gui.engines.mssql.connection:MssqlEngine):"
        " ImportError: no pyodbc"
    )
    # Saving keeps the plan's engine and its fields.
    assert plan_from_dict(page.plan_data()) == plan


def test_plugins_that_failed_to_load_are_listed_under_the_engine(
    qtbot: QtBot, broken_plugins: Path
) -> None:
    page = make_page(qtbot)
    notice = page.target.plugin_notice
    # The plugins import their database drivers: they load once the page is painted (the
    # window shows first); the list has their names before that.
    assert not page.target.engines_loaded
    assert page.engine_combo.findData("mariadb") >= 0
    qtbot.waitUntil(lambda: page.target.engines_loaded)
    assert notice.isVisibleTo(page)
    lines = notice.text().splitlines()
    assert lines[0].startswith(
        "⚠ Engine plugin 'oracle' failed to load (bench_gui_no_such_module_here:OracleEngine):"
        " ModuleNotFoundError: No module named 'bench_gui_no_such_module_here'"
    )
    assert lines[1].startswith(
        "⚠ Engine plugin 'weird' failed to load (json:JSONDecoder): not an engine"
    )
    assert len(lines) == 2
    assert notice.textFormat() == Qt.TextFormat.PlainText  # a plugin's text is never markup
    # The engines that did load are all still offered.
    assert page.engine_combo.findData("mariadb") >= 0


def test_no_notice_when_every_plugin_loads(qtbot: QtBot) -> None:
    catalog = EngineCatalog(engine_catalog().engines, ())
    page = make_page(qtbot, catalog=catalog)
    assert not page.target.plugin_notice.isVisibleTo(page)


def test_bad_odbc_values_are_shown_next_to_their_field(qtbot: QtBot) -> None:
    page = make_page(qtbot)
    choose(page, "mariadb")
    page.host_edit.setText("")
    page.target.odbc.dsn_edit.setText("bench;x")
    page.port_spin.setValue(0)
    with qtbot.assertNotEmitted(page.start_requested):
        qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
    assert page.field_error("target.dsn") == "'bench;x' may not contain ; { } or ="
    assert page.field_error("target.port") == "must be between 1 and 65535, got 0"
    assert page.target.odbc.dsn_edit.property("invalid") is True
    assert not page.general_error.isVisible()
    # A DSN stands for host and port: with a good one, no host is needed.
    page.target.odbc.dsn_edit.setText("bench")
    page.port_spin.setValue(3306)
    with qtbot.waitSignal(page.start_requested, timeout=1000) as blocker:
        qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
    plan = blocker.args[0]
    assert (plan.target.kind, plan.target.dsn, plan.target.host) == ("mariadb", "bench", "")
    assert page.field_error("target.dsn") == ""


def test_a_plan_of_several_driver_hosts_keeps_them(qtbot: QtBot) -> None:
    if "targets" not in Driver.__dataclass_fields__:
        pytest.skip("this plan model has one driver host only")
    plan = plan_from_toml(
        '[target]\nkind = "mariadb"\nhost = "db1"\n'
        '[driver]\ntargets = ["drv1", "drv2"]\n[workload]\nvirtual_users = [8, 16]\n'
    )
    page = make_page(qtbot, plan)
    assert not page.driver_combo.isEnabled()
    assert page.driver_combo.currentText().startswith("drv1, drv2 (several hosts")
    page.set_driver_targets(["drv1", "other"])
    assert page.driver_combo.currentText().startswith("drv1, drv2 (several hosts")
    assert plan_from_dict(page.plan_data()) == plan


def test_a_missing_engine_leaves_the_list_with_the_plan_that_named_it(qtbot: QtBot) -> None:
    catalog = EngineCatalog({k: e for k, e in engine_catalog().engines.items() if k != "mssql"})
    page = make_page(qtbot, plan_from_toml('[target]\nkind = "mssql"\nhost = "sql1"\n'), catalog)
    assert page.engine_combo.findText("SQL Server (not installed)") >= 0
    page.set_plan(plan_from_toml('[target]\nkind = "mariadb"\nhost = "db1"\n'))
    assert page.engine_combo.findText("SQL Server (not installed)") < 0
    assert page.engine_combo.currentData() == "mariadb"


LOADING = """
import sys
from PySide6.QtWidgets import QApplication
app = QApplication([])
from bench_gui.gui.pages.workload.page import WorkloadPage
page = WorkloadPage()
page.show()
app.processEvents()
print("before", sorted(m for m in sys.modules if m.startswith("bench_gui_plugins.")))
print("offered", [page.engine_combo.itemData(i) for i in range(page.engine_combo.count())])
while not page.target.engines_loaded:
    app.processEvents()
print("after", "bench_gui.engines.postgresql.connection" in sys.modules)
"""


def test_the_engine_plugins_load_after_the_page_is_painted(tmp_path: Path) -> None:
    """The plugins import their database drivers: building and painting the page loads none
    of them (the window opens first), and they load a moment later by themselves."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "BENCH_GUI_DATA_DIR": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-c", LOADING],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    engines = [name for name in lines[0].removeprefix("before ").strip("[]").split(", ") if name]
    assert not [name for name in engines if "postgresql" in name or "mariadb" in name], lines
    assert lines[1].startswith("offered ['postgresql', 'mariadb', 'mysql'")
    assert lines[2] == "after True"


def test_a_third_party_engine_is_offered_after_the_plan_models_own(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real plugin package (tests/_fixtures/thirdparty, built by pip) installed: its engine
    is in the list, and choosing it gives a plan of its kind that a new page shows again."""
    from tests._fixtures.plugin_dist import build_wheels, install

    monkeypatch.syspath_prepend(str(install(build_wheels(tmp_path / "b"), tmp_path / "site")))
    page = make_page(qtbot, catalog=engine_catalog())
    offered = [page.engine_combo.itemData(i) for i in range(page.engine_combo.count())]
    assert offered[-1] == "acme"
    assert offered[:2] == ["postgresql", "mariadb"]
    assert page.engine_combo.itemText(offered.index("acme")) == "Acme (PostgreSQL inside)"
    choose(page, "acme")
    page.host_edit.setText("db1.lab")
    plan = page.validated_plan()
    assert plan is not None, page.fields.errors
    assert (plan.target.kind, plan.target.host) == ("acme", "db1.lab")
    other = make_page(qtbot, plan, catalog=engine_catalog())
    assert other.engine_combo.currentData() == "acme"
    assert plan_from_dict(other.plan_data()) == plan
