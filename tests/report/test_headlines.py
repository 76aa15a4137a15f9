"""Saturation said as measured: not reached within the range, reached at the first step, or
reached; a ratio between unlike loads says so (issue 14: "13X NOPM at saturation" compared an
SSD still rising at 32 users with an HDD at 4 users)."""

from __future__ import annotations

from pathlib import Path

from bench_gui.core.compare import Ratio
from bench_gui.core.saturation import LoadPoint, Saturation, StopConditions, find_saturation
from bench_gui.report import build_report, write_charts
from bench_gui.report.headlines import claim, sentence, state, users_cell
from bench_gui.store import SessionStore
from tests._fixtures.seed_sessions import store_session, sweep
from tests.report.fleet import FIRST_STEP, NEVER_SATURATES, PG16, fleet, points


def sat_of(rows: list[tuple[int, float, float, float]]) -> Saturation:
    return find_saturation([LoadPoint(v, n, a, p) for v, n, a, p in rows], StopConditions())


HDD_AT_4 = [(4, 6_000, 20.0, 200.0), (8, 6_100, 40.0, 400.0), (16, 6_050, 80.0, 800.0)]


def test_the_words_for_each_case() -> None:
    ssd, hdd = sat_of(NEVER_SATURATES), sat_of(HDD_AT_4)
    assert (state(ssd), users_cell(ssd)) == ("not_reached", "not reached by 32")
    assert (state(hdd), users_cell(hdd)) == ("first_step", "4 (first step)")
    assert sentence("SSD", ssd) == (
        "SSD did not saturate within the range tested: not reached by 32 users (NOPM still"
        " +10.6% at the last step)."
    )
    assert sentence("HDD", hdd) == (
        "HDD saturates at the first load tested (4 users): the range started too high to show"
        " where its limit is."
    )
    reached = sat_of([(4, 1000, 1, 9), (8, 1900, 1, 9), (16, 1950, 1, 9)])
    assert (state(reached), users_cell(reached), sentence("X", reached)) == (
        "reached",
        "8",
        "X saturates at 8 users.",
    )
    one = sat_of([(8, 1000, 1, 9)])
    assert users_cell(one) == "one load only (8)"
    assert sentence("X", one) == "X was measured at one load only (8 users): no saturation point."


def test_a_ratio_against_an_unsaturated_sweep_is_no_ratio_at_saturation() -> None:
    ssd, hdd = sat_of(NEVER_SATURATES), sat_of(HDD_AT_4)
    found = claim("SSD", ssd, "HDD", hdd, Ratio(13.8, "13X"))
    assert found.headline == (
        "SSD did not saturate by 32 users: there it delivers 13X the NOPM of HDD at its"
        " saturation point (4 users)"
    )
    assert "at saturation" not in found.headline.replace("its saturation point", "")
    assert "This compares different loads" in found.caveat
    assert "HDD saturated at the first load tested (4 users)" in found.caveat
    assert not found.like_for_like
    assert (found.fact_value, found.fact_text) == ("13X", "NOPM, SSD not saturated")
    back = claim("HDD", hdd, "SSD", ssd, Ratio(0.07, "-92%"))
    assert back.headline.startswith("SSD did not saturate by 32 users: HDD at its saturation")
    both = claim("A", ssd, "B", ssd, Ratio(1.0, "±0%"))
    assert both.headline.startswith("Neither A nor B saturated within the range tested")
    reached = sat_of([(4, 1000, 1, 9), (8, 1900, 1, 9), (16, 1950, 1, 9)])
    like = claim("A", reached, "B", reached, Ratio(1.35, "+35%"))
    assert like.headline == "A: 35% more NOPM than B at saturation (8 against 8 users)"
    assert (like.caveat, like.like_for_like, like.fact_text) == ("", True, "at saturation")


def test_the_report_never_calls_a_last_step_a_saturation_point(
    store: SessionStore, tmp_path: Path
) -> None:
    hdd = store_session(store, "HDD", sweep(PG16, {}, points(HDD_AT_4), 300, 600))
    ssd = store_session(store, "SSD", sweep(PG16, {}, points(NEVER_SATURATES), 300, 600))
    r = build_report(store, [hdd, ssd], hdd)
    section = next(s for s in r.sections if s.key == "saturation")
    assert section.headlines == [
        "SSD did not saturate by 32 users: there it delivers 13X the NOPM of HDD at its"
        " saturation point (4 users)"
    ]
    assert any("This compares different loads" in m for m in section.messages)
    facts = {f.text: f for f in r.facts}
    assert "NOPM at saturation" not in facts
    assert facts["NOPM, SSD not saturated"].value == "13X"
    table = r.tables["saturation"]
    users = {row[0].text: row[1] for row in table.rows}
    assert (users["SSD"].text, users["SSD"].tone) == ("not reached by 32", "flag")
    assert (users["HDD (baseline)"].text, users["HDD (baseline)"].tone) == (
        "4 (first step)",
        "flag",
    )
    series = {s.label: s for s in r.charts["nopm"].series}
    assert (series["SSD"].saturation, series["SSD"].unsaturated) == (None, 32)
    assert (series["HDD"].saturation, series["HDD"].unsaturated) == (4, None)
    assert any("SSD did not saturate within the range tested" in n for n in r.reader_notes)
    assert any("HDD saturates at the first load tested" in n for n in r.reader_notes)
    svg = write_charts(r, tmp_path, "svg")[0].read_text()
    assert "not saturated (heaviest load tested)" in svg
    assert "saturation point" in svg


def test_four_configurations_each_said_as_measured(store: SessionStore) -> None:
    ids = fleet(store, 4)
    r = build_report(store, ids, ids[0])
    headlines = next(s for s in r.sections if s.key == "saturation").headlines
    assert (
        headlines[0]
        == "S650DC RAID 10: 29X the NOPM of HDD RAID 10 at saturation (48 against 48 users)"
    )
    assert headlines[1].startswith("4 x Micron 7450 NVMe RAID 10 did not saturate by 32 users:")
    assert (
        headlines[2]
        == "2 x SATA SSD mirror: 3.0X the NOPM of HDD RAID 10 at saturation (4 against 48 users)"
    )
    assert FIRST_STEP[0][0] == 4


def test_one_load_is_no_load_a_sweep_outlasted() -> None:
    """A HammerDB import of one 4-user job against a sweep saturated at its first step (4
    users) read "4 VU did not saturate by 4 users" and "This compares different loads"."""
    one, first = sat_of([(4, 28_937, 1, 9)]), sat_of(HDD_AT_4)
    found = claim("4/8/16 VU", first, "4 VU", one, Ratio(1.61, "+61%"))
    assert found.headline == (
        "4 VU was measured at one load only (4 users): 4/8/16 VU at its saturation point"
        " (4 users) delivers 61% more NOPM than 4 VU at 4 users"
    )
    assert "did not saturate" not in found.headline
    assert "different loads" not in found.caveat
    assert found.caveat.startswith(
        "Both are at 4 users, but 4 VU's limit is not known (one load measured)"
    )
    assert (found.fact_text, found.fact_detail) == (
        "NOPM, 4 VU one load only",
        "4/8/16 VU at 4 users; 4 VU at 4 (one load measured)",
    )
    both = claim("A", one, "B", sat_of(NEVER_SATURATES), Ratio(1.3, "+30%"))
    assert both.headline.startswith("Neither A nor B has a saturation point in the loads tested")
    assert both.caveat == (
        "A's limit is not known (one load measured); B's limit lies beyond the range tested:"
        " this is no comparison at saturation."
    )
