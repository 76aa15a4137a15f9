"""Tags, notes, prices and hand-entered arrays in the session store (schema migration 2)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bench_gui.core.economics import ArrayInput, DevicePrice, PowerPrice
from bench_gui.core.plan_model import Plan
from bench_gui.store import SCHEMA_VERSION, SessionNotFound, SessionStore, sessions


def new_run(store: SessionStore, name: str = "SSD RAID 10") -> int:
    plan = Plan(name=name)
    return store.create_run(name, plan.to_dict(), plan.to_toml(), {"kind": "demo"}, "postgresql")


def test_a_version_1_file_is_upgraded_and_keeps_its_runs(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)
    for statement in sessions.MIGRATIONS[0]:
        conn.execute(statement)
    conn.execute(
        "INSERT INTO runs (name, created_at, engine, app_version, plan, plan_toml, target)"
        " VALUES ('old run', '2025-01-01T00:00:00+00:00', 'postgresql', '0.0.1', '{}', '', '{}')"
    )
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    with SessionStore(path) as store:
        assert [r.name for r in store.list_runs()] == ["old run"]
        assert store.set_tags(1, ["kept"]) == ["kept"]
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        conn.close()


def test_tags(store: SessionStore) -> None:
    run = new_run(store)
    assert store.tags(run) == []
    assert store.set_tags(run, ["ssd", " RAID 10 ", "SSD", ""]) == ["RAID 10", "ssd"]
    assert store.add_tags(run, ["raid 10", "booth"]) == ["booth", "RAID 10", "ssd"]
    assert store.remove_tags(run, ["BOOTH"]) == ["RAID 10", "ssd"]
    other = new_run(store, "HDD")
    store.add_tags(other, ["ssd"])
    assert store.all_tags() == [("RAID 10", 1), ("ssd", 2)]
    with pytest.raises(ValueError, match="comma"):
        store.set_tags(run, ["a,b"])
    with pytest.raises(SessionNotFound):
        store.set_tags(999, ["x"])


def test_notes_and_search(store: SessionStore) -> None:
    ssd = new_run(store, "S650DC RAID 10")
    hdd = new_run(store, "HDD RAID 10")
    store.set_note(ssd, "  secure erased before the run  ")
    assert store.note(ssd) == "secure erased before the run"
    assert store.note(hdd) == ""
    store.add_tags(hdd, ["legacy"])
    assert [r.id for r in store.find_runs("ERASED")] == [ssd]
    assert [r.id for r in store.find_runs("raid")] == [hdd, ssd]
    assert [r.id for r in store.find_runs(tag="LEGACY")] == [hdd]
    assert [r.id for r in store.find_runs("legacy")] == [hdd]
    assert [r.id for r in store.find_runs(f"#{ssd}")] == [ssd]
    assert store.annotations() == {ssd: ([], "secure erased before the run"), hdd: (["legacy"], "")}
    store.set_note(ssd, "")
    assert store.note(ssd) == ""


def test_deleting_a_run_deletes_its_annotations(store: SessionStore) -> None:
    run = new_run(store)
    store.add_tags(run, ["x"])
    store.set_note(run, "y")
    store.set_run_array(run, ArrayInput("Micron S650DC 800GB", 4))
    store.delete_run(run)
    assert store.annotations() == {}
    assert store.all_tags() == []


def test_device_prices(store: SessionStore) -> None:
    first = store.add_device_price(DevicePrice("Micron S650DC 800GB", 1262, "usd", "2015-06-01"))
    store.add_device_price(DevicePrice("SAS 15K RPM HDD 300GB", 199, "USD", "", "web shops"))
    assert [p.device for p in store.device_prices()] == [
        "Micron S650DC 800GB",
        "SAS 15K RPM HDD 300GB",
    ]
    assert store.device_prices()[0].currency == "USD"
    store.delete_device_price(first)
    assert len(store.device_prices()) == 1
    with pytest.raises(KeyError, match="no device price with id"):
        store.delete_device_price(first)
    with pytest.raises(ValueError, match="cannot be negative"):
        store.add_device_price(DevicePrice("x", -1))
    with pytest.raises(ValueError, match="currency is a code"):
        store.add_device_price(DevicePrice("x", 1, "US dollars"))
    with pytest.raises(ValueError, match="YYYY-MM-DD"):
        store.add_device_price(DevicePrice("x", 1, "USD", "last week"))
    with pytest.raises(ValueError, match="device's name"):
        store.add_device_price(DevicePrice(" ", 1))


def test_power_prices(store: SessionStore) -> None:
    assert store.power_price() is None
    store.add_power_price(PowerPrice(0.15, "EUR", "2024-01-01", "tariff A"))
    store.add_power_price(PowerPrice(0.12, "USD", "2019-09-01", "utility"))
    current = store.power_price()
    assert current is not None
    assert (current.per_kwh, current.currency) == (0.15, "EUR")  # the latest date
    entry = store.power_price_entries()[0]
    store.delete_power_price(entry.id)
    assert len(store.power_price_entries()) == 1


def test_run_arrays(store: SessionStore) -> None:
    run = new_run(store)
    assert store.run_array(run) is None
    store.set_run_array(run, ArrayInput(hand_cost=3440, currency="usd", note="quote"))
    array = store.run_array(run)
    assert array == ArrayInput(None, None, 3440.0, "USD", "hand", "quote")
    store.set_run_array(run, ArrayInput("SAS 15K RPM HDD 300GB", 16))
    assert store.run_arrays([run]) == {run: ArrayInput("SAS 15K RPM HDD 300GB", 16, origin="hand")}
    store.set_run_array(run, None)
    assert store.run_arrays([run]) == {}
    with pytest.raises(ValueError, match="at least 1"):
        store.set_run_array(run, ArrayInput("x", 0))


def test_text_that_cannot_be_stored_is_refused_by_name(store: SessionStore) -> None:
    """A lone surrogate (undecodable bytes from a command line) is refused with a message that
    names the field, and nothing is changed."""
    run_id = new_run(store, "kept")
    bad = "ssd\udcff"
    with pytest.raises(ValueError, match=r"session name has a character .*\\udcff"):
        store.rename_run(run_id, bad)
    with pytest.raises(ValueError, match="tag has a character"):
        store.add_tags(run_id, [bad])
    with pytest.raises(ValueError, match="note has a character"):
        store.set_note(run_id, bad)
    assert store.get_run(run_id).name == "kept"
    assert store.tags(run_id) == []
