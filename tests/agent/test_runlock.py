"""The run lock on its own: real processes holding it, dying, and other users taking it over."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import bench_gui
from bench_gui.agent.runlock import (
    LockError,
    default_lock_dir,
    holder_info,
    lock_path,
    take_lock,
)
from tests._fixtures.wait import wait_until

REPO = str(Path(bench_gui.__file__).resolve().parents[1])
SYSTEM_PYTHON = "/usr/bin/python3"  # a Python any user may run (the venv's may sit under /root)
KEY = "postgresql|system=7300000000000000001|port=5432"

# Takes the lock (argv: path, JSON of extra holder fields, the repository), says how it went
# ("held", "shared: <with whom>" or "refused: <who holds it>"), then holds it until killed.
# ``stale_pid`` overwrites the file's text with a pid that has ended, ``stale_token`` with
# another run's token.
HOLDER = r"""
import json, os, sys, time
sys.path.insert(0, sys.argv[3])
from bench_gui.agent.runlock import holder_info, take_lock
extra = json.loads(sys.argv[2])
info = holder_info("/runs/r1/events.jsonl", extra, "the test server", extra.get("by", ""))
lock, held_by = take_lock(sys.argv[1], info)
if lock is not None and (extra.get("stale_pid") or extra.get("stale_token")):
    info["pid"] = extra.get("stale_pid") or info["pid"]
    info["run_token"] = extra.get("stale_token") or info["run_token"]
    os.ftruncate(lock.fd, 0)
    os.pwrite(lock.fd, (json.dumps(info) + "\n").encode(), 0)
if lock is None:
    print("refused: " + held_by, flush=True)
else:
    print("shared: " + held_by if held_by else "held", flush=True)
