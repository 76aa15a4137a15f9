"""``bench-gui compare``, ``bench-gui prices`` and the session housekeeping commands.

- ``compare ID ID … [--baseline ID] [--report FILE …] [--json]``: the comparison tables on
  stdout (or as JSON), reports written as .html, .pdf, .csv or .json, charts as PNG/SVG;
- ``sessions export ID FILE`` / ``sessions import FILE``: a session as one file;
- ``sessions search``, ``tag``, ``note``, ``rename``, ``delete``;
- ``prices``: the device price list, power prices, and each session's array by hand.

Warnings (a flagged hand-entered cost, steps present in one session only...) go to stderr so
that stdout stays machine-readable with ``--json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bench_gui.cli.terminal import safe
from bench_gui.core.compare import CompareError
from bench_gui.core.economics import ArrayInput, DevicePrice, PowerPrice
from bench_gui.core.saturation import DEFAULT_MIN_GAIN_PCT, StopConditions
from bench_gui.store import (
    SessionFileError,
    SessionNotFound,
    SessionStore,
    export_session,
    import_session,
)

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _store(args: argparse.Namespace) -> SessionStore:
    return SessionStore(Path(args.db) if getattr(args, "db", None) else None)


def _fail(message: str, code: int = EXIT_FAILED) -> int:
    print(f"bench-gui: {message}", file=sys.stderr)
    return code


# ---- compare ------------------------------------------------------------------------------------


def _print_table(table: Any) -> None:
    """A report table as aligned plain text."""
    header = [safe(col.replace("\n", " ")) for col in table.columns]
    rows = [[safe(cell.text) for cell in row] for row in table.rows]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    print(safe(table.label))
    for line in [header, *rows]:
        cells = []
        for i, text in enumerate(line):
            left = i in table.text_columns
            cells.append(text.ljust(widths[i]) if left else text.rjust(widths[i]))
        print("  ".join(cells).rstrip())
    for note in table.notes:
        print(f"  ({safe(note)})")
    print()


def cmd_compare(args: argparse.Namespace) -> int:
    from bench_gui.report import ReportError, build_report, report_format, write_charts
    from bench_gui.report import write_report as write

    ids: list[int] = args.ids
    baseline = args.baseline if args.baseline is not None else (ids[0] if ids else 0)
    for path in args.report or []:
        try:
            report_format(Path(path))
        except ReportError as exc:
            return _fail(str(exc), EXIT_USAGE)
    conditions = StopConditions(args.min_gain, args.max_avg_ms, args.max_p999_ms)
    store = _store(args)
    try:
        report = build_report(store, ids, baseline, conditions, title=args.title)
    except (CompareError, SessionNotFound) as exc:
        return _fail(f"cannot compare: {exc}")
    for note in report.notes:
        print(f"note: {safe(note)}", file=sys.stderr)
    for path in args.report or []:
        try:
            written = write(report, Path(path), page_size=args.page_size)
        except OSError as exc:
            return _fail(f"cannot write {path}: {exc}")
        print(f"report written: {written}", file=sys.stderr)
    if args.charts:
        for chart in write_charts(report, Path(args.charts), args.chart_format):
            print(f"chart written: {chart}", file=sys.stderr)
    if args.json:
        from bench_gui.report.model import as_json

        print(json.dumps(as_json(report), ensure_ascii=False, default=str))
        return EXIT_OK
    print(safe(report.title))
    print(safe(report.subtitle))
    print()
    for fact in report.facts:
        print(f"  {safe(fact.value):>14}  {safe(fact.text)} ({safe(fact.detail)})")
    print()
    for table in report.tables.values():
        if table.number:
            _print_table(table)
    print(report.disclaimer)
    return EXIT_OK


# ---- sessions -----------------------------------------------------------------------------------


def cmd_session_export(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        path = export_session(store, args.id, Path(args.file))
    except SessionNotFound as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(str(exc))
    print(f"session {args.id} exported to {path}")
    return EXIT_OK


def cmd_session_import(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        run_id = import_session(store, Path(args.file))
    except SessionFileError as exc:  # it may quote the file's own keys: shown escaped
        return _fail(safe(str(exc)))
    detail = store.get_run(run_id)
    if args.json:
        print(json.dumps({"session": run_id, "name": detail.name}))
    else:
        print(f"imported as session {run_id}: {safe(detail.name)}")
    return EXIT_OK


def cmd_session_search(args: argparse.Namespace) -> int:
    store = _store(args)
    runs = store.find_runs(args.text or "", tag=args.tag, kind=None if args.all else "run")
    notes = store.annotations()
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "id": r.id,
                        "name": r.name,
                        "status": r.status,
                        "created_at": r.created_at,
                        "tags": notes.get(r.id, ([], ""))[0],
                        "note": notes.get(r.id, ([], ""))[1],
                    }
                    for r in runs
                ]
            )
        )
        return EXIT_OK
    for r in runs:
        tags, note = notes.get(r.id, ([], ""))
        line = f"{r.id:>4}  {safe(r.created_at)[:19]:20} {safe(r.status):11} {safe(r.name)}"
        if tags:
            line += "  [" + ", ".join(safe(tag) for tag in tags) + "]"
        print(line)
        if note:
            print(f"      {safe(note.splitlines()[0])}")
    return EXIT_OK


def cmd_session_tag(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        tags = (
            store.remove_tags(args.id, args.tags)
            if args.remove
            else store.add_tags(args.id, args.tags)
        )
    except (SessionNotFound, ValueError) as exc:
        return _fail(str(exc))
    print(f"session {args.id} tags: {safe(', '.join(tags)) or '(none)'}")
    return EXIT_OK


def cmd_session_note(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        store.set_note(args.id, " ".join(args.text))
    except (SessionNotFound, ValueError) as exc:
        return _fail(str(exc))
    print(f"session {args.id}: note {'saved' if ' '.join(args.text).strip() else 'removed'}")
    return EXIT_OK


def cmd_session_rename(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        store.rename_run(args.id, " ".join(args.name))
    except (SessionNotFound, ValueError) as exc:
        return _fail(str(exc))
    print(f"session {args.id} renamed")
    return EXIT_OK


def cmd_session_delete(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        detail = store.get_run(args.id)
    except SessionNotFound as exc:
        return _fail(str(exc))
    if not args.yes:
        if not sys.stdin.isatty():
            return _fail(
                f"deleting session {args.id} ({safe(detail.name)}) cannot be undone: add --yes to"
                " confirm",
                EXIT_USAGE,
            )
        answer = input(
            f"Delete session {args.id} ({safe(detail.name)}, {detail.steps} steps)? This cannot be"
            " undone. Type the session id to confirm: "
        )
        if answer.strip() != str(args.id):
            print("not deleted", file=sys.stderr)
            return EXIT_FAILED
    store.delete_run(args.id)
    print(f"session {args.id} deleted")
    return EXIT_OK


def add_session_commands(ssub: Any) -> None:
    """Add export, import, search, tag, note, rename and delete to ``bench-gui sessions``."""
    sp = ssub.add_parser("export", help="write one session to a file to share")
    sp.add_argument("id", type=int)
    sp.add_argument("file", help="output file (.json, or .json.gz to compress)")
    sp.set_defaults(func=cmd_session_export)

    sp = ssub.add_parser("import", help="add a session from an exported file")
    sp.add_argument("file")
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=cmd_session_import)

    sp = ssub.add_parser("search", help="find sessions by text (name, tags, note) or tag")
    sp.add_argument("text", nargs="?", default="", help="text to look for; #12 finds session 12")
    sp.add_argument("--tag", help="only sessions with this tag")
    sp.add_argument("--all", action="store_true", help="include builds and checks")
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=cmd_session_search)

    sp = ssub.add_parser("tag", help="add (or --remove) tags")
    sp.add_argument("id", type=int)
    sp.add_argument("tags", nargs="+")
    sp.add_argument("--remove", action="store_true")
    sp.set_defaults(func=cmd_session_tag)

    sp = ssub.add_parser("note", help="set a session's note (no text: remove it)")
    sp.add_argument("id", type=int)
    sp.add_argument("text", nargs="*")
    sp.set_defaults(func=cmd_session_note)

    sp = ssub.add_parser("rename", help="rename a session")
    sp.add_argument("id", type=int)
    sp.add_argument("name", nargs="+")
    sp.set_defaults(func=cmd_session_rename)

    sp = ssub.add_parser("delete", help="delete a session and everything stored with it")
    sp.add_argument("id", type=int)
    sp.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    sp.set_defaults(func=cmd_session_delete)


# ---- prices -------------------------------------------------------------------------------------


def cmd_prices(args: argparse.Namespace) -> int:
    store = _store(args)
    action = args.prices_cmd
    try:
        if action == "list":
            return _list_prices(store, args.json)
        if action == "device" and args.device_cmd == "add":
            price_id = store.add_device_price(
                DevicePrice(args.name, args.price, args.currency, args.date, args.source)
            )
            print(f"device price {price_id} added: {args.name} {args.price:g} {args.currency}")
        elif action == "device":
            store.delete_device_price(args.price_id)
            print(f"device price {args.price_id} removed")
        elif action == "power" and args.power_cmd == "add":
            price_id = store.add_power_price(
                PowerPrice(args.per_kwh, args.currency, args.date, args.source)
            )
            print(f"power price {price_id} added: {args.per_kwh:g} {args.currency} per kWh")
        elif action == "power":
            store.delete_power_price(args.price_id)
            print(f"power price {args.price_id} removed")
        elif action == "array":
            if args.clear:
                store.set_run_array(args.id, None)
                print(f"session {args.id}: array entered by hand removed")
            else:
                store.set_run_array(
                    args.id,
                    ArrayInput(
                        device=args.device,
                        count=args.count,
                        hand_cost=args.cost,
                        currency=args.currency,
                        origin="hand",
                        note=args.note,
                    ),
                )
                print(f"session {args.id}: array recorded")
    except (ValueError, KeyError, SessionNotFound) as exc:
        return _fail(str(exc).strip("'\""))
    return EXIT_OK


def _list_prices(store: SessionStore, as_json: bool) -> int:
    devices = store.device_price_entries()
    power = store.power_price_entries()
    if as_json:
        print(
            json.dumps(
                {
                    "devices": [
                        {"id": e.id, **vars(e.price), "created_at": e.created_at} for e in devices
                    ],
                    "power": [
                        {"id": w.id, **vars(w.price), "created_at": w.created_at} for w in power
                    ],
                }
            )
        )
        return EXIT_OK
    print("Device prices")
    if not devices:
        print("  (none: bench-gui prices device add NAME PRICE --currency USD --date YYYY-MM-DD)")
    for e in devices:
        p = e.price
        print(
            f"  {e.id:>3}  {p.device:32} {p.unit_price:>10,.2f} {p.currency}  {p.date}  {p.source}"
        )
    print("Power prices (the latest date is used)")
    if not power:
        print("  (none: bench-gui prices power add PRICE_PER_KWH --currency USD)")
    for w in power:
        q = w.price
        print(f"  {w.id:>3}  {q.per_kwh:>8,.4f} {q.currency} per kWh  {q.date}  {q.source}")
    return EXIT_OK


def add_commands(sub: Any) -> None:
    """Add ``compare`` and ``prices`` to the top-level command parser."""
    p = sub.add_parser(
        "compare",
        help="compare sessions against a baseline; write reports",
        description="Compare two or more sessions against a baseline: NOPM/TPM ratios,"
        " response-time advantages, saturation, configuration differences, repeatability and"
        " economics. The workload is derived from TPC-C; the results are not TPC-C results.",
    )
    p.add_argument("ids", type=int, nargs="+", metavar="ID", help="session ids")
    p.add_argument("--baseline", type=int, help="the baseline session (default: the first ID)")
    p.add_argument(
        "--report",
        action="append",
        metavar="FILE",
        help="write a report: .html, .pdf, .csv or .json (repeatable)",
    )
    p.add_argument("--json", action="store_true", help="print every table as JSON on stdout")
    p.add_argument("--title", help="report title (default: from the session names)")
    p.add_argument(
        "--min-gain",
        type=float,
        default=DEFAULT_MIN_GAIN_PCT,
        metavar="PCT",
        help="stop condition: minimum NOPM gain from one step to the next, in %% (default 5)",
    )
    p.add_argument("--max-avg-ms", type=float, help="stop condition: average response time limit")
    p.add_argument("--max-p999-ms", type=float, help="stop condition: p99.9 response time limit")
    p.add_argument("--charts", metavar="DIR", help="also write every chart into DIR")
    p.add_argument("--chart-format", choices=("png", "svg"), default="png")
    p.add_argument("--page-size", choices=("letter", "a4"), default="letter", help="PDF page size")
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("prices", help="device and power prices, arrays entered by hand")
    psub = p.add_subparsers(dest="prices_cmd", required=True)
    sp = psub.add_parser("list", help="the price lists")
    sp.add_argument("--json", action="store_true")

    sp = psub.add_parser("device", help="device prices")
    dsub = sp.add_subparsers(dest="device_cmd", required=True)
    dp = dsub.add_parser("add", help="add a device's unit price")
    dp.add_argument("name", help="the device model, as the storage layout names it")
    dp.add_argument("price", type=float, help="unit price")
    dp.add_argument("--currency", default="USD")
    dp.add_argument("--date", default="", help="when the price was seen (YYYY-MM-DD)")
    dp.add_argument("--source", default="", help="where the price comes from")
    dp = dsub.add_parser("remove", help="remove a device price by its id")
    dp.add_argument("price_id", type=int)

    sp = psub.add_parser("power", help="power prices per kWh")
    wsub = sp.add_subparsers(dest="power_cmd", required=True)
    wp = wsub.add_parser("add", help="add a power price")
    wp.add_argument("per_kwh", type=float, help="price per kWh")
    wp.add_argument("--currency", default="USD")
    wp.add_argument("--date", default="")
    wp.add_argument("--source", default="")
    wp = wsub.add_parser("remove", help="remove a power price by its id")
    wp.add_argument("price_id", type=int)

    sp = psub.add_parser(
        "array", help="a session's array by hand: devices and count, and/or its cost"
    )
    sp.add_argument("id", type=int, help="session id")
    sp.add_argument("--device", help="device model (as in the price list)")
    sp.add_argument("--count", type=int, help="number of devices")
    sp.add_argument("--cost", type=float, help="array cost entered by hand")
    sp.add_argument("--currency", help="currency of --cost")
    sp.add_argument("--note", default="")
    sp.add_argument("--clear", action="store_true", help="remove what was entered by hand")
    p.set_defaults(func=cmd_prices)
