"""``bench-gui storage …``: block devices, layouts, database placement from the command line.

    bench-gui storage devices TARGET [--json]
    bench-gui storage plan LAYOUT.toml [--teardown] [--check] [--json]      (a dry run)
    bench-gui storage apply LAYOUT.toml --confirm DEV,DEV… [--json] [--wipe-signed DEV,DEV…]
    bench-gui storage teardown LAYOUT.toml --confirm DEV,DEV… [--json]
                               [--not-built-by-bench-gui DEV,DEV…]
    bench-gui storage db-move LAYOUT.toml [--placement tablespace|datadir] [--json]
    bench-gui storage db-restore LAYOUT.toml [--discard-changes] [--json]
    bench-gui storage recorded [TARGET] [--json]

TARGET is a saved SSH target or ``local`` (this machine); a layout names its own target
(``--target`` overrides it). Destructive commands run only with ``--confirm`` naming every
device of the layout, and are refused, with the evidence, for any device in use (mounted, an
array member, held open by a process: its pid and command are named). When the process scan
cannot read every process of the target (not root), the run is refused unless
``--accept-unreadable-processes`` says to go on. ``teardown`` takes down only a layout that
bench-gui built and recorded (``storage recorded``); for anything else the devices are typed
once more with ``--not-built-by-bench-gui``; likewise ``apply`` refuses a device that carries a
signature (a filesystem, a partition table, a RAID or LVM member's) unless ``--wipe-signed``
names it once more. Exit status: 0 done, 1 failed, 2 bad layout or
usage, 3 unknown host key, 4 refused (nothing was changed).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bench_gui.cli.terminal import safe
from bench_gui.core.echo import problem_lines
from bench_gui.core.storage import ERASE_METHODS, Layout, LayoutError, load_layout
from bench_gui.core.storage_plan import build_plan, build_teardown
from bench_gui.services.errors import SSHError, UnknownHostKey
from bench_gui.services.hosts import APP_KNOWN_HOSTS, TARGETS_FILE, data_dir
from bench_gui.services.storage import (
    NOT_RECORDED_FIELD,
    SIGNED_FIELD,
    UNREADABLE_FIELD,
    Progress,
    Runner,
    StepFailed,
    StorageError,
    StorageRefused,
    apply_layout,
    check_layout,
    describe_line,
    discover,
    not_recorded_refusal,
    open_runner,
    recorded_layouts,
    teardown_layout,
)

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_HOSTKEY, EXIT_REFUSED = 0, 1, 2, 3, 4
STATE_DIR = "storage"


def state_dir() -> Path:
    """Where built layouts are recorded (for the sessions measured on them)."""
    return data_dir() / STATE_DIR


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _human_bytes(value: Any) -> str:
    if not isinstance(value, int) or isinstance(value, bool):
        return "-"
    size = float(value)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if size < 1024 or unit == "PiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return str(value)  # pragma: no cover


def _open(target: str, args: argparse.Namespace) -> Runner:
    return open_runner(
        target,
        targets_file=data_dir() / TARGETS_FILE,
        known_hosts=data_dir() / APP_KNOWN_HOSTS,
        accept_fingerprint=getattr(args, "accept_host_key", None),
    )


def _layout(args: argparse.Namespace) -> Layout:
    layout = load_layout(Path(args.layout))
    if getattr(args, "target", None):
        layout.target = args.target
    return layout


_OVERRIDE_HINTS = {
    UNREADABLE_FIELD: "  To go on anyway, run again with --accept-unreadable-processes.",
    NOT_RECORDED_FIELD: "  If it was not built by bench-gui and is to be destroyed, run again"
    " with --not-built-by-bench-gui DEV,DEV… naming every device of the layout once more.",
    SIGNED_FIELD: "  If what they hold is to be destroyed, run again with --wipe-signed DEV,DEV…"
    " naming each device that carries a signature once more.",
}


def _refused(exc: StorageRefused, args: argparse.Namespace) -> int:
    if getattr(args, "json", False):
        print(json.dumps({"ok": False, "refused": [r.to_dict() for r in exc.refusals]}))
    _say(f"bench-gui: {exc}")
    for name in dict.fromkeys(r.field_name for r in exc.refusals):
        if name in _OVERRIDE_HINTS:
            _say(_OVERRIDE_HINTS[name])
    return EXIT_REFUSED


def _progress_printer(args: argparse.Namespace) -> tuple[Any, Any]:
    quiet = getattr(args, "quiet", False)
    last = {"detail": ""}

    def on_log(line: str) -> None:
        if not quiet:
            _say(line)

    def on_progress(p: Progress) -> None:
        if quiet or not p.detail or p.detail == last["detail"]:
            return
        last["detail"] = p.detail
        _say(f"  [{p.overall * 100:5.1f} %] {p.detail}")

    return on_log, on_progress


def cmd_devices(args: argparse.Namespace) -> int:
    runner = _open(args.target, args)
    try:
        disc = discover(runner)
    finally:
        runner.close()
    if args.json:
        print(json.dumps(disc.to_dict(), default=str))
        return EXIT_OK
    print(f"# block devices of {disc.host}")
    head = f"{'DEVICE':18} {'TYPE':5} {'SIZE':>10} {'MODEL':22} {'SERIAL':18} ROTA TRAN  FW"
    print(head + "       USE")
    for d in disc.devices:
        rota = "-" if d.rotational is None else ("hdd" if d.rotational else "ssd")
        model, serial = (d.model or "-")[:22], (d.serial or "-")[:18]
        print(
            f"{d.path:18} {d.type:5} {_human_bytes(d.size_bytes):>10} {model:22} {serial:18}"
            f" {rota:4} {(d.transport or '-'):5} {(d.firmware or '-'):10}"
            f" {'IN USE' if d.in_use else 'free'}"
        )
        for e in d.evidence:
            mark = "!" if e.blocking else " "
            print(f"    {mark} {e.text}  [{e.source}]")
        if d.type in ("disk", "loop", "part") and d.erase_methods:
            print(f"      erase: {', '.join(d.erase_methods)}")
    for note in disc.notes:
        _say(f"note: {note}")
    return EXIT_OK


def cmd_plan(args: argparse.Namespace) -> int:
    layout = _layout(args)
    plan = build_teardown(layout) if args.teardown else build_plan(layout)
    data = plan.to_dict()
    if args.check:
        runner = _open(layout.target, args)
        try:
            disc = discover(runner)
        finally:
            runner.close()
        refusals = check_layout(
            layout,
            disc,
            "teardown" if args.teardown else "apply",
            accept_unreadable=args.accept_unreadable_processes,
        )
        if args.teardown:
            not_built = not_recorded_refusal(layout, state_dir())
            refusals += [not_built] if not_built is not None else []
        data["refused"] = [r.to_dict() for r in refusals]
        data["host"] = disc.host
    if args.json:
        print(json.dumps(data))
    else:
        print(f"# {plan.action} of {layout.name!r} on {layout.target} (dry run: nothing runs)")
        for i, step in enumerate(plan.steps, 1):
            print(f"# {i}. {step.title}")
            print(step.display())
        for note in plan.notes:
            print(f"# note: {note}")
        print(f"# to run it: --confirm {','.join(plan.confirm_devices)}")
        for refusal in data.get("refused", []):
            _say(f"refused: {refusal['field']}: {refusal['reason']}")
            for e in refusal["evidence"]:
                _say(f"    - {e['text']}  [{e['source']}]")
    return EXIT_REFUSED if data.get("refused") else EXIT_OK


def _run_plan(args: argparse.Namespace, teardown: bool) -> int:
    layout = _layout(args)
    on_log, on_progress = _progress_printer(args)
    runner = _open(layout.target, args)
    try:
        if teardown:
            result = teardown_layout(
                runner,
                layout,
                args.confirm,
                on_log=on_log,
                on_progress=on_progress,
                state_dir=state_dir(),
                accept_unreadable=args.accept_unreadable_processes,
                not_built_confirm=args.not_built_by_bench_gui,
            )
        else:
            result = apply_layout(
                runner,
                layout,
                args.confirm,
                on_log=on_log,
                on_progress=on_progress,
                state_dir=state_dir(),
                accept_unreadable=args.accept_unreadable_processes,
                wipe_signed=args.wipe_signed,
            )
    except StorageRefused as exc:
        return _refused(exc, args)
    except StepFailed as exc:
        if args.json:
            print(json.dumps(exc.result.to_dict()))
        _say(f"bench-gui: {exc}")
        return EXIT_FAILED
    finally:
        runner.close()
    if args.json:
        print(json.dumps(result.to_dict(), default=str))
    elif result.description:
        print(describe_line(result.description))
        if result.resync:
            print(f"resync: {result.resync['text']}")
    else:
        print(f"{layout.name}: taken down")
    return EXIT_OK


def cmd_apply(args: argparse.Namespace) -> int:
    return _run_plan(args, teardown=False)


def cmd_teardown(args: argparse.Namespace) -> int:
    return _run_plan(args, teardown=True)


def cmd_db(args: argparse.Namespace) -> int:
    from bench_gui.services.storage import place_database, restore_database

    layout = _layout(args)
    on_log, _ = _progress_printer(args)
    runner = _open(layout.target, args)
    try:
        if args.storage_cmd == "db-move":
            result = place_database(
                runner, layout, on_log=on_log, state_dir=state_dir(), placement=args.placement
            )
        else:
            result = restore_database(
                runner,
                layout,
                on_log=on_log,
                state_dir=state_dir(),
                discard_changes=args.discard_changes,
            )
    finally:
        runner.close()
    if args.json:
        print(json.dumps(result.to_dict(), default=str))
    else:
        for message in result.messages:
            print(message)
        print(f"data directory: {result.data_directory}")
    return EXIT_OK


def cmd_recorded(args: argparse.Namespace) -> int:
    folder = state_dir()
    targets = [args.target] if args.target else sorted(p.stem for p in folder.glob("*.json"))
    layouts = [item for t in targets for item in recorded_layouts(folder, t)]
    if args.json:
        print(json.dumps(layouts, default=str))
        return EXIT_OK
    for item in layouts:
        db = item.get("database") or {}
        where = f"  database: {db.get('placement')}" if db else ""
        print(f"{item.get('target')}: {item.get('name')}: {describe_line(item)}{where}")
    return EXIT_OK


def cmd_storage(args: argparse.Namespace) -> int:
    """Every failure becomes one message and an exit status."""
    from bench_gui.services.errors import PlacementError

    handlers = {
        "devices": cmd_devices,
        "plan": cmd_plan,
        "apply": cmd_apply,
        "teardown": cmd_teardown,
        "db-move": cmd_db,
        "db-restore": cmd_db,
        "recorded": cmd_recorded,
    }
    try:
        return handlers[args.storage_cmd](args)
    except LayoutError as exc:
        _say("bench-gui: the layout is not valid:")
        for line in problem_lines(exc.problems):
            _say(f"  {safe(line)}")
        return EXIT_USAGE
    except UnknownHostKey as exc:
        _say(
            f"bench-gui: {exc}\n  If this is the right machine, run again with"
            f" --accept-host-key {exc.fingerprint_sha256}"
        )
        return EXIT_HOSTKEY
    except StorageRefused as exc:
        return _refused(exc, args)
    except (StorageError, PlacementError, SSHError) as exc:
        _say(f"bench-gui: {exc}")
        return EXIT_FAILED


def add_commands(sub: Any) -> None:
    """Register ``storage`` on the main parser's subcommands."""
    p = sub.add_parser(
        "storage",
        help="block devices, storage layouts (erase, RAID, mkfs, mount) and database placement",
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ssub = p.add_subparsers(dest="storage_cmd", required=True)

    def common(sp: argparse.ArgumentParser, layout: bool = True) -> None:
        if layout:
            sp.add_argument("layout", help="layout file (TOML)")
            sp.add_argument("--target", help="override the layout's target (or 'local')")
        sp.add_argument(
            "--accept-host-key",
            metavar="SHA256:…",
            help="accept this host key fingerprint (shown when it is unknown)",
        )
        sp.add_argument("--json", action="store_true")
        sp.add_argument("--quiet", action="store_true", help="no progress on stderr")

    def unreadable(sp: argparse.ArgumentParser) -> None:
        sp.add_argument(
            "--accept-unreadable-processes",
            action="store_true",
            help="go on although the process scan could not read every process of the"
            " target (not root, or processes even root may not read): one of them may hold"
            " a device open",
        )

    sp = ssub.add_parser("devices", help="the block devices of a target, with their use")
    sp.add_argument("target", help="a saved SSH target, or 'local' for this machine")
    common(sp, layout=False)

    sp = ssub.add_parser("plan", help="the exact commands of a layout (a dry run)")
    common(sp)
    sp.add_argument("--teardown", action="store_true", help="the teardown's commands instead")
    sp.add_argument(
        "--check", action="store_true", help="also check the devices on the target (read-only)"
    )
    unreadable(sp)

    methods = ", ".join(ERASE_METHODS)
    for name, text in (
        ("apply", f"build a layout (erase: {methods})"),
        ("teardown", "unmount, stop the array, wipe the signatures"),
    ):
        sp = ssub.add_parser(name, help=text)
        common(sp)
        unreadable(sp)
        sp.add_argument(
            "--confirm",
            action="append",
            required=True,
            metavar="DEV,DEV…",
            help="every device of the layout, typed out (sdb or /dev/sdb)",
        )
        if name == "teardown":
            sp.add_argument(
                "--not-built-by-bench-gui",
                action="append",
                metavar="DEV,DEV…",
                help="tear down a layout bench-gui has no record of building: every device"
                " of it, typed once more",
            )
        else:
            sp.add_argument(
                "--wipe-signed",
                action="append",
                metavar="DEV,DEV…",
                help="erase devices that carry a signature (a filesystem, a partition table,"
                " a RAID or LVM member's): each of them, typed once more",
            )

    sp = ssub.add_parser("db-move", help="put the database on the layout's volume")
    common(sp)
    sp.add_argument(
        "--placement",
        choices=("tablespace", "datadir"),
        help="override the layout's database.placement",
    )

    sp = ssub.add_parser("db-restore", help="move the database back to where it was")
    common(sp)
    sp.add_argument(
        "--discard-changes",
        action="store_true",
        help="relocated data directory: drop the changes, do not copy them back",
    )

    sp = ssub.add_parser("recorded", help="the layouts built and not torn down (per target)")
    sp.add_argument("target", nargs="?")
    sp.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_storage)
