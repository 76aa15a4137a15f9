"""Command line: everything the GUI does can be done headless, for tests and automation.

``bench-gui`` with no command opens the desktop app on the embedded demo target. That path
loads nothing of the command line's own (the run, store and SSH modules are imported by the
commands that use them), so the window opens as fast as ``bench-gui-desktop`` opens it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench_gui import __version__
from bench_gui.cli.demo_plan import demo_plan
from bench_gui.cli.progress import ProgressPrinter, per_unit
from bench_gui.cli.terminal import number as _fmt
from bench_gui.cli.terminal import safe
from bench_gui.core.echo import problem_lines
from bench_gui.core.plan import load_plan
from bench_gui.core.plan_model import Plan, PlanError
from bench_gui.workloads.base import kit_for, kit_of_record

if TYPE_CHECKING:
    from bench_gui.services.sessions import SessionStore

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
# Marks a NOPM figure that is doubtful (see bench_gui.core.crosscheck); plain ASCII, so it
# shows on any terminal.


def _open_store(args: argparse.Namespace) -> SessionStore:
    """The store of ``--store`` (a team's PostgreSQL), else the ``--db`` file."""
    from bench_gui.cli.team_store import open_store

    return open_store(args)


def _drive(plan: Plan, action: str, args: argparse.Namespace) -> int:
    from bench_gui.cli.targets import EXIT_HOSTKEY
    from bench_gui.services.run import RunController
    from bench_gui.services.run_errors import HostKeyUnknown, RunError
    from bench_gui.services.run_results import step_results

    store = _open_store(args)
    controller = RunController(
        plan, store, action=action, accept_fingerprint=getattr(args, "accept_host_key", None)
    )
    printer = ProgressPrinter(sys.stderr, quiet=getattr(args, "quiet", False))
    controller.on_notice = printer.notice
    failure = ""
    try:
        if plan.target.kind != "demo" and not printer.quiet:
            print(f"database password: {safe(controller.password.source)}", file=sys.stderr)
        for event in controller.events():
            printer(event)
    except HostKeyUnknown as exc:
        print(
            f"bench-gui: {exc}\n  If this is the right machine, run again with"
            f" --accept-host-key {exc.fingerprint}",
            file=sys.stderr,
        )
        return EXIT_HOSTKEY
    except RunError as exc:
        failure = str(exc)
    except KeyboardInterrupt:
        controller.stop()
        failure = "interrupted"
    result: dict[str, Any] = {"session": controller.session_id, "store": store.where}
    if action == "run":
        result["steps"] = step_results(controller)
        if controller.session_id is not None and not printer.quiet:
            # Where to find it again (issue 33: the demo never said).
            print(
                f"session {controller.session_id} stored in {store.where}"
                f" (bench-gui sessions show {controller.session_id})",
                file=sys.stderr,
            )
    if controller.summary is not None and "checks" in controller.summary.data:
        result["checks"] = controller.summary.get("checks")
    if controller.final is not None:
        result["status"] = controller.final.get("status")
    if failure:
        result["error"] = failure
        print(f"bench-gui: {safe(failure)}", file=sys.stderr)
    if getattr(args, "json", False):
        print(json.dumps(result))
    elif action == "run":
        kit_for(plan.workload.kind).face("cli_steps")(result.get("steps", []))
    elif action == "check":
        _print_checks(result.get("checks") or [], failure)
    ok = not failure and (controller.final is None or controller.final.get("status") == "ok")
    return EXIT_OK if ok else EXIT_FAILED


def _print_checks(checks: list[dict[str, Any]], failure: str) -> None:
    """The consistency conditions, one line each, on stdout (``--quiet`` silences only the
    progress on stderr, never the result)."""
    if not checks:
        print(safe("no consistency check was run" + (f": {failure}" if failure else "")))
        return
    for check in checks:
        mark = "ok    " if check.get("ok") else "FAILED"
        detail = f": {check.get('detail')}" if check.get("detail") else ""
        print(safe(f"{mark} {check.get('name', '?')}{detail}"))  # the agent's text
    failed = sum(1 for c in checks if not c.get("ok"))
    print(
        f"all {len(checks)} consistency checks passed"
        if not failed
        else f"{failed} of {len(checks)} consistency checks failed"
    )


def _plan_arg(args: argparse.Namespace) -> Plan:
    if getattr(args, "demo", False) or not getattr(args, "plan", None):
        return demo_plan()
    return load_plan(Path(args.plan))


def cmd_run(args: argparse.Namespace) -> int:
    plan = load_plan(Path(args.plan))
    if args.driver:
        plan.driver.target = args.driver
    return _drive(plan, "run", args)


def cmd_demo(args: argparse.Namespace) -> int:
    if not args.headless:
        return cmd_gui(args)
    return _drive(demo_plan(), "run", args)


def cmd_check(args: argparse.Namespace) -> int:
    return _drive(_plan_arg(args), "check", args)


def cmd_build(args: argparse.Namespace) -> int:
    return _drive(_plan_arg(args), "build", args)


def cmd_sessions(args: argparse.Namespace) -> int:
    from bench_gui.services.errors import SessionNotFound

    store = _open_store(args)
    if args.sessions_cmd == "list":
        runs = store.filter_runs(
            author=args.author, host=args.host, kind=None if args.all else "run"
        )
        if args.json:
            print(json.dumps([_jsonable(r) for r in runs]))
        else:
            print(f"sessions of {safe(store.where)}", file=sys.stderr)
            from bench_gui.services.session_view import run_row

            print(
                f"{'ID':>4}  {'created':20} {'status':11} {'steps':>5} {'best result':>30}"
                f"  {'author':16} name"
            )
            for r in runs:
                # A random-read study's best is its multiplier over raw IOPS, never NOPM.
                best = run_row(store, r).best_cell[0] or "-"
                print(
                    f"{r.id:>4}  {safe(r.created_at)[:19]:20} {safe(r.status):11} {r.steps:>5}"
                    f" {safe(best):>30}  {safe(r.author or '-')[:16]:16} {safe(r.name)}"
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
        kit_of_record(data.get("run") or {}).face("cli_session")(data)
    return EXIT_OK


def cmd_session_power_import(args: argparse.Namespace) -> int:
    """``sessions power-import ID FILE``: a meter's log gives the stored steps their power."""
    from bench_gui.core.power import PowerLogError, read_power_log
    from bench_gui.services.errors import SessionNotFound

    store = _open_store(args)
    path = Path(args.file)
    try:
        store.get_run(args.id)
        readings = read_power_log(path, args.column or "", args.time_column or "")
        result = store.import_power_log(args.id, readings, path.name)
    except (SessionNotFound, PowerLogError) as exc:
        print(f"bench-gui: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        print(json.dumps(result.to_dict()))
        return EXIT_OK
    print(f"session {args.id}: power from {result.label} ({len(readings)} readings)")
    print(
        f"{'Step':>4} {'VUs':>5} {'avg W':>9} {'mW/NOPM':>9} {'J/NO':>8} {'energy kJ':>10}"
        f" {'readings':>8} {'before W':>9}"
    )
    nopm = {s.step: s.nopm for s in store.steps(args.id)}
    for step in result.steps:
        f = step.figures
        print(
            f"{step.step + 1:>4} {step.vus:>5} {f.watts:>9,.1f} {per_unit(f.mw_per_nopm):>9}"
            f" {per_unit(f.j_per_new_order):>8} {f.energy_j / 1000:>10,.2f} {step.readings:>8}"
            f" {_fmt(result.previous_w.get(step.step), 1):>9}"
            + ("" if nopm.get(step.step) else "  (no NOPM)")
        )
    if result.idle_w is not None:
        print(f"idle baseline: {result.idle_w:,.1f} W")
    else:
        print(result.idle_note)
    for line in result.skipped:
        print(f"skipped {line}")
    if not result.changed:
        print("these figures were already stored: nothing changed")
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


# -- tune: each engine kit's and the OS tuning (the code lives in bench_gui.services.tuning
# and the kits: what differs by engine is asked of its kit) ---------------------------------


def _print_rows(rows: list[Any], engine: str) -> None:
    """A diff's rows; ``engine`` (the tuned kind) names how a change takes effect without a
    restart."""
    from bench_gui.engines.registry import kit_for

    words = {
        "same": "unchanged",
        "reload": kit_for(engine).reload_word,
        "restart": "RESTART",
        "invalid": "REFUSED",
        "unknown": "UNKNOWN",
    }
    width = max([len(r.name) for r in rows] + [7])
    print(f"{'Setting':<{width}}  {'Current':>12}  {'Proposed':>12}  {'Takes effect':<12}  Rule")
    for r in rows:
        note = r.problem if r.problem else r.rule
        print(
            f"{r.name:<{width}}  {r.current or '-':>12}  {r.proposed:>12}"
            f"  {words.get(r.action, r.action):<12}  {note}"
        )


def _tune_connection(args: argparse.Namespace) -> Any:
    from bench_gui.services.tuning import resolve_target

    return resolve_target(
        args.target,
        control=getattr(args, "control", None),
        data_directory=getattr(args, "data_dir", None),
        ssh=getattr(args, "ssh", None),
        config_file=getattr(args, "config_file", None),
    )


def _tune_proposal(args: argparse.Namespace, conn: Any) -> Any:
    from bench_gui.services.tuning import calculated, proposal_for, server_facts
    from bench_gui.services.tuning_parts import Inputs

    inputs = Inputs.from_args(args)
    facts = None
    if calculated(conn, args.profile) and (inputs.ram_bytes is None or inputs.cpus is None):
        facts = server_facts(conn)
    return proposal_for(conn, args.profile, inputs, facts)


def _tune_presets(args: argparse.Namespace) -> int:
    """Every engine kit's presets (and the OS presets), or the one named shown by its kit."""
    from bench_gui.core.os_presets import BUILTIN_OS_PRESETS
    from bench_gui.engines.registry import kits

    books = [(kit, kit.face("presets")()) for kit in kits() if "presets" in kit.faces]
    if args.name:
        for _kit, book in books:
            view = book.show(args.name, args.version)
            if view is not None:
                if args.json:
                    print(view.json)
                else:
                    print(view.text, end="")
                return EXIT_OK
        print(f"bench-gui: no preset named {args.name!r}", file=sys.stderr)
        return EXIT_FAILED
    # A face two kits share (a kit built on another's) reads the same files: said once.
    problems = list(dict.fromkeys(line for _kit, book in books for line in book.problems))
    if args.json:
        listed: dict[str, Any] = {kit.name: [row.data for row in book.rows] for kit, book in books}
        listed["os"] = [
            {"name": p.name, "title": p.title, "knobs": p.knobs, "source": p.source}
            for p in BUILTIN_OS_PRESETS.values()
        ]
        listed["problems"] = problems
        print(json.dumps(listed))
        return EXIT_OK
    for kit, book in books:
        for row in book.rows:
            kind = "built-in" if row.builtin else "user"
            print(f"{row.name:24} {kind:8} {row.title} ({kit.label})")
    for os_preset in BUILTIN_OS_PRESETS.values():
        print(f"{os_preset.name:24} {'OS':8} {os_preset.title}")
    for line in problems:
        print(f"bench-gui: {line}", file=sys.stderr)
    return EXIT_OK


def _tune_diff(args: argparse.Namespace) -> int:
    conn = _tune_connection(args)
    try:
        proposal = _tune_proposal(args, conn)
        rows = conn.tuner.diff(proposal)
    finally:
        conn.close()
    if args.json:
        print(json.dumps({"target": conn.target.label, "proposal": proposal.to_dict(),
                          "diff": [_jsonable(r) for r in rows]}))  # fmt: skip
    else:
        from bench_gui.core.engine import get_engine

        server = get_engine(conn.engine).label
        print(f"# {conn.target.label}: {proposal.title} ({server} {proposal.version})")
        _print_rows(rows, conn.engine)
        for note in proposal.notes:
            print(f"# note: {note}")
        from bench_gui.engines.registry import kit_for as engine_kit

        unverified = engine_kit(conn.engine).unverified
        if unverified:
            print(f"# note: {unverified}")
    return EXIT_OK


def _print_apply(result: Any, args: argparse.Namespace, entry: int | None) -> None:
    if args.json:
        data = result.to_dict()
        data["history_id"] = entry
        print(json.dumps(data, default=str))
        return
    print(result.summary())
    for name, value in result.verified.items():
        mark = "!" if name in result.mismatches else " "
        print(f" {mark} {name} = {value}")
    for line in result.messages:
        print(f"note: {line}")


def _tune_apply(args: argparse.Namespace) -> int:
    from bench_gui.services.tuning import apply_profile

    store = _open_store(args)
    conn = _tune_connection(args)
    try:
        proposal = _tune_proposal(args, conn)
        only = set(args.only.split(",")) if args.only else None
        result, entry = apply_profile(
            store, conn, proposal, profile=args.profile, restart=args.restart,
            skip_invalid=args.skip_invalid, only=only,
        )  # fmt: skip
    finally:
        conn.close()
    _print_apply(result, args, entry)
    if result.pending_restart and not args.json:
        from bench_gui.engines.registry import kit_for

        kit = kit_for(conn.engine)
        how = (
            "run again with --restart"
            if kit.restarts
            else f"restart the {kit.label} service; bench-gui does not restart it"
        )
        print(
            f"bench-gui: {', '.join(result.pending_restart)} take effect after a restart ({how})",
            file=sys.stderr,
        )
    return EXIT_OK if result.ok else EXIT_FAILED


def _tune_rollback(args: argparse.Namespace) -> int:
    from bench_gui.services.tuning import rollback_last

    store = _open_store(args)
    conn = _tune_connection(args)
    try:
        result, entry, undone = rollback_last(store, conn, restart=not args.no_restart)
    finally:
        conn.close()
    if not args.json:
        print(f"rolled back #{undone.id} ({undone.profile}, {undone.created_at[:19]})")
    _print_apply(result, args, entry)
    return EXIT_OK if result.ok else EXIT_FAILED


def _tune_history(args: argparse.Namespace) -> int:
    from bench_gui.services.tuning_view import TuningHistory

    key = None
    if args.target:
        conn = _tune_connection(args)
        key = conn.target.key
        conn.close()
    entries = TuningHistory(_open_store(args)).entries(key)
    if args.json:
        print(json.dumps([_jsonable(e) for e in entries], default=str))
        return EXIT_OK
    for e in entries:
        ok = "" if e.result.get("ok", True) else f"  FAILED: {e.result.get('error', '')}"
        print(f"#{e.id:<4} {e.created_at[:19]}  {e.kind:10} {e.target_label:28} {e.describe()}{ok}")
    return EXIT_OK


def _os_host(args: argparse.Namespace) -> tuple[Any, Any]:
    from bench_gui.services.hosts import LocalHost

    if getattr(args, "ssh", None):
        from bench_gui.services.tuning_parts import ssh_host

        return ssh_host(args.ssh)
    return LocalHost(), None


def _tune_os(args: argparse.Namespace) -> int:
    from bench_gui.services.tuning import apply_os, os_changes, rollback_os
    from bench_gui.services.tuning_view import block_devices, data_devices, default_keys, read_knobs

    host, session = _os_host(args)
    try:
        devices = list(args.device or [])
        notes: list[str] = []
        if not devices and args.data_dir:
            devices, notes = data_devices(host, args.data_dir)
        if not devices:
            devices = block_devices(host)
        if args.os_cmd == "show":
            knobs = read_knobs(host, default_keys(devices))
            if args.json:
                print(json.dumps([_jsonable(k) for k in knobs.values()]))
            else:
                for k in knobs.values():
                    value = k.value if k.available else f"({k.status}: {k.note})"
                    print(f"{k.key:40} {value}")
                for note in notes:
                    print(f"# note: {note}")
            return EXIT_OK
        store = _open_store(args)
        if args.os_cmd == "apply":
            changes = os_changes(args.set or [], args.preset)
            result, entry = apply_os(store, host, changes, devices, profile=args.preset or "")
        else:
            result, entry, _undone = rollback_os(store, host)
        if args.json:
            print(json.dumps({**result.to_dict(), "history_id": entry}))
        else:
            print(result.summary())
            for key, (before, after) in result.changed.items():
                print(f"  {key}: {before} -> {after}" if before else f"  {key} = {after}")
            for key, why in result.missing.items():
                print(f"  {key}: {why}")
        return EXIT_OK
    finally:
        if session is not None:
            session.close()


def cmd_tune(args: argparse.Namespace) -> int:
    """``bench-gui tune ...``: every failure becomes one message and an exit status."""
    from bench_gui.engines.tuning_terms import PresetError, TuneInputError
    from bench_gui.services.errors import OsKnobError, SSHError, TuningError

    handlers: dict[str, Callable[[argparse.Namespace], int]] = {
        **args.kit_commands,  # the engine kits' own calculators ("tune postgresql")
        "presets": _tune_presets,
        "diff": _tune_diff,
        "apply": _tune_apply,
        "rollback": _tune_rollback,
        "history": _tune_history,
        "os": _tune_os,
    }
    try:
        return handlers[args.tune_cmd](args)
    except TuneInputError as exc:
        for line in problem_lines(exc.problems):
            print(f"bench-gui: --{safe(line)}", file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, PresetError) as exc:
        print(f"bench-gui: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (TuningError, OsKnobError, SSHError) as exc:
        print(f"bench-gui: {exc}", file=sys.stderr)
        if "nothing was changed:" in str(exc) and args.tune_cmd == "apply":
            print("bench-gui: leave those out with --skip-invalid", file=sys.stderr)
        return EXIT_FAILED


def _add_machine_options(sp: argparse.ArgumentParser, ram_required: bool) -> None:
    """The machine every engine's calculator reads (the rest default to the server's)."""
    from bench_gui.engines.tuning_terms import STORAGE_TYPES

    sp.add_argument("--ram", required=ram_required, help="memory of the server, e.g. 128GiB")
    sp.add_argument("--cpus", type=int, help="CPUs (threads) of the server")
    sp.add_argument("--connections", type=int, help="max_connections (default: by type);"
                    " InnoDB: the planned users (default: the plan's)")  # fmt: skip
    sp.add_argument("--storage", choices=STORAGE_TYPES, help="data storage type")


def _kit_faces(name: str) -> list[Any]:
    """Each engine kit's face ``name``, a face two kits share (one kit built on another's)
    once: it adds its options and commands once. A plugin's kit written before the face was
    asked for adds nothing (the parser of every command is built with these)."""
    from bench_gui.engines.registry import kits

    found: list[Any] = []
    for kit in kits():
        if name not in kit.faces:
            continue
        face = kit.face(name)
        if face not in found:
            found.append(face)
    return found


def _add_tune_parser(sub: Any) -> None:
    from bench_gui.engines.registry import kits

    p = sub.add_parser(
        "tune",
        help=f"{', '.join(kit.label for kit in kits())} and OS tuning: calculators, presets,"
        " apply, rollback",
    )
    tsub = p.add_subparsers(dest="tune_cmd", required=True)

    def calculator(sp: argparse.ArgumentParser) -> None:
        _add_machine_options(sp, False)
        for add_options in _kit_faces("tune_options"):
            add_options(sp)

    def target(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("target", help="'demo', a plan file, or a connection string / URI")
        sp.add_argument("--control", help="restart with pg_ctl[:PATH], systemctl:UNIT or"
                        " pg_ctlcluster:VERSION/CLUSTER")  # fmt: skip
        sp.add_argument("--data-dir", help="the server's data directory (default: asked)")
        sp.add_argument("--ssh", help="run the server control on this SSH target")
        sp.add_argument("--config-file", help="MariaDB: the option file to write (default:"
                        " /etc/mysql/mariadb.conf.d/99-bench-gui.cnf)")  # fmt: skip
        sp.add_argument("--json", action="store_true")

    commands: dict[str, Any] = {}
    for add_commands in _kit_faces("tune_commands"):
        commands.update(add_commands(tsub, _add_machine_options))
    p.set_defaults(kit_commands=commands)

    sp = tsub.add_parser("presets", help="list presets, or show one mapped to a version")
    sp.add_argument("name", nargs="?")
    sp.add_argument("--version", help="map the preset to this PostgreSQL version")
    sp.add_argument("--json", action="store_true")

    for name, text in (
        ("diff", "the server's values against a profile"),
        ("apply", "apply a profile (ALTER SYSTEM, reload, restart with --restart)"),
    ):
        sp = tsub.add_parser(name, help=text)
        target(sp)
        profiles = ", ".join(f"{kit.profile} for {kit.label}" for kit in kits())
        sp.add_argument("profile", help=f"the engine's calculated profile ({profiles}), a"
                        " preset name, or a preset file (.toml)")  # fmt: skip
        calculator(sp)
        if name == "apply":
            sp.add_argument(
                "--restart", action="store_true", help="restart when a setting needs it"
            )
            sp.add_argument("--skip-invalid", action="store_true",
                            help="leave out values the server would refuse")  # fmt: skip
            sp.add_argument("--only", help="apply only these settings (comma-separated)")

    sp = tsub.add_parser("rollback", help="undo the last apply on a target")
    target(sp)
    sp.add_argument("--no-restart", action="store_true", help="do not restart, even if needed")

    sp = tsub.add_parser("history", help="what was applied and rolled back")
    sp.add_argument("target", nargs="?", help="only this target")
    sp.add_argument("--json", action="store_true")

    sp = tsub.add_parser("os", help="OS knobs: show, apply for a run, roll back")
    sp.add_argument("os_cmd", choices=("show", "apply", "rollback"))
    sp.add_argument("--set", action="append", metavar="KEY=VALUE",
                    help="a knob: vm.dirty_ratio=40, read_ahead_kb=2048, scheduler=none,"
                    " transparent_hugepage=never")  # fmt: skip
    sp.add_argument("--preset", help="an OS preset (micron-9300-linux)")
    sp.add_argument("--device", action="append", help="a data device (default: all disks)")
    sp.add_argument("--data-dir", help="tune the disks under this directory")
    sp.add_argument("--ssh", help="an SSH target instead of this machine")
    sp.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_tune)


def build_parser() -> argparse.ArgumentParser:
    from bench_gui.cli.compare import add_commands as add_compare_commands
    from bench_gui.cli.compare import add_session_commands
    from bench_gui.cli.engines import add_commands as add_engine_commands
    from bench_gui.cli.present import add_commands as add_present_commands
    from bench_gui.cli.session_data import add_commands as add_session_data_commands
    from bench_gui.cli.storage import add_commands as add_storage_commands
    from bench_gui.cli.study import add_commands as add_study_commands
    from bench_gui.cli.targets import add_commands as add_target_commands
    from bench_gui.cli.team_store import add_commands as add_team_store_commands
    from bench_gui.cli.team_store import add_session_commands as add_team_session_commands
    from bench_gui.cli.team_store import add_store_options

    parser = argparse.ArgumentParser(
        prog="bench-gui",
        description="OLTP storage and database test bench (TPROC-C, derived from TPC-C; results"
        " are not TPC-C results). Without a command, opens the desktop app.",
    )
    parser.add_argument("--version", action="version", version=f"bench-gui {__version__}")
    parser.add_argument("--db", help="session database file (default: in the user data dir)")
    add_store_options(parser)  # --store URL: a team's PostgreSQL instead of the file
    sub = parser.add_subparsers(dest="command")

    p = sub.add_parser("run", help="run a plan headless")
    p.add_argument("plan", help="plan file (TOML)")
    p.add_argument("--driver", metavar="TARGET", help="run the agent on this SSH target")
    p.add_argument(
        "--accept-host-key",
        metavar="SHA256:…",
        help="accept the driver host's key with this fingerprint",
    )
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
    sp.add_argument("--author", help="only sessions this person recorded")
    sp.add_argument("--host", help="only sessions recorded on this machine")
    sp = ssub.add_parser("show", help="one session with its steps")
    sp.add_argument("id", type=int)
    sp.add_argument("--json", action="store_true")
    sp = ssub.add_parser(
        "power-import", help="give a stored session's steps the power of a meter's CSV log"
    )
    sp.add_argument("id", type=int, metavar="SESSION_ID")
    sp.add_argument("file", metavar="FILE.csv", help="CSV with a time and a watts column")
    sp.add_argument("--column", metavar="NAME", help="the watts column (default: found by name)")
    sp.add_argument("--time-column", metavar="NAME", help="the time column (default: by name)")
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=cmd_session_power_import)
    p.set_defaults(func=cmd_sessions)
    add_session_commands(ssub)  # export, import, search, tag, note, rename, delete
    add_session_data_commands(ssub)  # import-hammerdb, storage
    add_team_session_commands(ssub)  # push, pull (the team store)

    add_compare_commands(sub)  # compare, prices
    add_study_commands(sub)  # study new, check, run

    _add_tune_parser(sub)

    add_target_commands(sub)
    add_storage_commands(sub)  # storage devices, plan, apply, teardown, db-move

    add_present_commands(sub)  # present: a run on the full-screen booth view
    add_engine_commands(sub)  # engines: installed engine plugins and failed ones
    add_team_store_commands(sub)  # store password: the team store's login

    p = sub.add_parser("gui", help="open the desktop app")
    p.set_defaults(func=cmd_gui)
    return parser


def main(argv: list[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else argv
    if not given or given == ["gui"]:
        return cmd_gui(argparse.Namespace())  # before the commands' modules are imported
    from bench_gui.services.errors import StoreError
    from bench_gui.services.run_errors import RunError

    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", cmd_gui)
    try:
        return int(func(args))
    except PlanError as exc:
        print("bench-gui: the plan is not valid:", file=sys.stderr)
        for line in problem_lines(exc.problems):
            print(f"  {safe(line)}", file=sys.stderr)
        return EXIT_USAGE
    except StoreError as exc:
        print(f"bench-gui: {safe(str(exc))}", file=sys.stderr)  # "session store X: cannot ..."
        return EXIT_FAILED
    except RunError as exc:
        print(f"bench-gui: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except ValueError as exc:
        # A bad --store URL or TLS mode (the team store's module is loaded only when named).
        team = sys.modules.get("bench_gui.store.team_store")
        if team is None or not isinstance(exc, team.TeamStoreError):
            raise
        print(f"bench-gui: {safe(str(exc))}", file=sys.stderr)
        return EXIT_USAGE


__all__ = ["main"]
