"""``bench-gui sessions import-hammerdb`` and ``bench-gui sessions storage``.

- ``sessions import-hammerdb PATH [--each] [--utc-offset H] [--json]``: HammerDB's job store
  (``hammer.DB``) or log file into sessions (see :mod:`bench_gui.store.hammerdb`);
- ``sessions storage ID [--devices TEXT] [--count N] [--raid LEVEL] [--fs NAME] [--note TEXT]``:
  what a session's storage was, where bench-gui did not build it (stored as entered by the
  user); the options given replace those parts (``--devices ""`` empties one), with no option
  it prints what is stored, ``--clear`` removes it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bench_gui.cli.terminal import safe

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _store(args: argparse.Namespace) -> Any:
    """The team store of ``--store``, else the ``--db`` file."""
    from bench_gui.cli.team_store import open_store

    return open_store(args)


def _fail(message: str, code: int = EXIT_FAILED) -> int:
    print(f"bench-gui: {safe(message)}", file=sys.stderr)
    return code


def cmd_import_hammerdb(args: argparse.Namespace) -> int:
    from bench_gui.services.errors import HammerDBError
    from bench_gui.services.sessions import import_hammerdb

    store = _store(args)
    try:
        result = import_hammerdb(
            store, Path(args.path), each=args.each, utc_offset_h=args.utc_offset
        )
    except HammerDBError as exc:
        return _fail(str(exc))
    except ValueError as exc:
        return _fail(str(exc), EXIT_USAGE)
    if args.json:
        print(
            json.dumps(
                {
                    "file": result.file,
                    "jobs": result.jobs,
                    "sessions": [
                        {
                            "session": s.run_id,
                            "name": s.name,
                            "kind": s.kind,
                            "status": s.status,
                            "jobs": list(s.jobs),
                            "vus": list(s.vus),
                            "message": s.message,
                        }
                        for s in result.sessions
                    ],
                    "already_imported": [
                        {"job": job, "session": run_id} for job, run_id in result.already
                    ],
                }
            )
        )
        return EXIT_OK
    print(f"{safe(result.file)}: {result.jobs} HammerDB jobs")
    for s in result.sessions:
        steps = f" steps {'/'.join(str(v) for v in s.vus)} VU" if s.vus else ""
        line = f"  session {s.run_id:>4}  {s.kind:5} {s.status:8}{steps}  {safe(s.name)}"
        print(line)
        if s.message:
            print(f"                {safe(s.message)}")
    if result.already:
        held = sorted({run_id for _job, run_id in result.already})
        print(
            f"  {len(result.already)} jobs imported before, in sessions"
            f" {', '.join(str(i) for i in held)}: not imported again"
        )
    if not result.sessions:
        print("  nothing new to import")
    return EXIT_OK


def cmd_storage(args: argparse.Namespace) -> int:
    from bench_gui.services.errors import SessionNotFound

    store = _store(args)
    given = any(
        value is not None for value in (args.devices, args.count, args.raid, args.fs, args.note)
    )
    try:
        if args.clear:
            if given:
                return _fail("--clear removes the description: give it alone", EXIT_USAGE)
            removed = store.clear_storage_description(args.id)
            print(f"session {args.id}: storage description {'removed' if removed else 'absent'}")
            return EXIT_OK
        if given:
            # The options given change those parts; the others keep what was entered before.
            old = store.storage_description(args.id) or {}

            def pick(value: Any, key: str) -> Any:
                return old.get(key) if value is None else value

            found = store.set_storage_description(
                args.id,
                devices=pick(args.devices, "devices") or "",
                count=pick(args.count, "count"),
                raid=pick(args.raid, "raid") or "",
                filesystem=pick(args.fs, "filesystem") or "",
                note=pick(args.note, "note") or "",
            )
        else:
            found = store.storage_description(args.id)
    except (SessionNotFound, ValueError) as exc:
        return _fail(str(exc))
    if args.json:
        print(json.dumps(found))
    elif found is None:
        print(f"session {args.id}: no storage description (bench-gui sessions storage --help)")
    else:
        print(f"session {args.id}: {safe(found['text'])} (entered by the user)")
        if found["note"] and found["note"] != found["text"]:
            print(f"  note: {safe(found['note'])}")
    return EXIT_OK


def add_commands(ssub: Any) -> None:
    """Add ``import-hammerdb`` and ``storage`` to ``bench-gui sessions``."""
    sp = ssub.add_parser(
        "import-hammerdb",
        help="import HammerDB's results (its hammer.DB job store or its log) as sessions",
        description="Read HammerDB's job store (hammer.DB) or log file into sessions: jobs"
        " that follow each other with one configuration and a rising user count become one"
        " sweep. Jobs imported before are skipped; a bad file stores nothing.",
    )
    sp.add_argument("path", help="hammer.DB, or a hammerdb.log")
    sp.add_argument("--each", action="store_true", help="one session per job, no sweeps")
    sp.add_argument(
        "--utc-offset",
        type=float,
        metavar="HOURS",
        help="the HammerDB host's offset from UTC (default: this machine's time zone)",
    )
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=cmd_import_hammerdb)

    sp = ssub.add_parser(
        "storage",
        help="describe a session's storage where bench-gui did not build it",
        description="Record what a session ran on: devices, their count, the RAID level and"
        " the filesystem, as entered by you (reports show it as such). Without an option,"
        " print what is stored.",
    )
    sp.add_argument("id", type=int, metavar="SESSION_ID")
    sp.add_argument("--devices", metavar="TEXT", help='the device model, e.g. "Micron 5300 PRO"')
    sp.add_argument("--count", type=int, metavar="N", help="how many devices")
    sp.add_argument("--raid", metavar="LEVEL", help="0, 1, 5, 6, 10, none, jbod, raidz2...")
    sp.add_argument("--fs", metavar="NAME", help="the filesystem: ext4, xfs...")
    sp.add_argument("--note", metavar="TEXT", help="anything else worth saying")
    sp.add_argument("--clear", action="store_true", help="remove the description")
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=cmd_storage)
