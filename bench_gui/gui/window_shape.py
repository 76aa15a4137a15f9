"""What the window's pages and shortcuts ask of the main window, as a :class:`Window` protocol:
the page makers (:mod:`bench_gui.gui.window_pages`) and the keys
(:mod:`bench_gui.gui.window_keys`) are given the window without importing it, so the main
window imports them and nothing imports it back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from bench_gui.gui.run_control import RunWindow

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from bench_gui.gui.run_control import RunControl


class Window(RunWindow, Protocol):
    """The main window as its pages and keys see it."""

    store: Any
    run_control: RunControl
    presenting: bool

    def built(self, name: str) -> QWidget | None: ...

    def current_page_name(self) -> str: ...

    def toggle_present(self) -> None: ...

    def open_last_session(self) -> None: ...
