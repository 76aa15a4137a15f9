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
from bench_gui.services.errors import SessionFileError, SessionNotFound
from bench_gui.services.sessions import SessionStore, export_session, import_session

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _store(args: argparse.Namespace) -> SessionStore:
    """The team store of ``--store``, else the ``--db`` file."""
    from bench_gui.cli.team_store import open_store

    return open_store(args)


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


def _report_options(args: argparse.Namespace) -> Any:
    """The author's report choices from the command line (a ValueError names a bad one)."""
    from bench_gui.report.names import check_short_names, parse_short_names
    from bench_gui.report.options import ReportOptions, check_cover, parse_repeats

    chosen = check_short_names(parse_short_names(args.short_name or []), list(args.ids))
    return ReportOptions(
        latency=args.latency,
        author_notes=args.author_notes,
        cover=check_cover(args.author or "", args.logo, args.date or ""),
        repeats=parse_repeats(args.repeats or []),
        short_names=tuple(chosen.items()),
        commands=args.commands,
        session_notes=args.session_notes,
    )


def _ram_question(args: argparse.Namespace) -> tuple[float | None, int | None]:
    """``--target-ops`` and ``--dataset`` of a random-read comparison (ValueError names a
    bad one)."""
    from bench_gui.wire.fio_sizes import parse_size

    target = args.target_ops
    if target is not None and not target > 0:
        raise ValueError(f"--target-ops must be a positive number of reads a second, got {target}")
    try:
        dataset = None if args.dataset is None else parse_size(args.dataset)
    except ValueError as exc:
        raise ValueError(f"--dataset: {exc}") from None
    return target, dataset


def cmd_compare(args: argparse.Namespace) -> int:
    from bench_gui.report import ReportError, report_format, write_charts
    from bench_gui.report import write_report as write
    from bench_gui.report.options import default_paper
    from bench_gui.report.workloads import build_any_report

    ids: list[int] = args.ids
    baseline = args.baseline if args.baseline is not None else (ids[0] if ids else 0)
    for path in args.report or []:
        try:
            report_format(Path(path))
        except ReportError as exc:
            return _fail(str(exc), EXIT_USAGE)
    try:
        options = _report_options(args)
        target, dataset = _ram_question(args)
    except ValueError as exc:
        return _fail(safe(str(exc)), EXIT_USAGE)
    conditions = StopConditions(args.min_gain, args.max_avg_ms, args.max_p999_ms)
    store = _store(args)
    try:
        report = build_any_report(
            store, ids, baseline, conditions, args.title, options, target, dataset
        )
    except (CompareError, SessionNotFound) as exc:
        return _fail(f"cannot compare: {safe(str(exc))}")
    # The author's notes, before anything is written: they are not printed in the report
    # (unless --author-notes appendix keeps them at its end).
    for note in report.author_notes:
        print(f"note: {safe(note)}", file=sys.stderr)
    paper = args.paper or default_paper()
    for path in args.report or []:
        try:
            written = write(report, Path(path), page_size=paper)
        except (OSError, ValueError) as exc:
            return _fail(f"cannot write {safe(path)}: {safe(str(exc))}")
        print(f"report written: {written}", file=sys.stderr)
    if args.charts:
        for chart in write_charts(report, Path(args.charts), args.chart_format):
            print(f"chart written: {chart}", file=sys.stderr)
    if args.json:
        print(json.dumps(report.json_data(), ensure_ascii=False, default=str))
        return EXIT_OK
    print(safe(report.title))
    print(safe(report.subtitle))
    print()
    for fact in report.facts:
        print(f"  {safe(fact.value):>14}  {safe(fact.text)} ({safe(fact.detail)})")
    print()
    # What a reader must know to read the figures right (a ratio across transaction profiles,
    # TPM across engines, a doubtful NOPM), as the report prints it before its tables.
    for note in report.reader_notes:
        print(f"  {safe(note)}")
    if report.reader_notes:
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
    _say_waiting(store, args.id)
    return EXIT_OK


def _say_waiting(store: SessionStore, run_id: int) -> None:
    """An edit of a session that is in a team store too waits here for the next push."""
    if store.team is not None:
        return  # made in the team store itself
    from bench_gui.services.sessions import waiting_edits

    for where in waiting_edits(store, run_id):
        print(
            f"  the edit waits for the team store {safe(where)}: sent by the next"
            " `bench-gui sessions push --store URL` (or the app's push)"
        )


