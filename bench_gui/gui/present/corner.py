"""An error in the corner of a booth screen: shown at once, faded out after a while, never a
dialog (nobody is there to click it away, and the loop goes on)."""

from __future__ import annotations

import logging

from PySide6.QtCore import QEasingCurve, QPropertyAnimation, Qt, QTimer
from PySide6.QtWidgets import QGraphicsOpacityEffect, QLabel, QWidget

log = logging.getLogger(__name__)

CORNER_SECONDS = 12.0  # how long an error stays before it fades
FADE_MS = 1500
MAX_WIDTH_SHARE = 0.45  # of the screen's width


class CornerMessage(QLabel):
    """A label floating in the bottom-right corner of its parent; :meth:`show_message` shows
    it for :attr:`seconds`, then it fades away. It takes no focus and no clicks."""

    def __init__(self, parent: QWidget, seconds: float = CORNER_SECONDS) -> None:
        super().__init__(parent)
        self.setObjectName("cornerError")
        self.setWordWrap(True)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        self.seconds = seconds
        self.effect = QGraphicsOpacityEffect(self)
        self.effect.setOpacity(1.0)
        self.setGraphicsEffect(self.effect)
        self.fade = QPropertyAnimation(self.effect, b"opacity", self)
        self.fade.setDuration(FADE_MS)
        self.fade.setStartValue(1.0)
        self.fade.setEndValue(0.0)
        self.fade.setEasingCurve(QEasingCurve.Type.InQuad)
        self.fade.finished.connect(self.hide)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self.fade.start)
        self.hide()

    def show_message(self, text: str) -> None:
        """Show ``text`` now (a newer message replaces the one shown) and log it."""
        log.warning("present: %s", text)
        self.fade.stop()
        self.effect.setOpacity(1.0)
        self.setText(text)
        self.place()
        self.show()
        self.raise_()
        self.timer.start(max(0, int(self.seconds * 1000)))

    def place(self) -> None:
        """Bottom right of the parent, at most :data:`MAX_WIDTH_SHARE` of its width."""
        parent = self.parentWidget()
        if parent is None:
            return
        margin = max(12, parent.height() // 40)
        width = max(200, int(parent.width() * MAX_WIDTH_SHARE))
        self.setFixedWidth(width)
        height = self.heightForWidth(width)
        self.setFixedHeight(max(height, self.sizeHint().height()))
        self.move(parent.width() - width - margin, parent.height() - self.height() - margin)
