"""One notification path for every user-facing error (after qutebrowser's ``message`` module).

Everything that goes wrong and is not handled where it happens ends up in
:meth:`ErrorNotifier.report`, which emits one signal. The main window shows it in a dialog;
``sys.excepthook`` and ``threading.excepthook`` are routed here so an unexpected exception in a
slot or a worker thread becomes a message instead of a dead app.

The signal is emitted from whatever thread reports the error; Qt delivers it to receivers in
the GUI thread through a queued connection, so no widget is touched from another thread.
"""

from __future__ import annotations

import logging
import sys
import threading
import traceback
from collections.abc import Callable
from types import TracebackType
from typing import Any

from PySide6.QtCore import QObject, Signal

log = logging.getLogger(__name__)


class ErrorNotifier(QObject):
    """Carries user-facing errors to whoever shows them.

    Signals:
        error(str, str): a short title and the details (message, traceback for crashes).
    """

    error = Signal(str, str)

    def report(self, title: str, details: str) -> None:
        log.error("%s: %s", title, details)
        self.error.emit(title, details)

    def report_exception(
        self,
        exc_type: type[BaseException],
        exc: BaseException | None,
        tb: TracebackType | None,
        where: str = "",
    ) -> None:
        text = "".join(traceback.format_exception(exc_type, exc, tb))
        title = f"Unexpected error{' in ' + where if where else ''}: {exc_type.__name__}"
        self.report(title, f"{exc}\n\n{text}")


_notifier: ErrorNotifier | None = None


def notifier() -> ErrorNotifier:
    """The process-wide notifier (created on first use, in the calling thread: the GUI's)."""
    global _notifier
    if _notifier is None:
        _notifier = ErrorNotifier()
    return _notifier


class ExceptHooks:
    """Installs ``sys.excepthook`` and ``threading.excepthook``; :meth:`uninstall` restores them."""

    def __init__(self, target: ErrorNotifier) -> None:
        self._target = target
        self._old_sys: Callable[..., Any] | None = None
        self._old_threading: Callable[..., Any] | None = None

    def install(self) -> None:
        self._old_sys = sys.excepthook
        self._old_threading = threading.excepthook
        sys.excepthook = self._sys_hook
        threading.excepthook = self._threading_hook

    def uninstall(self) -> None:
        if self._old_sys is not None:
            sys.excepthook = self._old_sys
        if self._old_threading is not None:
            threading.excepthook = self._old_threading
        self._old_sys = self._old_threading = None

    def _sys_hook(
        self,
        exc_type: type[BaseException],
        exc: BaseException,
        tb: TracebackType | None,
    ) -> None:
        if issubclass(exc_type, KeyboardInterrupt) and self._old_sys is not None:
            self._old_sys(exc_type, exc, tb)
            return
        self._target.report_exception(exc_type, exc, tb)

    def _threading_hook(self, args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit:
            return
        name = args.thread.name if args.thread is not None else "a thread"
        self._target.report_exception(args.exc_type, args.exc_value, args.exc_traceback, name)
