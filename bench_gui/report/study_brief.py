"""A study's brief: the comparison report of its systems' sessions, written beside the file.

The same report ``bench-gui compare`` writes, with the study's baseline, stop condition, title
and options (paper, response-time basis, the author's notes in an appendix, the cover line,
each system's short name, the sections in the order of the seed the study reproduces),
in each format the study's ``[report]`` asks for.
"""

from __future__ import annotations

from pathlib import Path

from bench_gui.core.study_model import Study, StudyError
from bench_gui.report import write_report
from bench_gui.report.how import HowSection
from bench_gui.report.options import ReportOptions, check_cover, default_paper
from bench_gui.report.workloads import build_any_report
from bench_gui.store import SessionStore
from bench_gui.wire.fio_sizes import parse_size


def reproduce_section(study: Study) -> HowSection:
    """The study file itself, to measure the same systems again (or new ones) with one
    command."""
    return HowSection(
        heading="How to reproduce: the study file",
        paragraphs=[
            "This brief was written by bench-gui from the study file below. To make it again"
            " (next quarter, or on other hardware), point its systems at the machines to"
            " measure and run: bench-gui study run FILE. Passwords are never in it: they come"
            " from the keyring or the environment variables it names.",
        ],
        code=study.text.rstrip("\n").splitlines(),
    )


def write_brief(
    study: Study, store: SessionStore, sessions: dict[str, int], folder: Path
) -> tuple[list[Path], list[str]]:
    """Write the brief; the files written and the notes for the author (not in the brief
    unless ``report.appendix``). A bad logo or date is a StudyError naming it."""
    choices = study.report
    logo = (folder / choices.logo) if choices.logo else None
    try:
        cover = check_cover(choices.author, logo, choices.date)
    except ValueError as exc:
        raise StudyError([("report.logo" if logo else "report.date", str(exc))]) from exc
    options = ReportOptions(
        latency=choices.latency,
        author_notes="appendix" if choices.appendix else "omit",
        cover=cover,
        order=tuple(choices.order),
        short_names=tuple((sessions[key], name) for key, name in choices.short_names.items()),
    )
    report = build_any_report(
        store,
        [sessions[s.key] for s in study.systems],
        sessions[study.baseline],
        study.stop,
        choices.title or study.name,
        options,
        choices.target_ops,
        parse_size(choices.dataset) if choices.dataset else None,
    )
    if choices.reproduce and study.text:
        report.how_we_tested.append(reproduce_section(study))
    paper = choices.paper or default_paper()
    written = [
        write_report(report, folder / f"{choices.output}.{fmt}", page_size=paper)
        for fmt in choices.formats
    ]
    return written, list(report.author_notes)
