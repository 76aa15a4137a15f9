"""``bench-gui target …`` and ``bench-gui attach``: SSH driver hosts from the command line.

Secrets never appear on a command line: passwords and passphrases are read from the terminal
(or from standard input with ``--secrets-stdin``, one per line) and kept in the OS keyring.
``target db-password PLAN`` keeps the password of a plan's database user there too.
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, TextIO

from bench_gui.cli.team_store import open_store
from bench_gui.cli.terminal import safe
from bench_gui.core.plan import load_plan, plan_from_dict
from bench_gui.core.plan_model import PlanError, Target
from bench_gui.services.agent_config import agent_config, plan_password
from bench_gui.services.errors import HostKeyError, SecretStoreError, SSHError, UnknownHostKey
from bench_gui.services.host_links import ssh_transport
from bench_gui.services.hosts import (
    SSHTarget,
    add_target,
    collect_inventory,
    connect,
    db_server_name,
    delete_db_password,
    forget_target,
    get_target,
    known_hosts_path,
    load_targets,
    remove_target,
    set_db_password,
    set_secret,
    targets_path,
)
from bench_gui.services.run import RunController
from bench_gui.services.run_errors import RunError
from bench_gui.services.targets import DatabaseCheck, check_connection
from bench_gui.wire.protocol import Event

EXIT_OK, EXIT_FAILED, EXIT_HOSTKEY = 0, 1, 3


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
        add_target(target, targets_path(), replace=args.replace)
    except SSHError as exc:
        print(f"bench-gui: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if args.ask_password:
        set_secret(target.name, "password", _read_secret(args, "SSH password"))
    if args.ask_passphrase:
        set_secret(target.name, "passphrase", _read_secret(args, "Key passphrase"))
    if args.ask_sudo_password:
        set_secret(target.name, "sudo_password", _read_secret(args, "sudo password"))
    print(f"target {target.name} saved in {targets_path()}")
    return EXIT_OK


def cmd_target_list(args: argparse.Namespace) -> int:
    targets = load_targets(targets_path())
    if args.json:
        print(json.dumps([asdict(t) for t in targets.values()]))
        return EXIT_OK
    for t in targets.values():
        where = f"{t.user + '@' if t.user else ''}{t.host}{':' + str(t.port) if t.port else ''}"
        print(f"{safe(t.name):16} {safe(where):32} auth={safe(t.auth):8} sudo={safe(t.sudo)}")
    return EXIT_OK


def cmd_target_remove(args: argparse.Namespace) -> int:
    try:
        remove_target(args.name, targets_path())
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


def _database_target(spec: str) -> Target:
    """A plan file's ``[target]``, or ``USER@HOST[:PORT]`` (a PostgreSQL server)."""
    path = Path(spec)
    if path.is_file():
        target = load_plan(path).target
        if target.kind == "demo":
            raise PlanError([(spec, "uses the embedded demo, which needs no password")])
        return target
    user, at, server = spec.rpartition("@")
    if server.startswith("["):  # [::1]:5432
        host, _, port_text = server[1:].partition("]")
        port_text = port_text.removeprefix(":")
    else:
        host, _, port_text = server.partition(":")
    port_text = port_text or "5432"
    good_port = (len(port_text) <= 5 and port_text.isascii() and port_text.isdigit()) and 0 < int(
        port_text
    ) < 65536
    if not at or not user or not host or not good_port:
        raise PlanError([(spec, "is neither a plan file nor USER@HOST[:PORT]")])
    return Target(kind="postgresql", host=host, user=user, port=int(port_text))


def cmd_target_db_password(args: argparse.Namespace) -> int:
    """Keep (or with ``--forget`` remove) a database user's password in the OS keyring."""
    target = _database_target(args.server)
    server = safe(db_server_name(target))
    try:
        if args.forget:
            gone = delete_db_password(target)
            print(f"database password of {server} {'forgotten' if gone else 'was not stored'}")
            return EXIT_OK
        password = _read_secret(args, f"Password of {server}")
        if not password:
            print("bench-gui: an empty password is not stored", file=sys.stderr)
            return EXIT_FAILED
        set_db_password(target, password)
    except SecretStoreError as exc:
        print(f"bench-gui: {exc}", file=sys.stderr)
        return EXIT_FAILED
    print(
        f"database password of {server} saved in the OS keyring: runs of plans with this"
        " server, port and user send it to their agent"
    )
    return EXIT_OK


