"""``bench-gui present [PLAN.toml]``: run a plan on the Present view, full screen, for a booth.

The run is the Live page's (a RunWorker over a RunController, stored as a session like any
other); the screen shows only the Present view. Without a plan, the embedded demo target's
demo plan runs (as ``bench-gui demo``). Esc stops the run (what was measured is kept) and
closes the window once it has ended; after the run the result stays on screen until Esc.
``--windowed`` (with ``--screen-size``) shows a window instead, for tests and screenshots;
``--close-when-done`` ends the command when the run ends. The booth's options (race, replay,
loop: :mod:`bench_gui.cli.booth`) turn the single run into a booth's loop on the same view.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_gui.cli.booth import BOOTH_ERRORS, add_booth_arguments
from bench_gui.cli.terminal import safe
from bench_gui.core.plan import load_plan
from bench_gui.core.plan_model import Plan

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
DEFAULT_WINDOW = (1280, 720)


def screen_size(text: str) -> tuple[int, int]:
    """``WxH`` (``1920x1080``) as two whole pixel counts, each at least 320x240."""
    width, sep, height = text.lower().partition("x")
    if not sep or not width.strip().isdigit() or not height.strip().isdigit():
        raise argparse.ArgumentTypeError(
            f"--screen-size takes WIDTHxHEIGHT (1920x1080), got {text!r}"
        )
    size = (int(width), int(height))
    if size[0] < 320 or size[1] < 240:
        raise argparse.ArgumentTypeError(f"--screen-size must be at least 320x240, got {text!r}")
    return size


def add_commands(sub: Any) -> None:
    p = sub.add_parser(
        "present",
        help="run a plan on a full-screen booth view (Esc stops and leaves)",
        description="Run a plan and show it on the Present view, full screen: the storage's"
        " name, huge NOPM, p99.9 latency and power tiles, one throughput chart. Esc stops the"
        " run (what was measured is kept) and closes the view.",
    )
    p.add_argument("plan", nargs="?", help="plan file (TOML); default: the demo target's plan")
    p.add_argument(
        "--windowed",
        action="store_true",
        help="a window instead of full screen (tests, screenshots)",
    )
    p.add_argument(
        "--screen-size",
        type=screen_size,
        metavar="WxH",
        help="the window's size with --windowed (default 1280x720)",
    )
    p.add_argument(
        "--close-when-done",
        action="store_true",
        help="end the command when the run ends instead of keeping its result on screen",
    )
    add_booth_arguments(p)
    p.set_defaults(func=cmd_present)


def _booth_wanted(args: argparse.Namespace) -> bool:
    return bool(
        getattr(args, "race", None) or getattr(args, "replay", None) or getattr(args, "loop", None)
    )


def _plan(args: argparse.Namespace) -> Plan | None:
    """The plan to run: the file given, the demo plan without one, none for a replay."""
    if getattr(args, "replay", None) and not args.plan:
        return None
    if args.plan:
        return load_plan(Path(args.plan))
    from bench_gui.cli.demo_plan import demo_plan

    return demo_plan()


def cmd_present(args: argparse.Namespace) -> int:
    plan = _plan(args)  # a bad plan file: PlanError, reported by main
    from PySide6.QtCore import QSize, QTimer
    from PySide6.QtWidgets import QApplication

    from bench_gui.cli.team_store import open_store
    from bench_gui.gui.app import APP_NAME, apply_theme, quit_on_signals
    from bench_gui.gui.errors import ExceptHooks, notifier
    from bench_gui.gui.present.run import PresentRun
    from bench_gui.gui.present.window import PresentWindow

    QApplication.setApplicationName(APP_NAME)
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
    apply_theme(app)
    store = open_store(args)  # the team store of --store, else the --db file
    window = PresentWindow()
    view = window.view
    errors = notifier()
    hooks = ExceptHooks(errors)

    def corner(title: str, details: str) -> None:
        summary = details.partition("\n\n")[0]
        view.show_corner_error(f"{title}: {summary}" if summary else title)

    errors.error.connect(corner)  # never a dialog on a booth screen
    outcome: dict[str, str] = {}
    runner: Any

    def close() -> None:
        window.may_close = True
        window.close()
        app.quit()

    def leaving(task: Any) -> Callable[[], None]:
        """Esc: stop ``task`` if it runs (its end closes the window), else close at once."""

        def leave() -> None:
            outcome["leaving"] = "yes"
            if task.running:
                task.stop()
            else:
                close()

        return leave

    try:
        if _booth_wanted(args):
            from bench_gui.cli.booth import build_booth

            try:
                booth = build_booth(args, view, store, plan, parent=window)
            except BOOTH_ERRORS as exc:
                print(f"bench-gui present: {safe(str(exc))}", file=sys.stderr)
                return EXIT_USAGE
            runner = booth

            def booth_over(result: object) -> None:
                outcome["status"] = "ok" if result is not None else "failed"
                if args.close_when_done or outcome.get("leaving"):
                    close()

            booth.finished.connect(booth_over)
            leave = leaving(booth)
            window.leave_requested.connect(leave)
            start = booth.start
        else:
            assert plan is not None
            run = PresentRun(view, plan, store, parent=window)
            runner = run

            def run_over(status: str) -> None:
                outcome["status"] = status
                if run.message:
                    print(
                        f"bench-gui present: the run failed: {safe(run.message)}", file=sys.stderr
                    )
                if args.close_when_done or outcome.get("leaving"):
                    close()

            run.ended.connect(run_over)
            leave = leaving(run)
            window.leave_requested.connect(leave)
            start = run.start

        size = QSize(*(args.screen_size or DEFAULT_WINDOW))
        window.present(windowed=args.windowed, size=size)
        hooks.install()
        QTimer.singleShot(0, start)
        with quit_on_signals(leave):
            app.exec()
        runner.shutdown(60)
    finally:
        hooks.uninstall()
        errors.error.disconnect(corner)
        store.close()
    return EXIT_FAILED if outcome.get("status") == "failed" else EXIT_OK