time.sleep(300)
"""


class Holder:
    """A process that holds (or tried to take) the lock until it is killed."""

    def __init__(self, path: str, extra: dict[str, Any], user: str | None = None) -> None:
        argv = [sys.executable, "-c", HOLDER, path, json.dumps(extra), REPO]
        if user is not None:
            argv = ["runuser", "-u", user, "--", SYSTEM_PYTHON, *argv[1:]]
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        self.said = self.proc.stdout.readline().strip()

    @property
    def pid(self) -> int:
        """The pid of the Python process that holds the lock (runuser's child, if any)."""
        if self.proc.args[0] != "runuser":  # type: ignore[index]
            return self.proc.pid
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text()
        return int(children.split()[0])

    def kill(self) -> None:
        """SIGKILL: the way a run dies without any chance to clean up."""
        child = self.pid if self.proc.args[0] == "runuser" else None  # type: ignore[index]
        if child is not None:
            os.kill(child, signal.SIGKILL)
        self.proc.kill()
        self.proc.wait()
        if child is not None:
            # runuser's child is not ours to wait for: its lock is free once it has exited
            # (gone, or a zombie), which a signal sent does not mean yet.
            wait_until(lambda: _exited(child), 30, f"holder {child} to exit")


def _exited(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


@pytest.fixture
def holders() -> Iterator[list[Holder]]:
    made: list[Holder] = []
    yield made
    for holder in made:
        if holder.proc.poll() is None:
            holder.kill()


def mine() -> dict[str, Any]:
    return holder_info(None, {"session_id": 2, "session_name": "second"}, "the test server")


def test_a_second_run_is_refused_naming_the_first_until_it_dies(
    tmp_path: Path, holders: list[Holder]
) -> None:
    path = lock_path(str(tmp_path / "locks"), KEY)
    first = Holder(
        path,
        {"session_id": 7, "session_name": "RAID 10 sweep", "action": "run", "by": "alice@laptop"},
    )
    holders.append(first)
    assert first.said == "held"

    lock, who = take_lock(path, mine())
    assert lock is None
    assert who.startswith('session 7 "RAID 10 sweep" (run): ')
    assert f"agent pid {first.pid} of " in who
    assert "(started from alice@laptop)" in who
    assert ", since 20" in who
    assert "spool /runs/r1/events.jsonl" in who

    first.kill()  # kill -9: the kernel drops the lock with the process, no stale lock is left
    lock, who = take_lock(path, mine())
    assert lock is not None, who
    try:
        text = json.loads(Path(path).read_text())
        assert text["pid"] == os.getpid()
        assert text["session_name"] == "second"
    finally:
        lock.release()


def test_a_holder_that_has_not_written_its_name_yet(tmp_path: Path, holders: list[Holder]) -> None:
    """The file still names a run that has ended while another process holds the lock: the
    refusal says the holder is a run just starting, not the dead one."""
    gone = subprocess.Popen(["true"])
    gone.wait()
    path = lock_path(str(tmp_path / "locks"), KEY)
    holder = Holder(path, {"session_id": 3, "stale_pid": gone.pid})
    holders.append(holder)
    assert holder.said == "held"
    lock, who = take_lock(path, mine())
    assert lock is None
    assert who.startswith("a run that is just starting (the lock file still names")
    assert f"agent pid {gone.pid} " in who


def run_agent(token: str, session_id: int = 5) -> dict[str, Any]:
    """The holder fields of an agent of a run on several driver hosts (its ``run_token``)."""
    config = {"session_id": session_id, "session_name": "two hosts", "run_token": token}
    return holder_info(None, config, "the test server", "carol@lab")


def test_agents_of_one_run_share_the_lock_other_runs_are_refused(
    tmp_path: Path, holders: list[Holder]
) -> None:
    """Two driver hosts of one run on one machine: the second agent shares the first's lock
    and says with whom; another run, with or without a token, is refused naming the first."""
    path = lock_path(str(tmp_path / "locks"), KEY)
    extra = {"session_id": 5, "session_name": "two hosts", "run_token": "run-a", "by": "carol@lab"}
    first = Holder(path, extra)
    holders.append(first)
    assert first.said == "held"
    second = Holder(path, extra)
    holders.append(second)
    assert second.said.startswith('shared: session 5 "two hosts" (run): ')
    assert f"agent pid {first.pid} of " in second.said

    for other in (run_agent("run-b", session_id=6), mine()):
        lock, who = take_lock(path, other)
        assert lock is None
        assert who.startswith('session 5 "two hosts" (run): ')
        assert f"agent pid {first.pid} of " in who

    # The run's first agent dies: the lock lasts while another agent of its run holds it, and
    # the refusal says so; a third agent of the run still joins it.
    first.kill()
    lock, who = take_lock(path, mine())
    assert lock is None
    assert f"agent pid {first.pid} of " in who
    assert who.endswith("(that agent has ended; the run's other agents on this host hold it)")
    third = Holder(path, extra)
    holders.append(third)
    assert third.said.startswith('shared: session 5 "two hosts" (run): ')
    assert third.said.endswith(
        "(that agent has ended; the run's other agents on this host hold it)"
    )

    second.kill()
    third.kill()  # the last agent of the run is gone: the lock is free
    lock, who = take_lock(path, mine())
    assert lock is not None, who
    lock.release()


def test_a_dead_agent_of_the_run_leaves_the_lock_to_the_next(
    tmp_path: Path, holders: list[Holder]
) -> None:
    """The file names an agent of our run that has died (nobody holds the lock): the next
    agent of the run takes it as its own and writes its name, it shares nobody's."""
    path = lock_path(str(tmp_path / "locks"), KEY)
    gone = Holder(path, {"session_id": 5, "run_token": "run-a"})
    holders.append(gone)
    assert gone.said == "held"
    gone.kill()
    lock, who = take_lock(path, run_agent("run-a"))
    assert lock is not None
    try:
        assert (who, lock.shared_with) == ("", "")
        assert json.loads(Path(path).read_text())["pid"] == os.getpid()
    finally:
        lock.release()


def test_our_token_in_a_text_another_run_is_taking_over_is_not_ours(
    tmp_path: Path, holders: list[Holder]
) -> None:
    """Another run holds the lock alone but its text still names our run (it has not written
    its own yet): the text is stale, our agent is refused, not covered."""
    gone = subprocess.Popen(["true"])
    gone.wait()
    path = lock_path(str(tmp_path / "locks"), KEY)
    holder = Holder(path, {"session_id": 3, "stale_pid": gone.pid, "stale_token": "run-a"})
    holders.append(holder)
    assert holder.said == "held"
    lock, who = take_lock(path, run_agent("run-a"))
    assert lock is None
    assert who.startswith("a run that is just starting (the lock file still names")


def test_another_runs_token_in_a_shared_lock_is_refused(
    tmp_path: Path, holders: list[Holder]
) -> None:
    """A lock held shared by the agents of one run is no way in for another run's agent."""
    path = lock_path(str(tmp_path / "locks"), KEY)
    theirs = Holder(path, {"session_id": 6, "session_name": "theirs", "run_token": "run-b"})
    holders.append(theirs)
    assert theirs.said == "held"
    ours = Holder(path, {"session_id": 5, "run_token": "run-a"})
    holders.append(ours)
    assert ours.said.startswith('refused: session 6 "theirs" (run): ')
    assert f"agent pid {theirs.pid} of " in ours.said


def test_a_link_in_place_of_the_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "locks").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(LockError, match="is not a folder"):
        take_lock(lock_path(str(tmp_path / "locks"), KEY), mine())


def test_the_folder_is_made_open_to_every_user(tmp_path: Path) -> None:
    lock, _ = take_lock(lock_path(str(tmp_path / "locks"), KEY), mine())
    assert lock is not None
    lock.release()
    assert (tmp_path / "locks").stat().st_mode & 0o7777 == 0o1777
    assert Path(lock.path).stat().st_mode & 0o777 == 0o666


needs_other_user = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("runuser") or not Path(SYSTEM_PYTHON).exists(),
    reason="needs root, runuser and a system Python to act as another user",
)