def cmd_session_note(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        store.set_note(args.id, " ".join(args.text))
    except (SessionNotFound, ValueError) as exc:
        return _fail(str(exc))
    print(f"session {args.id}: note {'saved' if ' '.join(args.text).strip() else 'removed'}")
    _say_waiting(store, args.id)
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
        detail = store.run_info(args.id)  # not get_run: a damaged record can be deleted too
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
            _warn_prices([(args.price, "unit price")], args.currency)
            price_id = store.add_device_price(
                DevicePrice(args.name, args.price, args.currency, args.date, args.source)
            )
            print(f"device price {price_id} added: {args.name} {args.price:g} {args.currency}")
            # A hand-entered cost may now disagree with the price list: said at once.
            for run_id, hand in store.all_run_arrays().items():
                if hand.hand_cost is not None:
                    _check_array(store, run_id, only_device=args.name)
        elif action == "device":
            store.delete_device_price(args.price_id)
            print(f"device price {args.price_id} removed")
        elif action == "power" and args.power_cmd == "add":
            _warn_prices([(args.per_kwh, "price per kWh")], args.currency)
            price_id = store.add_power_price(
                PowerPrice(args.per_kwh, args.currency, args.date, args.source)
            )
            print(f"power price {price_id} added: {args.per_kwh:g} {args.currency} per kWh")
        elif action == "power":
            store.delete_power_price(args.price_id)
            print(f"power price {args.price_id} removed")
        elif action == "array":
            if args.id == "list":
                return _list_arrays(store, args)
            try:
                args.id = int(args.id)
            except ValueError:
                return _fail(
                    f"prices array takes a session id or 'list', got {args.id!r}", EXIT_USAGE
                )
            if args.clear:
                store.set_run_array(args.id, None)
                print(f"session {args.id}: array entered by hand removed")
            else:
                _warn_prices([(args.cost, "array cost")], args.currency)
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
                _check_array(store, args.id)
    except (ValueError, KeyError, SessionNotFound) as exc:
        return _fail(str(exc).strip("'\""))
    return EXIT_OK


def _warn_prices(values: list[tuple[float | None, str]], currency: str | None) -> None:
    """Say what looks wrong in prices as they are entered (they are stored all the same)."""
    from bench_gui.core.price_checks import doubts

    for doubt in doubts(values, currency):
        print(f"bench-gui: warning: {safe(doubt)}", file=sys.stderr)


def _same_device(a: str, b: str) -> bool:
    from bench_gui.core.economics import find_price

    return find_price(a, [DevicePrice(b, 0.0, "USD")]) is not None


def _array_cost(store: SessionStore, run_id: int) -> tuple[ArrayInput, Any, str]:
    """A session's array as the economics will price it: (what it is made of, its cost or
    None, why it has none)."""
    from bench_gui.core.economics import EconomicsError, array_cost
    from bench_gui.services.sessions import array_input

    spec = array_input(store, store.get_run(run_id))
    try:
        return spec, array_cost(spec, store.device_prices()), ""
    except EconomicsError as exc:
        return spec, None, str(exc)


def _check_array(store: SessionStore, run_id: int, only_device: str = "") -> None:
    """Say at once when a hand-entered cost disagrees with unit price x count (it is stored as
    entered all the same: the price list may be the one that is wrong). ``only_device``: say
    it only of an array of that device."""
    spec, cost, _why = _array_cost(store, run_id)
    if only_device and not (spec.device and _same_device(spec.device, only_device)):
        return
    if cost is not None and cost.flag:
        print(f"warning: session {run_id}: {safe(cost.flag)} (stored as entered)", file=sys.stderr)
    elif spec.hand_cost is not None and spec.device and cost is not None and cost.price is None:
        print(
            f"note: session {run_id}: no price of {safe(spec.device)} in the price list: the"
            " hand-entered cost cannot be checked against unit price x count",
            file=sys.stderr,
        )
    if not only_device:
        from bench_gui.core.priced_storage import disagreement
        from bench_gui.services.sessions import recorded_storage

        recorded = recorded_storage(store, store.get_run(run_id))
        mismatch = recorded and disagreement(spec.device, spec.count, recorded)
        if mismatch:
            print(f"warning: session {run_id}: {safe(mismatch)}", file=sys.stderr)


def _list_arrays(store: SessionStore, args: argparse.Namespace) -> int:
    """``prices array list``: every session with an array entered by hand, checked."""
    if args.clear or any(
        getattr(args, k) not in (None, "") for k in ("device", "count", "cost", "currency", "note")
    ):
        return _fail("prices array list takes no other option than --json", EXIT_USAGE)
    names = {r.id: r.name for r in store.list_runs(kind=None)}
    rows = []
    for run_id, hand in sorted(store.all_run_arrays().items()):
        spec, cost, why = _array_cost(store, run_id)
        rows.append(
            {
                "session": run_id,
                "name": names.get(run_id, ""),
                "device": spec.device,
                "count": spec.count,
                "hand_cost": hand.hand_cost,
                "currency": (cost.currency if cost is not None else hand.currency) or None,
                "unit_price": cost.unit_price if cost is not None else None,
                "computed": cost.computed if cost is not None else None,
                "cost": cost.cost if cost is not None else None,
                "arithmetic": cost.arithmetic if cost is not None else why,
                "flag": cost.flag if cost is not None else None,
                "note": hand.note,
            }
        )
    if args.json:
        print(json.dumps(rows))
        return EXIT_OK
    if not rows:
        print("no array entered by hand (bench-gui prices array ID --device NAME --count N)")
        return EXIT_OK
    print(f"{'ID':>4}  {'device':28} {'count':>5}  cost")
    for row in rows:
        device = safe(row["device"] or "-")
        count = "-" if row["count"] is None else str(row["count"])
        print(f"{row['session']:>4}  {device:28} {count:>5}  {safe(row['arithmetic'])}")
        print(f"      {safe(row['name'])}")
        if row["flag"]:
            print(f"      warning: {safe(row['flag'])}")
        if row["note"]:
            print(f"      note: {safe(row['note'])}")
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
        description="Compare sessions against a baseline (or report on one session): NOPM/TPM"
        " ratios, response-time advantages, saturation, the system under test side by side,"
        " repeatability and economics. The workload is derived from TPC-C; the results are not"
        " TPC-C results. Random-read studies compare by dataset size (ops/s, the ratio, the"
        " multiplier over raw device IOPS) with the RAM each storage needs for a target"
        " (--target-ops, --dataset); the two workloads are never mixed.",
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
        "--short-name",
        action="append",
        metavar="ID=NAME",
        help="the short name of a session in headers, legends and the bottom line (repeatable;"
        " default: made from what differs between the session names)",
    )
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
    p.add_argument(
        "--paper",
        "--page-size",
        dest="paper",
        choices=("a4", "letter"),
        help="PDF paper (default: the locale's: letter in the US and Canada, else a4)",
    )
    p.add_argument(
        "--latency",
        choices=("all", "new-order"),
        default="all",
        help="response times of all transactions, or of New-Order only (default all)",
    )
    p.add_argument(
        "--author-notes",
        choices=("omit", "appendix"),
        default="omit",
        help="the notes for the author (printed here either way): left out of the report, or"
        " kept in an appendix at its end (default omit)",
    )
    p.add_argument(
        "--commands",
        choices=("omit", "appendix"),
        default="omit",
        help="the commands run on the targets: left out (default), or an appendix",
    )
    p.add_argument(
        "--session-notes",
        choices=("omit", "include"),
        default="omit",
        help="the notes recorded with the plans and sessions: left out (default), or printed",
    )
    p.add_argument("--author", metavar="TEXT", help="cover line: the author's company or name")
    p.add_argument("--logo", metavar="PATH", help="cover line: a PNG, JPEG or SVG logo")
    p.add_argument("--date", metavar="YYYY-MM-DD", help="cover line: the report's date")
    p.add_argument(
        "--repeats",
        action="append",
        metavar="ID,ID",
        help="sessions that are repeats of one another (repeatable; never the baseline with a"
        " compared session): their spread is shown as repeat noise",
    )
    p.add_argument(
        "--target-ops",
        type=float,
        metavar="OPS",
        help="random reads: the ops/s target of the RAM each storage needs (default: the best"
        " ops/s measured at the largest dataset beyond RAM)",
    )
    p.add_argument(
        "--dataset",
        metavar="SIZE",
        help="random reads: the dataset size of that question, e.g. 1TiB or 500GB (default:"
        " the dataset of the default target)",
    )
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
        "array",
        help="a session's array by hand: devices and count, and/or its cost; 'list': all",
        description="Record a session's array by hand (a cost that disagrees with unit price x"
        " count is stored, with a warning), or 'prices array list' to see every one, checked.",
    )
    sp.add_argument("id", metavar="ID|list", help="session id, or 'list'")
    sp.add_argument("--device", help="device model (as in the price list)")
    sp.add_argument("--count", type=int, help="number of devices")
    sp.add_argument("--cost", type=float, help="array cost entered by hand")
    sp.add_argument("--currency", help="currency of --cost")
    sp.add_argument("--note", default="")
    sp.add_argument("--clear", action="store_true", help="remove what was entered by hand")
    sp.add_argument("--json", action="store_true", help="with 'list': as JSON")
    p.set_defaults(func=cmd_prices)
