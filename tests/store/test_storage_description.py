"""The storage a user describes for a session bench-gui did not build: stored as entered, marked
as such, changed in parts from the command line, refused with a reason when it is wrong."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench_gui.cli.main import main
from bench_gui.store import SessionNotFound, SessionStore


def new_run(store: SessionStore) -> int:
    run_id = store.create_run("HDD array", {}, "", {}, "postgresql")
    store.finish_run(run_id, "complete")
    return run_id


def test_description_is_stored_as_entered_by_the_user(store: SessionStore) -> None:
    run_id = new_run(store)
    assert store.storage_description(run_id) is None
    found = store.set_storage_description(
        run_id, devices=" Seagate  Exos X18 16TB ", count=16, raid="RAID 10", filesystem="xfs"
    )
    assert found == store.storage_description(run_id)
    assert found["devices"] == "Seagate Exos X18 16TB"
    assert (found["count"], found["raid"], found["raid_text"]) == (16, "10", "RAID 10")
    assert found["text"] == "16 x Seagate Exos X18 16TB, RAID 10, xfs"
    assert found["source"] == "user"
    replaced = store.set_storage_description(run_id, raid="none", note="one disk")
    assert (replaced["devices"], replaced["count"], replaced["text"]) == ("", None, "no RAID")
    assert store.clear_storage_description(run_id) is True
    assert store.clear_storage_description(run_id) is False
    assert store.storage_description(run_id) is None


def test_a_count_written_with_the_devices_is_said_once(store: SessionStore) -> None:
    """ "1 x Micron 7450 PRO 3.84TB NVMe" with a count of 1 read "1 x 1 x Micron 7450 ..." in
    the brief's system table and in the flag of an array priced unlike it."""
    run_id = new_run(store)
    found = store.set_storage_description(run_id, devices="1 x Micron 7450 PRO 3.84TB", count=1)
    assert found["text"] == "1 x Micron 7450 PRO 3.84TB"
    other = store.set_storage_description(run_id, devices="2 x Micron 7450 PRO", count=4)
    assert other["text"] == "2 x Micron 7450 PRO (4 devices)"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({}, "describe the storage"),
        ({"count": 0}, "at least 1, got 0"),
        ({"raid": "raid7"}, "a RAID level is like"),
        ({"devices": "x" * 201}, "at most 200 characters"),
        ({"filesystem": "ext4\udcff"}, "not valid text"),
    ],
)
def test_bad_descriptions_are_refused(
    store: SessionStore, fields: dict[str, object], message: str
) -> None:
    run_id = new_run(store)
    with pytest.raises(ValueError, match=message):
        store.set_storage_description(run_id, **fields)  # type: ignore[arg-type]
    assert store.storage_description(run_id) is None


def test_unknown_session_and_deleted_session(store: SessionStore) -> None:
    with pytest.raises(SessionNotFound):
        store.set_storage_description(99, raid="10")
    run_id = new_run(store)
    store.set_storage_description(run_id, raid="5")
    store.delete_run(run_id)
    with pytest.raises(SessionNotFound):
        store.storage_description(run_id)


def test_the_command_line_changes_the_parts_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "s.sqlite3"
    with SessionStore(db) as store:
        run_id = new_run(store)

    def cli(*args: str) -> int:
        return main(["--db", str(db), "sessions", "storage", str(run_id), *args])

    assert cli() == 0
    assert "no storage description" in capsys.readouterr().out
    assert cli("--devices", "Micron 5300 PRO 960GB", "--count", "4", "--raid", "10") == 0
    assert cli("--fs", "ext4") == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == (
        f"session {run_id}: 4 x Micron 5300 PRO 960GB, RAID 10, ext4 (entered by the user)"
    )
    assert cli("--json") == 0
    assert json.loads(capsys.readouterr().out)["filesystem"] == "ext4"
    assert cli("--raid", "11") == 1
    assert "a RAID level is like 0, 1, 5, 6, 10, none, jbod, raidz2 or mirror, got '11'" in (
        capsys.readouterr().err
    )
    assert cli("--clear", "--raid", "5") == 2
    assert cli("--clear") == 0
    assert "removed" in capsys.readouterr().out
    assert main(["--db", str(db), "sessions", "storage", "42", "--raid", "5"]) == 1
    assert "no session with id 42" in capsys.readouterr().err