def _database_for(plan_path: str | None) -> DatabaseCheck | None:
    """The plan's database as the agent reaches it, its password (whose source is said on
    stderr) and its kind, whose engine kit checks it."""
    if not plan_path:
        return None
    plan = load_plan(Path(plan_path))
    password = plan_password(plan)
    config, _env = agent_config(plan, "status", password)
    if plan.target.kind != "demo":
        print(f"database password: {safe(password.source)}", file=sys.stderr)
    return DatabaseCheck(str(config["conninfo"]), password.value, plan.target.kind)


def cmd_target_test(args: argparse.Namespace) -> int:
    try:
        target = get_target(args.name, targets_path())
        report = check_connection(
            target,
            known_hosts_path(),
            database=_database_for(args.plan),
            accept_fingerprint=args.accept_host_key,
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
        target = get_target(args.name, targets_path())
        session = connect(target, args.accept_host_key, known_hosts=known_hosts_path())
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


class AttachProgress:
    """Progress of ``attach`` on stderr while it fetches (a live run can take minutes): a line
    for the first event, then at most one every :attr:`interval` seconds, one at each step's
    end, and a total at the end."""

    interval = 5.0

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.events = 0
        self.last_seq = 0
        self.steps: set[int] = set()
        self._printed = 0
        self._last_line = float("-inf")

    def _line(self, text: str) -> None:
        print(text, file=self.stream, flush=True)
        self._last_line = time.monotonic()

    def _status(self) -> str:
        steps = len(self.steps)
        return (
            f"fetched {self.events:,} event{'s' if self.events != 1 else ''},"
            f" {steps} step{'s' if steps != 1 else ''} seen, at seq {self.last_seq:,}"
        )

    def __call__(self, event: Event) -> None:
        self.events += 1
        self.last_seq = max(self.last_seq, event.seq)
        step = event.get("step") if event.kind in ("step", "sample") else None
        if isinstance(step, int) and not isinstance(step, bool):
            self.steps.add(step)
        if event.kind == "done":
            status, message = str(event.get("status")), str(event.get("message", ""))
            self._line(f"run {safe(status)}: {safe(message)}")
        elif (
            self._printed == 0
            or (event.kind == "step" and event.get("phase") == "end")
            or time.monotonic() - self._last_line >= self.interval
        ):
            self._printed += 1
            self._line(self._status())

    def notice(self, state: str, detail: str) -> None:
        """The link to the driver host dropped or came back (from the follower's thread)."""
        self._line(f"link {safe(state)}: {safe(detail)}")

    def close(self) -> None:
        self._line(f"{self._status()} (done fetching)")


def cmd_attach(args: argparse.Namespace) -> int:
    """Re-attach to a session's run on its driver host and fetch everything it recorded."""
    store = open_store(args)  # the team store of --store, else the --db file
    run = store.get_run(args.session)
    plan = plan_from_dict(run.plan)
    if not plan.driver.target:
        print(
            f"bench-gui: session {args.session} did not run on an SSH driver host", file=sys.stderr
        )
        return EXIT_FAILED
    controller = RunController(plan, store, accept_fingerprint=args.accept_host_key)
    progress = AttachProgress(sys.stderr)
    controller.on_notice = progress.notice
    if len(plan.driver.targets) > 1:
        hosts = ", ".join(safe(name) for name in plan.driver.targets)
        what = f"on driver hosts {hosts}: merging every host's events again from the start"
    else:
        what = (
            f"on {safe(plan.driver.target)}: fetching the events"
            f" after seq {store.last_seq(args.session):,}"
        )
    print(f"re-attaching session {args.session} {what}", file=sys.stderr, flush=True)
    try:
        for event in controller.reattach(args.session):
            progress(event)
    except RunError as exc:
        progress.close()
        print(f"bench-gui: {exc}", file=sys.stderr)
        return EXIT_FAILED
    progress.close()
    result: dict[str, Any] = {
        "session": args.session,
        "events": progress.events,
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

    a = tsub.add_parser(
        "db-password",
        help="keep a database user's password in the OS keyring (read from the terminal)",
        description="Keep the password of a plan's database user in the OS keyring, under its"
        " server, port and user. Runs use it unless the plan's password_env names a variable"
        " that is set (only PGPASSWORD or BENCH_GUI_* are allowed).",
    )
    a.add_argument("server", metavar="PLAN|USER@HOST[:PORT]", help="a plan file or a server")
    a.add_argument("--forget", action="store_true", help="remove the stored password")
    a.add_argument(
        "--secrets-stdin", action="store_true", help="read the password from standard input"
    )
    a.set_defaults(func=cmd_target_db_password)

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
