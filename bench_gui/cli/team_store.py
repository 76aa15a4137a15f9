"""The team store on the command line: ``--store URL`` for every command, ``sessions push`` and
``sessions pull``, ``store password``.

A push also sends the edits (tags, note, array, storage) made here to sessions already in the
team store, and the price lists; a pull sends them first, then brings the sessions both sides
have up to date with colleagues' edits (:mod:`bench_gui.store.team_sync`).

``--store postgresql://user@host:port/database`` (with ``--store-sslmode`` and
``--store-sslrootcert``) makes a command work on the team's PostgreSQL instead of the local
file given by ``--db``; ``sessions push`` and ``sessions pull`` use both: the file is this
machine's, the team store the shared one. The password is never on the command line: ``store
password URL`` puts it into the OS keyring (asked on the terminal, or read from standard input
with ``--stdin``). psycopg is loaded only when a team store is named.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench_gui.cli.terminal import safe

if TYPE_CHECKING:
    from bench_gui.services.sessions import SessionStore, TeamStoreConfig

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
STORE_HELP = "a team store: postgresql://USER@HOST[:PORT]/DATABASE (the password: store password)"


def add_store_options(parser: argparse.ArgumentParser) -> None:
    """The global options that name the store every command works on."""
    parser.add_argument("--store", metavar="URL", help=STORE_HELP + "; default: the --db file")
    parser.add_argument(
        "--store-sslmode",
        metavar="MODE",
        help="TLS to the team store: disable, allow, prefer, require, verify-ca, verify-full",
    )
    parser.add_argument(
        "--store-sslrootcert", metavar="FILE", help="CA certificate to check the team store by"
    )


def team_config(args: argparse.Namespace) -> TeamStoreConfig | None:
    """The team store the options name, or None for the local file; TeamStoreError (a
    ValueError saying what is wrong) for a bad URL or TLS mode."""
    url = getattr(args, "store", None)
    if not url:
        if getattr(args, "store_sslmode", None) or getattr(args, "store_sslrootcert", None):
            from bench_gui.services.errors import TeamStoreError

            raise TeamStoreError("--store-sslmode and --store-sslrootcert need --store URL")
        return None
    from bench_gui.services.errors import TeamStoreError
    from bench_gui.services.sessions import TeamStoreConfig

    cert = getattr(args, "store_sslrootcert", None)
    if cert and not Path(cert).is_file():
        raise TeamStoreError(f"--store-sslrootcert: no such file: {cert}")
    return TeamStoreConfig(
        url, sslmode=getattr(args, "store_sslmode", None) or None, sslrootcert=cert
    )


def local_store(args: argparse.Namespace) -> SessionStore:
    """The session file of this machine (``--db``, else the one in the user data folder)."""
    from bench_gui.services.sessions import SessionStore

    return SessionStore(Path(args.db) if getattr(args, "db", None) else None)


def open_store(args: argparse.Namespace) -> SessionStore:
    """The store a command works on: the team store of ``--store``, else the local file.
    StoreError when it cannot be reached (main says so in one line)."""
    config = team_config(args)
    if config is None:
        return local_store(args)
    from bench_gui.services.sessions import SessionStore

    return SessionStore(team=config)


def _required_team(args: argparse.Namespace) -> TeamStoreConfig:
    config = team_config(args)
    if config is None:
        from bench_gui.services.errors import TeamStoreError

        raise TeamStoreError(
            "which team store? give it with --store postgresql://USER@HOST[:PORT]/DATABASE"
        )
    return config


def _label(info: Any) -> str:
    return f"#{info.id} {safe(info.name)}"


def cmd_sessions_push(args: argparse.Namespace) -> int:
    """Send the local file's finished sessions the team store lacks; each once."""
    from bench_gui.services.sessions import SessionStore, push

    config = _required_team(args)
    with local_store(args) as local, SessionStore(team=config) as team:
        runs = {r.id: r for r in local.list_runs(None)}
        result = push(local, team)
    for source, target in sorted(result.copied.items()):
        print(f"pushed {_label(runs[source])} (team store #{target})")
    for source in result.already:
        print(f"skipped {_label(runs[source])}: the team store has it already")
    for info in sorted(runs.values(), key=lambda r: r.id):
        if info.status == "running":
            print(f"skipped {_label(info)}: still running (pushed once it has finished)")
    total = len(result.copied)
    print(
        f"{total} session{'s' if total != 1 else ''} pushed to {safe(result.store)},"
        f" {len(result.already)} already there"
    )
    _say_edits_and_prices(result)
    return EXIT_OK


def _who(info: Any) -> str:
    """Who recorded a session, and the database role the team store says pushed it when that
    is another name (the author is the pusher's claim, the role the store's fact)."""
    author = safe(info.author or "?")
    role = getattr(info, "pushed_by", "")
    return author if not role or role == info.author else f"{author} (pushed as {safe(role)})"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def _say_edits_and_prices(result: Any) -> None:
    if result.edits_sent:
        print(f"{_plural(result.edits_sent, 'edit')} of sessions already there sent")
    if result.refreshed:
        ids = ", ".join(f"#{i}" for i in result.refreshed)
        print(f"{_plural(len(result.refreshed), 'session')} here updated with their edits: {ids}")
    if result.prices:
        entries = "entry" if result.prices == 1 else "entries"
        print(f"{result.prices} price {entries} copied (device and power prices)")


