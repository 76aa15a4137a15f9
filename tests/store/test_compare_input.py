"""Seed 000 rebuilt in a real session store: every printed ratio and cost comes out as printed."""

from __future__ import annotations

import pytest

from bench_gui.core.compare import CompareError, compare
from bench_gui.core.economics import economics, format_money
from bench_gui.core.saturation import StopConditions
from bench_gui.store import SessionStore
from bench_gui.store.compare_input import (
    array_from_layout,
    array_input,
    provenance,
    session_data,
)
from tests._fixtures.seed_sessions import (
    HDD_MODEL,
    SSD_MODEL,
    TABLE1,
    TABLE2,
    TABLE3,
    build_seed000,
    build_seed003,
    store_session,
    sweep,
)


def test_seed000_tables_1_to_3(store: SessionStore) -> None:
    hdd, ssd = build_seed000(store)
    c = compare([session_data(store, ssd), session_data(store, hdd)], baseline_id=hdd)
    got1, got2, got3 = {}, {}, {}
    for row in c.rows:
        vs = row.versus[ssd]
        assert vs is not None
        assert vs.nopm is not None
        assert vs.avg_ms is not None
        assert vs.p999_ms is not None
        got1[row.vus], got2[row.vus], got3[row.vus] = vs.nopm.text, vs.avg_ms.text, vs.p999_ms.text
    assert got1 == TABLE1
    assert got2 == TABLE2
    assert got3 == TABLE3
    # "Best performance and lowest latency were observed with 48 users."
    assert c.extremes(ssd, "nopm")[1][0] == 48
    assert c.saturation[ssd].vus == 48


def test_seed000_tables_4_to_6(store: SessionStore) -> None:
    hdd, ssd = build_seed000(store)
    c = compare([session_data(store, hdd), session_data(store, ssd)], hdd)
    arrays = {sid: array_input(store, store.get_run(sid)) for sid in (hdd, ssd)}
    assert (arrays[ssd].device, arrays[ssd].count) == (SSD_MODEL, 4)  # from the stored layout
    assert (arrays[hdd].device, arrays[hdd].count) == (HDD_MODEL, 16)
    e = economics(c, arrays, store.device_prices())
    assert e.arrays[ssd].arithmetic == "$1,262 x 4 = $5,048"
    assert e.arrays[hdd].cost == 3440
    assert e.arrays[hdd].computed == 3184  # Table 4
    assert e.arrays[hdd].flag is not None
    worst, best = e.cases
    table5 = (worst.vus, format_money(worst.other.cost_per_new_order or 0))
    assert table5 + (format_money(worst.baseline.cost_per_new_order or 0), worst.change) == (
        8,
        "$0.17",
        "$2.52",
        "15X lower",
    )
    assert (worst.other.nopm, worst.baseline.nopm) == (30_267, 1365)
    table6 = (best.vus, format_money(best.other.cost_per_new_order or 0))
    assert table6 + (format_money(best.baseline.cost_per_new_order or 0), best.change) == (
        48,
        "$0.06",
        "$1.15",
        "19X lower",
    )


def test_seed003_at_saturation_with_power(store: SessionStore) -> None:
    base, scaled = build_seed003(store)
    data = [session_data(store, base), session_data(store, scaled)]
    # Power came from the samples (integrated over the window) for one, the summary for the other.
    assert data[0].steps[3].power_w == pytest.approx(700.0)
    assert data[1].steps[4].power_w == 774.0
    c = compare(data, base, StopConditions(min_gain_pct=5))
    assert (c.saturation[base].vus, c.saturation[scaled].vus) == (192, 408)
    row = c.at_saturation[1]
    assert row.versus is not None
    assert row.versus.nopm is not None
    assert row.versus.mw_per_nopm is not None
    assert row.versus.nopm.text == "+35%"  # "35% higher business throughput"
    assert row.versus.mw_per_nopm.text == "18%"  # "18% less power per NOPM"


def test_configuration_differences_from_what_was_stored(store: SessionStore) -> None:
    hdd, ssd = build_seed000(store)
    c = compare([session_data(store, hdd), session_data(store, ssd)], hdd)
    differs = {(r.section, r.key): r.values for r in c.config if r.differs}
    assert differs[("Database settings", "random_page_cost")] == {hdd: "4.0", ssd: "2.0"}
    assert differs[("Storage layout", "Devices")] == {
        hdd: "16 x SAS 15K RPM HDD 300GB (SAS, HDD, FW ES64)",
        ssd: "4 x Micron S650DC 800GB (SAS, SSD, FW M012)",
    }
    assert differs[("Storage layout", "Erased with")][ssd] == "secure erase (sg_sanitize --crypto)"
    same = {(r.section, r.key) for r in c.config if not r.differs}
    assert ("Hardware", "CPU") in same
    assert ("Database settings", "shared_buffers") in same
    assert ("Workload", "Ramp-up (s)") in same


def test_sessions_without_storage_or_inventory_show_what_is_there(store: SessionStore) -> None:
    points = [{"vus": 4, "nopm": 1000, "avg": 2, "p999": 9}]
    run = store_session(store, "bare", sweep("PostgreSQL 16.4", {}, points))
    data = session_data(store, run)
    assert set(data.config) == {"Database", "Workload"}
    assert array_from_layout(None).device is None
    prov = provenance(store, run)
    assert prov.commands == []
    assert prov.erase == ""
    assert prov.measured_windows == [(4, 900.0)]


def test_a_running_session_cannot_be_compared(store: SessionStore) -> None:
    hdd, _ = build_seed000(store)
    points = [{"vus": 8, "nopm": 100, "avg": 2, "p999": 9}]
    events = sweep("PostgreSQL", {}, points)[:-2]  # no summary, no done: still going on
    running = store_session(store, "live", events, finish=False)
    with pytest.raises(CompareError, match=f"session {running} .live. is still running"):
        compare([session_data(store, hdd), session_data(store, running)], hdd)


def test_provenance_lists_commands_and_windows(store: SessionStore) -> None:
    _, ssd = build_seed000(store)
    prov = provenance(store, ssd)
    assert prov.commands[1] == "mkfs.xfs /dev/md0"
    assert prov.rampup_s == 900
    assert prov.server_version == "PostgreSQL 9.4.5"
    assert prov.config["Hardware"]["CPU"] == "2 x Intel Xeon E5-2690 v3"
