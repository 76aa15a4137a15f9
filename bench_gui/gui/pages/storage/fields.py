"""Form fields of the Storage page: a combo or a line edit that reports its changes."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QComboBox, QLineEdit

from bench_gui.gui.widgets.page_parts import compact_combo


def combo(items: tuple[tuple[str, str], ...], changed: Callable[[], None]) -> QComboBox:
    """A combo of (value, label) items; ``changed`` runs on every new choice. It may be
    narrower than its longest label (the page's two columns fit a 1280 px screen)."""
    box = compact_combo(QComboBox(), 8)
    for value, label in items:
        box.addItem(label, value)
    box.currentIndexChanged.connect(lambda _index: changed())
    return box


def edit(changed: Callable[[], None], placeholder: str = "", text: str = "") -> QLineEdit:
    """A line edit; ``changed`` runs on every edit."""
    line = QLineEdit(text)
    line.setPlaceholderText(placeholder)
    line.textChanged.connect(lambda _text: changed())
    return line


def words(text: str) -> list[str]:
    """The items of a list typed with commas or spaces between them."""
    return [w for w in text.replace(" ", ",").split(",") if w]
