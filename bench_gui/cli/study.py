"""``bench-gui study``: a study in one file, from a seed's template to a finished brief.

- ``study new --from seed-000 FILE``: the seed's study file, to point at your own systems;
- ``study check FILE``: every field checked, each system shown with its status, and what the
  file points at checked before anything runs (:mod:`bench_gui.services.study_preflight`);
- ``study run FILE``: each system in turn (skipping those already measured and still valid),
  then the brief beside the study file.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bench_gui.cli.terminal import safe

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _fail(message: str, code: int = EXIT_FAILED) -> int:
    print(f"bench-gui: {message}", file=sys.stderr)
    return code


def _load(path: str) -> Any:
    from bench_gui.core.study import load_study
    from bench_gui.services.study_run import check_storage

    study = load_study(Path(path))
    check_storage(study)
    return study


def _bad_study(exc: Any) -> int:
    print("bench-gui: the study is not valid:", file=sys.stderr)
    for name, reason in exc.problems:
        print(f"  {safe(name)}: {safe(reason)}", file=sys.stderr)
    return EXIT_USAGE


def cmd_study_new(args: argparse.Namespace) -> int:
    from bench_gui.services.study_templates import TemplateError, write_template

    try:
        path = write_template(args.seed, Path(args.file), overwrite=args.force)
    except (TemplateError, OSError) as exc:
        return _fail(safe(str(exc)), EXIT_USAGE)
    print(f"study written: {path} (point its [systems.*] at your machines, then"
          f" bench-gui study run {path})")  # fmt: skip
    return EXIT_OK


def cmd_study_check(args: argparse.Namespace) -> int:
    from bench_gui.cli.team_store import open_store
    from bench_gui.core.study_model import StudyError
    from bench_gui.services.study_preflight import check_unmeasured
    from bench_gui.services.study_run import plan_seconds, sessions_of

    try:
        study = _load(args.file)
    except StudyError as exc:
        return _bad_study(exc)
    store = open_store(args)
    rows = []
    for system, session in sessions_of(store, study):
        rows.append(
            {
                "system": system.key,
                "name": system.name,
                "baseline": system.key == study.baseline,
                "session": session,
                "seconds": plan_seconds(system.plan),
            }
        )
    # What the file points at (servers, hosts, devices, prices), for the systems still to
    # measure: a study that would fail at its third system says so before the first.
    findings = (
        [] if args.file_only else check_unmeasured(study, Path(args.file).resolve().parent, store)
    )
    ready = not any(f.problem for f in findings)
    code = EXIT_OK if ready else EXIT_FAILED
    if args.json:
        checks = [{"path": f.path, "level": f.level, "text": f.text} for f in findings]
        print(json.dumps({"study": study.key, "name": study.name, "systems": rows,
                          "checks": checks, "ready": ready}))  # fmt: skip
        return code
    print(f"{safe(study.name)} (sessions tagged {safe(study.tag)})")
    for row in rows:
        state = f"measured: session {row['session']}" if row["session"] else "to measure"
        base = " (baseline)" if row["baseline"] else ""
        print(f"  {safe(row['system'])}{base}: {safe(row['name'])} - {state}")
    for finding in findings:
        print(f"{finding.level}: {safe(finding.path)}: {safe(finding.text)}")
    if args.file_only:
        print("the file is valid (servers, hosts, devices and prices not looked at)")
    elif ready:
        print("ready to run" + (f" ({len(findings)} notes)" if findings else ""))
    else:
        problems = sum(1 for f in findings if f.problem)
        print(f"not ready: {problems} problem{'s' if problems != 1 else ''} would stop the run")
    return code


def cmd_study_run(args: argparse.Namespace) -> int:
    from bench_gui.cli.progress import ProgressPrinter
    from bench_gui.cli.team_store import open_store
    from bench_gui.core.compare import CompareError
    from bench_gui.core.study_model import StudyError
    from bench_gui.report.study_brief import write_brief
    from bench_gui.services.run_errors import RunError
    from bench_gui.services.study_preflight import check_unmeasured, problems_text
    from bench_gui.services.study_run import StudyRunner, progress_text

    try:
        study = _load(args.file)
    except StudyError as exc:
        return _bad_study(exc)
    store = open_store(args)
    if not args.no_check:
        # What would stop the run at its third system is said before the first is measured.
        found = check_unmeasured(study, Path(args.file).resolve().parent, store)
        if any(f.problem for f in found):
            problems = sum(1 for f in found if f.problem)
            print(safe(problems_text(found)), file=sys.stderr)
            return _fail(
                f"not started: {problems} problem{'s' if problems != 1 else ''} would stop the"
                " run (bench-gui study check FILE says the same; --no-check runs anyway)"
            )
    printer = ProgressPrinter(sys.stderr, quiet=args.quiet)

    def event(_system: Any, event: Any) -> None:
        # Without --verbose: each finished step's line and the errors, not every second.
        ended = event.kind == "step" and event.get("phase") == "end"
        if args.verbose or ended or event.kind == "error":
            printer(event)

    def progress(p: Any) -> None:
        if not args.quiet:
            print(safe(progress_text(p)), file=sys.stderr, flush=True)

    runner = StudyRunner(
        study,
        store,
        Path(args.file).resolve().parent,
        on_progress=progress,
        on_event=event,
        write_brief=write_brief,
    )
    out: dict[str, Any] = {"study": study.key}
    try:
        result = runner.run(brief=not args.no_brief)
    except KeyboardInterrupt:
        runner.stop()
        return _fail("interrupted: run the study again to go on where it stopped")
    except RunError as exc:
        return _fail(safe(str(exc)))
    except (CompareError, OSError) as exc:
        return _fail(f"the brief cannot be written: {safe(str(exc))}")
    except StudyError as exc:
        return _bad_study(exc)
    for note in result.notes:
        print(f"note: {safe(note)}", file=sys.stderr)
    out.update(
        sessions=result.sessions,
        measured=result.measured,
        skipped=result.skipped,
        changed=result.changed,
        written=[str(p) for p in result.written],
    )
    if args.json:
        print(json.dumps(out))
    else:
        for path in result.written:
            print(f"brief written: {path}")
    return EXIT_OK


def add_commands(sub: Any) -> None:
    """Add ``study`` (new, check, run) to the top-level command parser."""
    from bench_gui.services.study_templates import SEEDS

    p = sub.add_parser(
        "study",
        help="a study in one file: systems, sweep, prices and the brief",
        description="A study file names the systems compared, the workload and sweep they share,"
        " the stop condition, the prices and the report's options; `study run` measures each"
        " system in turn (skipping those already measured) and writes the brief.",
    )
    ssub = p.add_subparsers(dest="study_cmd", required=True)
    sp = ssub.add_parser("new", help="write a study file from a seed's template")
    sp.add_argument("--from", dest="seed", required=True, choices=SEEDS)
    sp.add_argument("file", nargs="?", default="study.toml", help="default: study.toml")
    sp.add_argument("--force", action="store_true", help="replace an existing file")
    sp.set_defaults(func=cmd_study_new)
    sp = ssub.add_parser(
        "check",
        help="check a study file and what it points at; show what is measured already",
        description="Every field of the file, then, for each system still to measure, what"
        " its run will need: the database answers (and its tuning preset resolves), the"
        " SSH driver host answers, fio and root for random reads here, the storage layout's"
        " devices present and free; and the prices the brief uses. Exit status 1 when a"
        " problem would stop the run.",
    )
    sp.add_argument("file")
    sp.add_argument(
        "--file-only", action="store_true", help="check the file only: reach no server or host"
    )
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=cmd_study_check)
    sp = ssub.add_parser("run", help="measure each system not measured yet, then the brief")
    sp.add_argument("file")
    sp.add_argument("--no-brief", action="store_true", help="measure only")
    sp.add_argument(
        "--no-check",
        action="store_true",
        help="start without reaching first what each system points at (as study check does)",
    )
    sp.add_argument("--json", action="store_true", help="last stdout line: the result as JSON")
    sp.add_argument("--quiet", action="store_true", help="no progress on stderr")
    sp.add_argument("--verbose", action="store_true", help="also every step's samples")
    sp.set_defaults(func=cmd_study_run)
