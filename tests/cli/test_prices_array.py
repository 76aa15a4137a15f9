"""``prices array``: a hand-entered cost that disagrees with unit price x count is said at entry
(and stored as entered); ``prices array list`` shows every array entered by hand, checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench_gui.cli.main import main
from bench_gui.store import SessionStore
from tests._fixtures.seed_sessions import HDD_MODEL, build_seed000

DISAGREES = "the hand-entered array cost $3,440 disagrees with unit price x count: $199 x 16"


@pytest.fixture
def db(tmp_path: Path) -> tuple[Path, int, int]:
    """Seed 000's sessions (the HDD array: 16 x the HDD model, from its layout), no prices."""
    path = tmp_path / "sessions.sqlite3"
    with SessionStore(path) as store:
        hdd, ssd = build_seed000(store, prices=False)
    return path, hdd, ssd


def run(db: Path, *args: str) -> int:
    return main(["--db", str(db), "prices", *args])


def test_a_disagreeing_cost_is_said_at_entry_and_stored(
    db: tuple[Path, int, int], capsys: pytest.CaptureFixture[str]
) -> None:
    path, hdd, _ssd = db
    assert run(path, "device", "add", HDD_MODEL, "199", "--date", "2015-06-01") == 0
    capsys.readouterr()
    assert run(path, "array", str(hdd), "--cost", "3440", "--currency", "USD") == 0
    out = capsys.readouterr()
    assert out.out.strip() == f"session {hdd}: array recorded"
    assert f"warning: session {hdd}: {DISAGREES} = $3,184 (stored as entered)" in out.err
    with SessionStore(path) as store:
        array = store.run_array(hdd)
    assert array is not None
    assert array.hand_cost == 3440.0
    # A cost that agrees is stored without a word.
    assert run(path, "array", str(hdd), "--cost", "3184", "--currency", "USD") == 0
    assert capsys.readouterr().err == ""


def test_a_price_added_later_checks_the_costs_entered_before(
    db: tuple[Path, int, int], capsys: pytest.CaptureFixture[str]
) -> None:
    path, hdd, _ssd = db
    assert run(path, "array", str(hdd), "--cost", "3440", "--currency", "USD") == 0
    err = capsys.readouterr().err
    assert "no price of SAS 15K RPM HDD 300GB in the price list" in err
    assert run(path, "device", "add", HDD_MODEL, "199") == 0
    assert f"warning: session {hdd}: {DISAGREES}" in capsys.readouterr().err
    assert run(path, "device", "add", "Another disk", "10") == 0
    assert capsys.readouterr().err == ""


def test_array_list(db: tuple[Path, int, int], capsys: pytest.CaptureFixture[str]) -> None:
    path, hdd, ssd = db
    assert run(path, "array", "list") == 0
    assert "no array entered by hand" in capsys.readouterr().out
    assert run(path, "device", "add", HDD_MODEL, "199") == 0
    assert run(path, "array", str(hdd), "--cost", "3440", "--currency", "USD") == 0
    assert run(path, "array", str(ssd), "--device", "Micron S650DC 800GB", "--count", "4") == 0
    capsys.readouterr()
    assert run(path, "array", "list") == 0
    text = capsys.readouterr().out
    assert "$3,440 (entered by hand); price list: $199 x 16 = $3,184" in text
    assert f"warning: {DISAGREES}" in text
    assert "no price for device 'Micron S650DC 800GB'" in text
    assert run(path, "array", "list", "--json") == 0
    rows = {row["session"]: row for row in json.loads(capsys.readouterr().out)}
    assert set(rows) == {hdd, ssd}
    assert (rows[hdd]["device"], rows[hdd]["count"], rows[hdd]["computed"]) == (
        HDD_MODEL,
        16,
        3184.0,
    )
    assert rows[hdd]["cost"] == 3440.0
    assert rows[hdd]["flag"].startswith(DISAGREES)
    assert rows[ssd]["cost"] is None
    assert rows[ssd]["flag"] is None


def test_bad_array_arguments(db: tuple[Path, int, int], capsys: pytest.CaptureFixture[str]) -> None:
    path, _hdd, _ssd = db
    assert run(path, "array", "lists") == 2
    assert "prices array takes a session id or 'list', got 'lists'" in capsys.readouterr().err
    assert run(path, "array", "list", "--cost", "5") == 2
    assert "takes no other option than --json" in capsys.readouterr().err
    assert run(path, "array", "77", "--cost", "5") == 1
    assert "no session with id 77" in capsys.readouterr().err
