"""``bench-gui target …`` and ``bench-gui attach``: SSH driver hosts from the command line.

Secrets never appear on a command line: passwords and passphrases are read from the terminal
(or from standard input with ``--secrets-stdin``, one per line) and kept in the OS keyring.
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench_gui.core.plan import PlanError, plan_from_dict
from bench_gui.remote.errors import HostKeyError, SecretStoreError, SSHError, UnknownHostKey
from bench_gui.remote.hostkeys import APP_KNOWN_HOSTS
from bench_gui.remote.inventory import collect_inventory
from bench_gui.remote.secrets import forget_target, set_secret
from bench_gui.remote.session import connect
from bench_gui.remote.ssh import check_target
from bench_gui.remote.targets import (
    TARGETS_FILE,
    SSHTarget,
    add_target,
    get_target,
    load_targets,
    remove_target,
)
from bench_gui.runner import RunController, RunError, agent_config, ssh_transport
from bench_gui.store import SessionStore
from bench_gui.store.paths import data_dir

EXIT_OK, EXIT_FAILED, EXIT_HOSTKEY = 0, 1, 3


def _targets_path() -> Path:
    return data_dir() / TARGETS_FILE


def _known_hosts() -> Path:
    return data_dir() / APP_KNOWN_HOSTS


def _say_unknown_key(exc: UnknownHostKey) -> int:
    print(
        f"bench-gui: {exc}\n  If this is the right machine, run again with"
        f" --accept-host-key {exc.fingerprint_sha256}",
        file=sys.stderr,
    )
    return EXIT_HOSTKEY


def _read_secret(args: argparse.Namespace, prompt: str) -> str:
    if args.secrets_stdin:
        line = sys.stdin.readline()
        if not line:
            raise SystemExit(f"bench-gui: expected {prompt.lower()} on standard input")
        return line.rstrip("\n")
    return getpass.getpass(f"{prompt}: ")


def cmd_target_add(args: argparse.Namespace) -> int:
    target = SSHTarget(
        name=args.name,
        host=args.host,
        port=args.port,
        user=args.user,
        auth=args.auth,
        key_path=args.key,
        sudo=args.sudo,
        python=args.python,
        notes=args.notes,
    )
    try:
        add_target(target, _targets_path(), replace=args.replace)
    except SSHError as exc:
        print(f"bench-gui: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if args.ask_password:
        set_secret(target.name, "password", _read_secret(args, "SSH password"))
    if args.ask_passphrase:
        set_secret(target.name, "passphrase", _read_secret(args, "Key passphrase"))
    if args.ask_sudo_password:
        set_secret(target.name, "sudo_password", _read_secret(args, "sudo password"))
    print(f"target {target.name} saved in {_targets_path()}")
    return EXIT_OK


def cmd_target_list(args: argparse.Namespace) -> int:
    targets = load_targets(_targets_path())
    if args.json:
        print(json.dumps([asdict(t) for t in targets.values()]))
        return EXIT_OK
    for t in targets.values():
        where = f"{t.user + '@' if t.user else ''}{t.host}{':' + str(t.port) if t.port else ''}"
        print(f"{t.name:16} {where:32} auth={t.auth:8} sudo={t.sudo}")
    return EXIT_OK


def cmd_target_remove(args: argparse.Namespace) -> int:
    try:
        remove_target(args.name, _targets_path())
    except SSHError as exc:
        print(f"bench-gui: {exc}", file=sys.stderr)
        return EXIT_FAILED
    try:
        forgotten = forget_target(args.name)
    except SecretStoreError as exc:
        print(
            f"target {args.name} removed; its secrets could not be looked up: {exc}",
            file=sys.stderr,
        )
        return EXIT_OK
    what = f" and its {', '.join(forgotten)} forgotten" if forgotten else ""
    print(f"target {args.name} removed{what}")
    return EXIT_OK


def _conninfo_for(plan_path: str | None) -> str | None:
    if not plan_path:
        return None
    from bench_gui.core.plan import load_plan

    config, _env = agent_config(load_plan(Path(plan_path)), "status")
    return str(config["conninfo"])


def cmd_target_test(args: argparse.Namespace) -> int:
    try:
        target = get_target(args.name, _targets_path())
        report = check_target(
            target,
            _conninfo_for(args.plan),
            args.accept_host_key,
            known_hosts=_known_hosts(),
        )
    except UnknownHostKey as exc:
        return _say_unknown_key(exc)
    except (HostKeyError, SSHError, PlanError, RunError) as exc:
        print(f"bench-gui: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        print(json.dumps(asdict(report)))
    else:
        for line in report.lines:
            print(line)
        for problem in report.problems:
            print(f"problem: {problem}", file=sys.stderr)
    return EXIT_OK if not report.problems else EXIT_FAILED


def cmd_target_inventory(args: argparse.Namespace) -> int:
    try:
        target = get_target(args.name, _targets_path())
        session = connect(target, args.accept_host_key, known_hosts=_known_hosts())
    except UnknownHostKey as exc:
        return _say_unknown_key(exc)
    except SSHError as exc:
        print(f"bench-gui: {exc}", file=sys.stderr)
        return EXIT_FAILED
    try:
        inventory = collect_inventory(session)
    finally:
        session.close()
    print(json.dumps(inventory, indent=None if args.json else 1, default=str))
    return EXIT_OK


def cmd_target_runs(args: argparse.Namespace) -> int:
    transport = ssh_transport(args.name, args.accept_host_key)
    try:
        runs = transport.list_runs()
    except UnknownHostKey as exc:
        return _say_unknown_key(exc)
    except SSHError as exc:
        print(f"bench-gui: {exc}", file=sys.stderr)
        return EXIT_FAILED
    finally:
        transport.close()
    if args.json:
        print(json.dumps([asdict(r) for r in runs], default=str))
    else:
        for r in runs:
            session = r.meta.get("session_id")
            print(f"{r.run_id:28} {r.state:9} session={session}  {r.run_dir}")
    return EXIT_OK


def cmd_attach(args: argparse.Namespace) -> int:
    """Re-attach to a session's run on its driver host and fetch everything it recorded."""
    store = SessionStore(Path(args.db) if args.db else None)
    run = store.get_run(args.session)
    plan = plan_from_dict(run.plan)
    if not plan.driver.target:
        print(
            f"bench-gui: session {args.session} did not run on an SSH driver host", file=sys.stderr
        )
        return EXIT_FAILED
    controller = RunController(plan, store, accept_fingerprint=args.accept_host_key)
    count = 0
    try:
        for event in controller.reattach(args.session):
            count += 1
            if event.kind == "done":
                print(f"run {event.get('status')}: {event.get('message', '')}", file=sys.stderr)
    except RunError as exc:
        print(f"bench-gui: {exc}", file=sys.stderr)
        return EXIT_FAILED
    result: dict[str, Any] = {
        "session": args.session,
        "events": count,
        "status": store.get_run(args.session).status,
    }
    print(json.dumps(result))
    return EXIT_OK


