"""A repeat of the baseline compared against the baseline (issue 28): a difference that prints
as none ("0%", "±0%", "0% lower") is coloured neither better nor worse; only a printed change is."""

from __future__ import annotations

import re
from pathlib import Path

from bench_gui.report import build_report, write_report
from bench_gui.report.parts import change_tone
from bench_gui.store import SessionStore
from tests._fixtures.seed_sessions import build_seed000
from tests.report.test_honest_brief import _hdd_again


def _no_change(text: str) -> bool:
    return any(ch.isdigit() for ch in text) and not any(ch in "123456789" for ch in text)


def test_a_zero_difference_is_not_coloured_as_worse(store: SessionStore, tmp_path: Path) -> None:
    hdd, _ssd = build_seed000(store)
    again = _hdd_again(store, 1.0)  # the baseline's figures again: every difference is zero
    report = build_report(store, [hdd, again], hdd)
    zeros = [
        (table.key, cell.text, cell.tone)
        for table in report.tables.values()
        for row in table.rows
        for cell in row[1:]
        if _no_change(cell.text) and cell.text.rstrip().endswith(("%", "lower", "higher"))
    ]
    assert zeros, "the repeat's columns print no zero difference"
    assert all(tone == "" for _key, _text, tone in zeros), zeros
    html = write_report(report, tmp_path / "repeat.html").read_text(encoding="utf-8")
    printed = re.findall(r'class="([^"]*)">(±?0%[^<]*)</td>', html)
    assert printed, "the HTML prints no zero difference"
    assert not [cls for cls, _text in printed if "bad" in cls.split()], printed


def test_a_printed_change_keeps_its_colour() -> None:
    assert change_tone(0.27, "+27%") == "good"
    assert change_tone(-0.12, "-12%") == "bad"
    assert change_tone(-0.004, "0%") == ""  # truncated to zero: no change printed
    assert change_tone(0.0, "±0%") == ""
    assert change_tone(-0.005, "0% higher") == ""
    assert change_tone(20.0, "21X lower") == "good"