def cmd_sessions_pull(args: argparse.Namespace) -> int:
    """Copy a colleague's sessions (by author, tag, system) into the local file."""
    from bench_gui.services.sessions import SessionStore, pull

    config = _required_team(args)
    with SessionStore(team=config) as team, local_store(args) as local:
        result = pull(
            team,
            local,
            author=args.author,
            tag=args.tag,
            system=args.system,
            kind=None if args.all else "run",
        )
        runs = {r.id: r for r in team.filter_runs(kind=None)}
        where = local.where
    for source, target in sorted(result.copied.items()):
        print(f"pulled {_label(runs[source])} by {_who(runs[source])} (here #{target})")
    for source in result.already:
        print(f"skipped {_label(runs[source])}: this file has it already")
    for source, why in sorted(result.refused.items()):
        info = runs[source]
        print(
            f"refused {_label(info)} ({info.uuid}) by {_who(info)}: {safe(why)}",
            file=sys.stderr,
        )
    total = len(result.copied)
    refused = f", {len(result.refused)} refused" if result.refused else ""
    print(
        f"{total} session{'s' if total != 1 else ''} pulled from {safe(result.store)} into"
        f" {safe(where)}, {len(result.already)} already there{refused}"
    )
    _say_edits_and_prices(result)
    return EXIT_FAILED if result.refused else EXIT_OK


def cmd_store_password(args: argparse.Namespace) -> int:
    """Put the team store's password into the OS keyring (or ``--forget`` it)."""
    from bench_gui.services.sessions import delete_store_password, set_store_password

    config = _required_team(argparse.Namespace(**{**vars(args), "store": args.url}))
    name = safe(config.display)
    if args.forget:
        gone = delete_store_password(config)
        print(f"password of {name} {'forgotten' if gone else 'was not stored'}")
        return EXIT_OK
    if args.stdin:
        line = sys.stdin.readline()
        password = line.rstrip("\r\n")
    elif not sys.stdin.isatty():
        print(
            "bench-gui: no terminal to ask the password on: pipe it in with --stdin",
            file=sys.stderr,
        )
        return EXIT_USAGE
    else:
        password = getpass.getpass(f"Password of {name}: ")
    if not password:
        print("bench-gui: an empty password is not stored", file=sys.stderr)
        return EXIT_FAILED
    set_store_password(config, password)
    print(f"password of {name} saved in the OS keyring")
    return EXIT_OK


def cmd_store_init(args: argparse.Namespace) -> int:
    """Make the team store ready for a team: its tables (the migrations), then an owner, a
    writer and a reader role, and the logins given made members (``--print``: the SQL only)."""
    from bench_gui.services.sessions import SessionStore, init_roles, roles_sql

    config = _required_team(argparse.Namespace(**{**vars(args), "store": args.url}))
    database = config.params.get("dbname", "")
    logins = {"owner": args.owner or [], "writer": args.writer or [], "reader": args.reader or []}
    if args.print:
        for statement in roles_sql(database, logins):
            print(statement + ";")
        return EXIT_OK
    with SessionStore(team=config):  # the tables, as this bench-gui knows them
        pass
    import psycopg

    try:
        init_roles(config.conninfo(), database, logins)
    except psycopg.Error as exc:
        from bench_gui.services.sessions import pg_reason

        print(f"bench-gui: {safe(config.display)}: roles not set up: {safe(pg_reason(exc))}",
              file=sys.stderr)  # fmt: skip
        return EXIT_FAILED
    print(f"{safe(config.display)}: roles bench_owner, bench_writer and bench_reader set up")
    for role, names in logins.items():
        for name in names:
            print(f"  {safe(name)}: {role}")
    return EXIT_OK


def add_session_commands(ssub: Any) -> None:
    """Add push and pull to ``bench-gui sessions``."""
    sp = ssub.add_parser("push", help="send this machine's sessions to the team store")
    sp.add_argument("--store", metavar="URL", default=argparse.SUPPRESS, help=STORE_HELP)
    sp.set_defaults(func=cmd_sessions_push)

    sp = ssub.add_parser("pull", help="copy sessions of the team store into the local file")
    sp.add_argument("--store", metavar="URL", default=argparse.SUPPRESS, help=STORE_HELP)
    sp.add_argument("--author", help="only sessions this person recorded")
    sp.add_argument("--tag", help="only sessions with this tag")
    sp.add_argument("--system", help="only sessions of this system (target or server name)")
    sp.add_argument("--all", action="store_true", help="builds and checks too")
    sp.set_defaults(func=cmd_sessions_pull)


def add_commands(sub: Any) -> None:
    """Add ``store password`` to the main parser's subcommands."""
    p = sub.add_parser("store", help="the team store's login and roles")
    ssub = p.add_subparsers(dest="store_cmd", required=True)
    sp = ssub.add_parser(
        "password",
        help="put the team store's password into the OS keyring (asked on the terminal)",
    )
    sp.add_argument("url", metavar="URL", help="postgresql://USER@HOST[:PORT]/DATABASE")
    sp.add_argument("--stdin", action="store_true", help="read the password from standard input")
    sp.add_argument("--forget", action="store_true", help="remove the stored password")
    sp.set_defaults(func=cmd_store_password)
    sp = ssub.add_parser(
        "init",
        help="set up a team store's roles: owner, writer (push, edit) and reader (list, pull)",
    )
    sp.add_argument("url", metavar="URL", help="postgresql://OWNER@HOST[:PORT]/DATABASE")
    sp.add_argument(
        "--owner", action="append", metavar="LOGIN", help="a login that may upgrade the schema"
    )
    sp.add_argument("--writer", action="append", metavar="LOGIN", help="a login that may push")
    sp.add_argument("--reader", action="append", metavar="LOGIN", help="a login that may read")
    sp.add_argument("--print", action="store_true", help="print the SQL instead of running it")
    sp.set_defaults(func=cmd_store_init)