@needs_other_user
def test_every_user_finds_the_same_lock_folder() -> None:
    """A local run of one account and an SSH run of another look in the same place."""
    theirs = subprocess.run(
        ["runuser", "-u", "nobody", "--", SYSTEM_PYTHON, "-c",
         "import sys; sys.path.insert(0, sys.argv[1]);"
         " from bench_gui.agent.runlock import default_lock_dir; print(default_lock_dir())",
         REPO],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    assert theirs == default_lock_dir()


@needs_other_user
def test_another_user_takes_the_lock_after_us_and_is_named(holders: list[Holder]) -> None:
    """Two accounts on one host (two desktops, or root and a user): the lock file created by
    one is taken by the other once it is free, and the refusal names that user."""
    folder = Path(tempfile.mkdtemp(prefix="bench-gui-locktest-", dir="/tmp"))
    try:
        folder.chmod(0o755)
        path = lock_path(str(folder / "locks"), KEY)
        lock, _ = take_lock(path, mine())  # root creates the folder and the file
        assert lock is not None
        lock.release()

        theirs = Holder(
            path, {"session_id": 9, "session_name": "theirs", "by": "bob@desk"}, "nobody"
        )
        holders.append(theirs)
        assert theirs.said == "held"
        lock, who = take_lock(path, mine())
        assert lock is None
        assert f"agent pid {theirs.pid} of nobody on " in who
        assert 'session 9 "theirs"' in who

        theirs.kill()
        lock, who = take_lock(path, mine())
        assert lock is not None, who
        lock.release()
    finally:
        shutil.rmtree(folder)


def test_odd_characters_in_the_holders_text_are_shown_escaped(
    tmp_path: Path, holders: list[Holder]
) -> None:
    """Whoever can write the lock file decides its text: a name with a line break or a
    right-to-left override comes out escaped, never as a control of the terminal."""
    path = lock_path(str(tmp_path / "locks"), KEY)
    holder = Holder(path, {"session_id": 4, "session_name": "evil\u202etxt.exe\nnext line"})
    holders.append(holder)
    lock, who = take_lock(path, mine())
    assert lock is None
    assert 'session 4 "evil\\u202etxt.exe\\u000anext line"' in who
    assert who.isprintable()
