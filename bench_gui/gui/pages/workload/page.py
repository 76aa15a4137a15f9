"""The Workload page: edit a run plan, build the schema, check it, start a sweep.

Validation is the plan model's own (:func:`bench_gui.core.plan.plan_from_dict`): the page turns
its fields into the plan's dictionary, and every :class:`PlanError` problem is shown next to the
field it names. Fields the page has no widget for (admin database, SSL mode, worker counts,
notes) are kept from the loaded plan, so loading and saving never loses them.

The plan's workload kind picks the sections shown: TPROC-C's sweep, options and schema box, or
the random-read study's form (and no database); the dictionary carries only the chosen kind's
fields, as the plan model asks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol, cast

from PySide6.QtCore import Signal, SignalInstance
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from bench_gui.core.echo import problem_lines
from bench_gui.core.engine import EngineCatalog
from bench_gui.core.plan import load_plan, plan_from_dict
from bench_gui.core.plan_checks import parse_vu_list
from bench_gui.core.plan_model import Plan, PlanError
from bench_gui.gui.pages.workload.os_section import OsSection
from bench_gui.gui.pages.workload.schema_box import SchemaBox
from bench_gui.gui.pages.workload.sections import SweepSection
from bench_gui.gui.pages.workload.target_section import TargetSection
from bench_gui.gui.widgets.page_parts import ErrorLine, PageHeader, page_layout
from bench_gui.gui.widgets.plan_fields import PlanFields
from bench_gui.gui.widgets.power_options import PowerOptions
from bench_gui.gui.widgets.side_by_side import SideBySide
from bench_gui.wire.protocol import Event
from bench_gui.workloads.base import DEFAULT_WORKLOAD, kit_for, kits


class KitForm(Protocol):
    """What the page asks of a workload kit's ``plan_form`` (a QWidget of its own fields)."""

    fields: PlanFields

    def set_plan(self, plan: Plan) -> None: ...
    def fill(self, data: dict[str, Any]) -> None: ...
    def problems(self) -> list[tuple[str, str]]: ...


