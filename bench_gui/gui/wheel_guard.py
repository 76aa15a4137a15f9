"""The mouse wheel scrolls a form; it changes a field's value only once the field is chosen.

Qt gives a combo box, a spin box or a slider the wheel's events whenever the pointer is over
it: scrolling a long form changes the values it passes over (TLS, the authentication, the
engine...). :class:`WheelGuard`, installed once on the application, lets such a field take
the wheel only when it has the keyboard focus (clicked or tabbed to); otherwise the turn goes
to the scroll area holding the form, which scrolls. The wheel no longer gives these fields
the focus either.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QWidget,
)

GUARDED = (QComboBox, QAbstractSpinBox, QAbstractSlider)
_INSTALLED = "_bench_gui_wheel_guard"


def _field(obj: QObject) -> QWidget | None:
    """The guarded field ``obj`` is or is a part of (a spin box's line edit), if any."""
    if not isinstance(obj, QWidget):
        return None
    for widget in (obj, obj.parentWidget()):
        # A scroll bar is a slider the wheel must always move.
        if isinstance(widget, GUARDED) and not widget.inherits("QScrollBar"):
            return widget
    return None


def _scroll_instead(field: QWidget, event: QWheelEvent) -> None:
    """Hand the wheel's turn to the scroll areas around ``field``, the nearest first, until
    one scrolls (an inner area at its end leaves it to the outer one)."""
    area = field.parentWidget()
    while area is not None:
        if isinstance(area, QAbstractScrollArea):
            viewport = area.viewport()
            pos = QPointF(viewport.mapFromGlobal(event.globalPosition().toPoint()))
            turn = QWheelEvent(
                pos,
                event.globalPosition(),
                event.pixelDelta(),
                event.angleDelta(),
                event.buttons(),
                event.modifiers(),
                event.phase(),
                event.inverted(),
            )
            turn.ignore()
            QApplication.sendEvent(viewport, turn)
            if turn.isAccepted():
                return
        area = area.parentWidget()


class WheelGuard(QObject):
    """An application-wide event filter: see the module's docstring."""

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        kind = event.type()
        if kind == QEvent.Type.Polish and isinstance(obj, GUARDED):
            if obj.focusPolicy() == Qt.FocusPolicy.WheelFocus:
                obj.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        elif kind == QEvent.Type.Wheel:
            field = _field(obj)
            if field is not None and not field.hasFocus():
                assert isinstance(event, QWheelEvent)
                _scroll_instead(field, event)
                event.accept()
                return True
        return False


def install_wheel_guard(app: QApplication) -> WheelGuard:
    """Install the guard on ``app`` (once; later calls return the same guard)."""
    guard = app.findChild(WheelGuard, _INSTALLED)
    if isinstance(guard, WheelGuard):
        return guard
    guard = WheelGuard(app)
    guard.setObjectName(_INSTALLED)
    app.installEventFilter(guard)
    return guard


__all__ = ["GUARDED", "WheelGuard", "install_wheel_guard"]
