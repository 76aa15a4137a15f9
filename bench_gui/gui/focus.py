"""Giving the keyboard focus back after a dialog or the full-screen booth view.

When a dialog closes, or presenting ends, the widget that had the focus may be gone, hidden
or disabled (the Stop button, once stopping): Qt then leaves the focus nowhere, and Down, Tab
or Space do nothing with no focus ring to say why. :func:`restore_focus` puts it back on the
widget that had it, else on the first widget of an area that takes the keyboard.
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QWidget


def focusable(widget: QWidget | None) -> bool:
    """``widget`` still exists, is shown and enabled, and takes the focus from the keyboard."""
    return (
        widget is not None
        and shiboken6.isValid(widget)
        and widget.isVisible()
        and widget.isEnabled()
        and bool(widget.focusPolicy() & Qt.FocusPolicy.TabFocus)
    )


def first_focusable(area: QWidget) -> QWidget | None:
    """The first widget in ``area``'s focus chain that takes the keyboard (``area`` itself
    when it does)."""
    if focusable(area):
        return area
    widget = area.nextInFocusChain()
    while widget is not None and widget is not area:
        if area.isAncestorOf(widget) and focusable(widget):
            return widget
        widget = widget.nextInFocusChain()
    return None


def restore_focus(before: QWidget | None, area: QWidget) -> QWidget | None:
    """Focus ``before`` if it still can take it, else the first focusable widget of ``area``;
    returns the widget focused (None if there is none)."""
    target = before if focusable(before) else first_focusable(area)
    if target is not None:
        target.activateWindow()
        target.setFocus(Qt.FocusReason.OtherFocusReason)
    return target


def restore_focus_later(before: QWidget | None, area: QWidget) -> None:
    """:func:`restore_focus` once the events at hand are handled (a closing dialog's own
    focus change comes first)."""
    QTimer.singleShot(0, area, lambda: restore_focus(before, area))


def focus_now() -> QWidget | None:
    """The application's focus widget (to give back later)."""
    return QApplication.focusWidget()


__all__ = ["first_focusable", "focus_now", "focusable", "restore_focus", "restore_focus_later"]