class WorkloadPage(QWidget):
    """Edits a :class:`Plan`; asks the main window to run actions on it.

    Signals:
        start_requested(object): a valid Plan to run as a sweep.
        build_requested(object): a valid Plan whose schema should be built.
        check_requested(object): a valid Plan whose database should be checked.
        cancel_requested(): stop the build or check in progress.
    """

    start_requested = Signal(object)
    build_requested = Signal(object)
    check_requested = Signal(object)
    cancel_requested = Signal()

    def __init__(
        self,
        plan: Plan | None = None,
        parent: QWidget | None = None,
        catalog: EngineCatalog | None = None,
    ) -> None:
        super().__init__(parent)
        self._base = plan or Plan()
        self.plan_path: Path | None = None
        self.fields = PlanFields()  # every section's, by plan field name
        self._busy: str | None = None
        self._build_ui(catalog)
        self.set_plan(self._base)

    def _build_ui(self, catalog: EngineCatalog | None) -> None:
        outer = page_layout(self)
        self.header = PageHeader("Workload")
        self.subtitle = self.header.subtitle
        outer.addWidget(self.header)
        self.general_error = ErrorLine()
        outer.addWidget(self.general_error)

        self.target = TargetSection(catalog)
        self.sweep = SweepSection()
        self.sweep.kind_changed.connect(self._show_kind)
        self.sweep.vus_edit.textChanged.connect(self._first_step_changed)
        # Each workload kit's own section of the form (TPROC-C's options, the random-read
        # study's sizes and reads), shown while its kind is chosen.
        self.forms: dict[str, QWidget] = {kit.name: kit.face("plan_form")() for kit in kits()}
        self.schema = SchemaBox()
        self.schema.build_button.clicked.connect(lambda: self._request(self.build_requested))
        self.schema.check_button.clicked.connect(lambda: self._request(self.check_requested))
        self.schema.cancel_button.clicked.connect(self.cancel_requested)
        self.power_options = PowerOptions()
        self.os_section = OsSection()
        # With several driver hosts the OS knobs' host must be named: its field says so.
        hosts = self.target.hosts
        hosts.changed.connect(lambda: self.os_section.set_several_hosts(hosts.several))
        hosts.several_radio.toggled.connect(self.os_section.set_several_hosts)
        for section in (self.target, self.sweep, self.power_options, self.os_section):
            self.fields.include(section.fields)
        for name in self.forms:
            self.fields.include(self.kit_form(name).fields)
        # Two columns (the target; the workload, its kit's narrow section and the schema),
        # then a kit's wide section (the random-read study's), power and OS knobs.
        content = QWidget()
        column = QVBoxLayout(content)
        column.setContentsMargins(0, 0, 8, 0)
        column.setSpacing(6)
        # Side by side where the page is wide enough, one under the other on a laptop.
        narrow = [form for name, form in self.forms.items() if not kit_for(name).form_wide]
        wide = [form for name, form in self.forms.items() if kit_for(name).form_wide]
        self.columns = SideBySide(((self.target,), (self.sweep, *narrow, self.schema)))
        column.addWidget(self.columns)
        below: tuple[QWidget, ...] = (*wide, self.power_options, self.os_section)
        for widget in below:
            column.addWidget(widget)
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(content)
        outer.addWidget(scroll, 1)
        outer.addLayout(self._actions())
        self._name_inputs()

    def _actions(self) -> QHBoxLayout:
        actions = QHBoxLayout()
        actions.setSpacing(12)
        self.load_button = QPushButton("Load plan…")
        self.load_button.clicked.connect(self._on_load_clicked)
        self.save_button = QPushButton("Save plan…")
        self.save_button.clicked.connect(self._on_save_clicked)
        actions.addWidget(self.load_button)
        actions.addWidget(self.save_button)
        actions.addStretch(1)
        self.start_button = QPushButton("Start sweep  ▶")
        self.start_button.setProperty("role", "primary")
        self.start_button.clicked.connect(lambda: self._request(self.start_requested))
        actions.addWidget(self.start_button)
        return actions

    def _name_inputs(self) -> None:
        """The sections' inputs by the names the main window and the tests use."""
        t, s, b, os = self.target, self.sweep, self.schema, self.os_section
        self.demo_radio, self.pg_radio = t.demo_radio, t.server_radio
        self.engine_combo, self.workload_kind_combo = t.engine_combo, s.kind_combo
        self.driver_combo, self.host_edit, self.port_spin = t.driver_combo, t.host_edit, t.port_spin
        self.user_edit, self.database_edit = t.user_edit, t.database_edit
        self.password_env_edit = t.password_env_edit
        self.name_edit, self.warehouses_spin = s.name_edit, s.warehouses_spin
        self.vus_edit, self.vu_hint = s.vus_edit, s.vu_hint
        self.rampup_spin, self.duration_spin = s.rampup_spin, s.duration_spin
        self.build_button, self.check_button = b.build_button, b.check_button
        self.cancel_button, self.progress = b.cancel_button, b.progress
        self.task_status, self.check_list = b.task_status, b.check_list
        self.os_preset_combo, self.os_knobs_edit = os.preset_combo, os.knobs_edit
        self.os_devices_edit = os.devices_edit

    # ---- plan <-> fields -----------------------------------------------------------------

    def set_plan(self, plan: Plan) -> None:
        """Show a plan in the fields (and keep it as the base for fields without a widget)."""
        self._base = plan
        self.target.set_plan(plan)
        self.sweep.set_plan(plan)
        for name in self.forms:
            self.kit_form(name).set_plan(plan)
        self.power_options.set_plan(plan)
        self.os_section.set_plan(plan)
        self.clear_errors()
        self._show_kind(plan.workload.kind)

    def kit_form(self, kind: str) -> KitForm:
        """The workload kit's own section of the form, as the page uses it."""
        return cast(KitForm, self.forms[kind])

    @property
    def workload_kind(self) -> str:
        """The workload kind chosen: ``tproc_c`` or ``random_read``."""
        return self.sweep.workload_kind

    def _show_kind(self, kind: str) -> None:
        """The chosen kind's sections shown, the other kind's hidden (their values kept)."""
        kit = kit_for(kind)
        for name, form in self.forms.items():
            form.setVisible(name == kind)
        self.schema.setVisible(kit.uses_database)
        self.target.set_workload_kind(kind)
        self.sweep.show_kind(kind)
        self.os_section.set_workload_kind(kind)
        self.power_options.set_workload_kind(kind)
        self.start_button.setText(f"{kit.start_words}  ▶")
        self._update_subtitle()

    def plan_data(self) -> dict[str, Any]:
        """The fields as a plan dictionary (not validated), with only the chosen kind's
        workload fields."""
        data = self._base.to_dict()
        kind = self.workload_kind
        workload = data.setdefault("workload", {})
        for other in kits():  # another kind's fields, kept in the base plan, are dropped
            if other.name != kind:
                for key in other.face("plan_fields"):
                    workload.pop(key, None)
        if kind != self._base.workload.kind:
            workload.pop("options", None)  # the base plan's kit's own fields, not this kind's
        if kind == DEFAULT_WORKLOAD:
            workload.pop("kind", None)  # the default kind is not written
        else:
            workload["kind"] = kind
        self.sweep.fill(data)
        self.target.fill(data)
        self.kit_form(kind).fill(data)
        self.power_options.fill(data)
        self.os_section.fill(data)
        return data

    def page_problems(self) -> list[tuple[str, str]]:
        """Problems of the fields the plan model cannot see (it gets their values only)."""
        kind = self.workload_kind
        problems = self.kit_form(kind).problems()
        if not kit_for(kind).one_host_why:  # a kind that may run on several driver hosts
            problems += self.target.hosts.problems()
        return problems

    def _first_step_changed(self, text: str) -> None:
        """The several driver hosts' hint follows the sweep's first step."""
        try:
            steps = parse_vu_list(text)
        except ValueError:
            steps = []
        self.target.hosts.set_first_step(steps[0] if steps else None)

    def checked_plan(self) -> Plan:
        """The plan in the fields, or :class:`PlanError` with every problem of the fields."""
        problems = self.page_problems()
        try:
            plan = plan_from_dict(self.plan_data())
        except PlanError as exc:
            problems += exc.problems
        if problems:
            raise PlanError(problems)
        return plan

    def current_plan(self) -> Plan | None:
        """The plan in the fields if it is valid (no error shown), else None."""
        try:
            return self.checked_plan()
        except PlanError:
            return None

    def set_driver_targets(self, names: list[str]) -> None:
        """The saved SSH targets the agent can run on; the current choice is kept."""
        self.target.set_driver_targets(names)

    def validated_plan(self) -> Plan | None:
        """The plan in the fields, or None with every problem shown next to its field."""
        self.clear_errors()
        try:
            return self.checked_plan()
        except PlanError as exc:
            self.show_problems(exc.problems)
            return None

    def clear_errors(self) -> None:
        self.fields.clear()
        self.general_error.clear_error()

    def show_problems(self, problems: list[tuple[str, str]]) -> None:
        """Show (field, reason) pairs: next to the field, or on top for fields without one."""
        general: list[str] = []
        for name, reason in problems:
            if name.startswith("os.knobs."):  # one knob of the knobs box: shown under it
                name, reason = "os.knobs", f"{name.removeprefix('os.knobs.')}: {reason}"
            if not self.fields.add_problem(name, reason):
                general.append(f"{name}: {reason}")
        if general:
            self.general_error.show_error("\n".join(general))

    def field_error(self, name: str) -> str:
        """The error shown for a field ('' if none)."""
        error = self.fields.errors[name]
        return error.text() if error.isVisibleTo(self) else ""

    def _update_subtitle(self) -> None:
        where = f"Plan file: {self.plan_path}" if self.plan_path else "Unsaved plan"
        what = kit_for(self.workload_kind).plan_title
        self.header.set_subtitle(f"{what} plan  ·  {where}")

    # ---- files ---------------------------------------------------------------------------

    def load_plan_file(self, path: Path) -> bool:
        """Load a TOML plan into the fields; problems are shown and the fields are kept."""
        try:
            plan = load_plan(Path(path))
        except PlanError as exc:
            self.clear_errors()
            lines = "\n".join(f"• {line}" for line in problem_lines(exc.problems))
            self.general_error.show_error(f"Cannot load {path}:\n{lines}")
            return False
        self.plan_path = Path(path)
        self.set_plan(plan)
        return True

    def save_plan_file(self, path: Path) -> bool:
        """Validate the fields and write them as a TOML plan; False (errors shown) if invalid."""
        plan = self.validated_plan()
        if plan is None:
            return False
        try:
            plan.save(Path(path))
        except OSError as exc:
            self.general_error.show_error(f"Cannot save {path}: {exc.strerror or exc}")
            return False
        self._base = plan
        self.plan_path = Path(path)
        self._update_subtitle()
        return True

    def _dialog_dir(self) -> str:
        return str(self.plan_path.parent) if self.plan_path else str(Path.home())

    def _on_load_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Load plan", self._dialog_dir(), "Plans (*.toml);;All files (*)"
        )
        if path:
            self.load_plan_file(Path(path))

    def _on_save_clicked(self) -> None:
        if self.validated_plan() is None:
            return
        start = (
            str(self.plan_path) if self.plan_path else str(Path(self._dialog_dir()) / "plan.toml")
        )
        path, _ = QFileDialog.getSaveFileName(self, "Save plan", start, "Plans (*.toml)")
        if path:
            if not path.endswith(".toml"):
                path += ".toml"
            self.save_plan_file(Path(path))

    # ---- actions -------------------------------------------------------------------------

    def _request(self, signal: SignalInstance) -> None:
        if self._busy:
            return
        plan = self.validated_plan()
        if plan is not None:
            signal.emit(plan)

    def set_busy(self, action: str | None) -> None:
        """Disable the actions while a run, build or check is going on (``None``: idle)."""
        self._busy = action
        self.schema.set_busy(action)
        self.start_button.setEnabled(action is None)
        self.load_button.setEnabled(action is None)

    def task_event(self, event: Event) -> None:
        """A build or check event: progress, a log line, the check summary."""
        self.schema.task_event(event)

    def task_finished(self, action: str, status: str) -> None:
        self.schema.task_finished(action, status)

    def task_failed(self, action: str, message: str) -> None:
        self.schema.task_failed(action, message)
