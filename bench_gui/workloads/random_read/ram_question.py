"""The "SSDs replace RAM" question of a random-read comparison: a target rate of random reads
and a dataset size, typed by the user (its answer is the report's RAM economics)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QGridLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from bench_gui.wire.fio_sizes import format_size, parse_size

RAM_HINT = (
    "Reads a second to serve, from a dataset of this size: the RAM each storage needs is"
    " read from its measured curve (nothing extrapolated), priced from the RAM price in"
    " Prices. Defaults: the best ops/s measured at the largest dataset beyond RAM."
)


class RamQuestion(QGroupBox):
    """The "SSDs replace RAM" question: a target rate of random reads and a dataset size.

    Signals:
        changed(): the user changed the target or the dataset (not while it is filled).
        defaults_requested(): back to the comparison's defaults.
    """

    changed = Signal()
    defaults_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("The question", parent)
        column = QVBoxLayout(self)
        grid = QGridLayout()
        grid.setHorizontalSpacing(10)
        self.target_spin = QDoubleSpinBox()
        self.target_spin.setRange(1.0, 1e12)
        self.target_spin.setDecimals(0)
        self.target_spin.setGroupSeparatorShown(True)
        self.target_spin.setSuffix(" ops/s")
        self.target_spin.setKeyboardTracking(False)  # one answer per value, not per key
        self.target_spin.setMinimumWidth(170)
        self.target_spin.valueChanged.connect(self._edited)
        grid.addWidget(QLabel("Target"), 0, 0)
        grid.addWidget(self.target_spin, 0, 1)
        self.dataset_edit = QLineEdit()
        self.dataset_edit.setPlaceholderText("e.g. 64 GiB, 1TiB, 500GB")
        self.dataset_edit.setMinimumWidth(170)
        self.dataset_edit.editingFinished.connect(self._dataset_edited)
        grid.addWidget(QLabel("Dataset size"), 1, 0)
        grid.addWidget(self.dataset_edit, 1, 1)
        self.defaults_button = QPushButton("Defaults")
        self.defaults_button.setToolTip("The comparison's own question (as bench-gui compare)")
        self.defaults_button.clicked.connect(self.defaults_requested.emit)
        grid.addWidget(self.defaults_button, 1, 2)
        grid.setColumnStretch(3, 1)
        column.addLayout(grid)
        hint = QLabel(RAM_HINT)
        hint.setObjectName("fieldHint")
        hint.setWordWrap(True)
        column.addWidget(hint)
        self._filling = False
        self._shown_text = ""

    def target(self) -> float:
        return float(self.target_spin.value())

    def dataset_bytes(self) -> int:
        """The dataset size typed; a ValueError names what is wrong with it."""
        text = self.dataset_edit.text().strip()
        if not text:
            raise ValueError("Dataset size: type a size, e.g. 64 GiB or 1TiB")
        try:
            size = parse_size(text)
        except ValueError as exc:
            raise ValueError(f"Dataset size {text!r}: {exc}") from None
        if size <= 0:
            raise ValueError(f"Dataset size {text!r}: must be larger than zero")
        return size

    def show_values(self, target: float, dataset_bytes: int) -> None:
        """Fill the inputs with the question answered (no ``changed``)."""
        self._filling = True
        self.target_spin.setValue(round(target))
        self._shown_text = format_size(dataset_bytes)
        self.dataset_edit.setText(self._shown_text)
        self._filling = False

    def set_question(self, target: float, dataset: str) -> None:
        """Type a question as a user would (``dataset`` as text): one ``changed``."""
        self._filling = True
        self.target_spin.setValue(target)
        self.dataset_edit.setText(dataset)
        self._filling = False
        self._shown_text = ""
        self.changed.emit()

    def _edited(self, _value: float) -> None:
        if not self._filling:
            self.changed.emit()

    def _dataset_edited(self) -> None:
        # editingFinished also fires on focus out: only a new text asks again.
        if not self._filling and self.dataset_edit.text().strip() != self._shown_text:
            self._shown_text = self.dataset_edit.text().strip()
            self.changed.emit()
