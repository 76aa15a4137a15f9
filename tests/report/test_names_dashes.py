"""Short names never end (or start) with a dash: an em or en dash left over where the shared
part of the names ("PostgreSQL 16") was cut away used to trail them in every table header."""

from __future__ import annotations

import pytest

from bench_gui.report.names import short_names

DASHES = ("-", "–", "—")


@pytest.mark.parametrize("dash", DASHES)
def test_no_trailing_dash_where_the_shared_part_is_cut(dash: str) -> None:
    short = short_names(
        {
            1: f"4 x Micron 7450 NVMe RAID 10 {dash} PostgreSQL 16",
            2: f"16 x SAS 15K HDD RAID 10 {dash} PostgreSQL 16",
        }
    )
    assert short == {1: "4 x Micron 7450 NVMe RAID 10", 2: "16 x SAS 15K HDD RAID 10"}


def test_a_name_cut_at_its_em_dash() -> None:
    short = short_names({1: "NVMe RAID 10 — PostgreSQL 16", 2: "SATA SSD RAID 10 — PostgreSQL 16"})
    assert short[2] == "SATA SSD RAID 10"
    assert not any(s.rstrip().endswith(DASHES) or s.startswith(DASHES) for s in short.values())


def test_a_shared_lead_with_an_em_dash_is_cut_cleanly() -> None:
    short = short_names(
        {
            1: "PostgreSQL 16 — 4 x Micron 7450 NVMe RAID 10, tuned",
            2: "PostgreSQL 16 — 16 x SAS 15K HDD RAID 10, tuned",
        }
    )
    assert short == {1: "4 x Micron 7450 NVMe RAID 10", 2: "16 x SAS 15K HDD RAID 10"}
