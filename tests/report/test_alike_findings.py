"""Alike findings said once (issue 28): at 12 sessions six NVMe arrays that differ only in
their device count each had the same headline in every section ("Micron 7450, 2 x 3.84TB:
99% lower average response time than HDD RAID 10 #1", six times), the same caveat, the same
bottom-line item and the same note on the figures; they are now one line each, the names
listed once and the ratios as the range they span.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from bench_gui.report import build_report, write_report
from bench_gui.report.alike import LEAST, join_names, merge_lines
from bench_gui.store import SessionStore
from tests.report.fleet import seed_like_fleet

NVME = "Micron 7450, 2, 6, 8, 10, 12 and 16 x 3.84TB"


def pdf_text(pdf: Path) -> str:
    """The PDF's text, its lines joined with single spaces (headlines wrap), ligatures as
    letters."""
    done = subprocess.run(["pdftotext", str(pdf), "-"], check=True, capture_output=True, text=True)
    return re.sub(r"\s+", " ", done.stdout).replace("\ufb01", "fi").replace("\ufb02", "fl")


def test_names_that_differ_in_a_number_are_listed_once() -> None:
    assert join_names(["Micron 7450, 2 x 3.84TB", "Micron 7450, 16 x 3.84TB"]) == (
        "Micron 7450, 2 and 16 x 3.84TB"
    )
    assert join_names(["HDD RAID 10 #1", "HDD RAID 10 #6", "HDD RAID 10 #9"]) == (
        "HDD RAID 10 #1, #6 and #9"
    )
    assert join_names(["NVMe", "SATA SSD", "Cloud gp3"]) == "NVMe, SATA SSD and Cloud gp3"


def test_alike_lines_are_said_once_with_their_range() -> None:
    names = [f"Array {n}" for n in (2, 6, 8)] + ["Other"]
    lines = [
        "Array 2 did not saturate by 32 users: there it delivers 16X the NOPM of HDD",
        "Other: 5.7X the NOPM of HDD",
        "Array 6 did not saturate by 32 users: there it delivers 30X the NOPM of HDD",
        "Array 8 did not saturate by 32 users: there it delivers 33X the NOPM of HDD",
    ]
    assert merge_lines(lines, names) == [
        "Array 2, 6 and 8 did not saturate by 32 users: there they deliver 16–33X the NOPM of HDD",
        "Other: 5.7X the NOPM of HDD",
    ]
    # Fewer than LEAST alike stay apart; lines that differ in more than a ratio stay apart.
    assert merge_lines(lines[: LEAST - 1], names) == lines[: LEAST - 1]
    apart = [f"Array {n}: 99% lower at {n} users" for n in (2, 6, 8)]
    assert merge_lines(apart, names) == apart


def test_twelve_sessions_say_each_alike_finding_once(store: SessionStore, tmp_path: Path) -> None:
    ids = seed_like_fleet(store, 12)
    report = build_report(store, ids, ids[0])
    headlines = [h for s in report.sections for h in s.headlines]
    for section in report.sections:
        alike = [h for h in section.headlines if h.startswith("Micron 7450,")]
        assert len(alike) <= 1, alike
    assert f"{NVME}: 99% lower average response time than HDD RAID 10 #1" in headlines
    assert (
        f"{NVME}: from 16–37X (with 8 users) to 19–44X (with 24 users) the new orders per"
        " minute of HDD RAID 10 #1"
    ) in headlines
    assert [b for b in report.bottom_line if b.startswith("Micron 7450,")] == [
        f"{NVME}: 19–44X the NOPM of HDD RAID 10 #1 with 24 users; 99% lower average"
        " response time with 24 users"
    ]
    unsaturated = [n for n in report.reader_notes if "did not saturate" in n]
    assert len(unsaturated) == 2, unsaturated  # the tuned S650DC, and the six NVMe arrays
    assert [f.value for f in report.facts[:6]][4] == "16X to 44X"
    # The printed brief: each sentence once, in plural where it speaks of several.
    text = pdf_text(write_report(report, tmp_path / "twelve.pdf", page_size="a4"))
    assert "Micron 7450, 6 x 3.84TB: 99% lower" not in text
    assert text.count("99% lower average response time than HDD RAID 10 #1") == 2
    assert (
        f"the limits of {NVME} lie beyond the range tested: their figures at saturation are"
        " not known from this data"
    ) in text
    assert "x 3.84TB's" not in text
