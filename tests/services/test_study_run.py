"""A study of two systems against the tests' private PostgreSQL (two databases on one server):
it runs to a finished brief, resumes after an interruption between systems without measuring
again, and applies a system's tuning preset for its run only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg
import pytest

from bench_gui.core.study import load_study
from bench_gui.report.study_brief import write_brief
from bench_gui.services.run_errors import RunError
from bench_gui.services.study_identity import recorded_identity
from bench_gui.services.study_run import StudyProgress, StudyRunner, system_tag, valid_session
from bench_gui.store import SessionStore
from tests._fixtures.ssh import free_port

pytestmark = pytest.mark.integration

PRESET = """\
name = "study-test-ssd"
title = "random_page_cost as an SSD's"
[settings]
random_page_cost = "1.1"
"""


def study_text(pg_server: Any, duration: float = 3) -> str:
    systems = []
    for key, database, extra in (
        ("disk", "study_disk", 'devices = "Test HDD 1TB"\ncount = 4\nraid = "10"\n'),
        ("ssd", "study_ssd", 'devices = "Test SSD 1TB"\ncount = 2\nraid = "1"\n'),
    ):
        systems.append(
            f'[systems.{key}]\nname = "{key.upper()} server"\n'
            f'[systems.{key}.target]\nkind = "postgresql"\nhost = "{pg_server.socket_dir}"\n'
            f'database = "{database}"\n[systems.{key}.storage]\n{extra}'
        )
    return (
        'name = "Disk against SSD"\nkey = "study-test"\nbaseline = "disk"\n'
        "[workload]\nwarehouses = 1\nvirtual_users = [1]\nrampup_s = 1\n"
        f"duration_s = {duration}\nprocesses = 1\n"
        "[stop]\nmin_gain_pct = 5\n"
        '[[prices.device]]\ndevice = "Test HDD 1TB"\nunit_price = 50\n'
        '[[prices.device]]\ndevice = "Test SSD 1TB"\nunit_price = 90\n'
        '[report]\noutput = "brief"\nformats = ["html", "json"]\nauthor = "Bench team"\n'
        '[report.short_names]\ndisk = "Spinning disks"\n'
        + "\n".join(systems)
        + '[systems.ssd.tuning]\nprofile = "ssd-preset.toml"\nrestart = false\n'
    )


@pytest.fixture
def study_file(pg_server: Any, tmp_path: Path) -> Path:
    pg_server.clone_tpcc("study_disk", warehouses=1)
    pg_server.clone_tpcc("study_ssd", warehouses=1)
    (tmp_path / "ssd-preset.toml").write_text(PRESET)
    path = tmp_path / "study.toml"
    path.write_text(study_text(pg_server))
    return path


class Interrupt(Exception):
    pass


def test_a_study_resumes_between_systems_and_writes_its_brief(
    pg_server: Any, study_file: Path, tmp_path: Path
) -> None:
    study = load_study(study_file)
    seen: list[StudyProgress] = []

    def stop_at_second(progress: StudyProgress) -> None:
        seen.append(progress)
        if progress.index == 2 and progress.stage == "tuning":
            raise KeyboardInterrupt  # the user's Ctrl+C between the two systems

    with SessionStore(tmp_path / "sessions.sqlite3") as store:
        runner = StudyRunner(study, store, study_file.parent, on_progress=stop_at_second)
        with pytest.raises(KeyboardInterrupt):
            runner.run()
        first = valid_session(store, study, study.system("disk"))
        assert first is not None
        assert valid_session(store, study, study.system("ssd")) is None
        assert not (tmp_path / "brief.html").exists()
        running = [p for p in seen if p.stage == "running" and p.step]
        assert running
        assert running[0].system == "disk"
        assert running[0].steps == 1
        # Left: the disk's step then the SSD's whole sweep (1 s ramp-up + 3 s measured each).
        assert running[0].remaining_s == 8
        runs_before = len(store.list_runs())

        seen.clear()
        runner = StudyRunner(
            study, store, study_file.parent, on_progress=seen.append, write_brief=write_brief
        )
        result = runner.run()
        assert result.skipped == ["disk"]
        assert result.measured == ["ssd"]
        assert result.sessions["disk"] == first
        assert len(store.list_runs()) == runs_before + 1  # the disk was not measured again
        assert [p.stage for p in seen][:1] == ["skipped"]
        # The time left only goes down: the SSD's rollback comes after its runs, so it says
        # what is left after them (0 s), not the 4 s it said before them.
        lefts = [p.remaining_s for p in seen if p.remaining_s is not None]
        assert lefts == sorted(lefts, reverse=True), [(p.stage, p.remaining_s) for p in seen]
        assert [p.remaining_s for p in seen if p.stage == "rollback"] == [0]

        second = result.sessions["ssd"]
        assert set(store.tags(second)) == {"study:study-test", system_tag(study.system("ssd"))}
        assert store.storage_description(second)["raid"] == "1"
        # The preset was in force for the run and rolled back after it.
        assert store.get_run(second).settings["random_page_cost"]["setting"] == "1.1"
        # (the settings stored are those not at their default)
        assert store.get_run(first).settings.get("random_page_cost", {}).get("setting") != "1.1"
        with psycopg.connect(pg_server.uri()) as conn:
            row = conn.execute("SHOW random_page_cost").fetchone()
        assert row is not None
        assert row[0] != "1.1"
        # The study's prices joined the price list; the brief was written beside the file.
        assert {p.device for p in store.device_prices()} >= {"Test HDD 1TB", "Test SSD 1TB"}
        html = (tmp_path / "brief.html").read_text()
        assert "Disk against SSD" in html
        assert "DISK server" in html
        assert "SSD server" in html
        assert "Bench team" in html
        # "How to reproduce": the study file itself closes the brief.
        assert "How to reproduce: the study file" in html
        assert "study-test" in html.split("How to reproduce")[1]
        assert "ssd-preset.toml" in html.split("How to reproduce")[1]
        # The author's short name for the disk system; the SSD's is made by the report.
        brief = json.loads((tmp_path / "brief.json").read_text())
        assert brief["short_names"][str(first)] == "Spinning disks"
        assert "Spinning disks" in html
        assert result.written == [tmp_path / "brief.html", tmp_path / "brief.json"]

        # A changed sweep makes the stored sessions stale: they would be measured again.
        study_file.write_text(study_text(pg_server, duration=4))
        changed = load_study(study_file)
        assert valid_session(store, changed, changed.system("disk")) is None


def test_ctrl_c_mid_run_ends_the_session_as_stopped_and_it_is_measured_again(
    pg_server: Any, study_file: Path, tmp_path: Path
) -> None:
    study = load_study(study_file)

    def interrupt_at_first_sample(_system: Any, event: Any) -> None:
        if event.kind == "sample":
            raise KeyboardInterrupt

    with SessionStore(tmp_path / "sessions.sqlite3") as store:
        runner = StudyRunner(study, store, study_file.parent, on_event=interrupt_at_first_sample)
        with pytest.raises(KeyboardInterrupt):
            runner.run(brief=False)
        (stopped,) = store.list_runs()
        # Finished as stopped, not left "running"; tagged, but no valid measurement.
        assert stopped.status == "incomplete"
        assert "study:study-test" in store.tags(stopped.id)
        assert valid_session(store, study, study.system("disk")) is None


def test_stop_while_a_preset_is_applied_starts_no_run(
    pg_server: Any, study_file: Path, tmp_path: Path
) -> None:
    """The Study page's Stop pressed while the second system's preset is being applied (no run
    going yet): that system is not measured and its preset is rolled back."""
    study = load_study(study_file)
    runner: StudyRunner | None = None
    stages: list[tuple[str, str]] = []

    def stop_at_tuning(progress: StudyProgress) -> None:
        stages.append((progress.system, progress.stage))
        if progress.system == "ssd" and progress.stage == "tuning":
            assert runner is not None
            runner.stop()

    with SessionStore(tmp_path / "sessions.sqlite3") as store:
        runner = StudyRunner(study, store, study_file.parent, on_progress=stop_at_tuning)
        with pytest.raises(RunError, match="the study was stopped"):
            runner.run()
        assert valid_session(store, study, study.system("disk")) is not None
        assert ("ssd", "running") not in stages
        assert ("ssd", "rollback") in stages
        assert len(store.list_runs()) == 1  # the SSD system was not run
    with psycopg.connect(pg_server.uri()) as conn:
        row = conn.execute("SHOW random_page_cost").fetchone()
    assert row is not None
    assert row[0] != "1.1"


def test_a_changed_server_is_measured_again_and_the_notes_say_why(
    pg_server: Any, study_file: Path, tmp_path: Path
) -> None:
    """Resuming skips a system only when the server behind its target is the one its session
    measured: a session recorded on other hardware (another cluster, less RAM) is re-run."""
    study = load_study(study_file)
    with SessionStore(tmp_path / "sessions.sqlite3") as store:
        first = StudyRunner(study, store, study_file.parent).run(brief=False)
        disk = first.sessions["disk"]
        recorded = recorded_identity(store, disk)
        assert recorded is not None
        with psycopg.connect(pg_server.uri()) as conn:
            row = conn.execute("SELECT system_identifier::text FROM pg_control_system()")
            identifier = row.fetchone()
        assert identifier is not None
        assert recorded["server"] == identifier[0]
        assert recorded["engine"] == "postgresql"
        assert recorded["version"]

        again = StudyRunner(study, store, study_file.parent).run(brief=False)
        assert again.skipped == ["disk", "ssd"]
        assert again.changed == {}

        # Last quarter's session of the disk system was measured on another machine.
        other = dict(recorded, server="7000000000000000001")
        if recorded.get("ram_bytes"):
            other["ram_bytes"] = recorded["ram_bytes"] // 2
        store.update_inventory(disk, {"study_system": other})
        seen: list[StudyProgress] = []
        third = StudyRunner(study, store, study_file.parent, on_progress=seen.append).run(
            brief=False
        )
        assert third.measured == ["disk"]
        assert third.skipped == ["ssd"]
        assert third.sessions["disk"] != disk
        assert "server identifier 7000000000000000001 -> " + identifier[0] in third.changed["disk"]
        assert any("measured again" in n and f"session {disk}" in n for n in third.notes)
        running = [p for p in seen if p.system == "disk" and p.stage == "running"]
        assert running[0].message.startswith("measured again: server identifier")
        # The new session records today's server: the next resume skips it.
        assert recorded_identity(store, third.sessions["disk"]) == recorded


def test_a_failed_run_s_error_names_its_system(
    pg_server: Any, study_file: Path, tmp_path: Path
) -> None:
    """A study runs several systems: the error of one that failed says which (it was the run's
    own message alone, "connection refused", with no system in it)."""
    nobody = free_port()  # no server listens there
    text = study_text(pg_server).replace(
        f'host = "{pg_server.socket_dir}"\ndatabase = "study_disk"',
        f'host = "127.0.0.1"\nport = {nobody}\ndatabase = "study_disk"',
    )
    assert f"port = {nobody}" in text
    study_file.write_text(text)
    study = load_study(study_file)
    with SessionStore(tmp_path / "sessions.sqlite3") as store:
        runner = StudyRunner(study, store, study_file.parent)
        with pytest.raises(RunError) as raised:
            runner.run(brief=False)
        message = str(raised.value)
        assert message.startswith("system disk (DISK server) failed (session "), message
        assert str(nobody) in message
        assert valid_session(store, study, study.system("disk")) is None
