"""What the comparison's economics use: each session's array (device model, count, unit
price, a cost entered by hand), the currency and the power price.

Edits apply to the comparison at once (:meth:`PriceBox.price_inputs`); the page's "Save
prices" keeps them in the session store.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from bench_gui.core.economics import (
    ArrayInput,
    DevicePrice,
    PowerPrice,
    RamPrice,
    find_price,
    ram_price,
)
from bench_gui.core.price_checks import doubts
from bench_gui.services.errors import SessionNotFound, StoreError
from bench_gui.workloads.contract import WorkloadKit

CURRENCIES = ("USD", "EUR", "GBP", "JPY", "CHF")
ARRAY_COLUMNS = ("", "Device model", "Qty", "Unit price", "Cost by\nhand")
PAGE_NOTE = "entered on the Compare page"
EDIT_HINT = "Edits apply to the comparison; save to keep them."
# How a RAM price typed here is named in the price list ("per": the unit price is per GiB).
RAM_ENTRY = "RAM per GiB"
PriceInputs = tuple[dict[int, ArrayInput], list[DevicePrice], PowerPrice | None]


def _float(text: str) -> float | None:
    text = text.strip().replace(",", "").lstrip("$€£¥")
    if not text:
        return None
    return float(text)


def _is_ram(price: DevicePrice) -> bool:
    return ram_price([price]) is not None


class PriceBox(QGroupBox):
    """The price table (one row a ticked session), the currency and the power price.

    Signals:
        applied(str): a price that applies to the comparison at once changed (its
            ``COMPARE_INPUTS`` name: ``ram_price``); the others apply at the next Compare.
    """

    applied = Signal(str)

    def __init__(self) -> None:
        super().__init__("Prices")
        self._rows: list[int] = []  # the session of each table row
        box = QVBoxLayout(self)
        self.array_table = QTableWidget(0, len(ARRAY_COLUMNS))
        self.array_table.setHorizontalHeaderLabels(list(ARRAY_COLUMNS))
        self.array_table.verticalHeader().setVisible(False)
        self.array_table.setMinimumHeight(130)
        head = self.array_table.horizontalHeader()
        head.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        head.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        for col, width in ((0, 58), (2, 54)):
            self.array_table.setColumnWidth(col, width)
        # The price columns as wide as their headers and figures: never cut at 1366.
        for col in (3, 4):
            head.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.array_table.setToolTip(
            "Each session's array: device model and count (from its storage layout when it"
            " was stored), the device's unit price, and a cost entered by hand if you have one."
            " A hand cost that disagrees with unit price x count is flagged."
        )
        box.addWidget(self.array_table)
        form = QFormLayout()
        self.currency_combo = QComboBox()
        self.currency_combo.setEditable(True)
        self.currency_combo.addItems(CURRENCIES)
        form.addRow("Currency", self.currency_combo)
        self.power_spin = QDoubleSpinBox()
        self.power_spin.setRange(0.0, 100.0)
        self.power_spin.setDecimals(4)
        self.power_spin.setSingleStep(0.01)
        self.power_spin.setSpecialValueText("not set")
        self.power_spin.setSuffix(" per kWh")
        form.addRow("Power price", self.power_spin)
        self.ram_spin = QDoubleSpinBox()
        self.ram_spin.setRange(0.0, 1_000_000.0)
        self.ram_spin.setDecimals(2)
        self.ram_spin.setSpecialValueText("not set")
        self.ram_spin.setSuffix(" per GiB")
        self.ram_spin.setKeyboardTracking(False)  # one new answer per price, not per key
        self.ram_spin.setToolTip(
            "What a GiB of RAM costs: the RAM each storage needs for the target is priced"
            " with it (from the price list's latest RAM entry until you type one here)"
        )
        self.ram_spin.valueChanged.connect(lambda _value: self.applied.emit("ram_price"))
        form.addRow("RAM price", self.ram_spin)
        self.form = form
        box.addLayout(form)
        buttons = QHBoxLayout()
        self.doubts: list[str] = []  # what looks wrong in the prices typed (price_checks)
        self.price_hint = QLabel(EDIT_HINT)
        self.price_hint.setObjectName("fieldHint")
        self.price_hint.setWordWrap(True)
        buttons.addWidget(self.price_hint, 1)
        self.save_prices_button = QPushButton("Save prices")
        buttons.addWidget(self.save_prices_button)
        box.addLayout(buttons)

    def show_power_price(self, price: PowerPrice | None) -> None:
        """The stored power price, unless one was entered here already."""
        if price is not None and self.power_spin.value() == 0:
            self.power_spin.setValue(price.per_kwh)
            self.currency_combo.setCurrentText(price.currency)

    def show_listed(self, listed: Sequence[DevicePrice]) -> None:
        """The prices of the stored price list this box shows (the RAM price per GiB)."""
        self.show_ram_price(ram_price(listed))

    def show_ram_price(self, price: RamPrice | None) -> None:
        """The price list's RAM price per GiB, unless one was entered here already."""
        if price is not None and self.ram_spin.value() == 0:
            self.ram_spin.blockSignals(True)
            self.ram_spin.setValue(price.per_gib)
            self.ram_spin.blockSignals(False)
            self.currency_combo.setCurrentText(price.currency)

    def set_workload(self, kit: WorkloadKit) -> None:
        """Show what the comparison of ``kit``'s sessions prices: each array, power
        (TPROC-C), or the RAM the storages need (random reads)."""
        self.array_table.setVisible("array_prices" in kit.compare_inputs)
        self.form.setRowVisible(self.power_spin, "power_price" in kit.compare_inputs)
        self.form.setRowVisible(self.ram_spin, "ram_price" in kit.compare_inputs)

    def fill_arrays(self, store: Any, ids: Sequence[int], names: Mapping[int, str]) -> None:
        """One row a session: what was typed for it is kept, a new one starts from its
        stored layout and the price list."""
        from bench_gui.services.sessions import array_input

        kept: dict[int, list[str]] = {}
        for r, run_id in enumerate(self._rows):
            kept[run_id] = [self._text(r, c) for c in range(1, len(ARRAY_COLUMNS))]
        try:
            prices = store.device_prices()
        except StoreError:
            prices = []
        self.array_table.setRowCount(len(ids))
        for r, run_id in enumerate(ids):
            if run_id in kept:
                values = kept[run_id]
            else:
                try:
                    spec = array_input(store, store.get_run(run_id))
                except (StoreError, SessionNotFound):
                    spec = ArrayInput()
                price = find_price(spec.device, prices) if spec.device else None
                values = [
                    spec.device or "",
                    "" if spec.count is None else str(spec.count),
                    "" if price is None else f"{price.unit_price:g}",
                    "" if spec.hand_cost is None else f"{spec.hand_cost:g}",
                ]
                if spec.currency:
                    self.currency_combo.setCurrentText(spec.currency)
                elif price is not None:
                    self.currency_combo.setCurrentText(price.currency)
            session_item = QTableWidgetItem(f"#{run_id}")
            session_item.setToolTip(names.get(run_id, ""))
            session_item.setFlags(session_item.flags() & ~Qt.ItemFlag.ItemIsEditable)
            session_item.setForeground(Qt.GlobalColor.white)
            self.array_table.setItem(r, 0, session_item)
            for c, text in enumerate(values, start=1):
                item = QTableWidgetItem(text)
                if c > 1:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                self.array_table.setItem(r, c, item)
        self._rows = list(ids)

    def _text(self, row: int, column: int) -> str:
        item = self.array_table.item(row, column)
        return item.text().strip() if item is not None else ""

    def set_array(
        self,
        run_id: int,
        device: str | None = None,
        count: int | None = None,
        unit_price: float | None = None,
        hand_cost: float | None = None,
    ) -> None:
        """Fill a session's row of the price table (as a user would type it)."""
        row = self._rows.index(run_id)
        for column, value in ((1, device), (2, count), (3, unit_price), (4, hand_cost)):
            if value is not None:
                self.array_table.setItem(row, column, QTableWidgetItem(f"{value}"))

    def price_inputs(self, listed: Sequence[DevicePrice]) -> PriceInputs:
        """Arrays, the ``listed`` prices with this table's unit prices on top, the power
        price; raise ValueError naming the cell that is not a number."""
        currency = self.currency_combo.currentText().strip().upper() or "USD"
        today = dt.date.today().isoformat()
        prices = list(listed)
        arrays: dict[int, ArrayInput] = {}
        typed: list[tuple[float | None, str]] = []
        for r, run_id in enumerate(self._rows):
            device = self._text(r, 1) or None
            try:
                count_text = self._text(r, 2)
                count = int(count_text) if count_text else None
                unit = _float(self._text(r, 3))
                cost = _float(self._text(r, 4))
            except ValueError:
                raise ValueError(
                    f"session #{run_id}: count, unit price and array cost must be numbers"
                ) from None
            if count is not None and count < 1:
                raise ValueError(f"session #{run_id}: the device count must be at least 1")
            typed += [(unit, "unit price"), (cost, "array cost")]
            if device and unit is not None:
                price = find_price(device, prices)
                if price is None or price.unit_price != unit or price.currency != currency:
                    prices.append(DevicePrice(device, unit, currency, today, PAGE_NOTE))
            arrays[run_id] = ArrayInput(
                device=device,
                count=count,
                hand_cost=cost,
                currency=currency if cost is not None else None,
                origin="hand",
            )
        ram = self.ram_spin.value()
        listed_ram = ram_price(prices)
        if ram > 0 and (
            listed_ram is None or (listed_ram.per_gib, listed_ram.currency) != (ram, currency)
        ):
            # The price typed here is the one the comparison uses: no other RAM entry.
            prices = [p for p in prices if not _is_ram(p)]
            prices.append(DevicePrice(RAM_ENTRY, ram, currency, today, PAGE_NOTE))
        power = None
        if self.power_spin.value() > 0:
            power = PowerPrice(self.power_spin.value(), currency, today, PAGE_NOTE)
            typed.append((power.per_kwh, "price per kWh"))
        if ram > 0:
            typed.append((ram, "price per GiB"))
        self.show_doubts(doubts(typed, currency))
        return arrays, prices, power

    def show_doubts(self, said: list[str]) -> None:
        """Prices that look wrong, said under the table (they are used all the same)."""
        self.doubts = said
        if said:
            self.price_hint.setText("⚠ " + "; ".join(said) + ".")
            self.price_hint.setObjectName("warningText")
        else:
            self.price_hint.setText(EDIT_HINT)
            self.price_hint.setObjectName("fieldHint")
        self.price_hint.style().unpolish(self.price_hint)
        self.price_hint.style().polish(self.price_hint)

    def saved(self) -> None:
        self.price_hint.setText(f"Prices saved {dt.datetime.now():%H:%M}.")