def add_commands(sub: Any) -> None:
    """Register ``target`` and ``attach`` on the main parser's subcommands."""
    p = sub.add_parser("target", help="SSH driver hosts (targets)")
    tsub = p.add_subparsers(dest="target_cmd", required=True)

    a = tsub.add_parser("add", help="save a target (secrets go to the OS keyring)")
    a.add_argument("name")
    a.add_argument("--host", required=True, help="host name, address or ~/.ssh/config alias")
    a.add_argument("--port", type=int)
    a.add_argument("--user")
    a.add_argument("--auth", choices=("agent", "key", "password"), default="agent")
    a.add_argument("--key", help="private key file (auth=key)")
    a.add_argument("--sudo", choices=("none", "passwordless", "password"), default="none")
    a.add_argument("--python", default="python3", help="interpreter on the host")
    a.add_argument("--notes", default="")
    a.add_argument("--replace", action="store_true", help="overwrite a target of that name")
    a.add_argument("--ask-password", action="store_true")
    a.add_argument("--ask-passphrase", action="store_true")
    a.add_argument("--ask-sudo-password", action="store_true")
    a.add_argument(
        "--secrets-stdin",
        action="store_true",
        help="read the asked secrets from standard input, one per line",
    )
    a.set_defaults(func=cmd_target_add)

    a = tsub.add_parser("list", help="saved targets")
    a.add_argument("--json", action="store_true")
    a.set_defaults(func=cmd_target_list)

    a = tsub.add_parser("remove", help="remove a target and forget its secrets")
    a.add_argument("name")
    a.set_defaults(func=cmd_target_remove)

    for name, func, text in (
        ("test", cmd_target_test, "connect; check Python, sudo and the database"),
        ("inventory", cmd_target_inventory, "hardware and OS inventory"),
        ("runs", cmd_target_runs, "runs on the host (for re-attaching)"),
    ):
        a = tsub.add_parser(name, help=text)
        a.add_argument("name")
        a.add_argument(
            "--accept-host-key",
            metavar="SHA256:…",
            help="accept this host key fingerprint (shown when it is unknown)",
        )
        a.add_argument("--json", action="store_true")
        if name == "test":
            a.add_argument("--plan", help="also check this plan's database from the host")
        a.set_defaults(func=func)

    p = sub.add_parser("attach", help="re-attach to a session's run on its driver host")
    p.add_argument("session", type=int)
    p.add_argument("--accept-host-key", metavar="SHA256:…")
    p.set_defaults(func=cmd_attach)
