"""One array, one price in a brief (issue 28): a repeat of the baseline measured the baseline's
array again, so it takes the price the author gave that array ($3,440 in seed 000), not unit
price x count ($3,184), which read "9% lower" cost per new order for the same array; its
difference from the baseline is noise, never coloured nor counted as a finding."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench_gui.cli.main import main
from bench_gui.core.economics import ArrayInput
from bench_gui.report import build_report
from bench_gui.report.options import ReportOptions
from bench_gui.store import SessionStore
from tests._fixtures.seed_sessions import build_seed000
from tests.report.fleet import hdd_repeat


def test_a_repeat_of_the_baseline_takes_the_baseline_arrays_price(store: SessionStore) -> None:
    hdd, ssd = build_seed000(store)
    again = hdd_repeat(store, 1.02)
    report = build_report(store, [hdd, ssd, again], hdd)
    assert report.comparison.baseline_repeats == (again,)
    arrays = report.economics.arrays
    assert arrays[hdd].cost == arrays[again].cost == 3440.0
    assert arrays[again].priced_as == hdd
    assert arrays[hdd].priced_as is None
    assert arrays[ssd].priced_as is None
    # The author is told why the repeat is not priced by its own unit price x count.
    assert any(
        f"session {again}" in m
        and f"repeats session {hdd}" in m
        and "priced as that array, $3,440, not $3,184" in m
        for m in report.economics.messages
    ), report.economics.messages

    table = report.tables["array_cost"]
    row = next(r for r in table.rows if r[0].text == report.short[again])
    assert row[4].text == "$3,440 ⚑"
    assert row[5].text == f"as {report.short[hdd]}: the same array, measured again"

    # Every cost per new order vs the baseline of the repeat is its NOPM noise (2%), uncoloured.
    cost = report.tables["cost_per_new_order"]
    column = cost.columns.index(f"{report.short[again]}\nCost per new order\nvs baseline")
    changes = {r[column].text for r in cost.rows}
    assert changes <= {"1% lower", "2% lower", "1.9% lower", "1.8% lower", "1.7% lower"}, changes
    assert {r[column].tone for r in cost.rows} == {""}
    assert not any(c.other_id == again for c in report.economics.cases)
    assert all(r[0].text == report.short[ssd] for r in report.tables["economics_cases"].rows)

    # The flag of the $3,440 is said once, for the array and its repeat.
    flagged = [n for n in report.reader_notes if "$3,440" in n]
    assert flagged == [
        f"⚑ The {report.short[hdd]} (and its repeat {report.short[again]}) array cost used"
        " below, $3,440, was given by the author and disagrees with its unit price x count"
        " ($199 x 16 = $3,184); the economics use $3,440."
    ]
    # NOPM and response-time differences of the repeat are not coloured as findings.
    throughput = report.tables["throughput"]
    ratio = throughput.columns.index(f"{report.short[again]}\nNOPM ratio")
    assert {r[ratio].tone for r in throughput.rows} == {""}
    title = f"{report.short[ssd]} vs {report.short[hdd]}: OLTP performance and economics"
    assert report.title == title


def test_the_price_the_author_gave_a_repeat_prices_its_array(store: SessionStore) -> None:
    """Given on the repeat only, the author's cost is the array's for both sessions."""
    hdd, _ssd = build_seed000(store)
    store.set_run_array(hdd, None)
    again = hdd_repeat(store, 0.99)
    store.set_run_array(again, ArrayInput(hand_cost=3440.0, currency="USD"))
    report = build_report(store, [hdd, again], hdd)
    arrays = report.economics.arrays
    assert arrays[hdd].cost == arrays[again].cost == 3440.0
    assert arrays[hdd].priced_as == again
    assert report.title == f"{report.short[hdd]} and its repeat: OLTP performance and economics"


def test_declared_repeats_share_one_price(store: SessionStore) -> None:
    hdd, ssd = build_seed000(store)
    ssd_again = hdd_repeat(store, 1.0, "S650DC RAID 10, second run")
    options = ReportOptions(repeats=((ssd, ssd_again),))
    store.set_run_array(ssd_again, ArrayInput(hand_cost=5000.0, currency="USD"))
    report = build_report(store, [hdd, ssd, ssd_again], hdd, options=options)
    arrays = report.economics.arrays
    # The first session of the set the author priced sets the price: the second run's $5,000.
    assert arrays[ssd].cost == arrays[ssd_again].cost == 5000.0
    assert arrays[ssd].priced_as == ssd_again


def test_the_command_line_brief_prices_the_repeat_as_its_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sessions.sqlite3"
    with SessionStore(path) as store:
        hdd, ssd = build_seed000(store)
        again = hdd_repeat(store, 1.02)
    out = tmp_path / "brief.json"
    db = ["--db", str(path)]
    assert main([*db, "compare", str(hdd), str(ssd), str(again), "--report", str(out)]) == 0
    err = capsys.readouterr().err
    assert "priced as that array, $3,440, not $3,184" in err
    text = out.read_text()
    assert "9% lower" not in text
