"""The Workload page's driver hosts: one (this machine or a saved SSH target, the target
section's list) or several saved SSH targets for one run (issue 18).

With several hosts the user checks them in the list of saved targets (the first checked is the
primary, which reads the database's counters), picks how each step's users are split (evenly,
by a share per host, or the plan's own users per host, kept as they are) and the clock offset a
host may have. A line under the split says what the first step gives each host. The plan
model checks every value (:func:`bench_gui.core.plan.plan_from_dict`); its problems land next
to ``driver.targets``, ``driver.share``, ``driver.users`` and ``driver.max_clock_offset_ms``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QRadioButton,
    QWidget,
)

from bench_gui.core.multi_driver import SplitError
from bench_gui.core.plan_model import (
    DEFAULT_MAX_CLOCK_OFFSET_MS,
    MAX_CLOCK_OFFSET_LIMIT_MS,
    MULTI_DRIVER_FIELDS,
    Driver,
)
from bench_gui.gui.widgets.page_parts import compact_combo
from bench_gui.gui.widgets.plan_fields import PlanFields

HOSTS_HINT = (
    "Check two or more saved SSH targets; the first checked is the primary (it reads the"
    " database's counters)."
)
CLOCK_HINT = "A run is refused when a host's clock is further than this from this machine's."
SPLIT_LABELS = {
    "even": "Even split",
    "share": "By share per host",
    "users": "Users per host (as the plan gives them)",
}


@dataclass
class HostRow:
    """One saved target in the list: checked or not, its share, and whether it is the
    primary."""

    name: str
    check: QCheckBox
    share: QDoubleSpinBox
    role: QLabel


class DriverHosts(QObject):
    """The driver-host mode (one host / several hosts) and the several hosts' fields.

    ``mode_row`` (the two choices) and the cells in ``rows`` are laid out by the target
    section's form; this widget holds their state.

    Signals:
        changed(): the chosen hosts or the split changed (the target section shows the rows
        that go with them).
    """

    changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.fields = PlanFields()
        self._saved: list[str] = []
        self._rows: list[HostRow] = []
        self._order: list[str] = []  # the checked hosts in the order they were checked
        self._users: list[list[int]] = []  # the plan's users per host, kept as they are
        self._users_hosts: list[str] = []  # ... and the hosts they are for
        self._first_step: int | None = None
        self.mode_row = QWidget()
        row = QHBoxLayout(self.mode_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(18)
        self.one_radio = QRadioButton("One host")
        self.several_radio = QRadioButton("Several hosts")
        self.one_radio.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.one_radio)
        group.addButton(self.several_radio)
        row.addWidget(self.one_radio)
        row.addWidget(self.several_radio)
        row.addStretch(1)
        self.several_radio.toggled.connect(self._mode_changed)

        self.hosts_box = QWidget()
        self.grid = QGridLayout(self.hosts_box)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setHorizontalSpacing(12)
        self.grid.setVerticalSpacing(4)
        self.empty_label = QLabel("No saved SSH target yet: add them on the Targets page.")
        self.empty_label.setObjectName("muted")
        self.grid.addWidget(self.empty_label, 0, 0, 1, 2)
        self.split_combo = compact_combo(QComboBox())
        for key in ("even", "share"):
            self.split_combo.addItem(SPLIT_LABELS[key], key)
        self.split_combo.currentIndexChanged.connect(self._split_changed)
        self.users_label = QLabel("")
        self.users_label.setObjectName("muted")
        self.users_label.setWordWrap(True)
        self.clock_spin = QDoubleSpinBox()
        self.clock_spin.setRange(1, MAX_CLOCK_OFFSET_LIMIT_MS)
        self.clock_spin.setDecimals(0)
        self.clock_spin.setSuffix(" ms")
        self.clock_spin.setValue(DEFAULT_MAX_CLOCK_OFFSET_MS)
        self.rows = [
            ("Hosts", self.fields.cell("driver.targets", self.hosts_box, HOSTS_HINT)),
            ("Split", self.fields.cell("driver.share", self.split_combo, " ")),
            ("Users per host", self.fields.cell("driver.users", self.users_label)),
            (
                "Clock limit",
                self.fields.cell("driver.max_clock_offset_ms", self.clock_spin, CLOCK_HINT),
            ),
        ]
        self.split_hint = self.fields.hints["driver.share"]
        self._fill_rows([], {})

    # ---- state ---------------------------------------------------------------------------

    @property
    def several(self) -> bool:
        return self.several_radio.isChecked()

    @property
    def split(self) -> str:
        return str(self.split_combo.currentData() or "even")

    def chosen(self) -> list[str]:
        """The checked hosts in the order they were checked (a plan's in the plan's order);
        the first is the primary."""
        checked = {row.name for row in self._rows if row.check.isChecked()}
        return [name for name in self._order if name in checked]

    def row(self, name: str) -> HostRow:
        """The list's row of a host (KeyError when it is not listed)."""
        for row in self._rows:
            if row.name == name:
                return row
        raise KeyError(name)

    def set_saved(self, names: list[str]) -> None:
        """The saved SSH targets; the checked hosts and their shares are kept."""
        self._saved = list(names)
        kept = {name: self.row(name).share.value() for name in self.chosen()}
        self._fill_rows(list(kept), kept)

    def set_driver(self, driver: Driver) -> None:
        """Show a plan's driver hosts (a plan of one host leaves the list unchecked)."""
        hosts = list(driver.targets)
        shares = dict(zip(hosts, driver.share or [1.0] * len(hosts), strict=True))
        self._users = [list(row) for row in driver.users]
        self._users_hosts = hosts if driver.users else []
        self._fill_rows(hosts, shares)
        self.split_combo.blockSignals(True)
        users_index = self.split_combo.findData("users")
        if self._users and users_index < 0:
            self.split_combo.addItem(SPLIT_LABELS["users"], "users")
        elif not self._users and users_index >= 0:
            self.split_combo.removeItem(users_index)
        split = "users" if driver.users else "share" if driver.share else "even"
        self.split_combo.setCurrentIndex(self.split_combo.findData(split))
        self.split_combo.blockSignals(False)
        clock = driver.max_clock_offset_ms
        self.clock_spin.setDecimals(0 if float(clock).is_integer() else 3)
        self.clock_spin.setValue(clock)
        self.users_label.setText(self._users_text())
        self.several_radio.blockSignals(True)
        (self.several_radio if hosts else self.one_radio).setChecked(True)
        self.several_radio.blockSignals(False)
        self._split_changed()

    def _fill_rows(self, checked: list[str], shares: dict[str, float]) -> None:
        """One row per host: the checked ones first (in their order), then the other saved
        targets; a checked host that is not saved is marked so."""
        for row in self._rows:
            for widget in (row.check, row.share, row.role):
                widget.deleteLater()
        self._rows = []
        self._order = list(checked)
        names = checked + [name for name in self._saved if name not in checked]
        for i, name in enumerate(names):
            text = name if name in self._saved else f"{name} (not saved)"
            check = QCheckBox(text)
            check.setChecked(name in checked)
            check.toggled.connect(lambda on, host=name: self._host_toggled(host, on))
            share = QDoubleSpinBox()
            share.setRange(0, 1000)
            share.setDecimals(2)
            share.setPrefix("share ")
            share.setValue(shares.get(name, 1.0))
            share.valueChanged.connect(self.update_preview)
            self.grid.addWidget(check, i, 0)
            self.grid.addWidget(share, i, 1)
            role = QLabel("")
            role.setObjectName("muted")
            self.grid.addWidget(role, i, 2)
            self._rows.append(HostRow(name, check, share, role))
        self.grid.setColumnStretch(0, 1)
        self.empty_label.setVisible(not names)
        self._mark_primary()
        self._split_changed()

    def _users_text(self) -> str:
        if not self._users:
            return ""
        steps = "; ".join(
            f"step {i + 1}: "
            + ", ".join(f"{h} {n}" for h, n in zip(self._users_hosts, row, strict=True))
            for i, row in enumerate(self._users)
        )
        return f"Kept from the plan: {steps}."

    # ---- changes -------------------------------------------------------------------------

    def _mode_changed(self) -> None:
        self.update_preview()

    def _host_toggled(self, name: str, checked: bool) -> None:
        """A host checked goes last in the order (the first checked is the primary)."""
        if name in self._order:
            self._order.remove(name)
        if checked:
            self._order.append(name)
        self._mark_primary()
        self.update_preview()
        self.changed.emit()

    def _mark_primary(self) -> None:
        chosen = self.chosen()
        for row in self._rows:
            row.role.setText("primary" if chosen and row.name == chosen[0] else "")

    def _split_changed(self) -> None:
        """Shares shown only when splitting by share; the plan's users only when kept."""
        by_share = self.split == "share"
        for row in self._rows:
            row.share.setVisible(by_share)
        self.update_preview()
        self.changed.emit()

    def check_first(self, name: str) -> None:
        """Check one host (the one chosen before several were): listed first, it becomes
        the primary."""
        shares = {row.name: row.share.value() for row in self._rows}
        self._fill_rows([name, *[n for n in self.chosen() if n != name]], shares)

    def set_first_step(self, virtual_users: int | None) -> None:
        """The sweep's first step (None: the sweep's users cannot be read)."""
        self._first_step = virtual_users
        self.update_preview()

    def driver(self) -> Driver:
        """The chosen hosts and split as the plan model's :class:`Driver` (not checked)."""
        hosts = self.chosen()
        driver = Driver(target=hosts[0] if hosts else "", targets=hosts)
        if self.split == "share":
            driver.share = [self.row(name).share.value() for name in hosts]
        elif self.split == "users" and hosts == self._users_hosts:
            driver.users = [list(row) for row in self._users]
        driver.max_clock_offset_ms = self.clock_spin.value()
        return driver

    def update_preview(self) -> None:
        """Under the split: what the first step gives each host ("step 1: 24 users → lab-a
        12, lab-b 12"), or why it cannot be split."""
        hosts = self.chosen()
        if self._first_step is None or len(hosts) < 2:
            self.split_hint.setText("Check two or more hosts to see each one's users.")
            return
        driver = self.driver()
        if self.split == "users" and not driver.users:
            self.split_hint.setText("The plan's users per host are for other hosts.")
            return
        if driver.users:
            parts = driver.users[0]
            total = sum(parts)
        else:
            total = self._first_step
            try:
                parts = driver.step_splits([total])[0]
            except SplitError as exc:
                text = str(exc)  # it names the step
                self.split_hint.setText(f"{text[:1].upper()}{text[1:]}.")
                return
        each = ", ".join(f"{name} {n}" for name, n in zip(hosts, parts, strict=True))
        self.split_hint.setText(f"Step 1: {total} users → {each}")

    # ---- plan ----------------------------------------------------------------------------

    def fill(self, driver: dict[str, Any]) -> None:
        """Write the several hosts' fields into the plan's ``[driver]`` (one host: none of
        them; the target section writes ``target``)."""
        outage = driver.get("max_outage_s")  # not on this page: kept as the plan had it
        for key in MULTI_DRIVER_FIELDS:
            driver.pop(key, None)
        if not self.several:
            return
        if outage is not None:
            driver["max_outage_s"] = outage
        driver.pop("target", None)
        plan_driver = self.driver()
        driver["targets"] = plan_driver.targets
        if len(plan_driver.targets) < 2:
            return  # the problem is the hosts: the split and clock would only add noise
        if plan_driver.share:
            driver["share"] = plan_driver.share
        if plan_driver.users:
            driver["users"] = plan_driver.users
        driver["max_clock_offset_ms"] = plan_driver.max_clock_offset_ms

    def problems(self) -> list[tuple[str, str]]:
        """What the plan model cannot see: one checked host only, and the plan's users per
        host kept for hosts that are no longer the chosen ones."""
        if not self.several:
            return []
        found: list[tuple[str, str]] = []
        hosts = self.chosen()
        if len(hosts) == 1:
            found.append(("driver.targets", "check two or more hosts (or choose One host for one)"))
        if self.split == "users" and len(hosts) >= 2 and hosts != self._users_hosts:
            found.append(
                (
                    "driver.users",
                    f"the plan's users per host are for {', '.join(self._users_hosts)}: check"
                    " those hosts, or split evenly or by share",
                )
            )
        return found
