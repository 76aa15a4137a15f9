"""Command line: everything the GUI does can be done headless, for tests and automation.

``bench-gui`` with no command opens the desktop app on the embedded demo target.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from bench_gui import __version__
from bench_gui.agent.protocol import Event
from bench_gui.core.plan import Plan, PlanError, Target, Workload, load_plan
from bench_gui.runner import RunController, RunError, step_results
from bench_gui.store import SessionNotFound, SessionStore, StoreError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def demo_plan() -> Plan:
    """About a minute in all on the embedded server: a short but real three-step sweep."""
    return Plan(
        name="Demo sweep (embedded PostgreSQL)",
        target=Target(kind="demo", database="tpcc_demo"),
        workload=Workload(
            warehouses=2, virtual_users=[1, 2, 4], rampup_s=4.0, duration_s=12.0, build="if_missing"
        ),
    )


def _fmt(value: Any, digits: int = 0) -> str:
    if value is None:
        return "-"
    return f"{value:,.{digits}f}"


class ProgressPrinter:
    """Human-readable progress on stderr, so stdout stays clean for ``--json``."""

    def __init__(self, stream: TextIO, quiet: bool = False) -> None:
        self.stream = stream
        self.quiet = quiet
        self._last_progress = ""

    def __call__(self, event: Event) -> None:
        if self.quiet:
            return
        kind = event.kind
        if kind == "hello":
            self._line(f"connected: {event.get('server', '')}")
        elif kind == "progress":
            done, total = event.get("done", 0), event.get("total", 0)
            text = f"{event.get('stage', event.get('task', ''))}: {done}/{total}"
            if event.get("rate"):
                text += f" ({event.get('rate'):,.0f} rows/s)"
            if text != self._last_progress:
                self._last_progress = text
                self._line(text)
        elif kind == "step" and event.get("phase") == "start":
            self._line(
                f"step {event.get('step', 0) + 1}: {event.get('vus')} virtual users,"
                f" ramp-up {event.get('rampup_s')} s, measuring {event.get('duration_s')} s"
            )
        elif kind == "sample":
            lat = (event.get("latency_ms") or {}).get("all") or {}
            self._line(
                f"  {event.get('phase'):7} {event.get('elapsed', 0):6.0f} s"
                f"  NOPM {_fmt(event.get('nopm_db'))}  TPM {_fmt(event.get('tpm_db'))}"
                f"  avg {_fmt(lat.get('avg'), 2)} ms"
            )
        elif kind == "step" and event.get("phase") == "end":
            s = event.get("summary") or {}
            lat = (s.get("latency_ms") or {}).get("all") or {}
            self._line(
                f"step {s.get('step', 0) + 1} done: {s.get('vus')} VU  NOPM"
                f" {_fmt(s.get('nopm'))}  TPM {_fmt(s.get('tpm'))}  driver NOPM"
                f" {_fmt(s.get('nopm_driver'))}  avg {_fmt(lat.get('avg'), 2)} ms"
                f"  p99.9 {_fmt(lat.get('p999'), 2)} ms"
                + ("" if s.get("complete") else "  (incomplete)")
            )
        elif kind == "log":
            self._line(f"[{event.get('level', 'info')}] {event.get('message', '')}")
        elif kind == "error":
            self._line(f"error: {event.get('message', '')}")

    def _line(self, text: str) -> None:
        print(text, file=self.stream, flush=True)


def _open_store(args: argparse.Namespace) -> SessionStore:
    return SessionStore(Path(args.db) if getattr(args, "db", None) else None)


def _drive(plan: Plan, action: str, args: argparse.Namespace) -> int:
    store = _open_store(args)
    controller = RunController(plan, store, action=action)
    printer = ProgressPrinter(sys.stderr, quiet=getattr(args, "quiet", False))
    failure = ""
    try:
        for event in controller.events():
            printer(event)
    except RunError as exc:
        failure = str(exc)
    except KeyboardInterrupt:
        controller.stop()
        failure = "interrupted"
    result: dict[str, Any] = {"session": controller.session_id}
    if action == "run":
        result["steps"] = step_results(controller)
    if controller.summary is not None and "checks" in controller.summary.data:
        result["checks"] = controller.summary.get("checks")
    if controller.final is not None:
        result["status"] = controller.final.get("status")
    if failure:
        result["error"] = failure
        print(f"bench-gui: {failure}", file=sys.stderr)
    if getattr(args, "json", False):
        print(json.dumps(result))
    elif action == "run":
        _print_steps(result.get("steps", []))
    ok = not failure and (controller.final is None or controller.final.get("status") == "ok")
    return EXIT_OK if ok else EXIT_FAILED


def _print_steps(steps: list[dict[str, Any]]) -> None:
    if not steps:
        return
    print(f"{'VUs':>5} {'NOPM':>10} {'TPM':>10} {'driver NOPM':>12} {'avg ms':>8} {'p99.9 ms':>9}")
    for s in steps:
        lat = (s.get("latency_ms") or {}).get("all") or {}
        print(
            f"{s['vus']:>5} {_fmt(s['nopm']):>10} {_fmt(s['tpm']):>10}"
            f" {_fmt(s['nopm_driver']):>12} {_fmt(lat.get('avg'), 2):>8}"
            f" {_fmt(lat.get('p999'), 2):>9}"
        )


def _plan_arg(args: argparse.Namespace) -> Plan:
    if getattr(args, "demo", False) or not getattr(args, "plan", None):
        return demo_plan()
    return load_plan(Path(args.plan))


def cmd_run(args: argparse.Namespace) -> int:
    return _drive(load_plan(Path(args.plan)), "run", args)


def cmd_demo(args: argparse.Namespace) -> int:
    if not args.headless:
        return cmd_gui(args)
    return _drive(demo_plan(), "run", args)


def cmd_check(args: argparse.Namespace) -> int:
    return _drive(_plan_arg(args), "check", args)


def cmd_build(args: argparse.Namespace) -> int:
    return _drive(_plan_arg(args), "build", args)


def cmd_sessions(args: argparse.Namespace) -> int:
    store = _open_store(args)
    if args.sessions_cmd == "list":
        runs = store.list_runs(kind=None if args.all else "run")
        if args.json:
            print(json.dumps([_jsonable(r) for r in runs]))
        else:
            print(f"{'ID':>4}  {'created':20} {'status':11} {'steps':>5} {'best NOPM':>10}  name")
            for r in runs:
                print(
                    f"{r.id:>4}  {str(r.created_at)[:19]:20} {r.status:11} {r.steps:>5}"
                    f" {_fmt(r.best_nopm):>10}  {r.name}"
                )
        return EXIT_OK
    try:
        data = store.run_to_json(args.id)
    except SessionNotFound as exc:
        print(f"bench-gui: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        print(json.dumps(data, default=str))
    else:
        print(f"session {data.get('id')}: {data.get('name')} ({data.get('status')})")
        print(f"server: {data.get('server_version', '')}")
        _print_steps(
            [
                {
                    **s,
                    "nopm": s.get("nopm"),
                    "tpm": s.get("tpm"),
                    "nopm_driver": s.get("nopm_driver"),
                }
                for s in data.get("steps", [])
            ]
        )
    return EXIT_OK


def _jsonable(obj: Any) -> Any:
    from dataclasses import asdict, is_dataclass

    if is_dataclass(obj) and not isinstance(obj, type):
        return {k: _jsonable(v) for k, v in asdict(obj).items()}
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, str | int | float | bool) or obj is None:
        return obj
    return str(obj)


def cmd_gui(args: argparse.Namespace) -> int:
    from bench_gui.gui.app import main as gui_main

    return int(gui_main([]))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bench-gui",
        description="OLTP storage and database test bench (TPROC-C, derived from TPC-C; results"
        " are not TPC-C results). Without a command, opens the desktop app.",
    )
    parser.add_argument("--version", action="version", version=f"bench-gui {__version__}")
    parser.add_argument("--db", help="session database file (default: in the user data dir)")
    sub = parser.add_subparsers(dest="command")

    p = sub.add_parser("run", help="run a plan headless")
    p.add_argument("plan", help="plan file (TOML)")
    p.add_argument("--json", action="store_true", help="last stdout line: the result as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("demo", help="a short sweep on the embedded demo target")
    p.add_argument("--headless", action="store_true", help="no window: print progress")
    p.add_argument("--json", action="store_true")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_demo)

    for name, func, text in (
        ("check", cmd_check, "TPC-C consistency checks"),
        ("build", cmd_build, "build (or rebuild) the schema"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("plan", nargs="?", help="plan file (TOML); default: the demo target")
        p.add_argument("--json", action="store_true")
        p.add_argument("--quiet", action="store_true")
        p.set_defaults(func=func)

    p = sub.add_parser("sessions", help="stored sessions")
    ssub = p.add_subparsers(dest="sessions_cmd", required=True)
    sp = ssub.add_parser("list", help="list stored runs")
    sp.add_argument("--json", action="store_true")
    sp.add_argument("--all", action="store_true", help="include builds and checks")
    sp = ssub.add_parser("show", help="one session with its steps")
    sp.add_argument("id", type=int)
    sp.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_sessions)

    p = sub.add_parser("gui", help="open the desktop app")
    p.set_defaults(func=cmd_gui)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", cmd_gui)
    try:
        return int(func(args))
    except PlanError as exc:
        print("bench-gui: the plan is not valid:", file=sys.stderr)
        for name, reason in exc.problems:
            print(f"  {name}: {reason}", file=sys.stderr)
        return EXIT_USAGE
    except StoreError as exc:
        print(f"bench-gui: session store: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except RunError as exc:
        print(f"bench-gui: {exc}", file=sys.stderr)
        return EXIT_FAILED


__all__ = ["main"]
