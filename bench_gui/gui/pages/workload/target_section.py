"""The Workload page's target: the database (the embedded demo, or a server of any installed
engine) and the host the agent runs on: this machine or a saved SSH target, or several saved
SSH targets for one run (:mod:`.driver_hosts`: the hosts, the split of the users, the clock
limit; a server of TPROC-C only).

The engines are the installed plugins (:mod:`.engine_choice`), loaded once the window is
painted (they import their database drivers) or when a server is chosen. Each kind shows only
its own fields (ODBC driver or DSN, TLS, authentication: :mod:`.odbc_fields`), and choosing
another engine moves the port and user to its defaults unless the user typed others. A random-read
plan has no database: only the host the agent runs on is shown, and no ``[target]`` written.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from bench_gui.core.engine import EngineCatalog, engine_catalog
from bench_gui.core.plan_model import Plan, Target
from bench_gui.engines.registry import target_kind
from bench_gui.gui.pages.workload.driver_hosts import DriverHosts
from bench_gui.gui.pages.workload.engine_choice import (
    catalog_notices,
    default_engine,
    engine_options,
    kind_defaults,
    kind_note,
    listed_engines,
    missing_option,
)
from bench_gui.gui.pages.workload.odbc_fields import OdbcFields, odbc_kind
from bench_gui.gui.widgets.page_parts import compact_combo
from bench_gui.gui.widgets.plan_fields import PlanFields, add_row, styled_form
from bench_gui.services.errors import SecretStoreError
from bench_gui.services.hosts import database_password, set_db_password
from bench_gui.workloads.base import DEFAULT_WORKLOAD, uses_database

THIS_MACHINE = "This machine"
SEVERAL_SUFFIX = " (several hosts)"
DRIVER_HINT = (
    "Where the workload agent runs (SSH targets are added on the Targets page). Host and port"
    " below are as seen from it."
)
FIO_DRIVER_HINT = (
    "Where fio runs and reads its file: this machine or a saved SSH target (added on the"
    " Targets page)."
)
# How long after the page is first painted the engine plugins are loaded: past the app's
# "window shown" moment, which follows the first paint with no wait (the plugins import their
# database drivers, which the window must not wait for: tests/gui/test_startup.py).
ENGINE_LOAD_DELAY_MS = 300
PASSWORD_ENV_HINT = "PGPASSWORD or a BENCH_GUI_* variable, if set; else the OS keyring's."


def _notice(text: str = "") -> QLabel:
    """A line under a field that says something about it (plain text: it can hold a
    plugin's own error message)."""
    label = QLabel(text)
    label.setObjectName("fieldHint")
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setVisible(bool(text))
    return label


class TargetSection(QGroupBox):
    """The database and the driver host of a plan; ``catalog`` is the installed engines
    (default: the ``bench_gui.engines`` plugins, loaded by :meth:`load_engines`)."""

    def __init__(self, catalog: EngineCatalog | None = None) -> None:
        super().__init__("Target")
        self.catalog = catalog
        self._listed = listed_engines() if catalog is None else []
        self._load_scheduled = catalog is not None
        self.fields = PlanFields()
        self._driver_before_demo = ""  # the driver host kept while the demo is chosen
        self._shown_kind = "demo"  # the kind whose defaults the port and user may hold
        self.workload_kind = DEFAULT_WORKLOAD
        self.form = form = styled_form(self)
        self._kind_rows(form)
        self._driver_rows(form)
        self.host_edit = QLineEdit()
        self.host_edit.setPlaceholderText("db.example.com")
        self.port_spin = QSpinBox()
        self.port_spin.setRange(0, 65535)
        self.user_edit = QLineEdit()
        self.database_edit = QLineEdit()
        self.password_env_edit = QLineEdit()
        self.password_env_edit.setPlaceholderText("PGPASSWORD")
        host_row = QWidget()  # host and port on one line
        row = QHBoxLayout(host_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(10)
        top = Qt.AlignmentFlag.AlignTop
        row.addWidget(self.fields.cell("target.host", self.host_edit), 1, top)
        port_label = QLabel("Port")
        port_label.setObjectName("formLabel")
        row.addWidget(port_label, 0, top)
        self.port_spin.setMinimumWidth(96)
        row.addWidget(self.fields.cell("target.port", self.port_spin), 0, top)
        self.server_cells = [
            host_row,
            self.fields.cell("target.user", self.user_edit),
            self.fields.cell("target.database", self.database_edit),
        ]
        labels = ("Host", "User", "Database name")
        for text, cell in zip(labels, self.server_cells, strict=True):
            add_row(form, text, cell)
        self.odbc = OdbcFields(form, self.fields)
        password_env = self.fields.cell(
            "target.password_env", self.password_env_edit, PASSWORD_ENV_HINT
        )
        add_row(form, "Password from", password_env)
        self.server_cells.append(password_env)
        self._password_rows(form)
        for edit in (self.host_edit, self.user_edit, self.password_env_edit):
            edit.editingFinished.connect(self.update_password_note)
        self.port_spin.valueChanged.connect(self.update_password_note)
        self._show_several()
        self.update_enabled()

    def _driver_rows(self, form: QFormLayout) -> None:
        """One driver host (this machine or a saved SSH target, from a list) or several
        (:class:`DriverHosts`: the hosts, the split of the users, the clock limit)."""
        self.hosts = DriverHosts(self)
        self.fields.include(self.hosts.fields)
        add_row(form, "Driver hosts", self.hosts.mode_row)
        self.driver_combo = compact_combo(QComboBox())
        self.driver_combo.addItem(THIS_MACHINE, "")
        self.driver_cell = self.fields.cell("driver.target", self.driver_combo, DRIVER_HINT)
        add_row(form, "Driver host", self.driver_cell)
        for text, cell in self.hosts.rows:
            add_row(form, text, cell)
        self._single_before_several = ""  # the one host chosen before several were
        self.hosts.several_radio.toggled.connect(self._several_toggled)
        self.hosts.changed.connect(self._show_several)

    def _kind_rows(self, form: QFormLayout) -> None:
        """Demo or server; the server's engine with the notices about engines under it."""
        radios = QWidget()
        row = QHBoxLayout(radios)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(18)
        self.demo_radio = QRadioButton("Embedded demo")
        self.server_radio = QRadioButton("Database server")
        self.pg_radio = self.server_radio  # the name callers used before there were engines
        self.kind_group = QButtonGroup(self)
        self.kind_group.addButton(self.demo_radio)
        self.kind_group.addButton(self.server_radio)
        row.addWidget(self.demo_radio)
        row.addWidget(self.server_radio)
        row.addStretch(1)
        add_row(form, "Database", radios)
        self.kind_rows = [radios]
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        self.engine_combo = compact_combo(QComboBox())
        column.addWidget(self.engine_combo)
        self.kind_note = _notice()
        column.addWidget(self.kind_note)
        self.plugin_notice = _notice()
        column.addWidget(self.plugin_notice)
        self._list_engines(default_engine())
        engine_cell = self.fields.cell("target.kind", box)
        add_row(form, "Engine", engine_cell)
        self.kind_rows.append(engine_cell)
        self.demo_radio.toggled.connect(self._kind_changed)
        self.engine_combo.currentIndexChanged.connect(self._kind_changed)

    def _password_rows(self, form: QFormLayout) -> None:
        """The password itself goes straight to the OS keyring (per engine, server, port and
        user), never into the plan; the line under it says where a run's comes from."""
        password_row = QWidget()
        row = QHBoxLayout(password_row)
        row.setContentsMargins(0, 0, 0, 0)
        self.password_edit = QLineEdit()
        self.password_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.password_edit.setPlaceholderText("kept in the OS keyring")
        self.password_edit.returnPressed.connect(self.save_password)
        self.password_save_button = QPushButton("Save in keyring")
        self.password_save_button.clicked.connect(self.save_password)
        row.addWidget(self.password_edit, 1)
        row.addWidget(self.password_save_button)
        add_row(form, "Password", password_row)
        self.password_note = QLabel("")
        self.password_note.setObjectName("muted")
        self.password_note.setWordWrap(True)
        add_row(form, "", self.password_note)
        self.server_cells += [password_row, self.password_note]

    # ---- the engine ----------------------------------------------------------------------

    def _list_engines(self, keep: str) -> None:
        """Fill the engine list from the catalog (or the plugins' names), ``keep`` chosen."""
        self.engine_combo.blockSignals(True)
        self.engine_combo.clear()
        for option in engine_options(self.catalog, self._listed):
            self.engine_combo.addItem(option.text, option.kind)
        if self.engine_combo.count() == 0:  # no engine plugin at all: the demo still runs
            kind = default_engine()
            self.engine_combo.addItem(missing_option(kind).text, kind)
        self.select_engine(keep)
        self.engine_combo.blockSignals(False)
        notices = catalog_notices(self.catalog) if self.catalog is not None else []
        self.plugin_notice.setText("\n".join(notices))
        self.plugin_notice.setVisible(bool(notices))

    @property
    def engines_loaded(self) -> bool:
        return self.catalog is not None

    def load_engines(self) -> None:
        """Load the engine plugins (once): their labels, which failed and why, and what each
        says of itself replace the names the list started with."""
        if self.catalog is not None:
            return
        self.catalog = engine_catalog()
        self._list_engines(self.engine)
        self.update_enabled()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        super().paintEvent(event)
        if not self._load_scheduled:
            self._load_scheduled = True
            QTimer.singleShot(ENGINE_LOAD_DELAY_MS, self, self.load_engines)

    @property
    def engine(self) -> str:
        """The chosen server engine (whether or not the server is chosen)."""
        return str(self.engine_combo.currentData() or default_engine())

    @property
    def kind(self) -> str:
        """The plan's ``target.kind``: ``demo`` or the engine."""
        return "demo" if self.demo_radio.isChecked() else self.engine

    def select_engine(self, kind: str) -> None:
        installed = self.catalog.engines if self.catalog is not None else self._listed
        for i in reversed(range(self.engine_combo.count())):  # an earlier plan's missing one
            data = self.engine_combo.itemData(i)
            if data not in installed and data != kind and self.engine_combo.count() > 1:
                self.engine_combo.removeItem(i)
        index = self.engine_combo.findData(kind)
        if index < 0:  # a plan's engine no plugin provides: kept, and marked as such
            self.engine_combo.addItem(missing_option(kind).text, kind)
            index = self.engine_combo.count() - 1
        self.engine_combo.setCurrentIndex(index)

    def _kind_changed(self) -> None:
        """Another engine (or the demo): its defaults where the fields hold the last one's,
        its own fields shown."""
        kind = self.kind
        if kind != "demo":
            self.load_engines()  # what the engine says of itself, shown now
        old_port, old_user, _admin = kind_defaults(self._shown_kind)
        port, user, _admin = kind_defaults(kind)
        if self.port_spin.value() in (old_port, 0):
            self.port_spin.setValue(port)
        if self.user_edit.text().strip() in (old_user, ""):
            self.user_edit.setText(user)
        self._shown_kind = kind
        self.update_enabled()

    # ---- plan <-> fields -----------------------------------------------------------------

    def set_plan(self, plan: Plan) -> None:
        target = plan.target
        if target.kind != "demo":
            self.load_engines()
        self._shown_kind = target.kind  # the plan's values are kept as they are
        self.demo_radio.blockSignals(True)
        self.engine_combo.blockSignals(True)
        (self.demo_radio if target.kind == "demo" else self.server_radio).setChecked(True)
        self.select_engine(target.kind if target.kind != "demo" else self.engine)
        self.demo_radio.blockSignals(False)
        self.engine_combo.blockSignals(False)
        self.host_edit.setText(target.host)
        self.port_spin.setValue(target.port)
        self.user_edit.setText(target.user)
        self.database_edit.setText(target.database)
        self.password_env_edit.setText(target.password_env)
        self.odbc.set_target(target)
        self._driver_before_demo = ""
        self.hosts.set_driver(plan.driver)
        self._single_before_several = ""
        self.select_driver(plan.driver.target)
        self._show_several()
        self.set_workload_kind(plan.workload.kind)

    def fill(self, data: dict[str, Any]) -> None:
        """Write ``target`` (none for a random-read plan) and ``driver`` (the demo always runs
        on this machine). Fields without a widget are kept from the plan the page holds,
        except the admin database when it was the other engine's default."""
        driver = data.setdefault("driver", {})
        self.hosts.fill(driver)
        several = self.hosts.several
        if not uses_database(self.workload_kind):
            data.pop("target", None)
            if not several:
                driver["target"] = str(self.driver_combo.currentData() or "")
            return
        target = data.setdefault("target", {})
        kind = self.kind
        before = str(target.get("kind", "demo"))
        if target.get("admin_database", kind_defaults(before)[2]) == kind_defaults(before)[2]:
            target["admin_database"] = kind_defaults(kind)[2]
        if odbc_kind(kind) is not None:
            target.pop("sslmode", None)
        target["kind"] = kind
        target["host"] = self.host_edit.text().strip()
        target["port"] = self.port_spin.value()
        target["user"] = self.user_edit.text().strip()
        target["database"] = self.database_edit.text().strip()
        target["password_env"] = self.password_env_edit.text().strip()
        self.odbc.fill(target, kind)
        if not several:
            driver["target"] = str(self.driver_combo.currentData() or "") if kind != "demo" else ""

    def set_workload_kind(self, kind: str) -> None:
        """TPROC-C needs a database; a random-read study only the host fio runs on (the
        workload's kit says which)."""
        self.workload_kind = kind
        database = uses_database(kind)
        self.setTitle("Target" if database else "Host")
        self.fields.hints["driver.target"].setText(DRIVER_HINT if database else FIO_DRIVER_HINT)
        for row in self.kind_rows:
            self.form.setRowVisible(row, database)
        self.update_enabled()

    # ---- the password --------------------------------------------------------------------

    def server_target(self) -> Target:
        """The database server and user in the fields (what a password is kept under)."""
        return Target(
            kind=self.engine,
            host=self.host_edit.text().strip(),
            port=self.port_spin.value(),
            user=self.user_edit.text().strip(),
            password_env=self.password_env_edit.text().strip(),
        )

    def save_password(self) -> None:
        """Keep the typed password in the OS keyring for the server and user in the fields."""
        password = self.password_edit.text()
        target = self.server_target()
        if not password or not target.host or not target.user:
            self.password_note.setText("Give the host and user, then type the password.")
            return
        try:
            set_db_password(target, password)
        except SecretStoreError as exc:
            self.password_note.setText(str(exc))
            return
        self.password_edit.clear()
        self.update_password_note()

    def update_password_note(self) -> None:
        """Say where a run's database password will come from (keyring, variable, none)."""
        if self.kind == "demo":
            self.password_note.setText("")
            return
        try:
            source = database_password(self.server_target()).source
        except SecretStoreError as exc:
            self.password_note.setText(str(exc))
            return
        self.password_note.setText(f"A run's password: {source}.")

    # ---- the driver host -----------------------------------------------------------------

    def set_driver_targets(self, names: list[str]) -> None:
        """The saved SSH targets the agent can run on; the current choice is kept."""
        several = self.hosts.several
        current = self._single_before_several if several else self.driver_combo.currentData()
        current = str(current or "")
        self.driver_combo.blockSignals(True)
        self.driver_combo.clear()
        self.driver_combo.addItem(THIS_MACHINE, "")
        for name in names:
            self.driver_combo.addItem(name, name)
        self.driver_combo.blockSignals(False)
        self.hosts.set_saved(names)
        self.select_driver(current)
        self._show_several()

    def _several_toggled(self, several: bool) -> None:
        """Several hosts start from the one chosen (checked first); one host again is the
        primary of the several (or the one chosen before)."""
        if several:
            self._single_before_several = str(self.driver_combo.currentData() or "")
            if not self.hosts.chosen() and self._single_before_several:
                self.hosts.check_first(self._single_before_several)
            self._show_several()
            return
        chosen = self.hosts.chosen()
        self._show_several()
        self.select_driver(chosen[0] if chosen else self._single_before_several)
        self.update_enabled()

    def _show_several(self) -> None:
        """Several driver hosts: the one-host list names them (its row hidden), so that its
        choice is the primary; one host: the list as it is."""
        for i in reversed(range(self.driver_combo.count())):
            if self.driver_combo.itemText(i).endswith(SEVERAL_SUFFIX):
                self.driver_combo.removeItem(i)
        several = self.hosts.several
        self.form.setRowVisible(self.driver_cell, not several)
        for text, cell in self.hosts.rows:
            kept_users = text != "Users per host" or self.hosts.split == "users"
            self.form.setRowVisible(cell, several and kept_users)
        if not several:
            self.driver_combo.setEnabled(self._driver_free())
            return
        chosen = self.hosts.chosen()
        text = f"{', '.join(chosen) or 'none checked'}{SEVERAL_SUFFIX}"
        self.driver_combo.addItem(text, chosen[0] if chosen else "")
        self.driver_combo.setCurrentIndex(self.driver_combo.count() - 1)
        self.driver_combo.setEnabled(False)

    def select_driver(self, name: str) -> None:
        index = self.driver_combo.findData(name)
        if index < 0:
            # A plan naming a target this machine has not saved: kept, and marked as such.
            self.driver_combo.addItem(f"{name} (not saved)", name)
            index = self.driver_combo.count() - 1
        self.driver_combo.setCurrentIndex(index)

    def _driver_free(self) -> bool:
        """Whether the one driver host may be other than this machine (not for the demo)."""
        return self.kind != "demo" or not uses_database(self.workload_kind)

    def update_enabled(self) -> None:
        """The fields of the chosen kind shown (and enabled: the demo's are shown disabled);
        the engine's notes under the choice."""
        kind = self.kind
        database = uses_database(self.workload_kind)
        server = kind != "demo"
        for cell in self.server_cells:
            self.form.setRowVisible(cell, database)
        self.odbc.set_kind(kind if database else "")
        for widget in (
            self.host_edit,
            self.port_spin,
            self.user_edit,
            self.password_env_edit,
            self.password_edit,
            self.password_save_button,
        ):
            widget.setEnabled(server)
        self.engine_combo.setEnabled(server)
        self.password_env_edit.setPlaceholderText(
            spec.password_env if (spec := target_kind(kind)) is not None else ""
        )
        note = kind_note(kind, self.catalog)
        self.kind_note.setText(note)
        self.kind_note.setVisible(bool(note))
        self.update_password_note()
        # The embedded demo runs on this machine only: the choice is kept for a server target
        # (a random-read study runs fio wherever the user says, on one host).
        free = self._driver_free()
        self.hosts.several_radio.setEnabled(server and database)
        self.form.setRowVisible(self.hosts.mode_row, database)  # fio runs on one host
        if self.hosts.several and not (server and database):
            self.hosts.one_radio.setChecked(True)  # calls back here
            return
        self.driver_combo.setEnabled(free and not self.hosts.several)
        if not free and self.driver_combo.currentIndex() != 0:
            self._driver_before_demo = str(self.driver_combo.currentData() or "")
            self.driver_combo.setCurrentIndex(0)
        elif free and self._driver_before_demo:
            self.select_driver(self._driver_before_demo)
            self._driver_before_demo = ""
