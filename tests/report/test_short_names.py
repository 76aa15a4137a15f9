"""Short names a vendor can sign (issue 28): never cut inside a parenthesis, made from what
differs between the sessions, balanced, distinct, and the author's when the author names them;
the title counts the compared sessions, not the baseline."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench_gui.cli.main import main
from bench_gui.report import build_report
from bench_gui.report.model import Report
from bench_gui.report.names import check_short_names, parse_short_names, short_names
from bench_gui.report.options import ReportOptions
from bench_gui.store import SessionStore
from tests._fixtures.seed_sessions import (
    HDD_SETTINGS,
    build_seed000,
    seed000_points,
    store_session,
    sweep,
)

PG15 = "PostgreSQL 15.8 on x86_64-pc-linux-gnu"
SLOW = "HDD RAID 10 (150 IOPS throttled loop device), PostgreSQL 15"
MICRON = "Micron S650DC RAID 10 (4 x 800GB), PostgreSQL 9.4 tuned for SSD"


def _session(store: SessionStore, name: str, side: int = 1, scale: float = 1.0) -> int:
    points = [{**p, "nopm": p["nopm"] * scale} for p in seed000_points(side)]
    return store_session(store, name, sweep(PG15, HDD_SETTINGS, points))


def _printed_names(report: Report) -> list[str]:
    """Every place a short name is printed: title, legends, table headers, the bottom line."""
    texts = [report.title, *report.bottom_line]
    for table in report.tables.values():
        texts += [col.replace("\n", " ") for col in table.columns]
    for chart in report.charts.values():
        texts += [s.label for s in chart.series]
    return texts


def _balanced(text: str) -> bool:
    return text.count("(") == text.count(")")


def test_a_parenthesis_is_never_cut(store: SessionStore) -> None:
    slow = _session(store, SLOW)
    fast = _session(store, MICRON, side=0)
    report = build_report(store, [slow, fast], slow)
    assert report.short == {slow: "HDD RAID 10", fast: "Micron S650DC RAID 10"}
    printed = _printed_names(report)
    assert all(_balanced(t) for t in printed), [t for t in printed if not _balanced(t)]
    assert not any("(150 IOPS" in t and "device)" not in t for t in printed)
    assert not any(re.search(r"\(4 x\b(?! 800GB\))", t) for t in printed)
    assert report.title == "Micron S650DC RAID 10 vs HDD RAID 10: OLTP performance"


def test_names_that_differ_by_one_word_keep_what_they_are(store: SessionStore) -> None:
    plain = _session(store, SLOW)
    tuned = _session(store, SLOW + " tuned", scale=1.1)
    report = build_report(store, [plain, tuned], plain)
    assert report.short == {plain: "PostgreSQL 15", tuned: "PostgreSQL 15 tuned"}
    assert any("PostgreSQL 15 tuned" in line for line in report.bottom_line)
    # Without the comma, and as a trailing part of its own: still a product and its version.
    assert short_names({1: SLOW.replace(",", ""), 2: SLOW.replace(",", "") + " tuned"}) == {
        1: "PostgreSQL 15",
        2: "PostgreSQL 15 tuned",
    }
    assert short_names({1: SLOW, 2: SLOW + ", tuned"}) == {
        1: "HDD RAID 10",
        2: "HDD RAID 10, tuned",
    }


def test_identical_names_keep_their_words_and_add_the_session(store: SessionStore) -> None:
    first = _session(store, SLOW)
    second = _session(store, SLOW, scale=1.01)
    report = build_report(store, [first, second], first)
    assert report.short == {first: f"HDD RAID 10 #{first}", second: f"HDD RAID 10 #{second}"}
    assert not any(s.startswith("(#") for s in report.short.values())


def test_what_sets_them_apart_inside_a_parenthesis_is_kept() -> None:
    short = short_names(
        {
            1: "HDD RAID 10 (sixteen 15,000 RPM 300GB SAS disks)",
            2: "HDD RAID 10 (eight 15,000 RPM 300GB SAS disks)",
        }
    )
    assert short == {1: "HDD RAID 10, sixteen 15,000", 2: "HDD RAID 10, eight 15,000"}


def test_the_title_counts_the_compared_sessions(store: SessionStore) -> None:
    hdd, ssd = build_seed000(store)
    third = _session(store, "NVMe RAID 10 (4 x 3.84TB)", side=0, scale=1.2)
    report = build_report(store, [hdd, ssd, third], hdd)
    assert report.title.startswith("2 configurations vs HDD RAID 10")


def test_the_author_names_the_sessions(store: SessionStore) -> None:
    hdd, ssd = build_seed000(store)
    options = ReportOptions(short_names=((hdd, "16 x 15K HDD"), (ssd, "4 x S650DC")))
    report = build_report(store, [hdd, ssd], hdd, options=options)
    assert report.short == {hdd: "16 x 15K HDD", ssd: "4 x S650DC"}
    assert report.title == "4 x S650DC vs 16 x 15K HDD: OLTP performance and economics"
    assert any("4 x S650DC" in line for line in report.bottom_line)


def test_bad_short_names_are_named() -> None:
    with pytest.raises(ValueError, match="ID=NAME"):
        parse_short_names(["HDD"])
    with pytest.raises(ValueError, match="two short names"):
        parse_short_names(["3=a", "3=b"])
    with pytest.raises(ValueError, match="#9, which the report does not compare"):
        check_short_names({9: "x"}, [1, 2])
    with pytest.raises(ValueError, match="empty"):
        check_short_names({1: "  "}, [1, 2])
    with pytest.raises(ValueError, match="#1 and #2 would both be called"):
        check_short_names({1: "HDD", 2: "hdd"}, [1, 2])
    with pytest.raises(ValueError, match="characters"):
        check_short_names({1: "x" * 41}, [1, 2])


def test_the_command_line_takes_short_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sessions.sqlite3"
    with SessionStore(path) as store:
        hdd, ssd = build_seed000(store)
    args = ["--db", str(path), "compare", str(hdd), str(ssd), "--json"]
    assert main([*args, "--short-name", f"{ssd}=4 x S650DC"]) == 0
    out = capsys.readouterr().out
    assert '"4 x S650DC vs HDD RAID 10: OLTP performance and economics"' in out
    assert main([*args, "--short-name", "77=x"]) != 0
    assert "#77, which the report does not compare" in capsys.readouterr().err


def test_counts_and_numbers_stay_with_their_devices() -> None:
    """At 12 sessions '2 x SATA SSD mirror' lost its '2 x' to a name sharing 'PostgreSQL 16
    on 2 x', and '10 x Micron 7450 NVMe RAID 10' lost the '10' of 'RAID 10'."""
    names = {
        3: "PostgreSQL 16 on 4 x Micron 7450 NVMe RAID 10 with tuned settings",
        4: "PostgreSQL 16 on 2 x SATA SSD mirror, default settings",
    }
    for i, n in enumerate((2, 6, 8, 10, 12, 16)):
        names[7 + i] = f"PostgreSQL 16 on {n} x Micron 7450 NVMe RAID 10"
    short = short_names(names)
    assert short[4] == "2 x SATA SSD mirror"
    assert short[7] == "2 x Micron 7450 NVMe RAID 10"
    assert short[10] == "10 x Micron 7450 NVMe RAID 10"
    assert not any(s.endswith("RAID") for s in short.values())


SEED_LIKE = [
    "HDD RAID 10 (16 x Seagate 15K 300GB), PostgreSQL 15",
    "Micron S650DC RAID 10 (4 x 800GB), PostgreSQL 15",
    "Micron S650DC RAID 10 (4 x 800GB), PostgreSQL 15 tuned",
    "SATA SSD mirror (2 x Samsung PM883 960GB), PostgreSQL 16",
    "Cloud volume gp3 (3000 IOPS, 125 MB/s), PostgreSQL 16",
    "HDD RAID 10 (16 x Seagate 15K 300GB), PostgreSQL 15",
] + [f"Micron 7450 NVMe RAID 10 ({n} x 3.84TB), PostgreSQL 16" for n in (2, 6, 8, 10, 12, 16)]


def test_two_sessions_on_one_array_keep_the_array_beside_the_others() -> None:
    """At four sessions the two Micron runs were "PostgreSQL 15" and "PostgreSQL 15 tuned"
    beside "HDD RAID 10, PostgreSQL 15": they read as engines, not as an array."""
    short = short_names(dict(enumerate(SEED_LIKE[:4], 1)))
    assert short == {
        1: "HDD RAID 10",
        2: "Micron S650DC RAID 10",
        3: "Micron S650DC RAID 10, tuned",
        4: "SATA SSD mirror",
    }
    two_engines = short_names(
        {
            1: SEED_LIKE[1],
            2: SEED_LIKE[1].replace("PostgreSQL 15", "PostgreSQL 16"),
            3: SEED_LIKE[0],
        }
    )
    assert two_engines == {
        1: "Micron S650DC, PostgreSQL 15",
        2: "Micron S650DC, PostgreSQL 16",
        3: "HDD RAID 10",
    }


@pytest.mark.parametrize("count", [2, 4, 6, 12])
def test_seed_like_names_keep_their_storage_at_every_count(count: int) -> None:
    short = short_names(dict(enumerate(SEED_LIKE[:count], 1)))
    for text in short.values():
        assert not text.startswith("PostgreSQL"), short  # never the engine alone
        assert " ," not in text, short
        assert len(text) <= 32, short
    assert len(set(short.values())) == count
    if count == 12:
        assert short[7] == "Micron 7450, 2 x 3.84TB"


def test_sessions_on_one_array_read_alike_at_twelve() -> None:
    """At 12 seed-like sessions the S650DC runs read "S650DC RAID 10 4 x 800GB" beside
    "Micron S650DC RAID 10, tuned", the 7450 arrays "Micron 7450 NVMe, 2 x 3.84TB" beside
    "Micron 7450, 10 x 3.84TB", and every name kept its parenthesis as words ("SATA SSD mirror
    2 x Samsung") because the 7450 names needed theirs."""
    short = short_names(dict(enumerate(SEED_LIKE, 1)))
    assert short[2] == "Micron S650DC RAID 10"
    assert short[3] == "Micron S650DC RAID 10, tuned"
    assert (short[4], short[5]) == ("SATA SSD mirror", "Cloud volume gp3")
    family = [short[sid] for sid in range(7, 13)]
    assert {name.split(", ")[0] for name in family} == {"Micron 7450"}, family
    assert [name.split(", ")[1] for name in family] == [
        f"{n} x 3.84TB" for n in (2, 6, 8, 10, 12, 16)
    ]
    # A first part too long for a header is cut the same way for both runs on the array.
    long = short_names(
        {
            1: "Micron S650DC RAID 10 4 x 800GB SAS, PostgreSQL 15",
            2: "Micron S650DC RAID 10 4 x 800GB SAS, PostgreSQL 15 tuned",
            3: "HDD RAID 10 16 x 300GB, PostgreSQL 15",
        }
    )
    assert long[1] == "Micron S650DC RAID 10"
    assert long[2] == "Micron S650DC RAID 10, tuned"
